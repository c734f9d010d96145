// Package simseed is the seed loop the seeded simulators' tests share
// (engine/enginetest, playlists/playliststest, queue/queuetest): the
// -seed, -seeds and -seedbase flags and a run of many seeds on every
// core that stops after a few failures, each printed with the command
// that replays it. Standard library only; for tests.
package simseed

import (
	"flag"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// MaxFailures is how many failing seeds stop a run.
const MaxFailures = 5

// GCPercent is the garbage collector's target while Loop runs: a seed's
// run allocates many short-lived states (clones of the queue at each
// transition) and keeps little, so at Go's default of 100 the collector
// ran about half of the time.
const GCPercent = 400

// Flags are a simulator test package's seed flags.
type Flags struct {
	seed  *uint64
	seeds *int
	base  *uint64
}

// Register defines -seed, -seeds (its default described by seedsDoc) and
// -seedbase on the command line; call it once per test package, from a
// package-level var.
func Register(seedsDoc string) *Flags {
	return &Flags{
		seed:  flag.Uint64("seed", 0, "run only this seed (0: run -seeds seeds)"),
		seeds: flag.Int("seeds", 0, "number of seeds to run (0: "+seedsDoc+")"),
		base:  flag.Uint64("seedbase", 1, "first seed of a -seeds run"),
	}
}

// One is the seed of -seed, 0 when a run of many seeds is asked for.
func (f *Flags) One() uint64 { return *f.seed }

// Base is -seedbase, the first seed of a run.
func (f *Flags) Base() uint64 { return *f.base }

// Count is -seeds, or def when it is not given.
func (f *Flags) Count(def int) int {
	if *f.seeds != 0 {
		return *f.seeds
	}
	return def
}

// Reporter is the part of testing.TB a run reports to.
type Reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// Loop runs run for n seeds from -seedbase on runtime.GOMAXPROCS(0)
// goroutines (workers when it is positive). add gets each seed's result,
// one call at a time; a failing seed is reported with replay(seed), and
// after MaxFailures no new seed starts. It returns how many seeds ran.
func Loop[R any](t Reporter, f *Flags, n, workers int, run func(seed uint64) (R, error), add func(R), replay func(seed uint64) string) int {
	t.Helper()
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		next     atomic.Uint64
		ran      atomic.Int64
		failures atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
	)
	next.Store(*f.base)
	last := *f.base + uint64(n)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				seed := next.Add(1) - 1
				if seed >= last || failures.Load() >= MaxFailures {
					return
				}
				res, err := run(seed)
				ran.Add(1)
				mu.Lock()
				add(res)
				if err != nil {
					failures.Add(1)
					t.Errorf("%v\nreplay: %s", err, replay(seed))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return int(ran.Load())
}
