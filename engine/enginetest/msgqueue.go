package enginetest

import (
	"time"
)

// msgQueue delivers messages by delivery time, then send order. It is a
// timing wheel: the simulator only sends messages due after the current
// time and asks for those due by it, so the wheel's cursor only moves
// forward. A message waits in the bucket of its delivery time, a list kept
// in delivery order (usually of zero or one message), or, when it is due
// beyond the wheel's span, in an unordered overflow list that moves into
// the wheel as the cursor advances. Messages live in a slab with a free
// list; the bucket lists are linked through it.
type msgQueue struct {
	cur      int64 // absolute bucket of the cursor: nothing queued before it
	heads    [wheelSize]int32
	tails    [wheelSize]int32
	overflow []int32 // slots of messages due at or beyond bucket cur+wheelSize
	slab     []msg
	free     []int32
	init     bool
}

const (
	wheelShift = 22 // bucket width 2^22 ns, about 4 ms
	wheelSize  = 1024
	noSlot     = -1
)

// before orders messages: delivery time, then send order.
func before(a, b *msg) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.order < b.order
}

// push queues a copy of m due at at, sent as order. at must be after the
// time of every popDue call so far.
func (q *msgQueue) push(m *msg, at time.Duration, order uint64) {
	if !q.init {
		for i := range q.heads {
			q.heads[i], q.tails[i] = noSlot, noSlot
		}
		q.init = true
	}
	var slot int32
	if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		slot = int32(len(q.slab))
		q.slab = append(q.slab, msg{})
	}
	c := &q.slab[slot]
	*c = *m
	c.at, c.order = at, order
	b := int64(at) >> wheelShift
	if b < q.cur {
		panic("enginetest: message due before the queue's cursor")
	}
	if b-q.cur >= wheelSize {
		q.overflow = append(q.overflow, slot)
		return
	}
	q.link(slot, int(b&(wheelSize-1)))
}

// link inserts slot into bucket i in delivery order.
func (q *msgQueue) link(slot int32, i int) {
	x := &q.slab[slot]
	t := q.tails[i]
	if t == noSlot {
		x.link = noSlot
		q.heads[i], q.tails[i] = slot, slot
		return
	}
	if !before(x, &q.slab[t]) {
		x.link = noSlot
		q.slab[t].link = slot
		q.tails[i] = slot
		return
	}
	// Somewhere before the tail: walk from the head.
	prev, y := int32(noSlot), q.heads[i]
	for !before(x, &q.slab[y]) {
		prev, y = y, q.slab[y].link
	}
	x.link = y
	if prev == noSlot {
		q.heads[i] = slot
	} else {
		q.slab[prev].link = slot
	}
}

// popDue removes and returns the next message due by now, or nil when none
// is. now must not decrease between calls. The pointer is valid until the
// next push.
func (q *msgQueue) popDue(now time.Duration) *msg {
	if !q.init {
		return nil
	}
	last := int64(now) >> wheelShift
	for {
		i := int(q.cur & (wheelSize - 1))
		if h := q.heads[i]; h != noSlot {
			m := &q.slab[h]
			if m.at > now {
				return nil // the earliest message queued is not due
			}
			q.heads[i] = m.link
			if m.link == noSlot {
				q.tails[i] = noSlot
			}
			q.free = append(q.free, h)
			return m
		}
		if q.cur >= last {
			return nil
		}
		q.cur++
		if len(q.overflow) > 0 {
			q.admit()
		}
	}
}

// admit moves the overflow messages now within the wheel's span into it.
func (q *msgQueue) admit() {
	keep := q.overflow[:0]
	for _, slot := range q.overflow {
		b := int64(q.slab[slot].at) >> wheelShift
		if b-q.cur < wheelSize {
			q.link(slot, int(b&(wheelSize-1)))
		} else {
			keep = append(keep, slot)
		}
	}
	q.overflow = keep
}
