package queue

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// longEntries are n entries whose names take about size bytes each.
func longEntries(n, size int, r *rand.Rand) []Entry {
	es := make([]Entry, n)
	for i := range es {
		es[i] = Entry{ContentID: fmt.Sprintf("b3:%064x", i), Title: strings.Repeat("t", r.Intn(size)),
			Artists: []string{"A"}, DurationMS: int64(i)}
	}
	return es
}

// TestFitKeepsWhatFollowsTheStart: Fit takes the tracks from start on,
// then before it, never over MaxQueueBytes, and all of a list that fits.
func TestFitKeepsWhatFollowsTheStart(t *testing.T) {
	seed := time.Now().UnixNano()
	r := rand.New(rand.NewSource(seed))
	for range 50 {
		es := longEntries(1+r.Intn(12000), 1+r.Intn(400), r)
		start := r.Intn(len(es))
		lo, hi := Fit(es, start)
		got := QueueBytes(es[lo:hi])
		switch {
		case lo > start || hi <= start:
			t.Fatalf("seed %d: Fit(%d entries, %d) = [%d, %d) leaves out the start", seed, len(es), start, lo, hi)
		case got > MaxQueueBytes || hi-lo > MaxQueue:
			t.Fatalf("seed %d: [%d, %d) takes %d bytes, %d tracks", seed, lo, hi, got, hi-lo)
		case hi < len(es) && (lo != start || got+EntryBytes(es[hi]) <= MaxQueueBytes):
			t.Fatalf("seed %d: [%d, %d) of %d stops early after the start", seed, lo, hi, len(es))
		case lo > 0 && hi == len(es) && got+EntryBytes(es[lo-1]) <= MaxQueueBytes && hi-lo < MaxQueue:
			t.Fatalf("seed %d: [%d, %d) of %d stops early before the start", seed, lo, hi, len(es))
		case QueueBytes(es) <= MaxQueueBytes && len(es) <= MaxQueue && (lo != 0 || hi != len(es)):
			t.Fatalf("seed %d: a list that fits gave [%d, %d) of %d", seed, lo, hi, len(es))
		}
	}
}

// TestAQueueThatWouldNotTravelIsRefused: playing or adding tracks past
// MaxQueueBytes is refused with ErrQueueFull and changes nothing.
func TestAQueueThatWouldNotTravelIsRefused(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	es := longEntries(6000, 300, r)
	lo, hi := Fit(es, 0)
	if hi == len(es) {
		t.Fatalf("6,000 long entries fit: %d bytes", QueueBytes(es))
	}
	s := DefaultState()
	if _, err := s.Apply(Control{Op: OpPlayTracks, Entries: es}, 0); !errors.Is(err, ErrQueueFull) || len(s.Queue) != 0 {
		t.Fatalf("playing %d bytes of entries: %v, queue of %d", QueueBytes(es), err, len(s.Queue))
	}
	if _, err := s.Apply(Control{Op: OpPlayTracks, Entries: es[lo:hi]}, 0); err != nil {
		t.Fatalf("playing what Fit gave: %v", err)
	}
	before := s.Clone()
	if _, err := s.Apply(Control{Op: OpEnqueue, Entries: es[hi : hi+1]}, 0); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("adding one more to a full queue: %v", err)
	}
	if !s.Equal(before) {
		t.Fatal("a refused enqueue changed the state")
	}
}

// TestTrimKeepsTheCurrentTrack: a saved queue past MaxQueueBytes is cut
// around its current track, which stays current, with a fitting order.
func TestTrimKeepsTheCurrentTrack(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	s := DefaultState()
	s.Queue = longEntries(9000, 200, r)
	s.Index, s.Shuffle, s.Seed = 7000, true, 5
	s.Order = ShuffledOrder(s.Seed, len(s.Queue), s.Index)
	cur := s.Queue[s.Index]
	dropped := s.Trim()
	if dropped == 0 || len(s.Queue)+dropped != 9000 || QueueBytes(s.Queue) > MaxQueueBytes {
		t.Fatalf("dropped %d, kept %d of %d bytes", dropped, len(s.Queue), QueueBytes(s.Queue))
	}
	if got, _ := s.Current(); !got.Equal(cur) || s.Validate() != nil {
		t.Fatalf("current %+v, want %+v; %v", got, cur, s.Validate())
	}
	if s.Trim() != 0 {
		t.Fatal("a trimmed queue was trimmed again")
	}
}
