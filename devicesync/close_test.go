package devicesync

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// An owner shutting down publishes its last snapshot and closes at once:
// Close writes what was queued before it closes the connection, so the
// peer taking over gets the exact position.
func TestCloseFlushesQueuedSnapshot(t *testing.T) {
	for i := range 5 { // the old Close lost it about half the time
		a := startNode(t, "owner")
		b := startNode(t, "next")
		pair(t, a, b)
		connected(t, a, b)
		state := json.RawMessage(`{"position_ms":` + itoaTest(41000+i) + `}`)
		if err := a.PublishSnapshot(state, coord(a, uint64(i+1))); err != nil {
			t.Fatal(err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		waitEvent(b, snapshotOf(a.ID(), string(state)))
	}
}

// A peer that takes nothing cannot hold Close up: the flush is bounded
// (closeFlushTimeout in total) and then the connection is closed.
func TestCloseFlushIsBoundedForAStalledPeer(t *testing.T) {
	lim := DefaultLimits()
	lim.PeerTimeout = time.Hour // no read deadline ends the session
	a, b, p := pairOverProxy(t, withLimits(lim))
	connected(t, a, b)
	p.stall()
	// Queued lines the stalled peer never reads (the write loop may block
	// on them), and the peer never closes its side after our half-close.
	big := json.RawMessage(`{"pad":"` + strings.Repeat("x", 512<<10) + `"}`)
	for i := range 16 {
		if err := a.PublishSnapshot(big, coord(a, uint64(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	// Close ends the flush after closeFlushTimeout. Without that bound the
	// blocked write would end it, at its deadline (finishTimeout*5, however
	// long PeerTimeout is): the test tells the two apart with that much
	// room, not by how long Close took on a loaded machine.
	done := make(chan error, 1)
	go func() { done <- a.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(finishTimeout * 5):
		t.Fatalf("Close with a stalled peer waited for the write deadline (%v), want about %v", finishTimeout*5, closeFlushTimeout)
	}
}

func itoaTest(n int) string { b, _ := json.Marshal(n); return string(b) }
