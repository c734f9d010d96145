package ui

import (
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"github.com/furudesk/furudesk/app"
)

// refreshCounter counts the redraws widgets ask of their canvas
// (canvas.Refresh goes through the current app's driver).
type refreshCounter struct{ n atomic.Int64 }

type countingApp struct {
	fyne.App
	d countingDriver
}

func (a countingApp) Driver() fyne.Driver { return a.d }

type countingDriver struct {
	fyne.Driver
	c *refreshCounter
}

func (d countingDriver) CanvasForObject(o fyne.CanvasObject) fyne.Canvas {
	c := d.Driver.CanvasForObject(o)
	if c == nil {
		return nil
	}
	return countingCanvas{Canvas: c, c: d.c}
}

type countingCanvas struct {
	fyne.Canvas
	c *refreshCounter
}

func (c countingCanvas) Refresh(o fyne.CanvasObject) {
	c.c.n.Add(1)
	c.Canvas.Refresh(o)
}

// countRefreshes makes the harness's app count the redraws asked for.
func countRefreshes(t *testing.T) *refreshCounter {
	c := &refreshCounter{}
	prev := fyne.CurrentApp()
	fyne.SetCurrentApp(countingApp{App: prev, d: countingDriver{Driver: prev.Driver(), c: c}})
	t.Cleanup(func() { fyne.SetCurrentApp(prev) })
	return c
}

// A status that changes nothing redraws nothing, and while the music plays
// the window redraws only when the elapsed time turns to the next second:
// nothing in between, nothing at all while paused.
func TestNothingRedrawnWhenNothingChanged(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	c := countRefreshes(t)
	h.u.apply(h.b.Status())
	h.u.apply(h.b.Status())
	if n := c.n.Load(); n != 0 {
		t.Fatalf("the same status applied again: %d redraws, want none", n)
	}
	h.clock.advance(300 * time.Millisecond) // 0:10.3: the label still shows 0:10
	h.u.tick()
	if n := c.n.Load(); n != 0 {
		t.Fatalf("a tick within the same second: %d redraws, want none", n)
	}
	h.clock.advance(800 * time.Millisecond) // 0:11.1
	h.u.tick()
	if n := c.n.Load(); n == 0 || h.u.np.elapsed.Text != "0:11" {
		t.Fatalf("the next second: %d redraws, elapsed %s; want 0:11 drawn", n, h.u.np.elapsed.Text)
	}
	h.apply(func(st *app.Status) { st.Playing = false; st.PositionMS = 11_100 })
	c.n.Store(0)
	for range 5 {
		h.clock.advance(time.Second)
		h.u.tick()
		h.u.apply(h.b.Status())
	}
	if n := c.n.Load(); n != 0 {
		t.Fatalf("paused for 5 s: %d redraws, want none", n)
	}
}

// Statuses reach the UI goroutine coalesced: however many arrive while it
// is busy, one refresh waits, and it applies the newest.
func TestStatusUpdatesCoalesced(t *testing.T) {
	var queued []func()
	var applied []app.Status
	f := &statusFeed{do: func(fn func()) { queued = append(queued, fn) }, apply: func(st app.Status) { applied = append(applied, st) }}
	for i := range 100 {
		f.put(app.Status{PositionMS: int64(i)})
	}
	if len(queued) != 1 {
		t.Fatalf("100 statuses while the UI goroutine was busy queued %d refreshes, want 1", len(queued))
	}
	queued[0]()
	if len(applied) != 1 || applied[0].PositionMS != 99 {
		t.Fatalf("applied %+v, want only the newest (99)", applied)
	}
	f.put(app.Status{PositionMS: 100})
	if len(queued) != 2 {
		t.Fatal("a status after the refresh ran queued no new one")
	}
	queued[1]()
	if len(applied) != 2 || applied[1].PositionMS != 100 {
		t.Fatalf("applied %+v", applied)
	}
}

// Hidden (closed to the tray), the window runs no position ticker; shown
// again, it redraws the position at once and ticks again.
func TestHiddenWindowDoesNotTick(t *testing.T) {
	h := newHarness(t, 30)
	h.u.ticking = true
	type start struct {
		stop  <-chan struct{}
		first time.Duration
	}
	starts := make(chan start, 16) // the loop runs on its own goroutine
	h.u.loop = func(stop <-chan struct{}, first time.Duration) { starts <- start{stop, first} }
	h.playing()
	if h.u.tickStop == nil {
		t.Fatal("no ticker while playing")
	}
	h.u.SetHidden(true)
	if h.u.tickStop != nil {
		t.Fatal("ticker runs while hidden")
	}
	h.apply(func(st *app.Status) { st.Volume = 20 })
	if h.u.tickStop != nil {
		t.Fatal("a status started the ticker while hidden")
	}
	h.clock.advance(5 * time.Second)
	h.u.SetHidden(false)
	if h.u.tickStop == nil || h.u.np.elapsed.Text != "0:15" {
		t.Fatalf("shown again: ticker %v, elapsed %s; want ticking from 0:15", h.u.tickStop != nil, h.u.np.elapsed.Text)
	}
	var last start
	for last.stop != h.u.tickStop {
		select {
		case last = <-starts:
		case <-time.After(30 * time.Second):
			t.Fatal("the ticker shown again did not start")
		}
	}
	if last.first <= 0 || last.first > time.Second+10*time.Millisecond {
		t.Fatalf("first tick in %v, want when the elapsed time turns (within 1 s)", last.first)
	}
}

// No page uses a container.ThemeOverride: Fyne gives each override (and
// each refresh of one) a theme scope of its own and loads its fonts again
// for it, about 10 MB a time, never freed.
func TestNoThemeOverrides(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	for _, p := range pageOrder {
		h.u.showPage(p)
		if n := len(find(h.u.win.Content(), func(*container.ThemeOverride) bool { return true })); n > 0 {
			t.Errorf("page %s: %d theme overrides", p, n)
		}
	}
}
