package fakebackend

import (
	"errors"
	"fmt"
	"slices"

	"github.com/furudesk/furudesk/app"
)

// The queue edits of the fake: like the app's, moves are in play order
// (Status.Order while shuffled, where only the order changes), the
// current entry keeps playing, and stale content ids are refused.

// ErrQueueChanged is what the fake refuses a stale edit with.
var ErrQueueChanged = errors.New("fakebackend: the queue changed")

func (b *Backend) checkLocked(idx []int, ids []string) error {
	q := b.st.Queue
	if len(idx) == 0 {
		return errors.New("fakebackend: no entries")
	}
	seen := map[int]bool{}
	for k, i := range idx {
		if i < 0 || i >= len(q) || seen[i] {
			return fmt.Errorf("fakebackend: bad index %d", i)
		}
		seen[i] = true
		if ids != nil && q[i].ContentID != ids[k] {
			return ErrQueueChanged
		}
	}
	return nil
}

func (b *Backend) playOrderLocked() []int {
	if b.st.Shuffle && len(b.st.Order) == len(b.st.Queue) {
		return slices.Clone(b.st.Order)
	}
	o := make([]int, len(b.st.Queue))
	for i := range o {
		o[i] = i
	}
	return o
}

// MoveInQueue moves entries to a place of the play order.
func (b *Backend) MoveInQueue(idx []int, ids []string, to int) error {
	if err := b.record("MoveInQueue(%v,%d)", idx, to); err != nil {
		return err
	}
	var err error
	b.Update(func(st *app.Status) {
		if err = b.checkLocked(idx, ids); err != nil {
			return
		}
		order := app.MovedOrder(b.playOrderLocked(), idx, to)
		if st.Shuffle && len(st.Order) == len(st.Queue) {
			st.Order = order
			return
		}
		q := make([]app.QueueItem, len(order))
		cur := st.Index
		for n, old := range order {
			q[n] = st.Queue[old]
			if old == cur {
				st.Index = n
			}
		}
		st.Queue = q
	})
	return err
}

// RemoveQueueEntries removes entries; the current one goes on with the
// next that stays.
func (b *Backend) RemoveQueueEntries(idx []int, ids []string) error {
	if err := b.record("RemoveQueueEntries(%v)", idx); err != nil {
		return err
	}
	var err error
	b.Update(func(st *app.Status) {
		if err = b.checkLocked(idx, ids); err != nil {
			return
		}
		gone := map[int]bool{}
		for _, i := range idx {
			gone[i] = true
		}
		cur := st.Index
		if gone[cur] {
			for cur < len(st.Queue) && gone[cur] {
				cur++
			}
		}
		var q []app.QueueItem
		newIdx := -1
		for i, it := range st.Queue {
			if gone[i] {
				continue
			}
			if i == cur {
				newIdx = len(q)
			}
			q = append(q, it)
		}
		st.Queue, st.QueueLen, st.Order = q, len(q), nil
		if newIdx < 0 {
			b.setIndexLocked(len(q) - 1)
			st.Playing = false
			return
		}
		if st.Track != nil && q[newIdx].ContentID == st.Track.ContentID {
			st.Index = newIdx
			return
		}
		b.setIndexLocked(newIdx)
	})
	return err
}

// RestoreQueue puts a saved queue back.
func (b *Backend) RestoreQueue(q app.SavedQueue) error {
	if err := b.record("RestoreQueue(%d,%d)", len(q.Items), q.Index); err != nil {
		return err
	}
	if q.Index < 0 || q.Index >= len(q.Items) {
		return errors.New("fakebackend: bad index")
	}
	b.Update(func(st *app.Status) {
		same := st.Track != nil && st.Track.ContentID == q.Items[q.Index].ContentID
		st.Queue, st.QueueLen, st.Order = slices.Clone(q.Items), len(q.Items), slices.Clone(q.Order)
		if same {
			st.Index = q.Index
			return
		}
		b.setIndexLocked(q.Index)
		st.PositionMS, st.Playing = q.PositionMS, q.Playing
	})
	return nil
}

// SetPlays sets the play counts PlayCounts returns.
func (b *Backend) SetPlays(p map[string]app.PlayStats) {
	b.mu.Lock()
	b.plays = p
	b.changedLocked()
	b.mu.Unlock()
}

// PlayCounts returns the play counts set with SetPlays.
func (b *Backend) PlayCounts() (map[string]app.PlayStats, error) {
	if err := b.record("PlayCounts()"); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]app.PlayStats, len(b.plays))
	for k, v := range b.plays {
		out[k] = v
	}
	return out, nil
}
