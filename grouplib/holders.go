package grouplib

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// Candidate is a device that holds a track, as the holder choice sees it.
type Candidate struct {
	Device engine.DeviceID
	Size   int64 // of its file (from its catalog)
	Online bool  // directly connected now: a fetch can reach it
	// Failures counts its recent failures: stalls, broken connections,
	// wrong bytes, busy answers. Fewer go first.
	Failures int
	// Until is when a backoff after its last failure ends (zero: none).
	Until time.Time
	// Barred excludes it from this fetch: it said "not here", served
	// bytes that did not match the content id, or failed too often.
	Barred bool
}

// Choose picks the holder to fetch from at time now. Only online holders
// that are neither barred nor in a backoff qualify; when size is set
// (bytes of a file of that size are downloaded already) only holders of
// a file of that size, so a switch continues at the same byte offset.
// Among them it keeps current while it qualifies (a working connection is
// not given up), then takes the fewest failures, then the smallest device
// id, so every run chooses alike. wait is the earliest end of a backoff
// among the holders that would otherwise qualify: when none qualifies now
// but wait is set, the caller retries then; when neither, no online holder
// has the track.
func Choose(cands []Candidate, size int64, current engine.DeviceID, now time.Time) (best engine.DeviceID, ok bool, wait time.Time) {
	var pool []Candidate
	for _, c := range cands {
		if !c.Online || c.Barred || size > 0 && c.Size != size {
			continue
		}
		if now.Before(c.Until) {
			if wait.IsZero() || c.Until.Before(wait) {
				wait = c.Until
			}
			continue
		}
		pool = append(pool, c)
	}
	if len(pool) == 0 {
		return "", false, wait
	}
	for _, c := range pool {
		if c.Device == current && current != "" {
			return current, true, time.Time{}
		}
	}
	best = slices.MinFunc(pool, func(a, b Candidate) int {
		if c := cmp.Compare(a.Failures, b.Failures); c != 0 {
			return c
		}
		return strings.Compare(string(a.Device), string(b.Device))
	}).Device
	return best, true, time.Time{}
}

// backoff is how long a holder rests after its n-th failure in a row:
// 250 ms doubling up to 8 s.
func backoff(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	return min(250*time.Millisecond<<min(n-1, 5), 8*time.Second)
}
