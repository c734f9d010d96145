package web

import "time"

// bucket is a token bucket: burst messages at once, rate a second after
// that. Time comes from the caller.
type bucket struct {
	tokens float64
	last   time.Time
	rate   float64
	burst  float64
}

func newBucket(rate, burst int, now time.Time) *bucket {
	return &bucket{tokens: float64(burst), last: now, rate: float64(rate), burst: float64(burst)}
}

// allow takes one token at now, false when none is left (a flood).
func (b *bucket) allow(now time.Time) bool {
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(b.burst, b.tokens+d.Seconds()*b.rate)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
