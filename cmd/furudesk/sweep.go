package main

import (
	"sync"
	"time"

	"github.com/furudesk/furudesk/internal/memrelease"
)

// textureExpiry is how long after the browsing stopped the window is
// repainted once so that Fyne drops the textures it no longer draws. Fyne
// keeps the texture of each text and image it drew for a minute after it
// last drew it (its cache.ValidDuration), and frees the expired ones only
// when it repaints the window: a window left alone after browsing would
// keep the textures of every page and row it showed (under a software GL
// renderer they are C heap, 50 MB after a few minutes with 10,000
// tracks) until something changes on screen.
const textureExpiry = 70 * time.Second

// sweep is the repaint that frees expired textures, and the release of
// the memory they held a moment later.
type sweep struct {
	after   func(d time.Duration, f func()) stopper
	repaint func() // marks the window for one repaint (queued to the UI goroutine)
	free    func() // gives free memory back to the system

	mu    sync.Mutex
	timer stopper
}

// stopper is what sweep needs of a timer (time.Timer satisfies it).
type stopper interface{ Stop() bool }

func newSweep(repaint func()) *sweep {
	return &sweep{after: func(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) },
		repaint: repaint, free: memrelease.FreeOSMemory}
}

// quiet is memrelease's release: the browsing burst ended. It gives the
// free memory back now and schedules the sweep after textureExpiry (a new
// burst's end moves it later).
func (s *sweep) quiet() {
	s.free()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.timer = s.after(textureExpiry, func() {
		s.repaint()
		// The repaint runs on the window's next frame; what it freed is
		// given back after it.
		s.mu.Lock()
		defer s.mu.Unlock()
		s.timer = s.after(time.Second, s.free)
	})
}

// stop cancels a pending sweep.
func (s *sweep) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
	}
}
