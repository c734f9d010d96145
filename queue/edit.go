package queue

// Editing the shared queue: moving entries (drag and drop, Alt+↑/↓),
// removing several at once, and restoring a queue as it was (undo of a
// removal or a clear). Like every control these run on the owner, which
// distributes the result; a controller sends them as stamped commands.

import (
	"fmt"
	"slices"
)

// Limits of a queue edit's arguments: as many indexes as the queue has
// entries, each named at most once.
const maxEditIndexes = MaxQueue

// checkIndexes validates the queue indexes of a move or removal and, when
// the control names the entries it means (ids, in the same order), that
// those entries are still there: another device may have changed the
// queue since this one looked at it, and a stale edit must not move or
// remove the wrong tracks.
func (s State) checkIndexes(idx []int, ids []string) error {
	if len(s.Queue) == 0 {
		return userErr(ErrQueueEmpty, "the queue is empty")
	}
	if len(idx) == 0 {
		return userErr(ErrBadArgument, "no queue entries given")
	}
	if len(idx) > maxEditIndexes || len(idx) > len(s.Queue) {
		return userErr(ErrBadArgument, "%d entries given; the queue has %d", len(idx), len(s.Queue))
	}
	if len(ids) != 0 && len(ids) != len(idx) {
		return fmt.Errorf("queue: %d content ids for %d queue indexes", len(ids), len(idx))
	}
	seen := make(map[int]bool, len(idx))
	for k, i := range idx {
		if err := s.checkIndex(i); err != nil {
			return err
		}
		if seen[i] {
			return userErr(ErrBadArgument, "queue index %d is given twice", i)
		}
		seen[i] = true
		if len(ids) != 0 && s.Queue[i].ContentID != ids[k] {
			return userErr(ErrQueueChanged, "the queue changed on another device: index %d is no longer the track meant; nothing was changed", i)
		}
	}
	return nil
}

// playOrder is the queue's indexes in the order they play: Order while
// shuffled, the queue's own order otherwise.
func (s State) PlayOrder() []int {
	if s.Shuffle {
		return slices.Clone(s.Order)
	}
	o := make([]int, len(s.Queue))
	for i := range o {
		o[i] = i
	}
	return o
}

// move moves the entries at queue indexes idx so that, in play order,
// they follow each other (in the order they played before) from position
// to, clamped to the queue. Without shuffle that reorders the queue and
// the current entry keeps playing at its new index; with shuffle the
// queue keeps its order and the play order changes, so it stays a
// permutation of the queue. It returns old index -> new index.
func (s *State) move(idx []int, to int) []int {
	order := MovedOrder(s.PlayOrder(), idx, to)
	reindex := make([]int, len(s.Queue))
	if s.Shuffle {
		s.Order = order
		for i := range reindex {
			reindex[i] = i
		}
		return reindex
	}
	q := make([]Entry, len(order))
	for n, old := range order {
		q[n] = s.Queue[old]
		reindex[old] = n
	}
	s.Queue = q
	s.Index = reindex[s.Index]
	return reindex
}

// MovedOrder is order (queue indexes in play order) after moving the
// indexes idx so that they follow each other, in the order they had in
// order, from position to of the entries that do not move (clamped to
// them). It is the rule of every queue move; idx must be valid and
// distinct.
func MovedOrder(order, idx []int, to int) []int {
	moving := make(map[int]bool, len(idx))
	for _, i := range idx {
		moving[i] = true
	}
	var moved, rest []int
	for _, i := range order {
		if moving[i] {
			moved = append(moved, i)
		} else {
			rest = append(rest, i)
		}
	}
	to = max(0, min(to, len(rest)))
	return slices.Concat(rest[:to], moved, rest[to:])
}

// removeMany removes the entries at queue indexes idx. When the current
// entry goes, the next entry of the play order that stays becomes
// current (from its start, still playing); when none follows, playback
// stops on the last entry left. It returns what changed for the output,
// with old index -> new index (-1: removed).
func (s *State) removeMany(idx []int) Change {
	var ch Change
	gone := make(map[int]bool, len(idx))
	for _, i := range idx {
		gone[i] = true
	}
	reindex := make([]int, len(s.Queue))
	n := 0
	for i := range s.Queue {
		if gone[i] {
			reindex[i] = -1
			continue
		}
		reindex[i] = n
		n++
	}
	// The entry to go on with when the current one goes: the first one
	// after it in play order (wrapping round with repeat all) that stays.
	next, more := -1, false
	if gone[s.Index] {
		probe := s.Clone()
		for range len(probe.Queue) {
			i, ok := probe.After()
			if !ok || i == s.Index {
				break
			}
			probe.Index = i
			if !gone[i] {
				next, more = i, true
				break
			}
		}
	}
	cur := s.Index
	kept := make([]Entry, 0, n)
	for i, e := range s.Queue {
		if !gone[i] {
			kept = append(kept, e)
		}
	}
	s.Queue = kept
	if s.Shuffle {
		order := make([]int, 0, n)
		for _, i := range s.Order {
			if !gone[i] {
				order = append(order, reindex[i])
			}
		}
		s.Order = order
	}
	switch {
	case len(s.Queue) == 0:
		s.Index, s.Playing, s.PositionMS, s.Order = 0, false, 0, nil
		ch.Stopped = true
	case !gone[cur]:
		s.Index = reindex[cur]
	case more:
		s.Index, s.PositionMS = reindex[next], 0
		ch.Track = true
	default:
		// Nothing follows in play order: stop on the last entry left.
		s.Index = s.At(len(s.Queue) - 1)
		s.PositionMS, s.Playing = 0, false
		ch.Track = true
	}
	ch.Reindex = reindex
	return ch
}

// restore replaces the queue with a saved one (an undo): its entries, play
// order, current entry and position. When the entry playing now is the
// saved current entry, it plays on undisturbed; otherwise the saved entry
// is loaded at the saved position, playing or paused as saved.
func (s *State) restore(c Control) (Change, error) {
	var ch Change
	switch {
	case len(c.Entries) == 0:
		return ch, userErr(ErrBadArgument, "nothing to restore")
	case len(c.Entries) > MaxQueue:
		return ch, fmt.Errorf("queue: at most %d tracks in the queue", MaxQueue)
	case c.Index < 0 || c.Index >= len(c.Entries):
		return ch, userErr(ErrQueueIndex, "index %d is out of range (0 to %d)", c.Index, len(c.Entries)-1)
	case c.PosMS < 0:
		return ch, userErr(ErrBadArgument, "negative position")
	case len(c.Order) > 0 && !IsPermutation(c.Order, len(c.Entries)):
		return ch, fmt.Errorf("queue: the saved play order does not fit the saved queue")
	}
	for _, e := range c.Entries {
		if !ValidContentID(e.ContentID) {
			return ch, fmt.Errorf("queue: bad content id %q in the saved queue", e.ContentID)
		}
	}
	cur, ok := s.Current()
	same := ok && cur.ContentID == c.Entries[c.Index].ContentID
	reindex := make([]int, len(s.Queue))
	for i := range reindex {
		reindex[i] = -1
	}
	if same {
		reindex[s.Index] = c.Index
	}
	s.Queue, s.Index = slices.Clone(c.Entries), c.Index
	switch {
	case !s.Shuffle:
		s.Order = nil
	case len(c.Order) > 0:
		s.Order = slices.Clone(c.Order)
	default:
		s.Seed = mix(s.Seed)
		s.Order = ShuffledOrder(s.Seed, len(s.Queue), s.Index)
	}
	ch.Reindex = reindex
	if !same {
		s.PositionMS, s.Playing = c.PosMS, c.On
		if e := s.Queue[s.Index]; e.DurationMS > 0 {
			s.PositionMS = min(s.PositionMS, e.DurationMS)
		}
		ch.Track = true
	}
	return ch, nil
}
