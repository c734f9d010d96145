package queuetest

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/furudesk/furudesk/internal/simseed"
)

var (
	seeds      = simseed.Register("300, 30 with -short")
	flagEvents = flag.Int("events", 0, "fault-phase events per seed (0: 60)")
	flagDevs   = flag.Int("devices", 0, "devices per seed (0: 2-4 from the seed)")
	flagTrace  = flag.Bool("simtrace", false, "print the last events of a failing -seed")
)

func replay(seed uint64) string {
	cmd := fmt.Sprintf("go test ./queue/queuetest -run 'TestSim$' -seed=%d", seed)
	if *flagEvents != 0 {
		cmd += fmt.Sprintf(" -events=%d", *flagEvents)
	}
	if *flagDevs != 0 {
		cmd += fmt.Sprintf(" -devices=%d", *flagDevs)
	}
	return cmd + " -simtrace -v"
}

// TestSim runs the simulator over many seeds in parallel. A failure
// prints the seed and the command that replays it.
func TestSim(t *testing.T) {
	opt := Options{Events: *flagEvents, Devices: *flagDevs}
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
	if testing.Short() {
		def = 30
	}
	var total Result
	start := time.Now()
	n := simseed.Loop(t, seeds, seeds.Count(def), 0, func(seed uint64) (Result, error) { return Run(seed, opt) },
		func(res Result) {
			total.Steps += res.Steps
			total.Controls += res.Controls
			total.Transfers += res.Transfers
			total.Kills += res.Kills
			total.Freezes += res.Freezes
			total.Acked += res.Acked
			total.Dropped += res.Dropped
		}, replay)
	t.Logf("%d seeds in %s: %+v", n, time.Since(start).Round(time.Millisecond), total)
}

// TestSimNeedsEveryRule leaves each rule out in turn: some seed of the
// first 3000 must fail without it, or the simulator does not check it.
func TestSimNeedsEveryRule(t *testing.T) {
	for _, c := range []struct {
		name  string
		rules RuleSet
		seed  uint64 // a seed known to fail without the rule, tried first
		old   bool   // with Options.OldControllers
	}{
		{"P1 output behind", RuleSet{NoOutputBehind: true}, 0, false},
		{"P5 takeover", RuleSet{NoHeardAt: true}, 0, false},
		{"P3 resuming", RuleSet{NoResuming: true}, 3120, false},
		{"C2 held view", RuleSet{NoHeldView: true}, 11840, false},
		{"P7 loaded", RuleSet{NoLoad: true}, 546, false},
		{"C5 owner restarted", RuleSet{NoRestarted: true}, 204, false},
		{"C6 acks from the owner's process", RuleSet{NoAckFrom: true}, 1366, false},
		// With IDs, C7 keeps a control from being applied twice; the
		// addresses do it for an older build's controls.
		{"C5 addressed to a launch", RuleSet{NoAddress: true}, 87, true},
		{"S2 seek names its track", RuleSet{NoSeekID: true}, 1708, false},
		{"C3 retarget", RuleSet{NoRetarget: true}, 0, false},
		{"S1 owner's claim", RuleSet{NoOwnerClaim: true}, 0, false},
		{"C7 marks", RuleSet{NoMarks: true}, 3284, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			for i := uint64(0); i <= 3000; i++ {
				seed := i
				if i == 0 {
					if seed = c.seed; seed == 0 {
						continue
					}
					if _, err := Run(seed, Options{OldControllers: c.old}); err != nil {
						t.Fatalf("seed %d fails with every rule: %v", seed, err)
					}
				}
				if _, err := Run(seed, Options{Rules: c.rules, OldControllers: c.old}); err != nil {
					t.Logf("seed %d fails without the rule: %v", seed, err)
					return
				}
			}
			t.Errorf("no seed of 3000 fails without %s", c.name)
		})
	}
}
