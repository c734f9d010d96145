package engine

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// BenchmarkAnnounce: a fresh report from the owner (the renewal path).
func BenchmarkAnnounce(b *testing.B) {
	c := &fakeClock{}
	e, _ := New("a", "g", DefaultConfig(), c)
	ann := Coordination{Version: 1, Device: "b", Claim: Claim{5, "b", "b"}, Output: playing}
	b.ReportAllocs()
	for b.Loop() {
		ann.Heartbeat++
		c.t += time.Millisecond
		if err := e.Announce("b", ann); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReceive: accepted commands from 16 senders in the owner's term.
func BenchmarkReceive(b *testing.B) {
	c := &fakeClock{}
	e, _ := New("o", "g", DefaultConfig(), c)
	st, _ := e.Transfer("o")
	senders := make([]DeviceID, 16)
	for i := range senders {
		senders[i] = DeviceID(fmt.Sprint("sender-", i))
	}
	cmd := CommandStamp{Version: 1, Claim: st.Claim}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		cmd.Sequence = uint64(i)
		if v := e.Receive(senders[i%len(senders)], cmd, false); v != Accepted {
			b.Fatal(v)
		}
	}
}

// BenchmarkHeartbeat: a local output report plus the actor's Ready/Advance.
func BenchmarkHeartbeat(b *testing.B) {
	c := &fakeClock{}
	e, _ := New("a", "g", DefaultConfig(), c)
	_, _ = e.Transfer("a")
	b.ReportAllocs()
	for b.Loop() {
		c.t += time.Millisecond
		e.Heartbeat(playing)
		rd := e.Ready()
		_ = rd
		e.Advance()
	}
}

// BenchmarkTick: the periodic tick of a follower of a live owner.
func BenchmarkTick(b *testing.B) {
	c := &fakeClock{}
	e, _ := New("a", "g", DefaultConfig(), c)
	e.Heartbeat(on)
	_ = e.Announce("b", Coordination{Version: 1, Device: "b", Claim: Claim{5, "b", "b"}, Heartbeat: 1, Output: playing})
	b.ReportAllocs()
	for b.Loop() {
		c.t += time.Microsecond
		e.Tick()
	}
}

// TestBoundedMemory feeds 1,000,000 adversarial commands and announcements
// (random senders, terms and sequences) to one engine and reports the peak
// heap. The engine's maps must stay within their bounds.
func TestBoundedMemory(t *testing.T) {
	n := 1_000_000
	if testing.Short() || raceEnabled {
		n = 50_000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	c := &fakeClock{}
	e, _ := New("o", "g", DefaultConfig(), c)
	// Pre-built sender names (a million distinct ones would be the test's
	// memory, not the engine's): 4096 names of up to 256 bytes.
	names := make([]DeviceID, 4096)
	for i := range names {
		b := make([]byte, 1+rng.IntN(MaxDeviceIDLen))
		for j := range b {
			b[j] = 'a' + byte(rng.IntN(26))
		}
		names[i] = DeviceID(b)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	var counter uint64 = 1
	for i := range n {
		from := names[rng.IntN(len(names))]
		switch rng.IntN(10) {
		case 0: // announcements; now and then a new term, sometimes naming us
			if rng.IntN(500) == 0 {
				counter++
			}
			owner := DeviceID("o")
			if rng.IntN(3) == 0 {
				owner = names[rng.IntN(len(names))]
			}
			_ = e.Announce(from, Coordination{Version: 1, Device: from, Claim: Claim{counter, from, owner}, Heartbeat: rng.Uint64()})
		default:
			cl := e.Claim()
			if cl.Owner != "o" {
				cl.Owner = "o"
			}
			if rng.IntN(5) == 0 {
				cl = Claim{rng.Uint64N(counter + 2), names[rng.IntN(len(names))], "o"}
			}
			e.Receive(from, CommandStamp{Version: uint32(rng.IntN(2)) + 1 - uint32(rng.IntN(2)), Claim: cl, Sequence: rng.Uint64N(64)}, rng.IntN(8) == 0)
		}
		if i%10_000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			if st := e.Stats(); st.Senders > MaxSendersPerTerm || st.Peers > MaxTrackedPeers {
				t.Fatalf("bounds exceeded: %+v", st)
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	st := e.Stats()
	t.Logf("%d adversarial inputs: peak heap %d KiB above a %d KiB baseline, %d KiB retained after GC; senders=%d peers=%d verdicts=%v",
		n, (peak-min(peak, base))/1024, base/1024, (ms.HeapAlloc-min(ms.HeapAlloc, base))/1024, st.Senders, st.Peers, st.Verdicts)
	if ms.HeapAlloc > base+8<<20 {
		t.Fatalf("retained heap grew by %d bytes", ms.HeapAlloc-base)
	}
}
