package memrelease

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// fakeClock runs timers when the test advances it.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Duration
	timers []*fakeTimer
}

type fakeTimer struct {
	c  *fakeClock
	at time.Duration
	on bool
	f  func()
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Unix(1_800_000_000, 0).Add(c.now)
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now + d, on: true, f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.on
	t.at, t.on = t.c.now+d, true
	return was
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.on
	t.on = false
	return was
}

// advance moves the clock by d, firing the timers due.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	var due []func()
	for _, t := range c.timers {
		if t.on && t.at <= c.now {
			t.on = false
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// harness is a watcher on a fake clock and a fake collection counter;
// its release counts and, like debug.FreeOSMemory, collects.
type harness struct {
	clock    fakeClock
	w        *Watcher
	cycles   uint64
	releases int
}

func newHarness(quiet time.Duration) *harness {
	h := &harness{}
	h.w = newWatcher(quiet, func() {
		h.releases++
		h.gc() // FreeOSMemory's own collection, reported while it runs
	}, &h.clock, func() uint64 { return h.cycles })
	return h
}

// gc is a collection as the cleanup reports it.
func (h *harness) gc() {
	h.cycles++
	h.w.collected()
}

func TestReleasesOnceQuietAfterCollections(t *testing.T) {
	h := newHarness(30 * time.Second)
	h.clock.advance(time.Hour)
	if h.releases != 0 {
		t.Fatalf("released %d times with no collection at all", h.releases)
	}
	// An idle process's trickle: collections far apart release nothing.
	for range 10 {
		h.gc()
		h.clock.advance(time.Minute)
	}
	if h.releases != 0 {
		t.Fatalf("released %d times for collections a minute apart", h.releases)
	}
	// Browsing: collections every few seconds keep it from releasing.
	for range 20 {
		h.gc()
		h.clock.advance(5 * time.Second)
	}
	if h.releases != 0 {
		t.Fatalf("released %d times while collections kept coming", h.releases)
	}
	h.clock.advance(25 * time.Second)
	if h.releases != 1 {
		t.Fatalf("released %d times after a quiet while, want 1", h.releases)
	}
	// Its own collection does not count: left alone, it releases no more.
	h.clock.advance(24 * time.Hour)
	if h.releases != 1 {
		t.Fatalf("released %d times while idle after releasing, want still 1", h.releases)
	}
	// A collection reported late, after release returned, for a cycle
	// release ran, does not count either.
	h.w.collected()
	h.clock.advance(time.Hour)
	if h.releases != 1 {
		t.Fatalf("released again for release's own collection reported late: %d", h.releases)
	}
	// Activity again: one more release after it.
	h.gc()
	h.clock.advance(time.Second)
	h.gc()
	h.clock.advance(30 * time.Second)
	if h.releases != 2 {
		t.Fatalf("released %d times after new activity and quiet, want 2", h.releases)
	}
}

// A user browsing for long: the room is released as it goes, at most
// once a minute, and once more when the browsing stops; a short burst
// only at its end.
func TestLongBurstReleasesAsItGoes(t *testing.T) {
	h := newHarness(10 * time.Second)
	during := 0
	h.w.DuringBursts(time.Minute, func() {
		during++
		h.gc() // FreeOSMemory's own collection
	})
	// Twenty seconds of browsing: too short to release before its end.
	for range 5 {
		h.gc()
		h.clock.advance(4 * time.Second)
	}
	if during != 0 {
		t.Fatalf("released %d times during a 20 s burst, want none before its end", during)
	}
	h.clock.advance(10 * time.Second)
	if h.releases != 1 || during != 0 {
		t.Fatalf("after a short burst: %d releases at its end and %d during it, want 1 and 0", h.releases, during)
	}
	// Ten minutes of browsing, a collection every 4 seconds.
	for range 150 {
		h.gc()
		h.clock.advance(4 * time.Second)
	}
	if during < 9 || during > 10 {
		t.Fatalf("released %d times during 10 minutes of browsing, want one a minute (9 or 10)", during)
	}
	if h.releases != 1 {
		t.Fatalf("released %d times at a burst's end while it went on, want still 1", h.releases)
	}
	h.clock.advance(10 * time.Second)
	if h.releases != 2 {
		t.Fatalf("released %d times at the ends of two bursts, want 2", h.releases)
	}
	// Left alone, nothing more of either kind.
	was := during
	h.clock.advance(time.Hour)
	if h.releases != 2 || during != was {
		t.Fatalf("released while idle: %d at ends, %d during (was 2, %d)", h.releases, during, was)
	}
}

func TestStopEndsReleases(t *testing.T) {
	h := newHarness(time.Second)
	h.gc()
	h.gc()
	h.w.Stop()
	h.clock.advance(time.Minute)
	if h.releases != 0 {
		t.Fatalf("released %d times after Stop", h.releases)
	}
	if h.w.collected() {
		t.Fatal("still hooked on collections after Stop")
	}
}

// The hook on the real collector: its collections are reported, and once
// a burst of them is over the watcher releases.
func TestWatchSeesRealCollections(t *testing.T) {
	released := make(chan struct{}, 4)
	w := Watch(time.Second, func() { released <- struct{}{} })
	defer w.Stop()
	deadline := time.After(time.Minute) // a hang guard, not a latency bound
	armed := func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.armed
	}
	// Collect until the watcher saw a burst (its cleanups run on their
	// own goroutine, after each cycle).
	for !armed() {
		runtime.GC()
		select {
		case <-deadline:
			t.Fatal("the watcher saw no burst of collections")
		case <-time.After(5 * time.Millisecond):
		}
	}
	select {
	case <-released:
	case <-deadline:
		t.Fatal("no release after a burst of collections and a quiet second")
	}
}

// glibc takes the fixed threshold; the environment's wins.
func TestKeepLargeBlocksApart(t *testing.T) {
	if runtime.GOOS != "linux" || !cgoGlibc {
		t.Skip("only glibc's C heap is tuned")
	}
	t.Setenv("MALLOC_MMAP_THRESHOLD_", "")
	if !KeepLargeBlocksApart() {
		t.Fatal("glibc refused the fixed mmap threshold")
	}
	t.Setenv("MALLOC_MMAP_THRESHOLD_", "65536")
	if KeepLargeBlocksApart() {
		t.Fatal("set the threshold over the environment's")
	}
}
