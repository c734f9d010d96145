// Package framegov lets the window's event loop sleep while the window has
// nothing to do.
//
// Fyne 2.7's desktop driver wakes 60 times a second whatever happens: it
// polls the display server for events, ticks its animations and redraws
// the windows whose content changed (fyne-io/fyne#2506). Under Xvfb that
// alone costs 2-3 % of a core, more than everything else an idle furudesk
// does. A Governor holds the loop while it is idle: it queues, on the UI
// goroutine, a call that blocks until
//
//   - the display server has events for the window (the user moved the
//     mouse, pressed a key, the window manager moved the window): Input;
//   - the app has work for the window (a status to show, a catalog to
//     list), queued through Do: Work;
//   - or Policy.Hold passed (Fyne's own timers, a tray click, which reach
//     the loop without Do, wait at most that long): Timeout.
//
// After a hold the loop runs as Fyne made it, at full rate, for as long as
// Policy.After says for how the hold ended, and then the Governor holds it
// again. It does not hold while the window animates (Options.Busy): the
// scan's progress bar moves on Fyne's ticks. A text field's caret
// (Options.Caret) needs far fewer frames than Fyne's 60: one when it goes
// on or off. Caret is called before and after each hold, and in the
// full-rate spells as often as it asks; a hold ends when Caret wants to be
// called again, so the frame after it shows the caret's change.
//
// Where there is no display fd to wait on (not X11, or a build without
// cgo) NewWaiter says so, no Governor runs, and the loop runs as Fyne made
// it.
package framegov

import (
	"io"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
)

// End says why a hold ended.
type End int

const (
	// Timeout: nothing happened for Policy.Hold.
	Timeout End = iota
	// Input: the display server sent the window events.
	Input
	// Work: the app queued work for the window (Do, Wake).
	Work
	// Busy: the window animates; the hold did not begin.
	Busy
	// Stopped: the Governor was stopped; the hold ended or did not begin.
	Stopped
)

func (e End) String() string {
	switch e {
	case Timeout:
		return "timeout"
	case Input:
		return "input"
	case Work:
		return "work"
	case Busy:
		return "busy"
	case Stopped:
		return "stopped"
	}
	return "unknown"
}

// Policy is how long a hold lasts at most and how long the loop runs at
// full rate after one.
type Policy struct {
	// Hold is the longest hold: how late Fyne's own timers (a tooltip, a
	// cache's expiry) and tray menu clicks, which reach the loop without
	// waking it, can be served.
	Hold time.Duration
	// HoldHidden is the longest hold while the window is hidden (closed
	// to the tray): nothing but the tray's menu is served then.
	HoldHidden time.Duration
	// AfterTimeout is the spell after a hold that timed out. Zero is
	// enough for one of Fyne's frames to run between two holds: the frame
	// that fell due during the hold is ready when the hold ends, the next
	// hold is queued after it.
	AfterTimeout time.Duration
	// AfterWork lets the loop run the queued work and draw what it
	// changed.
	AfterWork time.Duration
	// AfterInput keeps the full rate while the user is at the window
	// (hovering, scrolling, typing) and for the animations input starts
	// (a button's tap ripple).
	AfterInput time.Duration
	// AfterBusy is how soon a busy window is asked again.
	AfterBusy time.Duration
}

// DefaultPolicy: an idle window wakes 4 times a second instead of 60, a
// hidden one twice; a tray click is served within a quarter of a second,
// half a second while the window is hidden.
var DefaultPolicy = Policy{
	Hold:         250 * time.Millisecond,
	HoldHidden:   500 * time.Millisecond,
	AfterTimeout: 0,
	AfterWork:    50 * time.Millisecond,
	AfterInput:   time.Second,
	AfterBusy:    250 * time.Millisecond,
}

// After is how long the loop runs at full rate after a hold that ended
// with e.
func (p Policy) After(e End) time.Duration {
	switch e {
	case Input:
		return p.AfterInput
	case Work:
		return p.AfterWork
	case Busy:
		return p.AfterBusy
	}
	return p.AfterTimeout
}

// Waiter blocks the UI goroutine during a hold. Wait returns Input when
// the display has events (sent during the hold, or not read yet), Work
// when wake delivers, Timeout after timeout.
type Waiter interface {
	Wait(timeout time.Duration, wake <-chan struct{}) End
}

// Options are a Governor's collaborators.
type Options struct {
	Policy Policy
	// Waiter is what a hold blocks in.
	Waiter Waiter
	// Busy says, on the UI goroutine, that the window animates and must
	// not be held. Nil: never.
	Busy func() bool
	// Hidden says, on the UI goroutine, that the window is hidden (holds
	// last up to Policy.HoldHidden). Nil: never.
	Hidden func() bool
	// Caret, on the UI goroutine, shows the focused text field's caret as
	// it is now (lit or dark) and returns how soon it must be called
	// again: when the caret next changes. Zero: not before the next hold.
	// A hold lasts no longer than that, and Caret is called again before
	// the frame after it. Not called while the window is hidden. Nil: no
	// caret.
	Caret func() time.Duration
	// Do queues a call on the UI goroutine; nil: fyne.Do.
	Do func(func())
	// After is time.After; tests give a fake clock's.
	After func(time.Duration) <-chan time.Time
	// Held, when set, is told how each hold ended, on the Governor's
	// goroutine (tests wait on it; Holds counts them for ctl stats).
	Held func(End)
}

// Governor holds the window's loop while it is idle. Its methods are safe
// from any goroutine, on a nil Governor too.
type Governor struct {
	o       Options
	stop    chan struct{}
	stopped atomic.Bool
	once    sync.Once
	done    chan struct{}
	ends    [Stopped + 1]atomic.Uint64 // holds by how they ended
	// queued counts the Wakes; wake tells a hold of one.
	queued atomic.Uint64
	wake   chan struct{}
}

// Run starts holding the loop as o says, until Stop. The loop must be
// running (call it from Fyne's OnStarted or later).
func Run(o Options) *Governor {
	if o.Do == nil {
		o.Do = fyne.Do
	}
	if o.After == nil {
		o.After = time.After
	}
	never := func() bool { return false }
	if o.Busy == nil {
		o.Busy = never
	}
	if o.Hidden == nil {
		o.Hidden = never
	}
	if o.Caret == nil {
		o.Caret = func() time.Duration { return 0 }
	}
	g := &Governor{o: o, stop: make(chan struct{}), done: make(chan struct{}), wake: make(chan struct{}, 1)}
	go g.run()
	return g
}

func (g *Governor) run() {
	defer close(g.done)
	for {
		ended := make(chan held, 1)
		mark := g.queued.Load()
		g.o.Do(func() { ended <- g.hold(mark) })
		var h held
		select {
		case h = <-ended:
		case <-g.stop:
			return
		}
		g.ends[h.end].Add(1)
		if g.o.Held != nil {
			g.o.Held(h.end)
		}
		if h.end == Stopped {
			return
		}
		if !g.spell(g.o.Policy.After(h.end), h.caret) {
			return
		}
	}
}

// held is how a hold ended and how soon the caret wants its next call.
type held struct {
	end   End
	caret time.Duration
}

// spell lets the loop run at full rate for d, calling Caret on the UI
// goroutine whenever it asked to be (caret after the start; 0: never). It
// reports false when the Governor was stopped meanwhile.
func (g *Governor) spell(d, caret time.Duration) bool {
	for d > 0 {
		step := d
		if caret > 0 && caret < d {
			step = caret
		}
		select {
		case <-g.o.After(step):
		case <-g.stop:
			return false
		}
		d -= step
		if step != caret {
			caret = max(0, caret-step)
			continue
		}
		next := make(chan time.Duration, 1)
		g.o.Do(func() { next <- g.o.Caret() })
		select {
		case caret = <-next:
		case <-g.stop:
			return false
		}
	}
	return true
}

// hold runs on the UI goroutine; mark is queued when it was queued.
func (g *Governor) hold(mark uint64) held {
	// Fyne's queue is first in, first out: work queued before this hold
	// ran before it, and its wake-up is stale. Work queued since must
	// run now.
	select {
	case <-g.wake:
	default:
	}
	switch {
	case g.stopped.Load():
		return held{end: Stopped}
	case g.queued.Load() != mark:
		return held{end: Work, caret: g.o.Caret()}
	case g.o.Busy():
		return held{end: Busy, caret: g.o.Caret()}
	}
	if g.o.Hidden() {
		e := g.o.Waiter.Wait(g.o.Policy.HoldHidden, g.wake)
		if g.stopped.Load() {
			e = Stopped
		}
		return held{end: e}
	}
	hold := g.o.Policy.Hold
	if d := g.o.Caret(); d > 0 {
		hold = min(hold, d)
	}
	e := g.o.Waiter.Wait(hold, g.wake)
	if g.stopped.Load() {
		return held{end: Stopped}
	}
	// The frame after the hold shows the caret as it is now.
	return held{end: e, caret: g.o.Caret()}
}

// Wake ends a hold in progress, or the next one at once when it was
// queued before the Wake: the app queued work for the window (call it
// after queueing the work).
func (g *Governor) Wake() {
	if g == nil {
		return
	}
	g.queued.Add(1)
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

// Stop ends holding the loop, and a hold in progress, waits for the
// Governor's goroutine to end and closes the Waiter when it is an
// io.Closer. Call it when the window closes or the app is asked to quit,
// so the loop gets to Fyne's quit at once.
func (g *Governor) Stop() {
	if g == nil {
		return
	}
	g.once.Do(func() {
		g.stopped.Store(true)
		g.Wake()
		close(g.stop)
		<-g.done
		if c, ok := g.o.Waiter.(io.Closer); ok {
			_ = c.Close()
		}
	})
	<-g.done
}

// Holds counts the holds so far by how they ended ("timeout", "input",
// "work", "busy"); nil for a nil Governor.
func (g *Governor) Holds() map[string]uint64 {
	if g == nil {
		return nil
	}
	m := make(map[string]uint64)
	for e := Timeout; e < Stopped; e++ {
		m[e.String()] = g.ends[e].Load()
	}
	return m
}

// Installed is the installed Governor (nil: none).
func Installed() *Governor { return current.Load() }

// current is the window's Governor, woken by Do.
var current atomic.Pointer[Governor]

// Install makes g the Governor Do and Wake wake (nil: none).
func Install(g *Governor) { current.Store(g) }

// Wake ends the installed Governor's hold, if any.
func Wake() { current.Load().Wake() }

// Do queues f on the UI goroutine (fyne.Do) and wakes the loop so f runs
// at once, not after a hold. The app's code reaches widgets through it.
func Do(f func()) {
	fyne.Do(f)
	Wake()
}

// Release stops the installed Governor, if any: the app quits.
func Release() { current.Load().Stop() }
