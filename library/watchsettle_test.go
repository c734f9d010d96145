package library

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/furudesk/furudesk/internal/wavfile"
)

// stepClock is a fake Clock: time moves only when the test says, and every
// timer the watcher asks for is handed to the test, which fires it.
type stepClock struct {
	mu     sync.Mutex
	now    time.Time
	timers chan *stepTimer
}

type stepTimer struct{ c chan time.Time }

func (t *stepTimer) C() <-chan time.Time { return t.c }
func (t *stepTimer) Stop() bool          { return true }

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) NewTimer(time.Duration) Timer {
	t := &stepTimer{c: make(chan time.Time, 1)}
	c.timers <- t
	return t
}

func (c *stepClock) advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// settleHarness drives a watcher on the fake clock: tick moves the clock by
// the debounce and fires the pending timer; the watcher answers with a new
// timer (it waits on), an event, or nothing.
type settleHarness struct {
	t       *testing.T
	clock   *stepClock
	w       *Watcher
	root    string
	staging string
	handled chan string // paths of the file system events the watcher recorded
	cur     *stepTimer
}

const settleDebounce = 100 * time.Millisecond

func startSettleWatch(t *testing.T) *settleHarness {
	t.Helper()
	root := t.TempDir()
	c := &stepClock{now: time.Now().Truncate(time.Second), timers: make(chan *stepTimer, 64)}
	handled := make(chan string, 64)
	w, err := Watch(context.Background(), NewMemIndex(), []string{root}, WatchOptions{
		Debounce: settleDebounce, MaxDelay: time.Second, Settle: time.Second, Clock: c,
		handled: func(ev fsnotify.Event) {
			select {
			case handled <- filepath.Clean(ev.Name):
			default: // write reports the event it misses
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return &settleHarness{t: t, clock: c, w: w, root: root, staging: t.TempDir(), handled: handled}
}

// write puts b at rel with mod as its modification time and returns once
// the watcher has recorded the change. The file is written beside the
// watched folder and renamed in, so the change is one file system event
// (a write and a time change could otherwise arrive after the test moved
// the fake clock on, and the watcher would rightly wait for them to
// settle); then the watcher has armed its timer, or already had one.
func (h *settleHarness) write(rel string, b []byte, mod time.Time) string {
	h.t.Helper()
	p := filepath.Join(h.root, rel)
	tmp := filepath.Join(h.staging, rel)
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Chtimes(tmp, mod, mod); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		h.t.Fatal(err)
	}
	for seen := ""; seen != p; {
		select {
		case seen = <-h.handled:
		case <-time.After(30 * time.Second):
			h.t.Fatalf("the watcher did not see %s being written", p)
		}
	}
	if h.cur == nil {
		h.cur = h.nextTimer()
	}
	return p
}

func (h *settleHarness) nextTimer() *stepTimer {
	h.t.Helper()
	select {
	case t := <-h.clock.timers:
		return t
	case <-time.After(30 * time.Second):
		h.t.Fatal("the watcher did not arm a timer")
		return nil
	}
}

// tick advances the clock by the debounce and fires the timer; it returns
// the event the watcher emitted, or nil when it armed a new timer instead.
func (h *settleHarness) tick() *Event {
	h.t.Helper()
	now := h.clock.advance(settleDebounce)
	if h.cur == nil {
		h.t.Fatal("tick without a pending timer")
	}
	h.cur.c <- now
	h.cur = nil
	select {
	case t := <-h.clock.timers:
		h.cur = t
		return nil
	case e := <-h.w.Events():
		return &e
	case <-time.After(30 * time.Second):
		h.t.Fatal("the watcher neither emitted an event nor armed a timer")
		return nil
	}
}

func wavFile(t *testing.T, freq float64) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.wav")
	toneWAV(t, p, freq, wavfile.Tags{Title: "Fresh"})
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWatchWaitsForAFileStillBeingWritten: a file that does not read yet
// but was modified moments ago is read again after the debounce instead of
// being reported Failed; once complete it is Added, with no warning.
func TestWatchWaitsForAFileStillBeingWritten(t *testing.T) {
	h := startSettleWatch(t)
	full := wavFile(t, 440)
	p := h.write("fresh.wav", full[:30], h.clock.Now())
	for i := 0; i < 3; i++ {
		if e := h.tick(); e != nil {
			t.Fatalf("a file written %v ago: %v %s %v, want it read again later", settleDebounce*time.Duration(i+1), e.Kind, e.Track.Path, e.Err)
		}
	}
	h.write("fresh.wav", full, h.clock.Now())
	for i := 0; i < 20; i++ {
		e := h.tick()
		if e == nil {
			continue
		}
		if e.Kind != Added || e.Track.Path != p || e.Track.Title != "Fresh" {
			t.Fatalf("completed file: %v %s %v, want Added", e.Kind, e.Track.Path, e.Err)
		}
		return
	}
	t.Fatal("the completed file was never added")
}

// TestWatchReportsAFileLeftBroken: a broken file is reported once it has
// been left alone for Settle, and at once when it was not modified lately.
func TestWatchReportsAFileLeftBroken(t *testing.T) {
	h := startSettleWatch(t)
	full := wavFile(t, 660)
	written := h.clock.Now()
	p := h.write("broken.wav", full[:30], written)
	for i := 0; ; i++ {
		e := h.tick()
		if e == nil {
			if i > 20 {
				t.Fatal("a file left broken is retried forever")
			}
			continue
		}
		if e.Kind != Failed || e.Track.Path != p {
			t.Fatalf("event %v %s %v, want Failed", e.Kind, e.Track.Path, e.Err)
		}
		if age := h.clock.Now().Sub(written); age < time.Second {
			t.Fatalf("reported %v after the last write, want Settle (1s) first", age)
		}
		break
	}
	old := h.write("old.wav", full[:30], h.clock.Now().Add(-time.Hour))
	if e := h.tick(); e == nil || e.Kind != Failed || e.Track.Path != old {
		t.Fatalf("a broken file not modified lately: %+v, want Failed at the first read", e)
	}
}
