package engine

// Each test below checks one sentence of spec/playback-coordination.md (and
// the rule of design/engine.md that turns it into Go):
//
//	TestClaimOrderingConverges       "Claims are ordered lexicographically in that order." /
//	                                 "converge to the same winner regardless of delivery order." (rule 1)
//	TestLocalClaimIncrementsCounter  "A locally issued claim increments the greatest counter observed so far." (rule 2)
//	TestPersistedClaimNeverReset     "Persist the winning claim; never reset it because a peer disappears." (rules 1, 5)
//	TestLoserStopsAtOnce             "A losing player stops its audio even if it was playing; it cannot reject a higher claim." (rule 3)
//	TestOnlyOwnerReportsRenew        "Only new reports from the owner's audio endpoint renew its liveness.
//	                                 Duplicate snapshots and relayed claims do not." (rule 4)
//	TestAgedReportRenewsAsOfThen     "Only new reports from the owner's audio endpoint renew its liveness." for a
//	                                 report relayed by members: it renews as of when it was made (AnnounceAged)
//	TestHeartbeatReservation         "reserves heartbeat sequence ranges in its checkpoint so a restart cannot roll them
//	                                 back and every UI tick does not require a database write." (rule 5)
//	TestGatewayReports               "Gateway timers must not turn cached browser state into new output heartbeats." /
//	                                 "output_report with an increasing source-report id for a gateway." (rule 6)
//	TestFailover                     "automatic_failover: Claim when the owner stops reporting." (rule 7)
//	TestResumedCountsListeningTime   "Availability, actual unpaused playback, ownership and network connectivity are
//	                                 different inputs." / "Convergence assumes ... functioning polling/event loops":
//	                                 a device that was not listening (Resumed) does not take its own pause for the
//	                                 owner's silence; discovery counts listening time too (rule 7, 8; Resumed)
//	TestStartupDecision              "Startup has a discovery grace period. If a restored/relayed owner has not yet
//	                                 reported, keep the startup decision pending until its heartbeat or timeout." (rule 8)
//	TestStartupUnknownPeer           "an entirely unknown peer across a partition cannot prevent a local startup claim." (rule 8)
//	TestPassive                      "Config::passive() disables application-startup claims and automatic failover." (rule 9)
//	TestHandoff                      "An explicit handoff must name that claim's owner and originate from its issuer." (rule 10)
//	TestCommandAheadOfAnnouncement   "A command can carry its existing claim ahead of the corresponding announcement." (rule 11)
//	TestCommandOrdering              "In a term, commands are applied in increasing sequence per sender; old, duplicate
//	                                 and incompatible envelopes are ignored." (rule 11)
//	TestSenderLimit                  "The command-sender map is bounded to 128 entries per term." (rule 11)
//	TestFence                        "Recheck queued command fences before their effects reach the output." (rule 12)
//	TestPersistBeforePublish         "Persist changed durable state before publishing decisions or executing commands.
//	                                 ... restore the previous engine if persistence fails." (adapter obligation 5)
//	TestRestoreGroup                 "Restore Checkpoint only for its matching group." / "Do not restore wall clock
//	                                 liveness deadlines." (adapter obligation 2)
//	TestAnnounceBindsSender          "Bind snapshot device_id to the actual sender." (adapter obligation 1)
//	TestLegacyEnvelopes              "Upgraded clients ignore legacy personal playback snapshots/commands without the
//	                                 coordination envelope." / "Coordination envelopes independently carry version 1."
//	TestConfigFields                 "The complete serde Config accepts these fields (unknown fields are errors)."
//	TestDeterminism                  engine.md rule 13: same inputs in the same order give the same outputs.

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

type fakeClock struct{ t time.Duration }

func (c *fakeClock) Now() time.Duration      { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t += d }

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func newT(t *testing.T, id DeviceID, cfg Config, c *fakeClock) *Engine {
	t.Helper()
	e, err := New(id, "g", cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func announce(t *testing.T, to, from *Engine) {
	t.Helper()
	if err := to.Announce(from.ID(), from.Announcement()); err != nil {
		t.Fatal(err)
	}
}

var (
	on      = Output{Available: true}
	playing = Output{Available: true, Playing: true}
)

func TestClaimOrderingConverges(t *testing.T) {
	claims := []Claim{{1, "a", "a"}, {1, "b", "a"}, {2, "a", "c"}, {2, "a", "b"}, {1, "c", "c"}}
	want := Claim{2, "a", "c"}
	// every rotation and the reverse order give the same winner
	for r := range claims {
		for _, rev := range []bool{false, true} {
			c := &fakeClock{}
			e := newT(t, "x", DefaultConfig(), c)
			for i := range claims {
				k := (r + i) % len(claims)
				if rev {
					k = len(claims) - 1 - k
				}
				_ = e.Announce("p", Coordination{Version: 1, Device: "p", Claim: claims[k]})
			}
			if e.Claim() != want {
				t.Fatalf("order %d/%v: claim %v, want %v", r, rev, e.Claim(), want)
			}
		}
	}
	if (Claim{1, "b", "a"}).Compare(Claim{1, "a", "z"}) != 1 || (Claim{2, "a", "a"}).Compare(Claim{1, "z", "z"}) != 1 {
		t.Fatal("claims must order by counter, then issuer, then owner")
	}
}

func TestLocalClaimIncrementsCounter(t *testing.T) {
	c := &fakeClock{}
	e := newT(t, "a", DefaultConfig(), c)
	_ = e.Announce("b", Coordination{Version: 1, Device: "b", Claim: Claim{41, "b", "b"}})
	st, err := e.Transfer("a")
	if err != nil {
		t.Fatal(err)
	}
	if st.Claim != (Claim{42, "a", "a"}) || e.Claim() != st.Claim {
		t.Fatalf("issued %v, want {42 a a}", st.Claim)
	}
}

func TestPersistedClaimNeverReset(t *testing.T) {
	c := &fakeClock{}
	e := newT(t, "a", DefaultConfig(), c)
	_ = e.Announce("b", Coordination{Version: 1, Device: "b", Claim: Claim{7, "b", "b"}, Heartbeat: 1, Output: playing})
	// b disappears: time passes, ticks happen; failover may issue a greater
	// claim but never forgets the winner.
	for range 10 {
		c.advance(time.Minute)
		e.Tick()
		if e.Claim().Compare(Claim{7, "b", "b"}) < 0 {
			t.Fatalf("claim went back to %v", e.Claim())
		}
	}
	rd := e.Ready()
	e.Advance()
	r, err := Restore(rd.Checkpoint, "g", DefaultConfig(), &fakeClock{})
	if err != nil || r.Claim() != e.Claim() {
		t.Fatalf("restored %v, %v; want %v", r.Claim(), err, e.Claim())
	}
}

func TestLoserStopsAtOnce(t *testing.T) {
	c := &fakeClock{}
	a := newT(t, "a", DefaultConfig(), c)
	if _, err := a.Transfer("a"); err != nil {
		t.Fatal(err)
	}
	a.Heartbeat(playing)
	a.Ready()
	a.Advance()
	if !a.MayRender() {
		t.Fatal("owner must render")
	}
	_ = a.Announce("b", Coordination{Version: 1, Device: "b", Claim: Claim{2, "b", "b"}})
	if a.MayRender() {
		t.Fatal("a greater claim for b must stop a at once, even while playing")
	}
	rd := a.Ready()
	if !rd.RenderChanged || rd.MayRender || rd.Owner != "b" {
		t.Fatalf("Ready must report the render change: %+v", rd)
	}
}

func TestOnlyOwnerReportsRenew(t *testing.T) {
	cfg := DefaultConfig()
	cfg.OwnerTimeoutMS = 1000
	c := &fakeClock{}
	a := newT(t, "a", cfg, c)
	a.Heartbeat(on)
	owner := Coordination{Version: 1, Device: "b", Claim: Claim{1, "b", "b"}, Heartbeat: 5, Output: playing}
	if err := a.Announce("b", owner); err != nil {
		t.Fatal(err)
	}
	if !a.OwnerLive() || a.OwnerOutput() != playing {
		t.Fatal("a fresh owner report makes it live")
	}
	for range 3 {
		c.advance(ms(600))
		_ = a.Announce("b", owner) // duplicate snapshot: same heartbeat
		_ = a.Announce("c", Coordination{Version: 1, Device: "c", Claim: owner.Claim, Heartbeat: 99, Output: playing})
		a.Tick()
	}
	if a.Owner() != "a" {
		t.Fatalf("duplicates and relayed claims must not renew the owner: owner %q", a.Owner())
	}

	// and a fresh report does renew
	c2 := &fakeClock{}
	x := newT(t, "x", cfg, c2)
	x.Heartbeat(on)
	for hb := uint64(1); hb <= 5; hb++ {
		c2.advance(ms(600))
		_ = x.Announce("b", Coordination{Version: 1, Device: "b", Claim: owner.Claim, Heartbeat: hb, Output: playing})
		x.Tick()
	}
	if x.Owner() != "b" || !x.OwnerLive() {
		t.Fatalf("fresh owner reports must keep b the owner: %q", x.Owner())
	}
}

func TestAgedReportRenewsAsOfThen(t *testing.T) {
	cfg := DefaultConfig()
	cfg.OwnerTimeoutMS = 3_000
	c := &fakeClock{}
	a := newT(t, "a", cfg, c)
	a.Heartbeat(on)
	env := Coordination{Version: 1, Device: "b", Claim: Claim{3, "b", "b"}, Heartbeat: 1, Output: playing}
	_ = a.Announce("b", env)
	c.advance(ms(2_000))
	// b's next report reaches a through a relay, 1.5 s after b made it.
	env.Heartbeat = 2
	if err := a.AnnounceAged("b", env, ms(1_500)); err != nil {
		t.Fatal(err)
	}
	c.advance(ms(2_501))
	a.Tick()
	if a.Owner() != "a" {
		t.Fatalf("an aged report renewed as of its arrival: claim %v, want a failover 3 s after it was made", a.Claim())
	}

	// An aged report never moves liveness back, and a replay renews nothing.
	c2 := &fakeClock{}
	x := newT(t, "x", cfg, c2)
	x.Heartbeat(on)
	env.Heartbeat = 5
	_ = x.Announce("b", env)
	c2.advance(ms(1_000))
	_ = x.AnnounceAged("b", Coordination{Version: 1, Device: "b", Claim: env.Claim, Heartbeat: 6, Output: playing}, ms(5_000))
	_ = x.AnnounceAged("b", env, 0)
	c2.advance(ms(2_001))
	x.Tick()
	if x.Owner() != "x" {
		t.Fatalf("an old relayed report or a replay renewed the owner: claim %v", x.Claim())
	}
}

func TestHeartbeatReservation(t *testing.T) {
	c := &fakeClock{}
	e := newT(t, "a", DefaultConfig(), c)
	writes := 0
	var last uint64
	step := func() {
		if rd := e.Ready(); rd.PersistCheckpoint {
			writes++
		}
		e.Advance()
	}
	for range 3000 {
		id := e.Heartbeat(on)
		if id <= last {
			t.Fatalf("heartbeat id %d after %d", id, last)
		}
		last = id
		c.advance(ms(100))
		e.Tick()
		step()
	}
	if writes != 3 { // ids 1, 1025, 2049 open a block
		t.Fatalf("%d checkpoint writes for 3000 heartbeats, want 3", writes)
	}
	// a tick alone never asks for a write
	for range 100 {
		c.advance(time.Second)
		e.Tick()
		if rd := e.Ready(); rd.PersistCheckpoint {
			t.Fatal("tick asked for a checkpoint write")
		}
		e.Advance()
	}
	cp := e.Checkpoint()
	r, err := Restore(cp, "g", DefaultConfig(), &fakeClock{})
	if err != nil {
		t.Fatal(err)
	}
	if id := r.Heartbeat(on); id <= cp.HeartbeatReserved {
		t.Fatalf("after restore heartbeat %d is not above the reservation %d", id, cp.HeartbeatReserved)
	}
	if r.Announcement().Heartbeat <= cp.HeartbeatReserved {
		t.Fatal("announcement must carry the new id")
	}
	// same for command sequences
	if _, err := r.Transfer("a"); err != nil {
		t.Fatal(err)
	}
	st, _ := r.Stamp()
	if st.Sequence <= cp.CommandReserved || r.Checkpoint().CommandReserved < st.Sequence {
		t.Fatalf("sequence %d vs reservations %d/%d", st.Sequence, cp.CommandReserved, r.Checkpoint().CommandReserved)
	}
}

func TestGatewayReports(t *testing.T) {
	c := &fakeClock{}
	g := newT(t, "g", DefaultConfig(), c)
	if !g.OutputReport(3, playing) {
		t.Fatal("first report accepted")
	}
	id := g.Announcement().Heartbeat
	for _, src := range []uint64{3, 2, 0} {
		if g.OutputReport(src, playing) {
			t.Fatalf("source %d not newer than 3 must be ignored", src)
		}
	}
	if g.Announcement().Heartbeat != id {
		t.Fatal("an ignored report must not produce a new heartbeat")
	}
	if !g.OutputReport(4, on) || g.Announcement().Heartbeat <= id || g.Announcement().Output != on {
		t.Fatal("a newer report is a new heartbeat")
	}
}

func TestFailover(t *testing.T) {
	cfg := DefaultConfig()
	cfg.OwnerTimeoutMS = 10_000
	c := &fakeClock{}
	a := newT(t, "a", cfg, c)
	a.Heartbeat(on)
	_ = a.Announce("b", Coordination{Version: 1, Device: "b", Claim: Claim{3, "b", "b"}, Heartbeat: 1, Output: playing})
	c.advance(ms(10_000))
	a.Tick()
	if a.Owner() != "b" {
		t.Fatal("exactly owner_timeout old is not older than owner_timeout")
	}
	c.advance(ms(1))
	a.Tick()
	if a.Claim() != (Claim{4, "a", "a"}) || !a.MayRender() {
		t.Fatalf("failover claim %v, want {4 a a}", a.Claim())
	}

	// no failover without an available local output
	c2 := &fakeClock{}
	x := newT(t, "x", cfg, c2)
	x.Heartbeat(Output{})
	_ = x.Announce("b", Coordination{Version: 1, Device: "b", Claim: Claim{3, "b", "b"}, Heartbeat: 1})
	c2.advance(time.Hour)
	x.Tick()
	if x.Owner() != "b" {
		t.Fatal("failover needs our output available")
	}

	// a relayed claim gives its owner a full timeout from when we learned it
	c3 := &fakeClock{}
	y := newT(t, "y", cfg, c3)
	y.Heartbeat(on)
	c3.advance(time.Hour)
	_ = y.Announce("c", Coordination{Version: 1, Device: "c", Claim: Claim{3, "b", "b"}})
	c3.advance(ms(9_999))
	y.Tick()
	if y.Owner() != "b" {
		t.Fatal("a relayed claim must get a full owner_timeout")
	}
	c3.advance(ms(2))
	y.Tick()
	if y.Owner() != "y" {
		t.Fatal("then failover")
	}
}

func TestResumedCountsListeningTime(t *testing.T) {
	cfg := DefaultConfig()
	cfg.OwnerTimeoutMS = 3_000
	owner := Coordination{Version: 1, Device: "b", Claim: Claim{3, "b", "b"}, Heartbeat: 1, Output: playing}

	// Stopped for 6 s right after b's report: b keeps its whole window.
	c := &fakeClock{}
	a := newT(t, "a", cfg, c)
	a.Heartbeat(on)
	_ = a.Announce("b", owner)
	c.advance(ms(6_000))
	a.Resumed(ms(6_000))
	a.Tick()
	if a.Owner() != "b" || !a.OwnerLive() {
		t.Fatalf("woke up and claimed from a live owner: claim %v live %v", a.Claim(), a.OwnerLive())
	}
	c.advance(ms(2_999))
	a.Tick()
	if a.Owner() != "b" {
		t.Fatal("the owner's window is shorter than owner_timeout of listening time")
	}
	c.advance(ms(2))
	a.Tick()
	if a.Owner() != "a" {
		t.Fatalf("owner silent for owner_timeout of listening time: claim %v, want a failover", a.Claim())
	}

	// Silent 2.5 s before a 10 s pause: 0.5 s of its window is left.
	c2 := &fakeClock{}
	x := newT(t, "x", cfg, c2)
	x.Heartbeat(on)
	_ = x.Announce("b", owner)
	c2.advance(ms(12_500))
	x.Resumed(ms(10_000))
	x.Tick()
	if x.Owner() != "b" {
		t.Fatal("claimed with 0.5 s of the window left")
	}
	c2.advance(ms(501))
	x.Tick()
	if x.Owner() != "x" {
		t.Fatal("no failover once the rest of the window passed")
	}

	// Resumed never moves the window beyond now, whatever away says.
	c3 := &fakeClock{}
	y := newT(t, "y", cfg, c3)
	y.Heartbeat(on)
	_ = y.Announce("b", owner)
	c3.advance(ms(1_000))
	y.Resumed(time.Hour)
	c3.advance(ms(3_001))
	y.Tick()
	if y.Owner() != "y" {
		t.Fatal("Resumed gave the owner more than owner_timeout from now")
	}

	// The discovery grace counts listening time: a startup intent recorded
	// before a pause is not decided by the pause alone.
	cfgD := DefaultConfig()
	cfgD.DiscoveryMS = 3_000
	c4 := &fakeClock{}
	z := newT(t, "z", cfgD, c4)
	z.Heartbeat(on)
	z.RequestStartup()
	c4.advance(ms(1_000))
	z.Tick()
	c4.advance(ms(5_000))
	z.Resumed(ms(5_000))
	z.Tick()
	if !z.StartupPending() || !z.Claim().IsZero() {
		t.Fatalf("startup decided after 1 s of listening: pending %v claim %v", z.StartupPending(), z.Claim())
	}
	c4.advance(ms(2_000))
	z.Tick()
	if z.StartupPending() || z.Owner() != "z" {
		t.Fatalf("startup not decided after the grace of listening time: claim %v", z.Claim())
	}
	if z.Stats().Resumes != 1 {
		t.Fatalf("Stats.Resumes = %d, want 1", z.Stats().Resumes)
	}
}

func TestStartupDecision(t *testing.T) {
	cfg := DefaultConfig() // discovery 3000, timeout 120000
	cases := []struct {
		name   string
		owner  *Coordination // announcement from the owner b, if any
		claim  bool
		paused bool // TakePausedOnStartup
	}{
		{"no owner known", nil, true, true},
		{"owner playing", &Coordination{Heartbeat: 1, Output: playing}, false, true},
		{"owner paused, take paused", &Coordination{Heartbeat: 1, Output: on}, true, true},
		{"owner paused, keep paused", &Coordination{Heartbeat: 1, Output: on}, false, false},
		{"owner unavailable", &Coordination{Heartbeat: 1, Output: Output{}}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeClock{}
			cf := cfg
			cf.TakePausedOnStartup = tc.paused
			a := newT(t, "a", cf, c)
			a.RequestStartup()
			if tc.owner != nil {
				o := *tc.owner
				o.Version, o.Device, o.Claim = 1, "b", Claim{5, "b", "b"}
				_ = a.Announce("b", o)
			}
			c.advance(ms(2999))
			a.Tick()
			if !a.StartupPending() || a.Claim().Issuer == "a" {
				t.Fatal("decided before discovery_ms")
			}
			c.advance(ms(1))
			a.Tick()
			if a.StartupPending() {
				t.Fatal("still pending after discovery")
			}
			if got := a.Claim().Issuer == "a"; got != tc.claim {
				t.Fatalf("claimed=%v want %v (claim %v)", got, tc.claim, a.Claim())
			}
		})
	}

	// restored owner that has not reported: pending until report or timeout
	t.Run("restored owner reports", func(t *testing.T) {
		c := &fakeClock{}
		a, _ := Restore(Checkpoint{Group: "g", Device: "a", Claim: Claim{5, "b", "b"}}, "g", cfg, c)
		a.RequestStartup()
		c.advance(ms(60_000))
		a.Tick()
		if !a.StartupPending() {
			t.Fatal("must stay pending while the restored owner has not reported")
		}
		_ = a.Announce("b", Coordination{Version: 1, Device: "b", Claim: Claim{5, "b", "b"}, Heartbeat: 9, Output: playing})
		if a.StartupPending() || a.Owner() != "b" {
			t.Fatal("the owner's report decides: it is playing, keep it")
		}
	})
	t.Run("restored owner times out", func(t *testing.T) {
		c := &fakeClock{}
		a, _ := Restore(Checkpoint{Group: "g", Device: "a", Claim: Claim{5, "b", "b"}}, "g", cfg, c)
		a.RequestStartup()
		c.advance(ms(120_000))
		a.Tick()
		if !a.StartupPending() {
			t.Fatal("pending until strictly older than owner_timeout")
		}
		c.advance(ms(1))
		a.Tick()
		if a.StartupPending() || a.Claim() != (Claim{6, "a", "a"}) {
			t.Fatalf("timeout claims: %v", a.Claim())
		}
	})
	t.Run("claim_on_startup false", func(t *testing.T) {
		c := &fakeClock{}
		cf := cfg
		cf.ClaimOnStartup = false
		a := newT(t, "a", cf, c)
		a.RequestStartup()
		c.advance(time.Hour)
		a.Tick()
		if a.StartupPending() || !a.Claim().IsZero() {
			t.Fatal("the intent must be dropped")
		}
	})
	t.Run("one shot", func(t *testing.T) {
		c := &fakeClock{}
		a := newT(t, "a", cfg, c)
		a.RequestStartup()
		c.advance(ms(3000))
		a.Tick()
		_ = a.Announce("b", Coordination{Version: 1, Device: "b", Claim: Claim{9, "b", "b"}, Heartbeat: 1, Output: on})
		a.RequestStartup()
		c.advance(ms(3000))
		a.Tick()
		if a.Owner() != "b" {
			t.Fatal("a second RequestStartup must be ignored")
		}
	})
}

func TestStartupUnknownPeer(t *testing.T) {
	// a and b start on both sides of a partition: both claim, and once they
	// communicate the greater claim wins on both.
	ca, cb := &fakeClock{}, &fakeClock{}
	a, b := newT(t, "a", DefaultConfig(), ca), newT(t, "b", DefaultConfig(), cb)
	for _, e := range []*Engine{a, b} {
		e.RequestStartup()
	}
	ca.advance(ms(3000))
	cb.advance(ms(3000))
	a.Tick()
	b.Tick()
	if !a.MayRender() || !b.MayRender() {
		t.Fatal("an unknown peer beyond a partition cannot block the startup claim")
	}
	announce(t, a, b)
	announce(t, b, a)
	if a.Claim() != b.Claim() || a.Owner() != "b" || a.MayRender() || !b.MayRender() {
		t.Fatalf("ordering settles it: a=%v b=%v", a.Claim(), b.Claim())
	}
}

func TestPassive(t *testing.T) {
	c := &fakeClock{}
	s := newT(t, "s", Passive(), c)
	s.Heartbeat(on)
	s.RequestStartup()
	_ = s.Announce("b", Coordination{Version: 1, Device: "b", Claim: Claim{1, "b", "b"}, Heartbeat: 1})
	c.advance(24 * time.Hour)
	s.Tick()
	if s.Claim() != (Claim{1, "b", "b"}) {
		t.Fatalf("passive must not claim by itself: %v", s.Claim())
	}
	if !s.Ready().Gossip {
		t.Fatal("passive still gossips")
	}
	s.Advance()
	if v := s.Receive("b", CommandStamp{Version: 1, Claim: Claim{2, "b", "s"}, Sequence: 1}, true); v != Accepted || !s.MayRender() {
		t.Fatalf("a transfer naming the passive device makes it render: %v", v)
	}
}

func TestHandoff(t *testing.T) {
	c := &fakeClock{}
	a := newT(t, "a", DefaultConfig(), c)
	b := newT(t, "b", DefaultConfig(), c)
	st, err := a.Transfer("b")
	if err != nil {
		t.Fatal(err)
	}
	if st.Claim != (Claim{1, "a", "b"}) || a.MayRender() {
		t.Fatalf("transfer stamp %v", st)
	}
	if v := b.Receive("c", st, true); v != Incompatible {
		t.Fatalf("handoff not from the issuer: %v", v)
	}
	if !b.Claim().IsZero() {
		t.Fatal("a refused handoff teaches nothing")
	}
	if v := (newT(t, "c", DefaultConfig(), c)).Receive("a", st, true); v != Incompatible {
		t.Fatalf("handoff not naming us: %v", v)
	}
	if v := b.Receive("a", st, true); v != Accepted || !b.MayRender() {
		t.Fatalf("valid handoff: %v", v)
	}
}

func TestCommandAheadOfAnnouncement(t *testing.T) {
	c := &fakeClock{}
	b := newT(t, "b", DefaultConfig(), c)
	_ = b.Announce("x", Coordination{Version: 1, Device: "x", Claim: Claim{3, "x", "x"}})
	st := CommandStamp{Version: 1, Claim: Claim{4, "a", "b"}, Sequence: 10}
	if v := b.Receive("a", st, false); v != Accepted || b.Claim() != st.Claim {
		t.Fatalf("a command carrying a greater claim for us is learned and accepted: %v", v)
	}
	st2 := CommandStamp{Version: 1, Claim: Claim{5, "a", "c"}, Sequence: 11}
	if v := b.Receive("a", st2, false); v != NotOwner || b.Claim() != st2.Claim || b.MayRender() {
		t.Fatalf("a greater claim for someone else is learned, command refused: %v", v)
	}
}

func TestCommandOrdering(t *testing.T) {
	c := &fakeClock{}
	b := newT(t, "b", DefaultConfig(), c)
	term := Claim{1, "b", "b"}
	_, _ = b.Transfer("b")
	st := func(seq uint64) CommandStamp { return CommandStamp{Version: 1, Claim: term, Sequence: seq} }
	steps := []struct {
		from DeviceID
		s    CommandStamp
		want Verdict
	}{
		{"a", st(5), Accepted},
		{"a", st(5), Duplicate},
		{"a", st(4), Stale},
		{"a", st(6), Accepted},
		{"c", st(1), Accepted}, // per sender
		{"a", CommandStamp{Version: 2, Claim: term, Sequence: 7}, Incompatible},
		{"a", CommandStamp{Version: 1, Sequence: 7}, Incompatible},
		{"a", CommandStamp{Version: 1, Claim: Claim{0, "b", "b"}, Sequence: 7}, Incompatible},
		{"a", CommandStamp{Version: 1, Claim: Claim{1, "a", "b"}, Sequence: 8}, Stale}, // older claim
	}
	for i, s := range steps {
		if v := b.Receive(s.from, s.s, false); v != s.want {
			t.Fatalf("step %d: %v, want %v", i, v, s.want)
		}
	}
	// a new term starts every sender afresh
	_, _ = b.Transfer("b")
	if v := b.Receive("a", CommandStamp{Version: 1, Claim: b.Claim(), Sequence: 1}, false); v != Accepted {
		t.Fatalf("new term: %v", v)
	}
}

func TestSenderLimit(t *testing.T) {
	c := &fakeClock{}
	b := newT(t, "b", DefaultConfig(), c)
	_, _ = b.Transfer("b")
	term := b.Claim()
	for i := range MaxSendersPerTerm {
		if v := b.Receive(DeviceID(fmt.Sprint("s", i)), CommandStamp{Version: 1, Claim: term, Sequence: 1}, false); v != Accepted {
			t.Fatalf("sender %d: %v", i, v)
		}
	}
	if v := b.Receive("late", CommandStamp{Version: 1, Claim: term, Sequence: 1}, false); v != SenderLimit {
		t.Fatalf("129th sender: %v", v)
	}
	if v := b.Receive("s0", CommandStamp{Version: 1, Claim: term, Sequence: 2}, false); v != Accepted {
		t.Fatalf("known senders continue: %v", v)
	}
	if b.Stats().Senders != MaxSendersPerTerm {
		t.Fatal("map must stay bounded")
	}
	_, _ = b.Transfer("b")
	if v := b.Receive("late", CommandStamp{Version: 1, Claim: b.Claim(), Sequence: 1}, false); v != Accepted || b.Stats().Senders != 1 {
		t.Fatalf("the map is cleared when the term changes: %v", v)
	}
}

func TestFence(t *testing.T) {
	c := &fakeClock{}
	b := newT(t, "b", DefaultConfig(), c)
	st, _ := b.Transfer("b")
	cmd := CommandStamp{Version: 1, Claim: st.Claim, Sequence: 1}
	if b.Receive("a", cmd, false) != Accepted || !b.Fence(cmd) {
		t.Fatal("accepted command in the live term passes the fence")
	}
	_ = b.Announce("a", Coordination{Version: 1, Device: "a", Claim: Claim{st.Claim.Counter + 1, "a", "a"}})
	if b.Fence(cmd) {
		t.Fatal("after a greater claim the queued command must not take effect")
	}
}

func TestPersistBeforePublish(t *testing.T) {
	c := &fakeClock{}
	e := newT(t, "a", DefaultConfig(), c)
	prev := e.Clone()
	st, _ := e.Transfer("b")
	rd := e.Ready()
	if !rd.PersistCheckpoint || rd.Checkpoint.Claim != st.Claim || rd.Checkpoint.CommandReserved < st.Sequence {
		t.Fatalf("the transfer's claim and sequence must be persisted first: %+v", rd)
	}
	// persistence failed: the actor keeps the clone; nothing happened
	e = prev
	if !e.Claim().IsZero() || e.Checkpoint().CommandReserved != 0 {
		t.Fatal("the clone must be the engine before the transition")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("Ready twice without Advance must panic")
			}
		}()
		e.Ready()
		e.Ready()
	}()
}

func TestRestoreGroup(t *testing.T) {
	cp := Checkpoint{Group: "g1", Device: "a", Claim: Claim{2, "b", "b"}}
	if _, err := Restore(cp, "g2", DefaultConfig(), &fakeClock{}); !errors.Is(err, ErrGroupMismatch) {
		t.Fatalf("got %v", err)
	}
	// the restoring device's clock origin is arbitrary: no deadline carries over
	c := &fakeClock{t: 1000 * time.Hour}
	cfg := DefaultConfig()
	e, err := Restore(cp, "g1", cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	e.Heartbeat(on)
	c.advance(ms(int(cfg.OwnerTimeoutMS)))
	e.Tick()
	if e.Owner() != "b" {
		t.Fatal("the restored owner gets a full owner_timeout from the restore")
	}
}

func TestAnnounceBindsSender(t *testing.T) {
	e := newT(t, "a", DefaultConfig(), &fakeClock{})
	bad := []struct {
		from DeviceID
		c    Coordination
		err  error
	}{
		{"b", Coordination{Version: 1, Device: "c", Claim: Claim{9, "c", "c"}}, ErrSenderMismatch},
		{"b", Coordination{Version: 2, Device: "b", Claim: Claim{9, "b", "b"}}, ErrVersion},
		{"a", Coordination{Version: 1, Device: "a", Claim: Claim{9, "a", "a"}}, ErrFromSelf},
		{"b", Coordination{Version: 1, Device: "b", Claim: Claim{9, "", "b"}}, ErrClaim},
	}
	for _, b := range bad {
		if err := e.Announce(b.from, b.c); !errors.Is(err, b.err) {
			t.Fatalf("%+v: %v, want %v", b.c, err, b.err)
		}
	}
	if !e.Claim().IsZero() {
		t.Fatal("rejected announcements teach nothing")
	}
}

func TestLegacyEnvelopes(t *testing.T) {
	type state struct {
		Track string `json:"track"`
	}
	var snap Snapshot[state]
	if err := json.Unmarshal([]byte(`{"state":{"track":"x"},"device_name":"old"}`), &snap); err != nil {
		t.Fatal(err)
	}
	if snap.Coordination != nil {
		t.Fatal("a legacy snapshot has no coordination envelope: the adapter ignores it")
	}
	var cmd Command[state]
	if err := json.Unmarshal([]byte(`{"body":{"track":"y"}}`), &cmd); err != nil || cmd.Stamp != nil {
		t.Fatal("a legacy command has no stamp: the adapter ignores it")
	}
	out, _ := json.Marshal(Snapshot[state]{State: state{"z"}})
	if string(out) != `{"state":{"track":"z"}}` {
		t.Fatalf("coordination is an optional field: %s", out)
	}
	full := Snapshot[state]{Coordination: &Coordination{Version: EnvelopeVersion, Device: "a", Claim: Claim{1, "a", "a"}, Heartbeat: 3, Output: playing}}
	out, _ = json.Marshal(full)
	want := `{"coordination":{"version":1,"device_id":"a","claim":{"counter":1,"issuer":"a","owner":"a"},"heartbeat":3,"output":{"available":true,"playing":true}},"state":{"track":""}}`
	if string(out) != want {
		t.Fatalf("wire form\n got %s\nwant %s", out, want)
	}
}

func TestConfigFields(t *testing.T) {
	c, err := ParseConfig([]byte(`{}`))
	if err != nil || c != DefaultConfig() {
		t.Fatalf("absent fields take defaults: %+v %v", c, err)
	}
	if d := DefaultConfig(); !d.ClaimOnStartup || !d.AutomaticFailover || !d.TakePausedOnStartup || d.DiscoveryMS != 3000 || d.OwnerTimeoutMS != 120000 {
		t.Fatalf("defaults %+v", d)
	}
	if p := Passive(); p.ClaimOnStartup || p.AutomaticFailover {
		t.Fatal("passive disables startup claims and failover")
	}
	for _, bad := range []string{
		`{"claim_on_startup":true,"extra":1}`,
		`{"discovery_ms":"3000"}`,
		`{"owner_timeout_ms":0}`,
		`{} {}`,
		`[]`,
		``,
		`{"discovery_ms":-1}`,
	} {
		if _, err := ParseConfig([]byte(bad)); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", bad, err)
		}
	}
	c, err = ParseConfig([]byte(`{"claim_on_startup":false,"automatic_failover":false,"take_paused_on_startup":false,"discovery_ms":0,"owner_timeout_ms":5000}`))
	if err != nil || c != (Config{OwnerTimeoutMS: 5000}) {
		t.Fatalf("all fields: %+v %v", c, err)
	}
}

func TestDeterminism(t *testing.T) {
	run := func() []Ready {
		c := &fakeClock{}
		e := newT(t, "a", DefaultConfig(), c)
		var out []Ready
		e.RequestStartup()
		for i := range 50 {
			c.advance(ms(250))
			switch i % 5 {
			case 0:
				e.Heartbeat(on)
			case 1:
				_ = e.Announce("b", Coordination{Version: 1, Device: "b", Claim: Claim{uint64(i / 7), "b", "b"}, Heartbeat: uint64(i)})
			case 2:
				e.Receive("c", CommandStamp{Version: 1, Claim: e.Claim(), Sequence: uint64(i)}, false)
			default:
				e.Tick()
			}
			out = append(out, e.Ready())
			e.Advance()
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("step %d differs: %+v vs %+v", i, a[i], b[i])
		}
	}
}
