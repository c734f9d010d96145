package mpris

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/furudesk/furudesk/app"
)

// fakePlayer behaves like the app for the transport: each control changes
// the status and publishes it to the subscribers (latest value wins), then
// returns, as *app.App does.
type fakePlayer struct {
	mu    sync.Mutex
	st    app.Status
	subs  map[int]chan app.Status
	next  int
	calls []string
	err   error // returned by every control when set
}

func newFakePlayer(st app.Status) *fakePlayer {
	return &fakePlayer{st: st, subs: map[int]chan app.Status{}}
}

// testQueue is three tracks of one album.
func testQueue() []app.QueueItem {
	return []app.QueueItem{
		{ContentID: "b3:" + hex64('a'), Title: "First Light", Artists: []string{"Aurora Lane"}, Album: "Harbour", DurationMS: 180_000},
		{ContentID: "b3:" + hex64('b'), Title: "Second Wind", Artists: []string{"Aurora Lane", "Mo"}, Album: "Harbour", DurationMS: 200_000},
		{ContentID: "b3:" + hex64('c'), Title: "Third Tide", Artists: []string{"Aurora Lane"}, Album: "Harbour", DurationMS: 240_000},
	}
}

func hex64(c byte) string {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return string(b)
}

// pausedAt is a status with the test queue, paused at index i, pos ms.
func pausedAt(i int, pos int64) app.Status {
	q := testQueue()
	st := app.Status{DeviceID: "dev_self", Owner: "dev_self", Queue: q, QueueLen: len(q), Index: i,
		PositionMS: pos, Volume: 80, Repeat: "off"}
	st.Track = &st.Queue[i]
	return st
}

func (f *fakePlayer) Status() app.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st
}

func (f *fakePlayer) Subscribe() (<-chan app.Status, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan app.Status, 1)
	id := f.next
	f.next++
	f.subs[id] = ch
	ch <- f.st
	return ch, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.subs, id)
	}
}

// set changes the status as the app's actor would and publishes it.
func (f *fakePlayer) set(change func(st *app.Status)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(&f.st)
	f.publish()
}

func (f *fakePlayer) publish() {
	for _, ch := range f.subs {
		select {
		case <-ch:
		default:
		}
		ch <- f.st
	}
}

func (f *fakePlayer) subscribers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

func (f *fakePlayer) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// control records the call, applies it unless an error is set, publishes.
func (f *fakePlayer) control(name string, apply func(st *app.Status) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name)
	if f.err != nil {
		return f.err
	}
	if err := apply(&f.st); err != nil {
		return err
	}
	f.publish()
	return nil
}

var errEmpty = errors.New("app: the queue is empty")

func (f *fakePlayer) TogglePlay() error {
	return f.control("toggle", func(st *app.Status) error {
		if st.Track == nil {
			return errEmpty
		}
		st.Playing = !st.Playing
		return nil
	})
}

func (f *fakePlayer) Pause() error {
	return f.control("pause", func(st *app.Status) error { st.Playing = false; return nil })
}

func (f *fakePlayer) Resume() error {
	return f.control("resume", func(st *app.Status) error {
		if st.Track == nil {
			return errEmpty
		}
		st.Playing = true
		return nil
	})
}

func (f *fakePlayer) jump(st *app.Status, i int) {
	st.Index, st.PositionMS = i, 0
	st.Track = &st.Queue[i]
}

func (f *fakePlayer) Next() error {
	return f.control("next", func(st *app.Status) error {
		switch {
		case len(st.Queue) == 0:
			return errEmpty
		case st.Index+1 < len(st.Queue):
			f.jump(st, st.Index+1)
		case st.Repeat == "all":
			f.jump(st, 0)
		default:
			st.PositionMS, st.Playing = 0, false
		}
		return nil
	})
}

func (f *fakePlayer) Prev() error {
	return f.control("prev", func(st *app.Status) error {
		switch {
		case len(st.Queue) == 0:
			return errEmpty
		case st.PositionMS > 3000 || st.Index == 0:
			st.PositionMS = 0
		default:
			f.jump(st, st.Index-1)
		}
		return nil
	})
}

func (f *fakePlayer) Seek(pos time.Duration) error {
	return f.control(fmt.Sprintf("seek %v", pos), func(st *app.Status) error {
		st.PositionMS = pos.Milliseconds()
		return nil
	})
}

func (f *fakePlayer) SetVolume(v int) error {
	return f.control(fmt.Sprintf("volume %d", v), func(st *app.Status) error { st.Volume = v; return nil })
}

func (f *fakePlayer) SetShuffle(on bool) error {
	return f.control(fmt.Sprintf("shuffle %v", on), func(st *app.Status) error { st.Shuffle = on; return nil })
}

func (f *fakePlayer) SetRepeat(mode string) error {
	return f.control("repeat "+mode, func(st *app.Status) error { st.Repeat = mode; return nil })
}

// fakeClock is a clock tests move by hand.
type fakeClock struct{ ns atomic.Int64 }

var clockStart = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func (c *fakeClock) Now() time.Time          { return clockStart.Add(time.Duration(c.ns.Load())) }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }
