package app

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
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

// A state at every bound the owner enforces fits the one snapshot line
// devicesync sends it in (queue.MaxQueueBytes): the longest device ids
// in the most acks and marks, the longest notice of characters JSON
// escapes, a full shuffled order and queue entries up to the byte bound.
func TestAFullStateFitsASnapshotLine(t *testing.T) {
	dev := func(i int) engine.DeviceID {
		return engine.DeviceID(fmt.Sprintf("%0*d", engine.MaxDeviceIDLen, i))
	}
	st := queue.State{Volume: 100, Repeat: "off", Shuffle: true, Seed: math.MaxUint64, Jumps: math.MaxUint64,
		Launch: math.MaxUint64, PositionMS: math.MaxInt64, Output: strings.Repeat("<", 256),
		Term:   engine.Claim{Counter: math.MaxUint64, Issuer: dev(0), Owner: dev(1)},
		Notice: &queue.SharedNotice{ID: math.MaxUint64, Text: strings.Repeat("\x01", queue.MaxNotice)},
		Acks:   map[engine.DeviceID]uint64{}, AckFrom: map[engine.DeviceID]uint64{}, Applied: map[engine.DeviceID]queue.Marks{}}
	for i := range engine.MaxSendersPerTerm {
		st.Acks[dev(i)], st.AckFrom[dev(i)] = math.MaxUint64, math.MaxUint64
		st.Applied[dev(i)] = queue.Marks{Top: math.MaxUint64, Bits: math.MaxUint64}
	}
	e := queue.Entry{Title: strings.Repeat("&", 40), Artists: []string{"A"}, DurationMS: math.MaxInt64}
	for n, size := 0, 0; ; n++ {
		e.ContentID = fmt.Sprintf("b3:%064x", n)
		if size += queue.EntryBytes(e); n+1 > queue.MaxQueue || size > queue.MaxQueueBytes {
			break
		}
		st.Queue = append(st.Queue, e)
	}
	for i := range st.Queue {
		st.Order = append(st.Order, len(st.Queue)-1-i)
	}
	if err := st.Validate(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	// The line adds the envelope: its type, the coordination (a claim and
	// heartbeat of the longest ids), a sequence and a signature.
	const envelope = 4 << 10
	if len(b)+envelope > devicesync.MaxLineBytes {
		t.Fatalf("a full state of %d tracks takes %d bytes, a snapshot line holds %d", len(st.Queue), len(b)+envelope, devicesync.MaxLineBytes)
	}
	t.Logf("a full state of %d tracks: %d bytes of %d", len(st.Queue), len(b)+envelope, devicesync.MaxLineBytes)
}
