package main

import (
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// audioCloseWait is how long a quit waits for the audio output to close.
// Closing it can take seconds on a loaded machine (the sound server is
// slow to let the device go); past this the process exits and the system
// releases the device. Everything that must be saved was saved before.
const audioCloseWait = 300 * time.Millisecond

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

// logQuitSignals logs (-v) when SIGTERM or SIGINT arrives while the window
// runs (Fyne quits on them itself), so a slow quit's log shows where the
// time went. The returned func stops it.
func logQuitSignals(log *slog.Logger) (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			log.Debug("quit asked", "signal", s.String())
		case <-done:
		}
	}()
	return func() { signal.Stop(sig); close(done) }
}
