// Package memrelease gives the Go heap's spare room back to the system
// once a process has gone quiet.
//
// The Go runtime keeps the memory a collection freed for the allocations
// to come: up to the heap goal (the live heap and GOGC percent more) and
// a tenth above it, for good. A window that a user browsed for a while
// and then left alone holds that room for hours while it uses none of
// it. Watch notices each collection (a cleanup of a throwaway object runs
// after every cycle); once a burst of them (the user browsing) is
// followed by a quiet while without any, it releases the room, once
// (debug.FreeOSMemory in the window). A long burst can also release as it
// goes, at most once a given while (Watcher.DuringBursts), so that what a
// user browsing for half an hour holds stays near what it uses. An idle
// process (no collection, or one now and then for a trickle of garbage)
// arms no timer and is woken for nothing.
package memrelease

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// Timer is what Watch needs of a timer (time.Timer satisfies it).
type Timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

// Clock is the time Watch goes by (the real one in use, a fake in tests).
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) Timer
}

type realClock struct{}

func (realClock) Now() time.Time                            { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Watcher calls release once the collector has been quiet for a while.
type Watcher struct {
	quiet   time.Duration
	release func()
	clock   Clock
	cycles  func() uint64 // collections so far

	mu        sync.Mutex
	last      time.Time // the last collection counted
	timer     Timer
	armed     bool
	releasing int    // releases running
	ownUntil  uint64 // collections up to this one were release's own
	stopped   bool

	every  time.Duration // DuringBursts: at most one release this often while busy
	during func()
	since  time.Time // the burst's start, or its last release while busy
}

// Watch starts watching the collector: after a burst of collections (two
// or more less than quiet apart: the user browsing), release is called
// once no collection has run for quiet, and again only after another
// burst. release runs on a timer
// goroutine and may collect (debug.FreeOSMemory does): that collection
// does not count. Stop ends the watching.
func Watch(quiet time.Duration, release func()) *Watcher {
	w := newWatcher(quiet, release, realClock{}, gcCycles)
	w.hook()
	return w
}

func newWatcher(quiet time.Duration, release func(), clock Clock, cycles func() uint64) *Watcher {
	return &Watcher{quiet: quiet, release: release, clock: clock, cycles: cycles}
}

// gcCycles is the number of collections completed so far.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// sentinel is the throwaway object whose cleanup tells of a collection:
// it holds a pointer so it is an object of its own (the tiny allocator
// packs pointer-free small objects together).
type sentinel struct {
	w *Watcher
	_ [2]uintptr
}

// hook allocates a sentinel to be found unreachable by the next
// collection; its cleanup reports that collection and hooks the next.
func (w *Watcher) hook() {
	s := &sentinel{w: w}
	runtime.AddCleanup(s, func(w *Watcher) {
		if w.collected() {
			w.hook()
		}
	}, w)
}

// collected notes a collection; false once stopped.
func (w *Watcher) collected() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return false
	}
	if w.releasing > 0 || w.cycles() <= w.ownUntil {
		return true // release's own collection
	}
	now := w.clock.Now()
	busy := !w.last.IsZero() && now.Sub(w.last) < w.quiet
	w.last = now
	if !busy {
		// Collections a quiet while apart: the trickle of an idle
		// process, whose spare room the runtime's scavenger already
		// bounds. Only a burst of them is followed by a release.
		return true
	}
	switch {
	case !w.armed:
		w.since = now
	case w.during != nil && now.Sub(w.since) >= w.every:
		w.since = now
		w.clock.AfterFunc(0, w.fireDuring)
	}
	switch {
	case w.timer == nil:
		w.timer = w.clock.AfterFunc(w.quiet, w.fire)
	default:
		w.timer.Reset(w.quiet)
	}
	w.armed = true
	return true
}

// DuringBursts makes a burst of collections longer than every call
// during as it goes, at most once every while, besides the release at
// its end. during runs on a timer goroutine and may collect: like
// release's, its collections do not count.
func (w *Watcher) DuringBursts(every time.Duration, during func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.every, w.during = every, during
}

// fireDuring is a release while the burst goes on.
func (w *Watcher) fireDuring() {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	w.runOwn(w.during)
	w.mu.Unlock()
}

// fire is the quiet while's end: release, once.
func (w *Watcher) fire() {
	w.mu.Lock()
	if w.stopped || !w.armed {
		w.mu.Unlock()
		return
	}
	w.armed = false
	w.runOwn(w.release)
	w.mu.Unlock()
}

// runOwn runs f, a release, with w.mu held when it is called and when it
// returns but not while f runs; the collections f causes do not count.
func (w *Watcher) runOwn(f func()) {
	w.releasing++
	w.mu.Unlock()
	f()
	w.mu.Lock()
	w.releasing--
	w.ownUntil = max(w.ownUntil, w.cycles())
}

// Stop ends the watching: release is not called any more.
func (w *Watcher) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

// largeBlock is the size from which a C heap block gets a mapping of its
// own (KeepLargeBlocksApart): glibc's starting threshold, 128 KiB. A
// cover's texture (192×192 at 4 bytes a pixel) is above it, a row's text
// below.
const largeBlock = 128 << 10

// FreeOSMemory gives back to the system what the process no longer uses:
// the Go heap's spare room (debug.FreeOSMemory, which collects first) and
// the C heap's free pages (on Linux with glibc). It takes a few
// milliseconds: call it off the UI goroutine.
func FreeOSMemory() {
	debug.FreeOSMemory()
	trimC()
}
