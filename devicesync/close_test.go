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
	lim.PeerTimeout = time.Hour // the write deadline must not be what ends the wait
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
	start := time.Now()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// Generous against a loaded CI machine, far below the hour the write
	// deadline would allow.
	if d := time.Since(start); d > closeFlushTimeout+5*time.Second {
		t.Fatalf("Close took %v with a stalled peer, want about %v", d, closeFlushTimeout)
	}
}

func itoaTest(n int) string { b, _ := json.Marshal(n); return string(b) }
