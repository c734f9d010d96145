package enginetest

import (
	"cmp"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/furudesk/furudesk/internal/cputime"
	"github.com/furudesk/furudesk/internal/simseed"
)

var (
	seeds      = simseed.Register("default, fewer under -race or -short")
	flagEvents = flag.Int("events", 2000, "fault-phase events per device")
	flagDevs   = flag.Int("devices", 0, "devices per seed (0: 2-7 from the seed)")
	flagTrace  = flag.Bool("simtrace", false, "print the event trace of -seed")
	flagTopo   = flag.String("topology", "mesh", "TestSimCalm -seed: mesh, line, star or ring-cut")
)

func replay(seed uint64) string {
	cmd := fmt.Sprintf("go test ./engine/enginetest -run 'TestSim$' -seed=%d", seed)
	if *flagEvents != 2000 {
		cmd += fmt.Sprintf(" -events=%d", *flagEvents)
	}
	if *flagDevs != 0 {
		cmd += fmt.Sprintf(" -devices=%d", *flagDevs)
	}
	return cmd + " -simtrace -v"
}

// TestSim runs the deterministic simulator over many seeds in parallel. A
// failure prints the seed and the command that replays it.
func TestSim(t *testing.T) {
	opt := Options{EventsPerDevice: *flagEvents, Devices: *flagDevs}
	if seed := seeds.One(); seed != 0 {
		if *flagTrace {
			opt.Trace = func(s string) { t.Log(s) }
		}
		res, err := Run(seed, opt)
		if err != nil {
			t.Fatalf("%v\nreplay: %s", err, replay(seed))
		}
		t.Logf("seed %d: %+v", seed, res)
		return
	}
	def := 300
	if RaceEnabled {
		def = 30
	}
	if testing.Short() {
		def = 20
	}
	var (
		events int64
		total  Result
	)
	start, cpu0 := time.Now(), cpuTime()
	n := simseed.Loop(t, seeds, seeds.Count(def), 0, func(seed uint64) (Result, error) { return Run(seed, opt) },
		func(res Result) {
			events += int64(res.Events)
			total.Messages += res.Messages
			total.Crashes += res.Crashes
			total.PersistFailures += res.PersistFailures
			total.ClaimsIssued += res.ClaimsIssued
			total.Accepted += res.Accepted
			total.LiveRounds = max(total.LiveRounds, res.LiveRounds)
		}, replay)
	el, cpu := time.Since(start), cpuTime()-cpu0
	t.Logf("%d seeds, %d device events in %s (%s CPU): %.0f events/s wall, %.0f events per CPU-second",
		n, events, el.Round(time.Millisecond), cpu.Round(time.Millisecond),
		float64(events)/el.Seconds(), float64(events)/cpu.Seconds())
	t.Logf("totals: %d messages, %d crashes, %d failed checkpoint writes, %d claims issued, %d commands accepted; slowest liveness phase %d rounds",
		total.Messages, total.Crashes, total.PersistFailures, total.ClaimsIssued, total.Accepted, total.LiveRounds)
}

// cpuTime is the process's user+system CPU time (0 where the system
// cannot tell): throughput figures on a shared machine are honest only in
// CPU seconds.
func cpuTime() time.Duration {
	d, _ := cputime.Process()
	return d
}

// TestSimCalm runs calm seeds on every topology: no drops or partitions,
// relayed envelopes between devices that are not linked, freezes, crashes,
// transfers and controls. No device may fail over from an owner that was
// up and reachable (checkFailover), and the liveness phase must end with
// exactly one renderer.
func TestSimCalm(t *testing.T) {
	if seed := seeds.One(); seed != 0 {
		topo := Mesh
		for _, tp := range Topologies() {
			if tp.String() == *flagTopo {
				topo = tp
			}
		}
		opt := Options{EventsPerDevice: *flagEvents, Devices: *flagDevs, Topology: topo, Calm: true}
		if *flagTrace {
			opt.Trace = func(s string) { t.Log(s) }
		}
		res, err := Run(seed, opt)
		if err != nil {
			t.Fatalf("%v\nreplay: %s", err, replayCalm(seed, topo))
		}
		t.Logf("seed %d %s: %+v", seed, topo, res)
		return
	}
	def := 60
	if RaceEnabled || testing.Short() {
		def = 8
	}
	n := seeds.Count(def)
	for _, topo := range Topologies() {
		t.Run(topo.String(), func(t *testing.T) {
			t.Parallel()
			var total Result
			for seed := seeds.Base(); seed < seeds.Base()+uint64(n); seed++ {
				devs := *flagDevs
				if devs == 0 {
					devs = 3 + int(seed%5) // a line of 2 is a mesh
				}
				res, err := Run(seed, Options{EventsPerDevice: *flagEvents, Devices: devs, Topology: topo, Calm: true})
				if err != nil {
					t.Fatalf("%v\nreplay: %s", err, replayCalm(seed, topo)+fmt.Sprintf(" -devices=%d", devs))
				}
				total.Freezes += res.Freezes
				total.Relayed += res.Relayed
				total.Failovers += res.Failovers
				total.Crashes += res.Crashes
				total.ClaimsIssued += res.ClaimsIssued
			}
			if total.Freezes == 0 || total.Failovers == 0 || (topo != Mesh && total.Relayed == 0) {
				t.Fatalf("%s: the runs did not exercise what they check: %+v", topo, total)
			}
			t.Logf("%s: %d seeds, %d freezes, %d crashes, %d claims, %d failovers (all from a lost owner), %d envelopes relayed",
				topo, n, total.Freezes, total.Crashes, total.ClaimsIssued, total.Failovers, total.Relayed)
		})
	}
}

func replayCalm(seed uint64, topo Topology) string {
	return fmt.Sprintf("go test ./engine/enginetest -run 'TestSimCalm$' -seed=%d -topology=%s -simtrace -v", seed, topo)
}

// BenchmarkSim measures simulator throughput: one op is one seed of 5
// devices x 2000 events.
func BenchmarkSim(b *testing.B) {
	var events int64
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		res, err := Run(uint64(i+1), Options{Devices: 5, EventsPerDevice: 2000})
		if err != nil {
			b.Fatalf("%v\nreplay: %s", err, replay(uint64(i+1)))
		}
		events += int64(res.Events)
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/cpu.Seconds(), "events/cpu-s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/seed")
}

// TestSimDeterministic replays a few seeds twice and requires the same
// trace (by hash) and result: a seed names one run. A run without tracing
// must give the same result as a traced one.
func TestSimDeterministic(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 77} {
		var hashes [2]uint64
		var results [2]Result
		for i := range hashes {
			h := fnv.New64a()
			lines := 0
			res, err := Run(seed, Options{EventsPerDevice: 500, Trace: func(s string) {
				lines++
				_, _ = io.WriteString(h, s+"\n") // hash.Hash never fails
			}})
			if err != nil {
				t.Fatalf("seed %d: %v\nreplay: %s", seed, err, replay(seed))
			}
			if lines == 0 {
				t.Fatalf("seed %d: empty trace", seed)
			}
			hashes[i], results[i] = h.Sum64(), res
		}
		if hashes[0] != hashes[1] || results[0] != results[1] {
			t.Errorf("seed %d: two runs differ: trace %016x vs %016x, %+v vs %+v", seed, hashes[0], hashes[1], results[0], results[1])
		}
		plain, err := Run(seed, Options{EventsPerDevice: 500})
		if err != nil || plain != results[0] {
			t.Errorf("seed %d: untraced run %+v (%v), traced %+v", seed, plain, err, results[0])
		}
	}
}

// TestMsgQueueOrder checks the message queue against a sort: every
// message due is delivered, by delivery time, then send order, including
// messages due beyond the wheel's span and after the wheel wrapped.
func TestMsgQueueOrder(t *testing.T) {
	const seed = 7
	rng := rand.New(rand.NewPCG(seed, 0))
	var (
		q     msgQueue
		want  []msg
		order uint64
		now   time.Duration
	)
	send := func() {
		order++
		delay := 1 + time.Duration(rng.Int64N(int64(300*time.Millisecond)))
		switch rng.IntN(10) {
		case 0: // beyond the wheel
			delay += time.Duration(rng.Int64N(int64(10 * time.Second)))
		case 1: // same time as others
			delay = time.Millisecond
		}
		m := msg{num: order}
		q.push(&m, now+delay, order)
		m.at, m.order = now+delay, order
		want = append(want, m)
	}
	for range 20000 {
		if rng.IntN(3) != 0 {
			for range rng.IntN(20) {
				send()
			}
			continue
		}
		now += time.Duration(rng.Int64N(int64(200 * time.Millisecond)))
		slices.SortFunc(want, func(a, b msg) int {
			if c := cmp.Compare(a.at, b.at); c != 0 {
				return c
			}
			return cmp.Compare(a.order, b.order)
		})
		for len(want) > 0 && want[0].at <= now {
			got := q.popDue(now)
			if got == nil {
				t.Fatalf("seed %d: now %v: nothing due, want message %d (at %v)", seed, now, want[0].num, want[0].at)
			}
			if got.num != want[0].num || got.at != want[0].at {
				t.Fatalf("seed %d: now %v: got message %d (at %v), want %d (at %v)", seed, now, got.num, got.at, want[0].num, want[0].at)
			}
			want = want[1:]
			if rng.IntN(4) == 0 { // a delivery makes the receiver send
				send()
			}
		}
		if got := q.popDue(now); got != nil {
			t.Fatalf("seed %d: now %v: got message %d (at %v), none is due", seed, now, got.num, got.at)
		}
	}
	if now < 100*wheelSize<<wheelShift {
		t.Fatalf("seed %d: the wheel did not wrap enough: now %v", seed, now)
	}
}
