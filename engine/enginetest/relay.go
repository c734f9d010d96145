package enginetest

import (
	"fmt"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// Topology is how the simulated devices are linked. Homes break full
// meshes (Wi-Fi client isolation, a VPN hub, a box on another subnet); the
// members relay the owner's signed envelopes so every device still hears
// the owner's own reports.
type Topology uint8

// Topologies of Options.Topology.
const (
	// Mesh links every pair of devices.
	Mesh Topology = iota
	// Line links the devices as a path, in an order drawn from the seed:
	// the two ends reach each other only through every device between.
	Line
	// Star is a mesh of all devices but one leaf, which reaches only one
	// device of the mesh (a box on another subnet behind one computer).
	Star
	// RingCut is a ring with one link cut, in an order drawn from the seed.
	RingCut
	topologies
)

// Topologies lists every topology, for tests that run them all.
func Topologies() []Topology {
	out := make([]Topology, 0, topologies)
	for t := range topologies {
		out = append(out, t)
	}
	return out
}

func (t Topology) String() string {
	switch t {
	case Mesh:
		return "mesh"
	case Line:
		return "line"
	case Star:
		return "star"
	case RingCut:
		return "ring-cut"
	}
	return fmt.Sprintf("topology(%d)", uint8(t))
}

// links returns who reaches whom directly: nil for a full mesh.
func (t Topology) links(n int, rng *prng) [][]bool {
	if t == Mesh {
		return nil
	}
	l := make([][]bool, n)
	for i := range l {
		l[i] = make([]bool, n)
	}
	link := func(i, j int) { l[i][j], l[j][i] = true, true }
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	switch t {
	case Line:
		for i := 1; i < n; i++ {
			link(perm[i-1], perm[i])
		}
	case Star:
		leaf := perm[n-1]
		for i := range n - 1 {
			for j := i + 1; j < n-1; j++ {
				link(perm[i], perm[j])
			}
		}
		link(leaf, perm[rng.IntN(n-1)])
	case RingCut:
		cut := rng.IntN(n)
		for i := range n {
			if i != cut {
				link(perm[i], perm[(i+1)%n])
			}
		}
	}
	return l
}

// linked reports whether devices i and j reach each other directly.
func (s *sim) linked(i, j int) bool { return s.links == nil || s.links[i][j] }

// span is a stretch of time a device was not listening: crashed or frozen
// (end -1 while it lasts).
type span struct {
	start, end time.Duration
	freeze     bool
}

// maxSpans bounds the spans a device remembers; the invariant looks back
// at most a few owner timeouts.
const maxSpans = 64

func (d *device) down(now time.Duration, freeze bool) {
	if len(d.downs) == maxSpans {
		d.downs = append(d.downs[:0], d.downs[1:]...)
	}
	d.downs = append(d.downs, span{now, -1, freeze})
}

func (d *device) up(now time.Duration) {
	if n := len(d.downs); n > 0 && d.downs[n-1].end < 0 {
		d.downs[n-1].end = now
	}
}

// upDuring reports whether d was running and listening the whole time
// from..to.
func (d *device) upDuring(from, to time.Duration) bool {
	if d.eng == nil || d.frozen {
		return false
	}
	for _, sp := range d.downs {
		if sp.start <= to && (sp.end < 0 || sp.end >= from) {
			return false
		}
	}
	return true
}

// awayDuring is how long d was frozen within from..now.
func (d *device) awayDuring(from, now time.Duration) time.Duration {
	var away time.Duration
	for _, sp := range d.downs {
		if !sp.freeze {
			continue
		}
		end := sp.end
		if end < 0 {
			end = now
		}
		if end > from {
			away += end - max(sp.start, from)
		}
	}
	return away
}

// relayKey orders the envelopes of one origin: heartbeat id, then claim.
type relayKey struct {
	hb    uint64
	claim engine.Claim
}

// relay forwards an owner's envelope that d has not forwarded yet to d's
// other neighbours, once per heartbeat id and claim: relay loops end and
// fan-out is bounded by the group's size.
func (s *sim) relay(d *device, m *msg) {
	if m.claim.Owner != m.device || m.claim.IsZero() {
		return // only the owner's own reports need relaying
	}
	k, last := relayKey{m.num, m.claim}, d.relayed[m.origin]
	if k.hb < last.hb || k.hb == last.hb && k.claim.Compare(last.claim) <= 0 {
		return
	}
	d.relayed[m.origin] = k
	f := *m
	f.from = uint16(d.idx)
	for _, p := range s.devs {
		if p == d || p.idx == int(m.origin) || p.idx == int(m.from) || !s.linked(d.idx, p.idx) {
			continue
		}
		f.to = uint16(p.idx)
		s.res.Relayed++
		s.send(&f)
	}
}

// freeze stops d for a while: it handles nothing, its clock runs on, and
// what is sent to it waits until it runs again.
func (s *sim) freeze(d *device, dur time.Duration) {
	d.frozen, d.frozenAt, d.wakeAt = true, s.now, s.now+dur
	d.down(s.now, true)
	s.res.Freezes++
	if s.tracing {
		s.tracef("%s frozen for %s", d.id, dur)
	}
}

// wakeDue wakes every frozen device whose time came.
func (s *sim) wakeDue() {
	for _, d := range s.devs {
		if d.frozen && d.wakeAt <= s.now && s.err == nil {
			s.wake(d)
		}
	}
}

// wake runs d again the way the app actor does: its late ticker makes it
// call Resumed with the time it was away (measured from its last tick, so
// up to one tick short) and Tick, in one transition; the messages that
// waited in its inbox are handled before or after that transition.
func (s *sim) wake(d *device) {
	d.frozen = false
	d.up(s.now)
	away := s.now - d.frozenAt - time.Duration(s.rng.Int64N(int64(tickInterval)))
	if s.tracing {
		s.tracef("%s wakes after %s (resumed %s), %d messages waiting", d.id, s.now-d.frozenAt, away, len(d.held))
	}
	heldFirst := s.rng.IntN(2) == 0
	held := d.held
	d.held = nil
	inbox := func() {
		for i := range held {
			if d.eng == nil || s.err != nil {
				return
			}
			s.handle(d, &held[i])
		}
	}
	if heldFirst {
		inbox()
	}
	if d.eng != nil && s.err == nil {
		s.res.Events++
		d.prev = nil
		d.eng.Resumed(away)
		d.eng.Tick()
		s.drive(d)
	}
	if !heldFirst {
		inbox()
	}
}

// checkFailover is the invariant of calm runs: d just claimed the output
// by failover from the owner of old. That owner must have been lost to d
// within d's window: crashed, frozen, no longer holding old, or cut off
// from d because every path between them crossed a device that was down.
// The window is d's owner timeout of listening time (time d was frozen
// does not count) plus the time the owner's report may take to cross the
// group (one tick, and the largest delay per hop).
func (s *sim) checkFailover(d *device, old engine.Claim) {
	if !s.opt.Calm || old.IsZero() || old.Owner == d.id {
		return
	}
	o := s.devs[s.index(old.Owner)]
	timeout := time.Duration(d.cfg.OwnerTimeoutMS) * time.Millisecond
	slack := 2*tickInterval + time.Duration(len(s.devs))*s.maxDelay
	from := s.now - timeout - slack
	from -= d.awayDuring(from, s.now)
	if o.eng == nil || o.eng.Claim() != old || o.claimAt > from || !o.upDuring(from, s.now) {
		return // a real loss of the owner
	}
	// Is there a path o .. d through devices up the whole window?
	seen := make([]bool, len(s.devs))
	seen[o.idx] = true
	queue := []int{o.idx}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for j, p := range s.devs {
			if seen[j] || !s.linked(i, j) {
				continue
			}
			if j == d.idx {
				s.fail("%s failed over from %s (claim %v) although %s was up and reachable for the last %s\n%s",
					d.id, o.id, old, o.id, s.now-from, s.describe())
				return
			}
			if p.upDuring(from, s.now) {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
}
