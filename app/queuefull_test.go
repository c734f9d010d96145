package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/queue"
)

// A list longer than the queue holds (queue.MaxQueueBytes) plays from its
// start track for as many as fit, with a notice that says so; adding to a
// full queue is refused with a sentence and changes nothing.
func TestALongListPlaysWhatTheQueueHolds(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	es := make([]Entry, 8000)
	for i := range es {
		es[i] = Entry{ContentID: fmt.Sprintf("b3:%064x", i), Title: strings.Repeat("t", 100), DurationMS: 1000}
	}
	es[0].ContentID = "b3:aa" // a track of the library, to play
	const start = 100
	es[start].ContentID = "b3:aa"
	if err := r.app.PlayEntries(es, start); err != nil {
		t.Fatal(err)
	}
	lo, hi := queue.Fit(es, start)
	st := r.app.Status()
	if st.QueueLen != hi-lo || st.Index != start-lo || hi == len(es) {
		t.Fatalf("queue of %d at %d, want %d at %d (of %d)", st.QueueLen, st.Index, hi-lo, start-lo, len(es))
	}
	n := st.Notices[len(st.Notices)-1]
	if want := fmt.Sprintf("Playing %d of the 8000 tracks", hi-lo); !strings.HasPrefix(n.Text, want) {
		t.Fatalf("notice %q, want %q...", n.Text, want)
	}
	err := r.app.EnqueueEntries(es[hi:hi+1], false)
	if !errors.Is(err, ErrQueueFull) || !strings.Contains(UserMessage(err), "the queue is full") {
		t.Fatalf("adding to a full queue: %v (%q)", err, UserMessage(err))
	}
	if got := r.app.Status().QueueLen; got != hi-lo {
		t.Fatalf("a refused add left a queue of %d, want %d", got, hi-lo)
	}
}
