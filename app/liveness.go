package app

import "time"

// away is how long this device was not listening before the tick being
// handled: its ticker fired much later than its interval because the
// process was stopped (SIGSTOP, a laptop's sleep, App Nap, a paused VM) or
// starved. Zero when the tick came about on time. A few late ticks on a
// busy machine count too: they only move the owner's window by as much.
func (a *actor) away() time.Duration {
	now := a.clock.Now()
	gap := now - a.lastTick
	first := !a.ticked
	a.lastTick, a.ticked = now, true
	if first || gap <= 2*a.opts.TickInterval {
		return 0
	}
	return gap - a.opts.TickInterval
}

// resumed tells the engine that this device was away (engine.Resumed), so
// its own pause is not taken for the owner's silence: the owner's reports
// that waited in the inbox renew it as usual. Presentation waits the same
// before it shows the owner as gone.
func (a *actor) resumed(away time.Duration) {
	a.e.Resumed(away)
	a.resumedAt = a.clock.Now()
	a.log.Info("woke up after not running", "away", away.Round(time.Millisecond))
}

// renderingNow is Status.Rendering: this device owns the output and, when
// the music plays, its output has taken the first samples of the current
// track (audio.Started).
func (a *actor) renderingNow() bool {
	if !a.e.MayRender() || a.holding() {
		return false
	}
	return a.out == nil || !a.st.Playing || (a.cur.Seq != 0 && a.curStarted)
}

// extrapolateUntil is how far a position this device did not measure may
// be extrapolated: to now, except while another device owns the output.
// Then it stops where that owner was last heard (a gone owner), or at most
// two heartbeats after it was last heard or this device last changed the
// state itself (a live owner reports every heartbeat): a controller never
// shows, transfers or resumes a position the owner never played.
func (a *actor) extrapolateUntil() time.Duration {
	now := a.clock.Now()
	if o := a.e.Owner(); o == "" || o == a.self {
		return now
	}
	if a.ownerGone() {
		return min(now, a.heardAt)
	}
	return min(now, max(a.heardAt, a.stAt)+2*a.opts.HeartbeatEvery)
}

// posFloor is the least position a controller shows on one track: what
// it showed before an owner's snapshot that lags it arrived. The position
// shown stays there until the owner's catches up, so it never steps back
// unless the owner jumped (a seek).
type posFloor struct {
	index int
	cid   string
	ms    int64
}

// keepFloor decides the floor when this device adopts the owner's state
// ps, heard at heard, while it showed shown: on the same track, both
// playing, no jump in between, and the owner behind what it showed.
func (a *actor) keepFloor(ps PlayerState, heard time.Duration, shown int64) {
	a.floor = posFloor{}
	cur, ok := a.st.Current()
	next, ok2 := ps.Current()
	if !ok || !ok2 || !a.st.Playing || !ps.Playing || cur.ContentID != next.ContentID ||
		a.st.Index != ps.Index || ps.Jumps != a.st.Jumps {
		return
	}
	// A controller runs ahead of the owner by no more than it
	// extrapolated without hearing it (two heartbeats) and the little the
	// owner's output started late: a view further ahead is wrong (the
	// owner never played there) and gives way at once.
	if p := ps.Extrapolate(a.clock.Now() - heard); shown > p && shown-p <= a.maxLead().Milliseconds() {
		a.floor = posFloor{index: ps.Index, cid: next.ContentID, ms: shown}
	}
}

// maxLead is the most a controller's view may run ahead of the owner's
// reported position and still be kept (keepFloor).
func (a *actor) maxLead() time.Duration {
	return 2*a.opts.HeartbeatEvery + PositionSlack
}

// floored applies the floor to p, the extrapolated position of the
// current track.
func (a *actor) floored(p int64) int64 {
	if o := a.e.Owner(); a.floor.cid == "" || !a.st.Playing || o == "" || o == a.self {
		return p // only a controller's view lags an owner
	}
	if e, ok := a.st.Current(); !ok || a.st.Index != a.floor.index || e.ContentID != a.floor.cid {
		return p
	}
	return max(p, a.floor.ms)
}
