package devicesync

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

var benchLimits = Limits{MessageRate: 1e9, Burst: 1 << 30, ByteRate: 1 << 40, ByteBurst: 1 << 40, ConnBytes: 1 << 60, PeerTimeout: time.Minute}

// BenchmarkSnapshotFanout4 measures the time from PublishSnapshot until
// four paired peers on loopback have each received it.
func BenchmarkSnapshotFanout4(b *testing.B) {
	const peers = 4
	hub := startNode(b, "hub", withLimits(benchLimits))
	got := make(chan uint64, 1024)
	var ns []*testNode
	for i := range peers {
		sink := func(e Event) {
			if s, ok := e.(SnapshotReceived); ok {
				got <- s.Coordination.Heartbeat
			}
		}
		// Pair with the recorder first, then switch to the sink.
		n := startNode(b, fmt.Sprint("peer", i), withLimits(benchLimits))
		pair(b, hub, n)
		n.mu.Lock()
		n.sink = sink
		n.mu.Unlock()
		ns = append(ns, n)
	}
	for _, n := range ns {
		for _, m := range ns {
			if n != m {
				connected(b, n, m)
			}
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		c := coord(hub, uint64(i+1))
		start := time.Now()
		if err := hub.PublishSnapshot(json.RawMessage(`{"queue":[],"position":12.5,"playing":true}`), c); err != nil {
			b.Fatal(err)
		}
		for seen := 0; seen < peers; {
			select {
			case hb := <-got:
				if hb == c.Heartbeat {
					seen++
				}
			case <-time.After(waitTimeout):
				b.Fatal("fan-out timed out")
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkMessagesPerSecond measures how many snapshot lines one
// connection delivers to the app per second.
func BenchmarkMessagesPerSecond(b *testing.B) {
	var count atomic.Int64
	done := make(chan struct{}, 1)
	var want atomic.Int64
	a := startNode(b, "a", withLimits(benchLimits))
	peer := startNode(b, "b")
	pair(b, a, peer)
	peerKey, peerID := peer.key, peer.ID()
	if err := peer.Close(); err != nil {
		b.Fatal(err)
	}
	a.waitUntil("peer gone", func() bool { return !a.isOnline(peerID) })
	a.mu.Lock()
	a.sink = func(e Event) {
		if _, ok := e.(SnapshotReceived); ok && count.Add(1) == want.Load() {
			done <- struct{}{}
		}
	}
	a.mu.Unlock()
	p, err := dialRaw(b, a.Addr().String(), peerKey)
	if err != nil {
		b.Fatal(err)
	}
	p.readType(typeHello)
	line, _ := json.Marshal(snapshotFrom(coordFor(peerID), `{"queue":[],"position":12.5,"playing":true}`))
	line = append(line, '\n')
	want.Store(int64(b.N))
	b.ResetTimer()
	start := time.Now()
	go func() {
		for range b.N {
			if _, err := p.conn.Write(line); err != nil {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		b.Fatalf("delivered %d of %d", count.Load(), b.N)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}
