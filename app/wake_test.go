package app

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
)

// ownerPlayingAt makes peerB the owner, playing b3:aa at posMS, as this
// device hears it.
func ownerPlayingAt(r *rig, posMS int64) (engine.Claim, PlayerState) {
	owner := engine.Claim{Counter: 4, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:aa", DurationMS: 200000}, {ContentID: "b3:bb", DurationMS: 200000}},
		PositionMS: posMS, Playing: true, Volume: 50, Repeat: "off", Term: owner}
	r.announce(peerB, owner, 1, true, &ps)
	return owner, ps
}

// Finding 1 of issue 21: a device whose process was stopped for longer
// than owner_timeout (its clock ran on) wakes up; the owner never stopped
// playing. Its first tick must not claim, whether it comes before or after
// the owner's reports that waited in its inbox, and it must show the
// owner's track, position and play state, not its own stale ones.
func TestWakingDeviceDoesNotStealFromALiveOwner(t *testing.T) {
	for _, inboxFirst := range []bool{false, true} {
		name := "tick first"
		if inboxFirst {
			name = "inbox first"
		}
		t.Run(name, func(t *testing.T) {
			r := newRig(t, self, Options{Config: fastCfg()}, peerB)
			r.advance(1500 * time.Millisecond)
			owner, ps := ownerPlayingAt(r, 10_000)
			r.advance(time.Second)
			r.j.reset()

			r.clock.add(6 * time.Second) // stopped: no tick, nothing read
			ps.PositionMS = 16_500
			waiting := func() { r.announce(peerB, owner, 2, true, &ps) }
			if inboxFirst {
				waiting()
				r.tick()
			} else {
				r.tick()
				waiting()
			}
			r.advance(time.Second)
			st := r.app.Status()
			if st.Claim != owner || st.Rendering || r.j.count("play") != 0 {
				t.Fatalf("woke up and took the music: claim %v, rendering %v, journal %q", st.Claim, st.Rendering, r.j.list())
			}
			if !st.Playing || st.PositionMS < 17_000 || st.PositionMS > 17_600 {
				t.Fatalf("shows playing %v at %d, want the owner's 16.5 s + 1 s", st.Playing, st.PositionMS)
			}
			// Time it listens counts: an owner silent for owner_timeout
			// after that is taken over, where it was last heard.
			r.advance(4 * time.Second)
			if st := r.app.Status(); st.Owner != self {
				t.Fatalf("no failover from an owner silent for owner_timeout: %v", st.Claim)
			}
			if r.j.first("play b3:aa@16500") < 0 {
				t.Fatalf("did not resume where the owner was last heard: %q", r.j.list())
			}
		})
	}
}

// Finding 3 of issue 21: a control sent while the owner was already dead is
// not lost. When another device takes over, the control is sent again to
// it (same intent, new stamp); this device keeps showing its effect until
// the new owner's snapshot acknowledges it.
func TestControlSentToADeadOwnerReachesTheNewOwner(t *testing.T) {
	cfg := fastCfg()
	cfg.AutomaticFailover = false // peerC takes over, not this device
	r := newRig(t, self, Options{Config: cfg}, peerB, peerC)
	r.advance(1500 * time.Millisecond)
	_, ps := ownerPlayingAt(r, 10_000)
	r.advance(500 * time.Millisecond)
	if err := r.app.Pause(); err != nil { // peerB is dead: never applied
		t.Fatal(err)
	}
	if st := r.app.Status(); st.Playing {
		t.Fatal("the pause is not shown at once")
	}
	r.advance(3 * time.Second)

	// peerC fails over and resumes peerB's state, playing.
	taken := engine.Claim{Counter: 5, Issuer: peerC, Owner: peerC}
	cs := ps.Clone()
	cs.Term, cs.PositionMS = taken, 10_500
	r.announce(peerC, taken, 1, true, &cs)
	cmds := r.tr.sentCmds()
	last := cmds[len(cmds)-1]
	var c Control
	_ = json.Unmarshal(last.Body, &c)
	if len(cmds) != 2 || last.Target != peerC || c.Op != OpPause || last.Stamp.Claim != taken || last.Stamp.Sequence <= cmds[0].Stamp.Sequence {
		t.Fatalf("the pause was not sent again to the new owner with a new stamp: %+v", cmds)
	}
	if st := r.app.Status(); st.Playing || st.Owner != peerC {
		t.Fatalf("shows playing %v on %s: the pause is shown until the new owner confirms it", st.Playing, st.Owner)
	}
	// The new owner applies it.
	cs.Playing, cs.Acks = false, map[engine.DeviceID]uint64{self: last.Stamp.Sequence}
	r.announce(peerC, taken, 2, false, &cs)
	if st := r.app.Status(); st.Playing || st.PositionMS != 10_500 {
		t.Fatalf("after the new owner's ack: playing %v at %d", st.Playing, st.PositionMS)
	}
	// Sent once more, never again: nothing is pending.
	r.advance(2 * time.Second)
	if n := len(r.tr.sentCmds()); n != 2 {
		t.Fatalf("%d commands sent, want 2", n)
	}
}

// Finding 3, the other way: this device takes over itself after its pause
// reached nobody: it comes up paused.
func TestControlSentToADeadOwnerHoldsWhenThisDeviceTakesOver(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	ownerPlayingAt(r, 10_000)
	r.advance(500 * time.Millisecond)
	if err := r.app.Pause(); err != nil {
		t.Fatal(err)
	}
	r.j.reset()
	r.advance(4 * time.Second) // failover
	st := r.app.Status()
	if st.Owner != self || st.Playing || r.j.count("play") != 0 {
		t.Fatalf("took over playing: owner %s playing %v journal %q", st.Owner, st.Playing, r.j.list())
	}
	if st.PositionMS < 10_400 || st.PositionMS > 10_600 {
		t.Fatalf("paused at %d, want where it was paused (10.5 s)", st.PositionMS)
	}
}

// A control that reached nobody through two owner changes is dropped, and
// the user is told.
func TestControlDroppedAfterTwoOwnerChangesIsNoticed(t *testing.T) {
	cfg := fastCfg()
	cfg.AutomaticFailover = false
	r := newRig(t, self, Options{Config: cfg}, peerB, peerC)
	r.advance(1500 * time.Millisecond)
	_, ps := ownerPlayingAt(r, 10_000)
	if err := r.app.Next(); err != nil {
		t.Fatal(err)
	}
	for i, to := range []engine.DeviceID{peerC, peerB} {
		claim := engine.Claim{Counter: uint64(5 + i), Issuer: to, Owner: to}
		s := ps.Clone()
		s.Term = claim
		r.announce(to, claim, uint64(10+i), true, &s)
	}
	if n := len(r.tr.sentCmds()); n != 2 {
		t.Fatalf("%d commands sent, want the first and one resend", n)
	}
	found := false
	for _, n := range r.app.Status().Notices {
		found = found || strings.Contains(n.Text, "skip to the next track did not reach a playing device")
	}
	if !found {
		t.Fatalf("no notice for the dropped control: %+v", r.app.Status().Notices)
	}
	if st := r.app.Status(); st.Index != 0 || !st.Playing {
		t.Fatalf("the dropped control is still shown: index %d playing %v", st.Index, st.Playing)
	}
}

// Finding 4 of issue 21: a controller extrapolates the owner's position at
// most a little past where it last heard it, so a transfer right after the
// owner froze starts where the owner was, not seconds it never played.
func TestTransferFromAControllerStartsWhereTheOwnerWasHeard(t *testing.T) {
	cfg := fastCfg()
	cfg.OwnerTimeoutMS = 10_000
	r := newRig(t, self, Options{Config: cfg}, peerB, peerC)
	r.advance(1500 * time.Millisecond)
	ownerPlayingAt(r, 10_000)
	r.advance(3 * time.Second) // peerB froze right after that snapshot
	if st := r.app.Status(); st.PositionMS > 11_000 {
		t.Fatalf("shows %d ms: extrapolated %d ms past where the owner was last heard", st.PositionMS, st.PositionMS-10_000)
	}
	if err := r.app.Transfer(peerC); err != nil {
		t.Fatal(err)
	}
	cmds := r.tr.sentCmds()
	var c Control
	_ = json.Unmarshal(cmds[len(cmds)-1].Body, &c)
	if c.Op != OpHandoff || c.State == nil || c.State.PositionMS > 11_000 {
		t.Fatalf("handoff %+v: starts more than a second past where the owner was heard", c.State)
	}
}

// An owner snapshot relayed with an age is the owner's state as of then:
// a device that takes over resumes there, not where it was when the
// snapshot arrived.
func TestRelayedSnapshotIsPlacedWhenTheOwnerMadeIt(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	owner := engine.Claim{Counter: 4, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:aa", DurationMS: 200000}}, PositionMS: 20_000, Playing: true,
		Volume: 50, Repeat: "off", Term: owner}
	b, _ := json.Marshal(ps)
	r.peer(devicesync.SnapshotReceived{From: peerB, Via: peerC, Age: 2500 * time.Millisecond, State: b,
		Coordination: engine.Coordination{Version: engine.EnvelopeVersion, Device: peerB, Claim: owner, Heartbeat: 9,
			Output: engine.Output{Available: true, Playing: true}}})
	if st := r.app.Status(); !st.Playing || st.PositionMS < 20_000 || st.PositionMS > 21_000 {
		t.Fatalf("relayed state shown playing %v at %d", st.Playing, st.PositionMS)
	}
	r.j.reset()
	// owner_timeout (3 s) after the owner made it, not after it arrived.
	r.advance(750 * time.Millisecond)
	if st := r.app.Status(); st.Owner != self {
		t.Fatalf("no failover 3.25 s after the owner's last report: %v", st.Claim)
	}
	if r.j.first("play b3:aa@20000") < 0 {
		t.Fatalf("did not resume at 20 s: %q", r.j.list())
	}
}

// Issue 14, position continuity: a device that loses the output to a claim
// it learned without the new owner's state keeps the exact position its
// output stopped at; when that owner never shows up it takes over again
// from there, not from where it last anchored its state.
func TestLosingTheOutputKeepsTheExactStopPosition(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB, peerC)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	r.advance(7 * time.Second)
	stop := r.out.Report().Pos.Milliseconds()
	// peerC gossips a claim naming peerB, which this device never hears.
	taken := engine.Claim{Counter: 9, Issuer: peerB, Owner: peerB}
	r.announce(peerC, taken, 1, false, nil)
	if st := r.app.Status(); st.Owner != peerB || r.out.Report().Playing {
		t.Fatalf("did not stop for the greater claim: owner %s", st.Owner)
	}
	r.j.reset()
	r.advance(5 * time.Second) // peerB never reports: failover back
	if st := r.app.Status(); st.Owner != self {
		t.Fatalf("no failover from a silent owner: %v", st.Claim)
	}
	if r.j.first("play b3:aa@"+itoa(stop)) < 0 {
		t.Fatalf("did not resume at %d where the output stopped: %q", stop, r.j.list())
	}
}

// A controller's shown position never steps back by the little an owner's
// measured position lags its extrapolation; a real step back (a seek) is
// shown.
func TestControllerPositionDoesNotJitterBack(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	owner, ps := ownerPlayingAt(r, 10_000)
	r.advance(500 * time.Millisecond)
	shown := r.app.Status().PositionMS
	ps.PositionMS = shown - 120 // the owner measured a little behind
	r.announce(peerB, owner, 2, true, &ps)
	if got := r.app.Status().PositionMS; got < shown {
		t.Fatalf("position stepped back from %d to %d", shown, got)
	}
	// The owner's position catches up: shown from there on.
	r.advance(250 * time.Millisecond)
	if got := r.app.Status().PositionMS; got != ps.PositionMS+250 {
		t.Fatalf("after the owner caught up: %d, want %d", got, ps.PositionMS+250)
	}
	ps.PositionMS, ps.Jumps = 3_000, ps.Jumps+1 // a seek back
	r.announce(peerB, owner, 3, true, &ps)
	if got := r.app.Status().PositionMS; got != 3_000 {
		t.Fatalf("seek back shown as %d, want 3000", got)
	}
}

// A device killed while it owned the output restarts holding its output
// for the discovery grace: the group hands back the snapshot it last
// published, and it resumes there, not from what it saved up to 10 s
// before it died. Meanwhile its snapshots say it is resuming, so the
// others keep what they showed.
func TestRestartedOwnerResumesItsLastPublishedState(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	r.advance(17 * time.Second)
	last := r.tr.lastSnap() // what the group heard last
	var lastSt PlayerState
	_ = json.Unmarshal(last.State, &lastSt)
	r.store.mu.Lock()
	saved := r.store.queue // a kill -9 loses what Close would save now
	r.store.mu.Unlock()
	_ = r.app.Close()
	r.store.mu.Lock()
	r.store.queue = saved
	r.store.mu.Unlock()
	if lastSt.PositionMS-saved.PositionMS < 5000 {
		t.Fatalf("test set-up: saved %d, published %d", saved.PositionMS, lastSt.PositionMS)
	}

	r.j.reset()
	r.out = newFakeOutput(r.j, r.clock)
	r.start(Options{Config: fastCfg()})
	var held PlayerState
	_ = json.Unmarshal(r.tr.lastSnap().State, &held)
	if !held.Resuming {
		t.Fatal("a restarted owner's snapshot does not say it is resuming")
	}
	r.peer(devicesync.SnapshotReceived{From: self, Via: peerB, Age: 800 * time.Millisecond, State: last.State, Coordination: last.Coordination})
	r.advance(1500 * time.Millisecond)
	if r.j.first("play b3:aa@"+itoa(lastSt.PositionMS)) < 0 {
		t.Fatalf("did not resume at %d, its last published position (saved: %d): %q", lastSt.PositionMS, saved.PositionMS, r.j.list())
	}
}

// A restarted owner that learns a greater claim while it holds never plays.
func TestRestartedOwnerThatLostTheOutputNeverPlays(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa"}, 0); err != nil {
		t.Fatal(err)
	}
	_ = r.app.Close()
	r.j.reset()
	r.out = newFakeOutput(r.j, r.clock)
	r.start(Options{Config: fastCfg()})
	taken := engine.Claim{Counter: 50, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:aa", DurationMS: 200000}}, PositionMS: 30000, Playing: true, Volume: 50, Repeat: "off", Term: taken}
	r.announce(peerB, taken, 7, true, &ps)
	r.advance(3 * time.Second)
	if r.j.count("play") != 0 {
		t.Fatalf("a restarted owner played although the output had moved on: %q", r.j.list())
	}
}
