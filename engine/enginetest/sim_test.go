package enginetest

import (
	"flag"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	flagSeed   = flag.Uint64("seed", 0, "run only this seed (0: run -seeds seeds)")
	flagSeeds  = flag.Int("seeds", 0, "number of seeds to run (0: default, fewer under -race or -short)")
	flagBase   = flag.Uint64("seedbase", 1, "first seed of a -seeds run")
	flagEvents = flag.Int("events", 2000, "fault-phase events per device")
	flagDevs   = flag.Int("devices", 0, "devices per seed (0: 2-7 from the seed)")
	flagTrace  = flag.Bool("trace", false, "print the event trace of -seed")
)

func replay(seed uint64) string {
	cmd := fmt.Sprintf("go test ./engine/enginetest -run 'TestSim$' -seed=%d", seed)
	if *flagEvents != 2000 {
		cmd += fmt.Sprintf(" -events=%d", *flagEvents)
	}
	if *flagDevs != 0 {
		cmd += fmt.Sprintf(" -devices=%d", *flagDevs)
	}
	return cmd + " -trace -v"
}

// TestSim runs the deterministic simulator over many seeds in parallel. A
// failure prints the seed and the command that replays it.
func TestSim(t *testing.T) {
	opt := Options{EventsPerDevice: *flagEvents, Devices: *flagDevs}
	if *flagSeed != 0 {
		if *flagTrace {
			opt.Trace = func(s string) { t.Log(s) }
		}
		res, err := Run(*flagSeed, opt)
		if err != nil {
			t.Fatalf("%v\nreplay: %s", err, replay(*flagSeed))
		}
		t.Logf("seed %d: %+v", *flagSeed, res)
		return
	}
	n := *flagSeeds
	if n == 0 {
		n = 300
		if RaceEnabled {
			n = 30
		}
		if testing.Short() {
			n = 20
		}
	}
	var (
		next     atomic.Uint64
		events   atomic.Int64
		failures atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		total    Result
	)
	next.Store(*flagBase)
	last := *flagBase + uint64(n)
	start, cpu0 := time.Now(), cpuTime()
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				seed := next.Add(1) - 1
				if seed >= last || failures.Load() >= 5 {
					return
				}
				res, err := Run(seed, opt)
				events.Add(int64(res.Events))
				mu.Lock()
				total.Messages += res.Messages
				total.Crashes += res.Crashes
				total.PersistFailures += res.PersistFailures
				total.ClaimsIssued += res.ClaimsIssued
				total.Accepted += res.Accepted
				total.LiveRounds = max(total.LiveRounds, res.LiveRounds)
				mu.Unlock()
				if err != nil {
					failures.Add(1)
					t.Errorf("%v\nreplay: %s", err, replay(seed))
				}
			}
		}()
	}
	wg.Wait()
	el, cpu := time.Since(start), cpuTime()-cpu0
	t.Logf("%d seeds, %d device events in %s (%s CPU): %.0f events/s wall, %.0f events per CPU-second",
		n, events.Load(), el.Round(time.Millisecond), cpu.Round(time.Millisecond),
		float64(events.Load())/el.Seconds(), float64(events.Load())/cpu.Seconds())
	t.Logf("totals: %d messages, %d crashes, %d failed checkpoint writes, %d claims issued, %d commands accepted; slowest liveness phase %d rounds",
		total.Messages, total.Crashes, total.PersistFailures, total.ClaimsIssued, total.Accepted, total.LiveRounds)
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
