package main

import (
	"errors"
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
