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
// (debug.FreeOSMemory in the window). An idle process (no collection, or
// one now and then for a trickle of garbage) arms no timer and is woken
// for nothing.
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
	releasing bool
	ownUntil  uint64 // collections up to this one were release's own
	stopped   bool
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
	if w.releasing || w.cycles() <= w.ownUntil {
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
	case w.timer == nil:
		w.timer = w.clock.AfterFunc(w.quiet, w.fire)
	default:
		w.timer.Reset(w.quiet)
	}
	w.armed = true
	return true
}

// fire is the quiet while's end: release, once.
func (w *Watcher) fire() {
	w.mu.Lock()
	if w.stopped || !w.armed {
		w.mu.Unlock()
		return
	}
	w.armed, w.releasing = false, true
	w.mu.Unlock()
	w.release()
	w.mu.Lock()
	w.releasing, w.ownUntil = false, w.cycles()
	w.mu.Unlock()
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

// FreeOSMemory gives back to the system what the process no longer uses:
// the Go heap's spare room (debug.FreeOSMemory, which collects first) and
// the C heap's free pages (on Linux with glibc). It takes a few
// milliseconds: call it off the UI goroutine.
func FreeOSMemory() {
	debug.FreeOSMemory()
	trimC()
}
