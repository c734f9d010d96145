package framegov

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// fakeWaiter ends a hold when the test says how, or when woken.
type fakeWaiter struct {
	holds chan time.Duration // each Wait's timeout, as it begins
	ends  chan End
}

func newFakeWaiter() *fakeWaiter {
	return &fakeWaiter{holds: make(chan time.Duration, 8), ends: make(chan End)}
}

func (w *fakeWaiter) Wait(timeout time.Duration, wake <-chan struct{}) End {
	w.holds <- timeout
	select {
	case e := <-w.ends:
		return e
	case <-wake:
		return Work
	}
}

// rig is a Governor whose UI goroutine and clock are the test's.
type rig struct {
	g      *Governor
	w      *fakeWaiter
	posted chan func()        // calls queued on the "UI goroutine"
	spells chan time.Duration // the full-rate spells asked of the clock
	fire   chan time.Time     // the clock's answer to the last spell
	held   chan End
	busy   atomic.Bool
	hidden atomic.Bool
	caret  atomic.Int64 // what Caret returns, a time.Duration
	carets atomic.Int32 // calls of Caret
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{w: newFakeWaiter(), posted: make(chan func(), 8), spells: make(chan time.Duration, 8),
		fire: make(chan time.Time, 1), held: make(chan End, 8)}
	r.g = Run(Options{
		Policy: DefaultPolicy,
		Waiter: r.w,
		Busy:   r.busy.Load,
		Hidden: r.hidden.Load,
		Caret: func() time.Duration {
			r.carets.Add(1)
			return time.Duration(r.caret.Load())
		},
		Do: func(f func()) { r.posted <- f },
		After: func(d time.Duration) <-chan time.Time {
			r.spells <- d
			return r.fire
		},
		Held: func(e End) { r.held <- e },
	})
	t.Cleanup(r.g.Stop)
	return r
}

// runOnUI runs the next queued call as the UI goroutine would, in the
// background (a hold blocks it).
func (r *rig) runOnUI() { go (<-r.posted)() }

func TestAnIdleWindowIsHeldAgainAndAgain(t *testing.T) {
	r := newRig(t)
	for range 3 {
		r.runOnUI()
		if d := <-r.w.holds; d != DefaultPolicy.Hold {
			t.Fatalf("hold of %v, want %v", d, DefaultPolicy.Hold)
		}
		r.w.ends <- Timeout
		if e := <-r.held; e != Timeout {
			t.Fatalf("hold ended with %v", e)
		}
		// The next hold is queued at once, behind the frame that fell due.
		select {
		case d := <-r.spells:
			t.Fatalf("after a timeout the loop runs free for %v", d)
		default:
		}
	}
}

func TestAHiddenWindowIsHeldLonger(t *testing.T) {
	r := newRig(t)
	r.hidden.Store(true)
	r.runOnUI()
	if d := <-r.w.holds; d != DefaultPolicy.HoldHidden {
		t.Fatalf("a hidden window's hold: %v, want %v", d, DefaultPolicy.HoldHidden)
	}
	r.w.ends <- Timeout
	r.hidden.Store(false) // shown again (from the tray)
	r.runOnUI()
	if d := <-r.w.holds; d != DefaultPolicy.Hold {
		t.Fatalf("a shown window's hold: %v, want %v", d, DefaultPolicy.Hold)
	}
}

// A caret needs a frame when it goes on or off, not Fyne's 60: a hold
// ends when Caret asked to be called again, and Caret is called before
// the frame after it, so that frame shows the change.
func TestAHoldEndsWhenTheCaretChanges(t *testing.T) {
	r := newRig(t)
	r.caret.Store(int64(130 * time.Millisecond))
	for range 3 {
		r.carets.Store(0)
		r.runOnUI()
		if d := <-r.w.holds; d != 130*time.Millisecond {
			t.Fatalf("a hold with the caret due in 130 ms: %v", d)
		}
		r.w.ends <- Timeout
		if e := <-r.held; e != Timeout {
			t.Fatalf("hold ended with %v", e)
		}
		if n := r.carets.Load(); n != 2 {
			t.Fatalf("Caret called %d times around a hold, want before and after it", n)
		}
	}
	// Due later than Policy.Hold: the hold is as long as ever.
	r.caret.Store(int64(time.Second))
	r.runOnUI()
	if d := <-r.w.holds; d != DefaultPolicy.Hold {
		t.Fatalf("a hold with the caret due in 1 s: %v, want %v", d, DefaultPolicy.Hold)
	}
	// Nothing blinks that nobody sees: a hidden window's caret is left be.
	r.w.ends <- Timeout
	<-r.held
	r.hidden.Store(true)
	r.caret.Store(int64(130 * time.Millisecond))
	r.carets.Store(0)
	r.runOnUI()
	if d := <-r.w.holds; d != DefaultPolicy.HoldHidden {
		t.Fatalf("a hidden window's hold: %v, want %v", d, DefaultPolicy.HoldHidden)
	}
	if n := r.carets.Load(); n != 0 {
		t.Fatalf("Caret called %d times for a hidden window", n)
	}
}

// While the loop runs at full rate after input, the caret still changes
// when due: the spell is cut at each call Caret asked for.
func TestTheCaretIsServedThroughAFullRateSpell(t *testing.T) {
	r := newRig(t)
	r.caret.Store(int64(400 * time.Millisecond))
	r.runOnUI()
	<-r.w.holds
	r.w.ends <- Input // Caret, after the hold, asks again in 400 ms
	<-r.held
	var steps []time.Duration
	for {
		steps = append(steps, <-r.spells)
		r.fire <- time.Time{}
		if len(steps) == 3 {
			break
		}
		r.carets.Store(0)
		r.runOnUI() // the Caret call the spell queued
		for r.carets.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	want := []time.Duration{400 * time.Millisecond, 400 * time.Millisecond, 200 * time.Millisecond}
	if !slices.Equal(steps, want) {
		t.Fatalf("a 1 s spell with the caret due every 400 ms ran in steps %v, want %v", steps, want)
	}
	// The spell over, the next hold is queued.
	r.runOnUI()
	if d := <-r.w.holds; d != DefaultPolicy.Hold {
		t.Fatalf("hold of %v, want %v", d, DefaultPolicy.Hold)
	}
}

func TestHowAHoldEndsSetsTheFullRateSpell(t *testing.T) {
	for _, tc := range []struct {
		end  End
		want time.Duration
	}{
		{Input, time.Second},            // the user is at the window
		{Work, DefaultPolicy.AfterWork}, // draw what the app changed
	} {
		r := newRig(t)
		r.runOnUI()
		<-r.w.holds
		r.w.ends <- tc.end
		if got := <-r.spells; got != tc.want {
			t.Errorf("after %v: full rate for %v, want %v", tc.end, got, tc.want)
		}
		r.g.Stop()
	}
}

func TestABusyWindowIsNotHeld(t *testing.T) {
	r := newRig(t)
	r.busy.Store(true)
	r.runOnUI()
	if e := <-r.held; e != Busy {
		t.Fatalf("a busy window's hold: %v, want busy", e)
	}
	select {
	case d := <-r.w.holds:
		t.Fatalf("a busy window was held for up to %v", d)
	default:
	}
	if d := <-r.spells; d != DefaultPolicy.AfterBusy {
		t.Fatalf("a busy window is asked again after %v, want %v", d, DefaultPolicy.AfterBusy)
	}
	// The animation ended: the next time round the window is held.
	r.busy.Store(false)
	r.fire <- time.Time{}
	r.runOnUI()
	if d := <-r.w.holds; d != DefaultPolicy.Hold {
		t.Fatalf("hold of %v, want %v", d, DefaultPolicy.Hold)
	}
}

func TestWakeEndsTheInstalledGovernorsHold(t *testing.T) {
	r := newRig(t)
	Install(r.g)
	t.Cleanup(func() { Install(nil) })
	r.runOnUI()
	<-r.w.holds
	Wake()
	if e := <-r.held; e != Work {
		t.Fatalf("a hold woken for work ended with %v", e)
	}
}

func TestStopEndsAHoldInProgressAndHoldsNoMore(t *testing.T) {
	r := newRig(t)
	r.runOnUI()
	<-r.w.holds
	r.g.Stop() // returns: the hold ended and the Governor's goroutine too
	select {
	case f := <-r.posted:
		t.Fatalf("a hold was queued after Stop (%p)", f)
	default:
	}
}

func TestAHoldQueuedBeforeStopDoesNotHoldAfterIt(t *testing.T) {
	r := newRig(t)
	f := <-r.posted // queued, and the UI goroutine is slow to get to it
	r.g.Stop()
	held := make(chan struct{})
	go func() {
		f()
		close(held)
	}()
	<-held // returned without waiting
	select {
	case d := <-r.w.holds:
		t.Fatalf("the loop was held for up to %v after Stop", d)
	default:
	}
}

func TestANilGovernorDoesNothing(t *testing.T) {
	var g *Governor
	g.Wake()
	g.Stop()
	Install(nil)
	Wake()
	Release()
}

func TestWorkQueuedBehindAHoldEndsItAtOnce(t *testing.T) {
	r := newRig(t)
	f := <-r.posted // the hold is queued
	r.g.Wake()      // then work, behind it
	go f()
	if e := <-r.held; e != Work {
		t.Fatalf("a hold with work queued behind it ended with %v, want work", e)
	}
	select {
	case d := <-r.w.holds:
		t.Fatalf("the loop was held for up to %v with work waiting", d)
	default:
	}
}

func TestWorkThatRanBeforeAHoldDoesNotEndIt(t *testing.T) {
	r := newRig(t)
	r.runOnUI()
	<-r.w.holds
	r.w.ends <- Input
	<-r.spells
	// Work queued during the full-rate spell runs in it, before the next
	// hold is queued: the next hold lasts.
	r.g.Wake()
	r.fire <- time.Time{}
	r.runOnUI()
	if d := <-r.w.holds; d != DefaultPolicy.Hold {
		t.Fatalf("hold of %v, want %v", d, DefaultPolicy.Hold)
	}
}
