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
