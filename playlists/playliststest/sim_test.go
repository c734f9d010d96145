package playliststest

import (
	"flag"
	"fmt"
	"testing"

	"github.com/furudesk/furudesk/internal/simseed"
	"github.com/furudesk/furudesk/playlists"
)

var (
	seeds      = simseed.Register("300, 30 with -short")
	flagEvents = flag.Int("events", 0, "events per seed before healing (0: 400)")
	flagTrace  = flag.Bool("trace", false, "print the event trace of -seed")
)

func replay(seed uint64) string {
	cmd := fmt.Sprintf("go test -v ./playlists/playliststest -run 'TestSim$' -args -seed=%d -trace", seed)
	if *flagEvents != 0 {
		cmd += fmt.Sprintf(" -events=%d", *flagEvents)
	}
	return cmd
}

// TestSim is the convergence property: random concurrent edits on 3-5
// replicas, random delivery order and batching, ops applied twice,
// restarts and forgotten obsolete ops end in identical playlists, likes
// and play counts, equal to the merge of every op ever made. A failure
// prints the seed and the command that replays it.
func TestSim(t *testing.T) {
	opt := Options{Events: *flagEvents}
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
	n := simseed.Loop(t, seeds, seeds.Count(def), 0, func(seed uint64) (Result, error) { return Run(seed, opt) },
		func(res Result) {
			total.Ops += res.Ops
			total.Duplicates += res.Duplicates
			total.Restarts += res.Restarts
			total.Forgotten += res.Forgotten
			total.Playlists += res.Playlists
			total.Entries += res.Entries
		}, replay)
	t.Logf("%d seeds: %d ops, %d applied twice, %d restarts, %d ops forgotten; healed into %d playlists with %d entries",
		n, total.Ops, total.Duplicates, total.Restarts, total.Forgotten, total.Playlists, total.Entries)
}

// The simulator must be able to fail: a replica that loses an op it
// should have kept is caught.
func TestSimCatchesALostOp(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		s := newSim(seed, Options{})
		s.run()
		// Drop a create op from every replica's log and state: the
		// playlist vanishes, unlike in the oracle.
		oracle := playlists.New()
		oracle.Apply(s.all...)
		for _, o := range s.all {
			if _, live := oracle.Playlist(o.ID); o.Kind != playlists.KindPlaylistCreated || !live {
				continue
			}
			for _, rp := range s.reps {
				rp.log[o.Origin] = deleteOp(rp.log[o.Origin], o.ID)
				rp.st.Forget([]string{o.ID})
			}
			if err := s.finish(); err == nil {
				t.Fatalf("seed %d: losing op %s went unnoticed", seed, o.ID)
			}
			return
		}
	}
	t.Fatal("no seed created a playlist")
}
