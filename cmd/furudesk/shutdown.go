package main

import (
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/furudesk/furudesk/internal/framegov"
)

// audioCloseWait is how long a quit waits for the audio output to close.
// Closing it can take seconds on a loaded machine (the sound server is
// slow to let the device go); past this the process exits and the system
// releases the device. Everything that must be saved was saved before.
const audioCloseWait = 200 * time.Millisecond

// closeWithin runs close and waits for it at most limit; a close still
// running then goes on by itself, and closeWithin logs that and returns
// nil. Its error, when it returns in time, is returned.
func closeWithin(what string, limit time.Duration, close func() error, log *slog.Logger) error {
	done := make(chan error, 1)
	go func() { done <- close() }()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		if log != nil {
			log.Info("shutdown: not waiting any longer for "+what+" to close", "waited", limit)
		}
		return nil
	}
}

// windowQuitWait is how long a quit asked by a signal waits for the
// window's loop to end (it may be busy showing 100,000 tracks) before
// furudesk shuts down without it.
const windowQuitWait = 250 * time.Millisecond

// guardQuit watches for SIGTERM and SIGINT while the window runs (Fyne
// quits on them itself, when its loop gets to it) and logs them (-v).
// When the window has not closed wait after one, it calls stuck, which
// shuts down without the window. The returned func stops watching; call
// it once the window closed.
func guardQuit(log *slog.Logger, wait time.Duration, stuck func()) (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	stopWatch := watchQuit(sig, log, wait, stuck)
	return func() {
		stopWatch()
		signal.Stop(sig)
	}
}

// watchQuit is guardQuit on a channel of signals.
func watchQuit(sig <-chan os.Signal, log *slog.Logger, wait time.Duration, stuck func()) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			log.Debug("quit asked", "signal", s.String())
			// Fyne's own quit on the signal must not wait behind a hold.
			framegov.Release()
		case <-done:
			return
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
			log.Info("the window did not close in time after the quit signal: shutting down without it", "waited", wait)
			stuck()
		case <-done:
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}
