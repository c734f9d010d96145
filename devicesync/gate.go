package devicesync

import (
	"net"
	"slices"
	"sync"
	"time"
)

// Listener-side limits on connections. A connection is an outsider until
// its TLS peer turns out to be a member: outsiders (handshaking, or not
// members and pairing) share a small budget, bounded per source address,
// apart from the members' connections, so that no number of strangers
// keeps a member out.
const (
	// PairWindow is the time an outsider has, from its arrival, to finish
	// the handshake and send a pair_request with a valid invite secret;
	// each valid request (a waiting requester repeats it) gives it
	// another. Blank and unknown lines give nothing.
	PairWindow = 10 * time.Second
	// maxOutsiders bounds outsider connections at once. When they are all
	// taken, a newcomer evicts the oldest one that has not sent a valid
	// pair_request.
	maxOutsiders = 32
	// maxOutsidersPerSource bounds outsider connections from one address.
	maxOutsidersPerSource = 4
	// minEvictAge is how long a newcomer keeps its outsider slot, however
	// many others want it: time to finish the handshake and ask to pair.
	minEvictAge = time.Second
	// maxMemberConns bounds connections of members, after the handshake.
	maxMemberConns = 2 * MaxGroupDevices
	// Handshakes from the addresses members were seen at or announce have
	// a budget of their own, so a member reconnects (and a device pairs
	// from such an address) during a flood of strangers from elsewhere.
	maxMemberLaneHandshakes = 2 * MaxGroupDevices
	maxMemberLanePerSource  = 16

	// A source that broke a rule (no valid pair_request in its window, a
	// line over the limit, over a rate or byte budget, malformed input)
	// is refused at accept for a backoff that doubles with each offence up
	// to penaltyMax and is forgotten after penaltyForget without one.
	penaltyMin    = time.Second
	penaltyMax    = time.Minute
	penaltyForget = 10 * time.Minute
	maxPenalties  = 4096
	// maxWrongSecrets wrong invite secrets (or unknown invites) from one
	// source within wrongSecretWindow bar it for wrongSecretWindow.
	maxWrongSecrets   = 5
	wrongSecretWindow = 10 * time.Minute
)

// Lanes a ticket holds a slot in.
const (
	laneOutsider = iota
	laneMemberHandshake
	laneMember
)

// gate admits inbound connections. Its methods take the time from the
// caller (the real monotonic clock in the node, a fake one in tests) and are
// safe for concurrent use.
type gate struct {
	mu        sync.Mutex
	outsiders []*ticket // in arrival order
	perSource map[string]int
	lane      []*ticket
	laneBy    map[string]int
	members   int
	penalties map[string]*penalty
}

// ticket is one admitted connection's slot.
type ticket struct {
	g        *gate
	source   string
	lane     int
	verified bool   // sent a valid pair_request: never evicted
	evict    func() // closes the connection
	released bool
	arrived  time.Time
}

type penalty struct {
	until    time.Time
	level    time.Duration
	last     time.Time
	wrong    int
	wrongAt  time.Time
	lastSeen time.Time
}

func newGate() *gate {
	return &gate{perSource: map[string]int{}, laneBy: map[string]int{}, penalties: map[string]*penalty{}}
}

// sourceOf is the address part of a remote address.
func sourceOf(a net.Addr) string {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// arrive admits a new connection from source, or returns "" and why not.
// memberSource says the address is one members use: its handshake takes
// the member lane while that has room. evict closes the connection.
func (g *gate) arrive(source string, memberSource bool, now time.Time, evict func()) (*ticket, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := &ticket{g: g, source: source, evict: evict, arrived: now}
	if memberSource && len(g.lane) < maxMemberLaneHandshakes && g.laneBy[source] < maxMemberLanePerSource {
		// An address in backoff may be shared with a member (a NAT, one
		// machine): the backoff applies after the handshake, to
		// strangers only (outsider).
		t.lane = laneMemberHandshake
		g.lane = append(g.lane, t)
		g.laneBy[source]++
		return t, ""
	}
	if g.barredLocked(source, now) {
		return nil, "source in backoff after breaking a rule"
	}
	if reason := g.takeOutsiderLocked(t, now); reason != "" {
		return nil, reason
	}
	return t, ""
}

// takeOutsiderLocked gives t an outsider slot. When all are taken it
// evicts one that has not sent a valid pair_request and has had
// minEvictAge to do so: from the address holding the most slots, the
// oldest there. A newcomer thus has time to prove itself, and a requester
// from an address of its own is the last to go.
func (g *gate) takeOutsiderLocked(t *ticket, now time.Time) string {
	if g.perSource[t.source] >= maxOutsidersPerSource {
		return "too many connections from this address"
	}
	if len(g.outsiders) >= maxOutsiders {
		var victim *ticket
		for _, o := range g.outsiders {
			if o.verified || now.Sub(o.arrived) < minEvictAge {
				continue
			}
			if victim == nil || g.perSource[o.source] > g.perSource[victim.source] {
				victim = o // g.outsiders is in arrival order: the oldest of its address
			}
		}
		if victim == nil {
			return "too many pairing connections"
		}
		g.releaseLocked(victim)
		victim.evict() // closes a socket: quick, and does not call back in
	}
	t.lane = laneOutsider
	g.outsiders = append(g.outsiders, t)
	g.perSource[t.source]++
	return ""
}

// member moves t, whose peer turned out to be a member, to the members'
// budget. It reports false when that is full.
func (t *ticket) member() bool {
	g := t.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if t.released {
		return false
	}
	if g.members >= maxMemberConns {
		return false
	}
	g.releaseLocked(t)
	t.released = false
	t.lane = laneMember
	g.members++
	return true
}

// outsider keeps t, whose peer is not a member, as an outsider, unless its
// address serves a backoff; it returns why not, or "". A connection that
// came through the member lane keeps its slot there: a device pairing from
// an address members use is not crowded out by strangers elsewhere.
func (t *ticket) outsider(now time.Time) string {
	g := t.g
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case t.released:
		return "evicted"
	case t.lane == laneMemberHandshake && g.barredLocked(t.source, now):
		return "source in backoff after breaking a rule"
	}
	return ""
}

// isVerified reports whether t sent a valid pair_request; false for nil.
func (t *ticket) isVerified() bool {
	if t == nil {
		return false
	}
	t.g.mu.Lock()
	defer t.g.mu.Unlock()
	return t.verified
}

// verify marks t as a requester that knows an invite secret (nil: no-op).
func (t *ticket) verify() {
	if t == nil {
		return
	}
	t.g.mu.Lock()
	t.verified = true
	t.g.mu.Unlock()
}

// release frees t's slot; later calls do nothing.
func (t *ticket) release() {
	t.g.mu.Lock()
	t.g.releaseLocked(t)
	t.g.mu.Unlock()
}

func (g *gate) releaseLocked(t *ticket) {
	if t.released {
		return
	}
	t.released = true
	switch t.lane {
	case laneOutsider:
		g.outsiders = slices.DeleteFunc(g.outsiders, func(o *ticket) bool { return o == t })
		if g.perSource[t.source]--; g.perSource[t.source] <= 0 {
			delete(g.perSource, t.source)
		}
	case laneMemberHandshake:
		g.lane = slices.DeleteFunc(g.lane, func(o *ticket) bool { return o == t })
		if g.laneBy[t.source]--; g.laneBy[t.source] <= 0 {
			delete(g.laneBy, t.source)
		}
	case laneMember:
		g.members--
	}
}

// penalize records an offence of key (a source address, or a member's
// "dev:" id) and returns the backoff it now serves.
func (g *gate) penalize(key string, now time.Time) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.penaltyLocked(key, now)
	switch {
	case p.level == 0 || now.Sub(p.last) > penaltyForget:
		p.level = penaltyMin
	default:
		p.level = min(2*p.level, penaltyMax)
	}
	p.last = now
	p.until = later(p.until, now.Add(p.level))
	return p.level
}

// wrongSecret records a pairing request with a wrong secret or an unknown
// invite from source and reports whether the source is now barred.
func (g *gate) wrongSecret(source string, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.penaltyLocked(source, now)
	if now.Sub(p.wrongAt) > wrongSecretWindow {
		p.wrong = 0
	}
	if p.wrong == 0 {
		p.wrongAt = now
	}
	p.wrong++
	if p.wrong >= maxWrongSecrets {
		p.until = later(p.until, now.Add(wrongSecretWindow))
		return true
	}
	return false
}

// barred reports whether key serves a backoff now.
func (g *gate) barred(key string, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.barredLocked(key, now)
}

func (g *gate) barredLocked(key string, now time.Time) bool {
	p := g.penalties[key]
	return p != nil && now.Before(p.until)
}

func (g *gate) penaltyLocked(key string, now time.Time) *penalty {
	p := g.penalties[key]
	if p == nil {
		if len(g.penalties) >= maxPenalties {
			g.forgetLocked(now)
		}
		p = &penalty{}
		g.penalties[key] = p
	}
	p.lastSeen = now
	return p
}

// forgetLocked drops penalties that no longer matter, or else the least
// recently touched half.
func (g *gate) forgetLocked(now time.Time) {
	for k, p := range g.penalties {
		if now.After(p.until) && now.Sub(p.lastSeen) > penaltyForget {
			delete(g.penalties, k)
		}
	}
	if len(g.penalties) < maxPenalties {
		return
	}
	keys := make([]string, 0, len(g.penalties))
	for k := range g.penalties {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return g.penalties[a].lastSeen.Compare(g.penalties[b].lastSeen) })
	for _, k := range keys[:len(keys)/2] {
		delete(g.penalties, k)
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// counts returns the slots taken: outsiders, member-lane handshakes and
// members (for tests).
func (g *gate) counts() (outsiders, lane, members int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.outsiders), len(g.lane), g.members
}
