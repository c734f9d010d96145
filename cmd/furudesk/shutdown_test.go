package main

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"syscall"
	"testing"
	"time"
)

// A quit does not wait for a close that does not end (the audio output
// held by a stuck sound server): closeWithin returns while it still runs;
// a close that ends in time gives its error.
func TestCloseWithinDoesNotWaitForAStuckClose(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	if err := closeWithin("a stuck thing", time.Millisecond, func() error { <-stuck; return nil }, nil); err != nil {
		t.Fatalf("a close given up: %v, want nil", err)
	}
	boom := errors.New("boom")
	if err := closeWithin("a thing", time.Hour, func() error { return boom }, nil); !errors.Is(err, boom) {
		t.Fatalf("a close that ended: %v, want its error", err)
	}
}

// A quit signal that the window does not act on in time (its loop busy)
// shuts down without it; a window that closed stops the watch, and no
// signal means nothing happens.
func TestWatchQuitShutsDownWithoutAStuckWindow(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sig := make(chan os.Signal, 1)
	stuck := make(chan struct{})
	stop := watchQuit(sig, log, time.Millisecond, func() { close(stuck) })
	sig <- syscall.SIGTERM
	<-stuck // the window never closed: the test ends only if stuck is called
	stop()

	sig2 := make(chan os.Signal, 1)
	called := make(chan struct{}, 1)
	stop2 := watchQuit(sig2, log, time.Hour, func() { called <- struct{}{} })
	sig2 <- syscall.SIGTERM
	stop2() // the window closed in time
	stop2()
	select {
	case <-called:
		t.Fatal("shut down without the window although it closed")
	default:
	}
}
