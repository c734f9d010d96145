package devicesync

import (
	"errors"
	"fmt"
	"net"
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

	maxNameBytes   = 256
	maxAddresses   = 16
	maxDialTargets = 256
	sendQueueLen   = 512
)

// Limits are the per-connection limits of members that callers may tune.
// Outsiders (devices that are not members: they may only pair) have fixed,
// much smaller ones (outsider*).
type Limits struct {
	// MessageRate is the sustained messages per second one peer may send;
	// Burst is how many it may send at once. A peer over it is
	// disconnected and serves a backoff.
	MessageRate float64
	Burst       int
	// ByteRate is the sustained bytes per second read from one peer and
	// ByteBurst how many may come at once; a faster peer is read slower.
	ByteRate  float64
	ByteBurst int
	// ConnBytes is the most bytes one connection may carry; then it is
	// closed (and the peer reconnects with a fresh budget).
	ConnBytes int64
	// PeerTimeout closes a connection that sent nothing (reads) or took
	// nothing (writes) for this long.
	PeerTimeout time.Duration
}

// DefaultLimits are the limits used when Config.Limits is the zero value.
// A member is read at 1 MiB/s at most (after a burst of 16 MiB, a whole
// log's worth for a new member): checking a MiB of signed ops takes about
// a quarter of a second of one core (BenchmarkAdmitSignedOps).
func DefaultLimits() Limits {
	return Limits{MessageRate: 200, Burst: 1000, ByteRate: 1 << 20, ByteBurst: 16 << 20, ConnBytes: 1 << 30, PeerTimeout: 30 * time.Second}
}

// Validate names the first field out of range.
func (l Limits) Validate() error {
	switch {
	case l.MessageRate <= 0:
		return fmt.Errorf("devicesync: Limits.MessageRate = %v, want > 0", l.MessageRate)
	case l.Burst < 1:
		return fmt.Errorf("devicesync: Limits.Burst = %d, want >= 1", l.Burst)
	case l.ByteRate < MaxLineBytes/10:
		return fmt.Errorf("devicesync: Limits.ByteRate = %v, want >= %d (a line of the largest size within 10 s)", l.ByteRate, MaxLineBytes/10)
	case l.ByteBurst < 2*MaxLineBytes:
		return fmt.Errorf("devicesync: Limits.ByteBurst = %d, want >= %d", l.ByteBurst, 2*MaxLineBytes)
	case l.ConnBytes < 4*MaxLineBytes:
		return fmt.Errorf("devicesync: Limits.ConnBytes = %d, want >= %d", l.ConnBytes, 4*MaxLineBytes)
	case l.PeerTimeout < time.Second:
		return fmt.Errorf("devicesync: Limits.PeerTimeout = %v, want >= 1s", l.PeerTimeout)
	}
	return nil
}

// Fixed limits of an outsider's connection: enough to repeat a pairing
// request every second for as long as a requester keeps asking, not enough
// to keep a core or much memory busy. Exceeding one closes the connection
// and the source serves a backoff.
const (
	outsiderMessageRate = 5
	outsiderBurst       = 10
	outsiderByteRate    = 8 << 10
	outsiderByteBurst   = 32 << 10
	outsiderConnBytes   = 1 << 20
)

// tokenBucket limits a rate. It uses the monotonic real clock: it is about
// throughput, not about protocol time.
type tokenBucket struct {
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

func newTokenBucket(rate float64, burst int, now time.Time) *tokenBucket {
	return &tokenBucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: now}
}

func (b *tokenBucket) refill(now time.Time) {
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
}

// allow takes one token, reporting false when none is left.
func (b *tokenBucket) allow(now time.Time) bool {
	b.refill(now)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// take takes n tokens, going into debt, and reports whether none is owed.
func (b *tokenBucket) take(n float64, now time.Time) bool {
	b.refill(now)
	b.tokens -= n
	return b.tokens >= 0
}

// wait is how long until the debt is paid.
func (b *tokenBucket) wait(now time.Time) time.Duration {
	b.refill(now)
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.rate * float64(time.Second))
}

// Errors of a meter; each closes its connection.
var (
	errByteRate   = errors.New("devicesync: byte rate over the limit")
	errConnBudget = errors.New("devicesync: connection byte budget used up")
)

// meter reads a connection within its byte budgets: a member's reads wait
// while it is over its rate, an outsider's fail (errByteRate). It is used
// by the session's read loop alone.
type meter struct {
	s        *session
	member   *tokenBucket // also an accepted requester's
	outsider *tokenBucket
	total    int64
	limits   Limits
}

func (n *Node) newMeter(s *session) *meter {
	now := time.Now()
	l := n.limits
	return &meter{
		s:        s,
		limits:   l,
		member:   newTokenBucket(l.ByteRate, l.ByteBurst, now),
		outsider: newTokenBucket(outsiderByteRate, outsiderByteBurst, now),
	}
}

// Read implements io.Reader.
func (m *meter) Read(p []byte) (int, error) {
	s := m.s
	n := s.n
	n.mu.Lock()
	_, outsider := n.restricted[s]
	n.mu.Unlock()
	outsider = outsider && !s.trusted.Load()
	limit := m.limits.ConnBytes
	if outsider {
		limit = outsiderConnBytes
	}
	if m.total >= limit {
		return 0, errConnBudget
	}
	p = p[:min(int64(len(p)), limit-m.total)]
	b := m.member
	if outsider {
		b = m.outsider
	} else if w := b.wait(time.Now()); w > 0 {
		t := time.NewTimer(w)
		select {
		case <-t.C:
		case <-s.done:
			t.Stop()
			return 0, net.ErrClosed
		}
	}
	k, err := s.conn.Read(p)
	m.total += int64(k)
	if outsider {
		n.c.outsiderBytes.Add(uint64(k))
	} else {
		n.c.memberBytes.Add(uint64(k))
	}
	if !b.take(float64(k), time.Now()) && outsider {
		return k, errByteRate
	}
	return k, err
}
