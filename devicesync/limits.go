package devicesync

import (
	"fmt"
	"time"
)

// Fixed protocol limits.
const (
	// MaxLineBytes is the longest JSON line accepted or sent.
	MaxLineBytes = 1 << 20
	// MaxOpsPerBatch is the most ops one ops message may carry.
	MaxOpsPerBatch = 1000
	// MaxPendingPairings is the most pairing requests awaiting the user.
	MaxPendingPairings = 16
	// MaxGroupDevices is the most trusted devices a group may hold.
	MaxGroupDevices = 64
	// MaxLogOps bounds the in-memory operation log; a peer pushing past it
	// is disconnected.
	MaxLogOps = 100_000
	// CommandMaxAge is how old a playback command may be and still be
	// delivered.
	CommandMaxAge = 5 * time.Minute
	// OnlineWindow is how recently a directly connected peer must have been
	// heard to show as online.
	OnlineWindow = 15 * time.Second
	// PairRetryWindow is how long a requester keeps asking.
	PairRetryWindow = 5 * time.Minute
	// MaxClockSkew is how far ahead of this device's clock a received op
	// may be dated. Later ops are dropped (and offered again by the next
	// sync): membership is last-writer-wins by HLC, and an op dated far
	// ahead would win against every revocation written before that date.
	MaxClockSkew = 10 * time.Minute

	// maxInbound bounds inbound connections served at once; more are
	// closed on accept.
	maxInbound = 256

	maxNameBytes   = 256
	maxAddresses   = 16
	maxDialTargets = 256
	sendQueueLen   = 512
)

// Limits are the per-connection limits that callers may tune.
type Limits struct {
	// MessageRate is the sustained messages per second one peer may send;
	// Burst is how many it may send at once.
	MessageRate float64
	Burst       int
	// PeerTimeout closes a connection that sent nothing (reads) or took
	// nothing (writes) for this long.
	PeerTimeout time.Duration
}

// DefaultLimits are the limits used when Config.Limits is the zero value.
func DefaultLimits() Limits {
	return Limits{MessageRate: 200, Burst: 1000, PeerTimeout: 30 * time.Second}
}

// Validate names the first field out of range.
func (l Limits) Validate() error {
	switch {
	case l.MessageRate <= 0:
		return fmt.Errorf("devicesync: Limits.MessageRate = %v, want > 0", l.MessageRate)
	case l.Burst < 1:
		return fmt.Errorf("devicesync: Limits.Burst = %d, want >= 1", l.Burst)
	case l.PeerTimeout < time.Second:
		return fmt.Errorf("devicesync: Limits.PeerTimeout = %v, want >= 1s", l.PeerTimeout)
	}
	return nil
}

// tokenBucket limits a peer's message rate. It uses the monotonic real
// clock: it is about throughput, not about protocol time.
type tokenBucket struct {
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

func newTokenBucket(rate float64, burst int, now time.Time) *tokenBucket {
	return &tokenBucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: now}
}

// allow takes one token, reporting false when none is left.
func (b *tokenBucket) allow(now time.Time) bool {
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
