package main

import (
	"slices"
	"testing"
	"time"
)

// fakeTimers records the timers a sweep sets; fire runs the oldest one
// still pending.
type fakeTimers struct {
	pending []*fakeTimer
}

type fakeTimer struct {
	d       time.Duration
	f       func()
	stopped bool
}

func (t *fakeTimer) Stop() bool { was := !t.stopped; t.stopped = true; return was }

func (ft *fakeTimers) after(d time.Duration, f func()) stopper {
	t := &fakeTimer{d: d, f: f}
	ft.pending = append(ft.pending, t)
	return t
}

func (ft *fakeTimers) fire(t *testing.T, want time.Duration) {
	t.Helper()
	for len(ft.pending) > 0 {
		next := ft.pending[0]
		ft.pending = ft.pending[1:]
		if next.stopped {
			continue
		}
		if next.d != want {
			t.Fatalf("next timer after %v, want %v", next.d, want)
		}
		next.f()
		return
	}
	t.Fatalf("no timer pending, want one after %v", want)
}

// When browsing stops, the free memory goes back at once; the window is
// repainted once textureExpiry later (Fyne frees expired textures only
// on a repaint) and what that freed goes back a second after. A new burst
// ending before the repaint moves it later; stop cancels it.
func TestSweepRepaintsOnceTexturesExpired(t *testing.T) {
	var got []string
	ft := &fakeTimers{}
	s := &sweep{after: ft.after, repaint: func() { got = append(got, "repaint") }, free: func() { got = append(got, "free") }}

	s.quiet()
	s.quiet() // a second burst ended before the first sweep
	if want := []string{"free", "free"}; !slices.Equal(got, want) {
		t.Fatalf("after two quiet spells: %v, want %v", got, want)
	}
	ft.fire(t, textureExpiry)
	if want := []string{"free", "free", "repaint"}; !slices.Equal(got, want) {
		t.Fatalf("after the expiry: %v, want %v (the first burst's sweep was not cancelled?)", got, want)
	}
	ft.fire(t, time.Second)
	if want := []string{"free", "free", "repaint", "free"}; !slices.Equal(got, want) {
		t.Fatalf("a second after the repaint: %v, want %v", got, want)
	}

	got = nil
	s.quiet()
	s.stop()
	for _, p := range ft.pending {
		if !p.stopped {
			t.Fatal("stop left a sweep pending")
		}
	}
}
