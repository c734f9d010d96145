package gateway

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

var (
	flagSeed  = flag.Uint64("seed", 0, "run only this seed (0: run -seeds seeds)")
	flagSeeds = flag.Int("seeds", 200, "number of seeds")
)

type fakeClock struct{ now time.Duration }

func (c *fakeClock) Now() time.Duration { return c.now }

// hub is the adapter the property test drives: a gateway and a real engine
// with the persistence the hub does (checkpoint before publishing), and a
// crash that loses everything not persisted.
type hub struct {
	clock    *fakeClock
	g        *Gateway
	e        *engine.Engine
	stored   uint64            // the gateway's persisted reservation
	storedCP engine.Checkpoint // the engine's persisted checkpoint
	lastSrc  uint64            // the greatest source id ever fed to the engine
	reports  int               // OutputReport calls
}

const group = "g"

func newHub(t *testing.T, clock *fakeClock) *hub {
	e, err := engine.New("hub", group, engine.Passive(), clock)
	if err != nil {
		t.Fatal(err)
	}
	h := &hub{clock: clock, g: New(), e: e}
	h.storedCP = e.Checkpoint()
	return h
}

func (h *hub) persist() {
	if h.g.Dirty() {
		h.stored = h.g.Reserved()
		h.g.Saved()
	}
	h.storedCP = h.e.Checkpoint()
}

func (h *hub) restart(t *testing.T) {
	e, err := engine.Restore(h.storedCP, group, engine.Passive(), h.clock)
	if err != nil {
		t.Fatal(err)
	}
	h.e, h.g = e, Restore(h.stored)
}

// report feeds a browser report the way the hub does: persist a moved
// reservation, then OutputReport.
func (h *hub) report(t *testing.T, in In) error {
	r, err := h.g.Report(in)
	if err != nil {
		return err
	}
	if r.Source <= h.lastSrc {
		t.Fatalf("source id %d after %d: went back", r.Source, h.lastSrc)
	}
	h.persist()
	if r.Source > h.stored {
		t.Fatalf("source id %d published above the persisted reservation %d", r.Source, h.stored)
	}
	if !h.e.OutputReport(r.Source, engine.Output{Available: r.Output.Available, Playing: r.Output.Playing}) {
		t.Fatalf("engine refused source id %d", r.Source)
	}
	h.lastSrc = r.Source
	h.reports++
	return nil
}

var kinds = []Kind{Started, Playing, Paused, Ended, Stalled, Blocked, Error, "bogus"}

// TestPropertyReports: whatever arrives in whatever order, across
// restarts that lose all that was not persisted, the source ids fed to the
// engine strictly increase, and nothing but an accepted browser report
// moves the engine's heartbeat (no timer, reconnect, presence change,
// selection, revocation or restart reaches OutputReport).
func TestPropertyReports(t *testing.T) {
	seeds := []uint64{}
	if *flagSeed != 0 {
		seeds = append(seeds, *flagSeed)
	} else {
		for i := range *flagSeeds {
			seeds = append(seeds, uint64(i+1))
		}
	}
	for _, seed := range seeds {
		if err := runSeed(t, seed, 3000); err != nil {
			t.Fatalf("seed %d: %v (rerun with -seed %d)", seed, err, seed)
		}
	}
	t.Logf("%d seeds from %d", len(seeds), seeds[0])
}

func runSeed(t *testing.T, seed uint64, steps int) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	clock := &fakeClock{}
	h := newHub(t, clock)
	browsers := []string{"b1", "b2", "b3"}
	pages := []Page{}
	for _, b := range browsers {
		for j := range 2 {
			pages = append(pages, Page{b, fmt.Sprintf("%s-p%d", b, j)})
		}
	}
	seqs := map[Page]uint64{}
	sent := map[Page][]In{} // for replays
	startups := map[string]int{}
	revoked := map[string]bool{}
	opened := map[string]bool{}
	tokens := map[Page]uint64{} // what each page was given by its last select
	var current uint64          // the token of the selection
	loads := 0
	nAccepted, nIgnored := 0, 0
	for step := range steps {
		hb := h.e.Announcement().Heartbeat
		before := h.reports
		p := pages[rng.IntN(len(pages))]
		accepted := false
		switch op := rng.IntN(100); {
		case op < 45: // a fresh report, mostly from the selected page
			if sel, ok := h.g.Selected(); ok && rng.IntN(3) > 0 {
				p = sel
			}
			seqs[p]++
			in := In{From: p, Token: tokens[p], Seq: seqs[p], Kind: kinds[rng.IntN(len(kinds))], Content: "c1", PosMS: rng.Int64N(300000)}
			if rng.IntN(20) == 0 {
				in.PosMS = -1
			}
			sent[p] = append(sent[p], in)
			sel, ok := h.g.Selected()
			want := ok && sel == p && tokens[p] == current && !revoked[p.Browser] && in.Kind != "bogus" && in.PosMS >= 0
			err := h.report(t, in)
			if err == nil {
				nAccepted++
			} else {
				nIgnored++
			}
			if want != (err == nil) {
				return fmt.Errorf("step %d: report %+v from selected=%v: err %v", step, in, ok && sel == p, err)
			}
			accepted = err == nil
		case op < 55: // a replay or an out-of-order report
			if len(sent[p]) == 0 {
				continue
			}
			in := sent[p][rng.IntN(len(sent[p]))]
			err := h.report(t, in)
			var ig *IgnoredError
			nIgnored++
			if !errors.As(err, &ig) {
				return fmt.Errorf("step %d: replayed %+v accepted", step, in)
			}
		case op < 62: // "Play on this browser"
			fresh := !opened[p.Page] // the page's first open since it was loaded
			opened[p.Page] = true
			token, startup, err := h.g.Select(p, fresh)
			h.persist() // before the token reaches the page
			if err == nil {
				if token < current { // the same page again keeps its token; a new selection is above all before
					return fmt.Errorf("step %d: token %d after %d", step, token, current)
				}
				tokens[p], current = token, token
			}
			if revoked[p.Browser] != (err != nil) {
				return fmt.Errorf("step %d: select %v revoked=%v: %v", step, p, revoked[p.Browser], err)
			}
			if startup {
				startups[p.Page]++
				if startups[p.Page] > 1 {
					return fmt.Errorf("step %d: page %s asked for startup twice", step, p.Page)
				}
				h.e.RequestStartup()
			}
		case op < 64: // the tab is reloaded: a new page id
			h.g.Gone(p)
			h.g.Deselect(p)
			loads++
			i := rng.IntN(len(pages))
			pages[i] = Page{pages[i].Browser, fmt.Sprintf("load%d", loads)}
		case op < 72:
			h.g.Gone(p)
		case op < 80:
			h.g.Connected(p)
		case op < 81:
			h.g.Revoke(p.Browser)
			revoked[p.Browser] = true
			nb := fmt.Sprintf("nb%d", step) // a new pairing; the revoked pages stay and keep sending
			browsers = append(browsers, nb)
			pages = append(pages, Page{nb, nb + "-p0"}, Page{nb, nb + "-p1"})
		case op < 83: // crash and restart
			h.restart(t) // the pages keep counting and keep their old tokens
			for _, b := range browsers {
				if revoked[b] {
					h.g.Revoke(b) // the group's log replays revocations
				}
			}
		case op < 86:
			if _, err := h.e.Transfer("hub"); err != nil {
				return err
			}
			h.persist()
		default: // time passes, the engine ticks
			clock.now += time.Duration(rng.IntN(5000)) * time.Millisecond
			h.e.Tick()
			h.persist()
		}
		if !accepted && (h.reports != before || h.e.Announcement().Heartbeat > hb) {
			return fmt.Errorf("step %d: the engine's heartbeat moved without a browser report (%d -> %d)", step, hb, h.e.Announcement().Heartbeat)
		}
		if accepted && h.e.Announcement().Heartbeat <= hb {
			return fmt.Errorf("step %d: an accepted report did not reach the engine", step)
		}
	}
	if nAccepted < steps/20 || nIgnored == 0 {
		return fmt.Errorf("seed made %d reports and ignored %d: too few to mean anything", nAccepted, nIgnored)
	}
	return nil
}

func TestIgnoredReasons(t *testing.T) {
	g := New()
	a, b := Page{"b1", "p1"}, Page{"b2", "p2"}
	check := func(in In, want Reason) {
		t.Helper()
		_, err := g.Report(in)
		var ig *IgnoredError
		if !errors.As(err, &ig) || ig.Reason != want {
			t.Fatalf("%+v: %v, want %v", in, err, want)
		}
	}
	check(In{From: a, Seq: 1, Kind: Playing}, NotSelected)
	tok, s, err := g.Select(a, true)
	if !s || err != nil {
		t.Fatal(s, err)
	}
	check(In{From: b, Token: tok, Seq: 1, Kind: Playing}, NotSelected)
	check(In{From: a, Token: tok, Seq: 0, Kind: Playing}, Malformed)
	check(In{From: a, Token: tok, Seq: 1, Kind: "loud"}, Malformed)
	check(In{From: a, Token: tok, Seq: 1, Kind: Playing, Content: strings.Repeat("x", MaxContentLen+1)}, Malformed)
	if r, err := g.Report(In{From: a, Token: tok, Seq: 2, Kind: Playing, PosMS: 5000}); err != nil || r.Source != tok+1 || !r.Output.Playing {
		t.Fatal(r, err)
	}
	check(In{From: a, Token: tok, Seq: 2, Kind: Paused}, Stale)
	check(In{From: a, Token: tok, Seq: 1, Kind: Paused}, Stale)
	check(In{From: a, Token: tok + 1, Seq: 3, Kind: Paused}, Stale)
	g.Revoke("b1")
	check(In{From: a, Token: tok, Seq: 3, Kind: Paused}, Revoked)
	if _, _, err := g.Select(a, true); err == nil {
		t.Fatal("a revoked browser was selected")
	}
	st := g.Stats()
	if st.Reports != 1 || st.Ignored[NotSelected] != 2 || st.Ignored[Malformed] != 3 || st.Ignored[Stale] != 3 || st.Ignored[Revoked] != 2 {
		t.Fatalf("%+v", st)
	}
}

func TestBlockedIsNotPlaying(t *testing.T) {
	g := New()
	p := Page{"b", "p"}
	tok, _, _ := g.Select(p, true)
	r, err := g.Report(In{From: p, Token: tok, Seq: 1, Kind: Blocked})
	if err != nil || r.Output.Playing || !r.Output.Available {
		t.Fatal(r, err)
	}
	r, _ = g.Report(In{From: p, Token: tok, Seq: 2, Kind: Error})
	if r.Output.Available || r.Output.Playing {
		t.Fatal(r)
	}
}

// TestStartupOncePerPage: a reconnect or a second "Play here" of the same
// page is no second startup; a new page start is.
func TestStartupOncePerPage(t *testing.T) {
	g := New()
	p := Page{"b", "p1"}
	if _, s, _ := g.Select(p, true); !s {
		t.Fatal("first open is no startup")
	}
	g.Gone(p)
	g.Connected(p)
	if _, s, _ := g.Select(p, false); s {
		t.Fatal("a reconnect asked for startup")
	}
	if _, s, _ := g.Select(p, true); s {
		t.Fatal("a reselect of the same page asked for startup again")
	}
	if _, s, _ := g.Select(Page{"b", "p2"}, true); !s {
		t.Fatal("a new page start is no startup")
	}
	if g.Stats().Startups != 2 {
		t.Fatal(g.Stats())
	}
}

// TestRestartContinues: ids continue above the persisted reservation, and
// a block needs one write.
func TestRestartContinues(t *testing.T) {
	g := New()
	p := Page{"b", "p"}
	tok, _, _ := g.Select(p, true)
	g.Saved()
	writes := 0
	var last uint64
	for i := range 3000 {
		r, err := g.Report(In{From: p, Token: tok, Seq: uint64(i + 1), Kind: Playing})
		if err != nil {
			t.Fatal(err)
		}
		if g.Dirty() {
			writes++
			g.Saved()
		}
		last = r.Source
	}
	if writes != 2 { // ids 1 (the token) to 3001: blocks 1-1024 (at Select), 1025-2048, 2049-3072
		t.Fatalf("%d checkpoint writes for 3000 reports, want 2", writes)
	}
	g2 := Restore(g.Reserved())
	if _, err := g2.Report(In{From: p, Token: tok, Seq: 3001, Kind: Playing}); err == nil {
		t.Fatal("a report made before the restart was accepted after it")
	}
	tok2, _, _ := g2.Select(p, false)
	r, _ := g2.Report(In{From: p, Token: tok2, Seq: 3001, Kind: Playing})
	if r.Source <= last {
		t.Fatalf("after a restart: %d, before: %d", r.Source, last)
	}
}

// TestPresenceExpiryKeepsOwner: the selected tab closes; the hub makes no
// report, stays the owner until owner_timeout, and a device with automatic
// failover then takes over. The gateway keeps the last reported position.
func TestPresenceExpiryKeepsOwner(t *testing.T) {
	clock := &fakeClock{}
	h := newHub(t, clock)
	cfg := engine.DefaultConfig()
	cfg.OwnerTimeoutMS = 10000
	other, err := engine.New("desk", group, cfg, clock)
	if err != nil {
		t.Fatal(err)
	}
	other.Heartbeat(engine.Output{Available: true})
	p := Page{"b", "p"}
	tok, _, _ := h.g.Select(p, true)
	if _, err := h.e.Transfer("hub"); err != nil {
		t.Fatal(err)
	}
	if err := h.report(t, In{From: p, Token: tok, Seq: 1, Kind: Playing, Content: "c", PosMS: 42000}); err != nil {
		t.Fatal(err)
	}
	if err := other.Announce("hub", h.e.Announcement()); err != nil {
		t.Fatal(err)
	}
	h.g.Gone(p)
	for range 9 {
		clock.now += time.Second
		h.e.Tick()
		other.Tick()
		_ = other.Announce("hub", h.e.Announcement()) // snapshots go on; they renew nothing
	}
	if h.e.Owner() != "hub" || other.Owner() != "hub" {
		t.Fatalf("owner before the timeout: hub sees %s, desk sees %s", h.e.Owner(), other.Owner())
	}
	if sel, ok := h.g.Selected(); !ok || sel != p || h.g.Present() {
		t.Fatal("the selection was dropped when the page went away")
	}
	clock.now += 2 * time.Second
	other.Tick()
	if other.Owner() != "desk" {
		t.Fatalf("no failover after owner_timeout: %s", other.Owner())
	}
	if h.g.Last().PosMS != 42000 {
		t.Fatal(h.g.Last())
	}
}
