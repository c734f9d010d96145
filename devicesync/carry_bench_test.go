package devicesync

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/relay"
)

func withRelayLimits(l relay.Limits) nodeOpt { return func(cfg *Config) { cfg.RelayLimits = l } }

// BenchmarkRelayedFirstSnapshot measures, over a line a–b–c where only b
// reaches both ends, the time from c's start (a relaunch with its store)
// until c has a's snapshot (the first coordination message; b forwards
// it) and until c has a session of its own with a through b (issue 35:
// p95 ≤ 1 s). It reports the p50 and p95 of both in ms.
func BenchmarkRelayedFirstSnapshot(b *testing.B) {
	a, bb, c := carriedLine(b)
	if err := a.PublishSnapshot(json.RawMessage(`{"pos":1}`), ownerCoord(a, 5, 1)); err != nil {
		b.Fatal(err)
	}
	var snap, session []time.Duration
	b.ResetTimer()
	for i := range b.N {
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		c = startNode(b, "c", withKey(c.key), withStore(c.store), withAdvertise("127.0.0.1:1"))
		got := waitEvent(c, func(s SnapshotReceived) bool { return s.From == a.ID() })
		snap = append(snap, time.Since(start))
		c.waitUntil("a through b", func() bool { on, via := viaOf(c, a.ID()); return on && via == bb.ID() })
		session = append(session, time.Since(start))
		if got.Coordination.Heartbeat == 0 {
			b.Fatalf("iteration %d: snapshot %+v", i, got)
		}
	}
	b.StopTimer()
	for _, m := range []struct {
		name string
		ds   []time.Duration
	}{{"snapshot", snap}, {"session", session}} {
		slices.Sort(m.ds)
		b.ReportMetric(float64(m.ds[len(m.ds)/2].Microseconds())/1000, m.name+"-p50-ms")
		b.ReportMetric(float64(m.ds[min(len(m.ds)-1, len(m.ds)*95/100)].Microseconds())/1000, m.name+"-p95-ms")
	}
}

// BenchmarkCarriedTrack streams a track-sized body (5.3 MB, a minute of
// 44.1 kHz mono WAV) from c to a over a fetch connection, directly and
// through the carrier b, and reports the throughput, the bytes b carried
// per byte of the track, and the process's CPU per track (all three
// devices and both TLS layers; carried minus direct is the relay's cost).
func BenchmarkCarriedTrack(b *testing.B) {
	const track = 5_292_044
	body := make([]byte, track)
	for _, mode := range []string{"direct", "carried"} {
		b.Run(mode, func(b *testing.B) {
			var a, bb, c *testNode
			if mode == "direct" {
				a, c = startNode(b, "a"), startNode(b, "c")
				pair(b, a, c)
			} else {
				// The carrier's rate limit lifted: the cost, not the cap.
				bb = startNode(b, "b", withCarry(), withRelayLimits(relay.Limits{Streams: 4, PerDevice: 4, BytesPerSec: 1 << 40, AnswerWithin: 5 * time.Second}))
				a = startNode(b, "a", withAdvertise("127.0.0.1:1"))
				c = startNode(b, "c", withAdvertise("127.0.0.1:1"))
				pair(b, bb, a)
				pair(b, bb, c)
				a.waitUntil("c through b", func() bool { on, via := viaOf(a, c.ID()); return on && via == bb.ID() })
			}
			c.HandleFetch(func(_ engine.DeviceID, conn net.Conn) { _, _ = conn.Write(body) })
			var carried0 uint64
			if bb != nil {
				carried0 = bb.Counters().RelayBytes
			}
			cpu0 := cpuTime()
			b.SetBytes(track)
			b.ResetTimer()
			for range b.N {
				ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
				fc, err := a.DialFetch(ctx, c.ID())
				if err != nil {
					b.Fatal(err)
				}
				if n, err := io.CopyN(io.Discard, fc, track); err != nil || n != track {
					b.Fatalf("read %d of %d: %v", n, track, err)
				}
				fc.Close()
				cancel()
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/track")
			if bb != nil {
				b.ReportMetric(float64(bb.Counters().RelayBytes-carried0)/float64(track)/float64(b.N), "carried-B/B")
			}
		})
	}
}
