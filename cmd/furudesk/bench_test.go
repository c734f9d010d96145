package main

import (
	"sort"
	"testing"
	"time"
)

func pctl(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, (len(s)*p+99)/100-1)]
}

// BenchmarkHandoff transfers playback back and forth between two headless
// devices 20 times and measures, from the sink recordings, the time from
// the transfer command to the first audible sample on the target and to
// the last audible sample on the source. Overlap is the time both sinks
// sounded.
func BenchmarkHandoff(b *testing.B) {
	needE2E(b)
	for b.Loop() {
		c := newCluster(b, []string{"A", "B"}, nil)
		for _, n := range c.nodes {
			n.start()
		}
		c.pair()
		ids := c.scanned()
		A, B := c.node("A"), c.node("B")
		A.ctl("transfer", A.id)
		A.ctl("play", ids[0], ids[1])
		waitFor(b, 20*time.Second, "A plays", func() bool { return A.status().Output.Playing })
		var first, last, overlap []time.Duration
		src, dst := A, B
		for range 20 {
			at := time.Now()
			src.ctl("transfer", dst.id)
			waitFor(b, 10*time.Second, "sound on "+dst.name, func() bool { ts, _ := firstSound(dst.rec, at); return !ts.IsZero() })
			waitFor(b, 10*time.Second, "1 s after the handoff", func() bool { return !lastSound(dst.rec, at.Add(time.Second)).IsZero() })
			f, _ := firstSound(dst.rec, at)
			l := lastSound(src.rec, at)
			if l.IsZero() {
				l = at
			}
			first = append(first, f.Sub(at))
			last = append(last, l.Sub(at))
			overlap = append(overlap, max(0, l.Sub(f)))
			src, dst = dst, src
		}
		b.ReportMetric(float64(pctl(first, 50).Milliseconds()), "target-first-p50-ms")
		b.ReportMetric(float64(pctl(first, 95).Milliseconds()), "target-first-p95-ms")
		b.ReportMetric(float64(pctl(last, 50).Milliseconds()), "source-last-p50-ms")
		b.ReportMetric(float64(pctl(last, 95).Milliseconds()), "source-last-p95-ms")
		b.ReportMetric(float64(pctl(overlap, 100).Milliseconds()), "overlap-max-ms")
	}
}

// BenchmarkFailover kills the owner with SIGKILL and measures how long
// after owner_timeout another device renders (status) and sounds (sink).
func BenchmarkFailover(b *testing.B) {
	needE2E(b)
	for b.Loop() {
		c := newCluster(b, []string{"A", "B"}, nil)
		for _, n := range c.nodes {
			n.start()
		}
		c.pair()
		ids := c.scanned()
		A, B := c.node("A"), c.node("B")
		A.ctl("transfer", A.id)
		A.ctl("play", ids[0], ids[1])
		waitFor(b, 20*time.Second, "A plays", func() bool { return A.status().Output.Playing })
		waitFor(b, 10*time.Second, "B follows A", func() bool { return B.status().Owner == A.status().Owner })
		killed := time.Now()
		A.stop(true)
		waitFor(b, testOwnerTimeout+10*time.Second, "B renders", func() bool { return B.status().Rendering })
		rendered := time.Since(killed)
		waitFor(b, 10*time.Second, "sound on B", func() bool { ts, _ := firstSound(B.rec, killed); return !ts.IsZero() })
		f, _ := firstSound(B.rec, killed)
		b.ReportMetric(float64((rendered - testOwnerTimeout).Milliseconds()), "render-beyond-timeout-ms")
		b.ReportMetric(float64((f.Sub(killed) - testOwnerTimeout).Milliseconds()), "sound-beyond-timeout-ms")
	}
}

// BenchmarkStreamFirstSample measures, from the sink recordings, the time
// from `play` to the first audible sample: on B, which has no music and
// streams A's track (the cache emptied before each play), and on A
// playing the same track from its own file.
func BenchmarkStreamFirstSample(b *testing.B) {
	needE2E(b)
	for b.Loop() {
		A, B, ids := streamingPair(b)
		measure := func(n *node, stream bool) []time.Duration {
			n.ctl("transfer", n.id)
			waitFor(b, 10*time.Second, n.name+" owns the output", func() bool { return string(n.status().Owner) == n.id })
			var out []time.Duration
			for i := range 20 {
				n.ctl("clear")
				if stream {
					n.ctl("cache", "clear")
				}
				waitFor(b, 10*time.Second, n.name+" silent", func() bool {
					return lastSound(n.rec, time.Now().Add(-300*time.Millisecond)).IsZero()
				})
				at := time.Now()
				n.ctl("play", ids[i%2])
				waitFor(b, 10*time.Second, "sound on "+n.name, func() bool { ts, _ := firstSound(n.rec, at); return !ts.IsZero() })
				f, _ := firstSound(n.rec, at)
				out = append(out, f.Sub(at))
			}
			n.ctl("clear")
			return out
		}
		streamed := measure(B, true)
		local := measure(A, false)
		b.ReportMetric(float64(pctl(streamed, 50).Milliseconds()), "stream-first-p50-ms")
		b.ReportMetric(float64(pctl(streamed, 95).Milliseconds()), "stream-first-p95-ms")
		b.ReportMetric(float64(pctl(local, 50).Milliseconds()), "local-first-p50-ms")
		b.ReportMetric(float64(pctl(local, 95).Milliseconds()), "local-first-p95-ms")
	}
}
