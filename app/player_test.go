package app

import (
	"testing"

	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/queue"
	"github.com/furudesk/furudesk/storage"
)

// The queue's limits are storage's and the library's: a state the owner
// accepts can be stored, and its content ids are the library's.
func TestQueueLimitsAgreeWithStorage(t *testing.T) {
	if queue.MaxQueue != storage.MaxQueueItems || queue.MaxContentIDBytes != storage.MaxContentIDBytes ||
		queue.ContentIDPrefix != library.ContentIDPrefix {
		t.Fatalf("queue limits %d %d %q, storage %d %d, library %q", queue.MaxQueue, queue.MaxContentIDBytes,
			queue.ContentIDPrefix, storage.MaxQueueItems, storage.MaxContentIDBytes, library.ContentIDPrefix)
	}
}
