package reach

import "time"

// Backoff times the dials of one address: at once the first time, then,
// after each failure, twice the previous wait, between Min and Max. Max
// is also the period at which an unreachable remembered address is tried
// again, forever: the device it belongs to may come back any time. A
// success resets it. The zero Backoff uses DefaultMin and DefaultMax.
type Backoff struct {
	Min, Max time.Duration
	wait     time.Duration
	next     time.Time
}

// Default backoff bounds.
const (
	DefaultMin = 100 * time.Millisecond
	DefaultMax = 10 * time.Second
)

func (b *Backoff) bounds() (time.Duration, time.Duration) {
	lo, hi := b.Min, b.Max
	if lo <= 0 {
		lo = DefaultMin
	}
	if hi < lo {
		hi = max(DefaultMax, lo)
	}
	return lo, hi
}

// Due reports whether a dial may start at now.
func (b *Backoff) Due(now time.Time) bool { return !now.Before(b.next) }

// Next is when the next dial is due (zero: now).
func (b *Backoff) Next() time.Time { return b.next }

// Failed records a dial that ended at now without a member session.
func (b *Backoff) Failed(now time.Time) {
	lo, hi := b.bounds()
	b.wait = min(max(2*b.wait, lo), hi)
	b.next = now.Add(b.wait)
}

// Succeeded records a member session over the address that ended at now:
// when it drops, the address is dialed again after Min.
func (b *Backoff) Succeeded(now time.Time) {
	lo, _ := b.bounds()
	b.wait = lo
	b.next = now.Add(lo)
}

// Reset makes the next dial due at once (the network changed, or the
// user asked to reconnect) and starts the doubling again.
func (b *Backoff) Reset() {
	b.wait, b.next = 0, time.Time{}
}
