package queue

import (
	"encoding/json"
	"slices"
)

// MaxQueueBytes bounds what the queue's entries (and their shuffled
// order) take in the state's JSON. An owner sends its whole state in one
// snapshot line of at most devicesync.MaxLineBytes (1 MiB), every second
// to every device; a queue past that was never sent, so no other device
// saw it or could take it over. MaxQueue tracks of short names fit;
// tracks with long names fit fewer. The rest of the state (acks, marks,
// a notice) and the envelope take the remaining 128 KiB (app checks that
// a state at every bound fits a line).
const MaxQueueBytes = 896 << 10

// orderBytes is the most an entry adds to the shuffled order: an index
// below MaxQueue and a comma.
const orderBytes = 6

// EntryBytes is what e takes in the queue's JSON, its order included.
func EntryBytes(e Entry) int {
	b, _ := json.Marshal(e) // strings and numbers: cannot fail
	return len(b) + len(",") + orderBytes
}

// QueueBytes is what entries take in the queue's JSON, their order
// included.
func QueueBytes(entries []Entry) int {
	n := 0
	for _, e := range entries {
		n += EntryBytes(e)
	}
	return n
}

// Fit is the longest run entries[lo:hi] holding start that fits
// MaxQueueBytes and MaxQueue tracks: from start on as far as it goes,
// then before start with what room is left. Played from start, a list
// longer than the queue holds keeps the tracks that come next.
func Fit(entries []Entry, start int) (lo, hi int) {
	if start < 0 || start >= len(entries) {
		return 0, 0
	}
	room := MaxQueueBytes
	lo, hi = start, start
	for hi < len(entries) && hi-lo < MaxQueue {
		n := EntryBytes(entries[hi])
		if n > room {
			return lo, hi
		}
		room -= n
		hi++
	}
	for lo > 0 && hi-lo < MaxQueue {
		n := EntryBytes(entries[lo-1])
		if n > room {
			break
		}
		room -= n
		lo--
	}
	return lo, hi
}

// Trim cuts a queue longer than MaxQueueBytes (a state saved by an older
// build) to the run Fit gives around its current track, the shuffled
// order made again for it. It returns how many tracks it dropped.
func (s *State) Trim() int {
	if QueueBytes(s.Queue) <= MaxQueueBytes && len(s.Queue) <= MaxQueue {
		return 0
	}
	lo, hi := Fit(s.Queue, max(s.Index, 0))
	dropped := len(s.Queue) - (hi - lo)
	s.Queue = slices.Clone(s.Queue[lo:hi])
	s.Index = max(s.Index-lo, 0)
	s.Order = nil
	s.Normalize()
	return dropped
}
