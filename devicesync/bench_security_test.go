package devicesync

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkMemberBackDuringFlood measures, during a flood of 300 outsider
// connections kept alive with blank lines from 30 addresses, the time from
// a member's restart on a new port until the flooded device lists it
// online again, and the time a new device takes to pair (the user
// accepting at once). The issue asks for the member within 5 s.
func BenchmarkMemberBackDuringFlood(b *testing.B) {
	a := startNode(b, "a")
	m := startNode(b, "m")
	pair(b, a, m)
	startFlood(b, a.Addr().String(), 300, 30, 500*time.Millisecond)
	a.waitUntil("the flood fills the outsiders' budget", func() bool {
		o, _, _ := a.gate.counts()
		return o == maxOutsiders
	})
	var back, paired []time.Duration
	b.ResetTimer()
	for range b.N {
		if err := m.Close(); err != nil {
			b.Fatal(err)
		}
		a.waitUntil("m gone", func() bool { return !a.isOnline(m.ID()) })
		start := time.Now()
		m = startNode(b, "m", withKey(m.key), withStore(m.store))
		a.waitUntil("m back", func() bool { return a.isOnline(m.ID()) })
		back = append(back, time.Since(start))

		c := startNode(b, "c")
		start = time.Now()
		pair(b, a, c)
		paired = append(paired, time.Since(start))
		if err := a.Revoke(c.ID()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(maxDur(back).Milliseconds()), "max-back-ms")
	b.ReportMetric(float64(maxDur(paired).Milliseconds()), "max-pair-ms")
}

func maxDur(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

// BenchmarkAdmitSignedOps measures checking received ops (signature and
// membership) in batches of 1000 playback commands of one member.
func BenchmarkAdmitSignedOps(b *testing.B) {
	tg := newTestGroup(b, "a", "b")
	base := []Op{tg.root("a", 1), tg.trust("a", "b", 2)}
	var ops []Op
	for i := range MaxOpsPerBatch {
		ops = append(ops, tg.op("b", int64(3+i), KindPlaybackCommand, commandBody{Target: tg.id("a")}))
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		g := newGroupLog(tg.group)
		g.admit(base, 0)
		b.StartTimer()
		if added, _ := g.admit(ops, 0); len(added) != len(ops) {
			b.Fatalf("admitted %d", len(added))
		}
	}
	b.ReportMetric(float64(b.N*len(ops))/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkNodeDuringLineFlood floods a node with large lines of an
// unknown type, as fast as 32 outsider connections from 8 addresses can
// write them (the issue measured ~100 MB/s taken in, a core busy and a
// status call up to 755 ms), and measures how long reading the device
// list (what a status call does under the node's lock) takes meanwhile,
// and how many bytes per second the node read from the flood.
func BenchmarkNodeDuringLineFlood(b *testing.B) {
	a := startNode(b, "a")
	m := startNode(b, "m")
	pair(b, a, m)
	ctx, cancel := context.WithCancel(context.Background())
	var written atomic.Int64
	var wg sync.WaitGroup
	line := []byte(`{"type":"noise","pad":"` + strings.Repeat("x", 256<<10) + "\"}\n")
	for range 8 {
		src := otherSource(b)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					p, err := dialRawFrom(b, a.Addr().String(), newKey(b), src)
					if err != nil {
						select {
						case <-ctx.Done():
						case <-time.After(20 * time.Millisecond):
						}
						continue
					}
					stop := context.AfterFunc(ctx, func() { _ = p.conn.Close() })
					for ctx.Err() == nil {
						n, err := p.conn.Write(line)
						written.Add(int64(n))
						if err != nil {
							break
						}
					}
					stop()
					_ = p.conn.Close()
				}
			}()
		}
	}
	lat := make([]time.Duration, 0, b.N)
	_, read0 := a.BytesRead()
	start := time.Now()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		a.Devices()
		lat = append(lat, time.Since(t0))
		time.Sleep(time.Millisecond) // a status call now and then, not a busy loop
	}
	b.StopTimer()
	_, read1 := a.BytesRead()
	elapsed, read := time.Since(start), read1-read0
	cancel()
	wg.Wait()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-devices-µs")
	b.ReportMetric(float64(read)/elapsed.Seconds()/(1<<10), "read-KiB/s")
	b.ReportMetric(float64(written.Load())/elapsed.Seconds()/(1<<20), "written-MiB/s")
}
