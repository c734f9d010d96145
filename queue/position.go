package queue

import "time"

// Owner is who owns the output as the position rules need to know it.
type Owner int

const (
	// OwnerNone: nobody owns the output yet; the state is this device's.
	OwnerNone Owner = iota
	// OwnerSelf: this device owns the output.
	OwnerSelf
	// OwnerLive: another device owns it and reports (a controller).
	OwnerLive
	// OwnerGone: another device owns it but is not heard any more (it
	// closed, went quiet, or the transport lost it).
	OwnerGone
)

// controller reports whether another device owns the output.
func (o Owner) controller() bool { return o == OwnerLive || o == OwnerGone }

// Inputs are what the position rules read besides the state: the clock,
// the owner, the owner's report interval and, while this device renders,
// its output's measurement.
type Inputs struct {
	Now       time.Duration // the caller's monotonic clock
	Owner     Owner
	Heartbeat time.Duration // how often an owner publishes its snapshot
	// Measured is set while this device's output plays the state's
	// current entry from where the state last put it (the effect of the
	// last control reached it): MeasuredMS is then the position.
	Measured   bool
	MeasuredMS int64
	// Predicted is set when the view being replaced (Adopt) showed
	// controls the owner had not confirmed until the state adopted: its
	// jump count is this device's guess and says nothing about the
	// owner's.
	Predicted bool
}

// HandoffSlack is how far from a handoff's position a target that already
// plays its track (it learned the claim from an announcement first) may
// be and go on without starting again (rule P6): a transfer starts within
// it of where the source stopped.
const HandoffSlack = 250 * time.Millisecond

// MaxLead is how far a controller's view may run ahead of the owner's
// reported position and still be kept: what it extrapolates without
// hearing the owner (two heartbeats) and the little the owner's output
// starts late (rule P4 of doc.go).
func MaxLead(heartbeat time.Duration) time.Duration {
	return 2*heartbeat + 250*time.Millisecond
}

// Position keeps where a State's position stands in time on one device.
// The zero value anchors at clock 0; call Reset at launch.
type Position struct {
	// At is when State.PositionMS was true.
	At time.Duration
	// HeardAt is when the state was last confirmed by its source: the
	// owner's latest snapshot with news, or the stored state at launch.
	HeardAt time.Duration
	floor   floor
	// loaded is set from Load until a source confirms the state.
	loaded bool
}

// floor is the least position a controller shows on one track: what it
// showed before an owner's snapshot that lags it arrived.
type floor struct {
	index int
	cid   string
	jumps uint64
	ms    int64
}

// Reset anchors a state just replaced at now, confirmed then (an
// owner's state handed back, a new group's empty state).
func (p *Position) Reset(now time.Duration) {
	*p = Position{At: now, HeardAt: now}
}

// Load anchors a state read from storage at launch (rule P7): nothing
// says how long it played since it was saved, so it is not extrapolated
// until a source confirms it (Adopt, Reset, a takeover, a control here).
func (p *Position) Load(now time.Duration) {
	*p = Position{At: now, HeardAt: now, loaded: true}
}

// until is how far a position this device did not measure may be
// extrapolated (rule P2).
func (p *Position) until(in Inputs) time.Duration {
	if p.loaded {
		return p.At
	}
	switch in.Owner {
	case OwnerLive:
		// Two heartbeats past what the owner confirmed: a control of
		// this device (At) confirms nothing, so a view of controls the
		// owner applies late does not run on.
		return min(in.Now, max(p.At, p.HeardAt+2*in.Heartbeat))
	case OwnerGone:
		return min(in.Now, p.HeardAt)
	}
	return in.Now
}

// Now is the position of s's current entry now (rules P1 to P4).
func (p *Position) Now(s State, in Inputs) int64 {
	if in.Measured {
		return in.MeasuredMS
	}
	return p.floored(s, in, s.Extrapolate(p.until(in)-p.At))
}

// Anchor makes s.PositionMS the position now.
func (p *Position) Anchor(s *State, in Inputs) {
	s.PositionMS = p.Now(*s, in)
	p.At = in.Now
}

// AnchorHeard is Anchor for taking over from an owner not known live (a
// failover, a restart, picking this device after the owner went quiet):
// s is extrapolated only up to when its source last confirmed it, so no
// music is skipped for the time it was silent (rule P5). The caller
// whose output renders s measures instead (Anchor).
func (p *Position) AnchorHeard(s *State, now time.Duration) {
	s.PositionMS = s.Extrapolate(min(now, p.HeardAt) - p.At)
	p.At = now
	p.floor, p.loaded = floor{}, false
}

// TakeOver anchors s when this device takes the output over and its
// output does not render s yet (rule P5). From an owner that was live
// (a handoff, the claim's announcement come first) s is extrapolated as a
// controller shows it, at most two heartbeats past what the owner
// confirmed; from one not known live only up to when it was last heard
// (AnchorHeard). Either way no time the old owner did not play is
// skipped.
func (p *Position) TakeOver(s *State, now, heartbeat time.Duration, ownerLive bool) {
	if !ownerLive {
		p.AnchorHeard(s, now)
		return
	}
	p.Anchor(s, Inputs{Now: now, Owner: OwnerLive, Heartbeat: heartbeat})
	p.floor, p.loaded = floor{}, false
}

// Moved anchors s after the caller set s.PositionMS itself (a control, a
// track change, a handoff's state) at now.
func (p *Position) Moved(now time.Duration) {
	p.At, p.loaded = now, false
}

// Adopt replaces *cur, shown at shown (Now before the call), by the
// owner's state next, which the owner published at heard (rule P3: the
// time it waited at a relay does not count). On the same track, both
// playing, with no jump between them and the owner less than MaxLead
// behind what was shown, the view stays where it was until the owner's
// catches up, so it never steps back by the owner's jitter.
func (p *Position) Adopt(cur *State, next State, heard time.Duration, shown int64, in Inputs) {
	p.floor = floor{}
	c, ok := cur.Current()
	n, ok2 := next.Current()
	same := ok && ok2 && !in.Predicted && cur.Playing && next.Playing && c.ContentID == n.ContentID &&
		cur.Index == next.Index && cur.Jumps == next.Jumps
	if at := next.Extrapolate(in.Now - heard); same && shown > at && shown-at <= MaxLead(in.Heartbeat).Milliseconds() {
		p.floor = floor{index: next.Index, cid: n.ContentID, jumps: next.Jumps, ms: shown}
	}
	*cur = next
	p.At, p.HeardAt, p.loaded = heard, heard, false
}

// floored applies the floor to ms, the extrapolated position of s's
// current entry: only a controller's view lags an owner, and a jump (a
// seek, a track change, also one this device made) ends the floor.
func (p *Position) floored(s State, in Inputs, ms int64) int64 {
	if p.floor.cid == "" || !s.Playing || !in.Owner.controller() {
		return ms
	}
	if e, ok := s.Current(); !ok || s.Index != p.floor.index || e.ContentID != p.floor.cid || s.Jumps != p.floor.jumps {
		return ms
	}
	return max(ms, p.floor.ms)
}

// KeepPlaying reports whether the target of handoff c, which renders the
// handoff's current entry already and is at ms on it, goes on from there
// rather than starting again at the handoff's position (rule P6): the
// handoff's position is not exact (a controller's view, a restarted
// owner's saved state: the target's output knows better), or the target
// is within HandoffSlack of it (it learned the claim from the
// announcement first and took over a moment before).
func KeepPlaying(c Control, ms int64) bool {
	if c.State == nil || !c.Exact {
		return true
	}
	d := ms - c.State.PositionMS
	return max(d, -d) <= HandoffSlack.Milliseconds()
}
