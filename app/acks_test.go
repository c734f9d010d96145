package app

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
)

// A control the owner's process never received (sent while it was down)
// is sent again when the owner acknowledges a later one: its AckFrom says
// what its process applied (queue rule C6), so the later ack does not
// cover the lost control.
func TestControllerSendsAgainWhatTheOwnersProcessMissed(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	owner := engine.Claim{Counter: 3, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:aa", DurationMS: 200000}, {ContentID: "b3:bb", DurationMS: 200000}},
		PositionMS: 10000, Playing: true, Volume: 50, Repeat: "off", Term: owner, Launch: 7}
	r.announce(peerB, owner, 1, true, &ps)
	r.advance(time.Second)
	if err := r.app.Pause(); err != nil {
		t.Fatal(err)
	}
	if err := r.app.Seek(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	cmds := r.tr.sentCmds()
	if len(cmds) != 2 {
		t.Fatalf("sent %d commands, want 2", len(cmds))
	}
	var c0 Control
	_ = json.Unmarshal(cmds[0].Body, &c0)
	if c0.Launch != 7 {
		t.Fatalf("the pause is addressed to launch %d, want 7 (the owner's as heard)", c0.Launch)
	}
	// The owner's process applied only the seek: the pause never reached it.
	done := ps.Clone()
	done.Playing, done.PositionMS = true, 5000
	done.Acks = map[engine.DeviceID]uint64{self: cmds[1].Stamp.Sequence}
	done.AckFrom = map[engine.DeviceID]uint64{self: cmds[1].Stamp.Sequence}
	r.announce(peerB, owner, 2, true, &done)
	cmds = r.tr.sentCmds()
	if len(cmds) != 3 {
		t.Fatalf("sent %d commands, want the pause again", len(cmds))
	}
	var again Control
	_ = json.Unmarshal(cmds[2].Body, &again)
	if again.Op != OpPause || cmds[2].Stamp.Sequence <= cmds[1].Stamp.Sequence {
		t.Fatalf("sent again: %s stamped %+v", again.Op, cmds[2].Stamp)
	}
	if st := r.app.Status(); st.Playing {
		t.Fatal("the view gave up the pause the owner has not applied")
	}
}

// An owner neither applies nor acknowledges a control addressed to
// another of its processes (queue rule C5): its sender sends it again, so it is
// applied once. What it applies is acknowledged from its first sequence
// (AckFrom).
func TestOwnerRefusesAControlForAnotherOfItsProcesses(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb", "b3:cc"}, 0); err != nil {
		t.Fatal(err)
	}
	claim := r.app.Status().Claim
	var mine PlayerState
	_ = json.Unmarshal(r.tr.lastSnap().State, &mine)
	if mine.Launch == 0 {
		t.Fatal("the owner's snapshot has no launch")
	}
	stamp := func(seq uint64) engine.CommandStamp {
		return engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: claim, Sequence: seq}
	}
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(Control{Op: OpNext, Launch: mine.Launch + 1}), Stamp: stamp(1)})
	if st := r.app.Status(); st.Index != 0 {
		t.Fatalf("applied a control addressed to another launch: index %d", st.Index)
	}
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(Control{Op: OpNext, Launch: mine.Launch}), Stamp: stamp(2)})
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(Control{Op: OpNext}), Stamp: stamp(3)})
	if st := r.app.Status(); st.Index != 2 {
		t.Fatalf("index %d after two controls it may apply, want 2", st.Index)
	}
	var ps PlayerState
	_ = json.Unmarshal(r.tr.lastSnap().State, &ps)
	if ps.Acks[peerB] != 3 || ps.AckFrom[peerB] != 2 {
		t.Fatalf("acks %v from %v, want 3 from 2", ps.Acks, ps.AckFrom)
	}
}

// A control the owner applied and saved, then received again from its
// sender after a restart (its acknowledgement died with the process), is
// acknowledged and not applied twice: the saved state marks it (queue
// rule C7). A control it does not contain is applied.
func TestRestartedOwnerAppliesAControlSentAgainOnce(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb", "b3:cc"}, 0); err != nil {
		t.Fatal(err)
	}
	claim := r.app.Status().Claim
	stamp := func(seq uint64) engine.CommandStamp {
		return engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: claim, Sequence: seq}
	}
	next := Control{Op: OpNext, ID: 41}
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(next), Stamp: stamp(41)})
	if st := r.app.Status(); st.Index != 1 {
		t.Fatalf("index %d after Next, want 1", st.Index)
	}
	r.advance(time.Second)
	if err := r.app.Close(); err != nil {
		t.Fatal(err)
	}
	r.j.reset()
	r.out = newFakeOutput(r.j, r.clock)
	r.start(Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	var mine PlayerState
	_ = json.Unmarshal(r.tr.lastSnap().State, &mine)
	if mine.Index != 1 || mine.Launch == 0 {
		t.Fatalf("restarted at index %d launch %d, want index 1 and a launch", mine.Index, mine.Launch)
	}
	next.Launch = mine.Launch
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(next), Stamp: stamp(42)})
	var ps PlayerState
	_ = json.Unmarshal(r.tr.lastSnap().State, &ps)
	if st := r.app.Status(); st.Index != 1 || ps.Acks[peerB] != 42 {
		t.Fatalf("the Next sent again: index %d acks %v, want index 1 and acknowledged", st.Index, ps.Acks)
	}
	other := Control{Op: OpNext, ID: 43, Launch: mine.Launch}
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(other), Stamp: stamp(43)})
	if st := r.app.Status(); st.Index != 2 {
		t.Fatalf("index %d after a new Next, want 2", st.Index)
	}
}

// A controller names each control by the sequence of its first stamp and
// keeps the name on the copy it sends again (queue rule C7).
func TestControlKeepsItsIDWhenSentAgain(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	owner := engine.Claim{Counter: 3, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:aa", DurationMS: 200000}, {ContentID: "b3:bb", DurationMS: 200000}},
		PositionMS: 10000, Playing: true, Volume: 50, Repeat: "off", Term: owner, Launch: 7}
	r.announce(peerB, owner, 1, true, &ps)
	r.advance(time.Second)
	if err := r.app.Pause(); err != nil {
		t.Fatal(err)
	}
	// The owner restarted: a new launch, the pause addressed to the old one.
	restarted := ps.Clone()
	restarted.Launch = 9
	r.announce(peerB, owner, 30, true, &restarted)
	cmds := r.tr.sentCmds()
	if len(cmds) != 2 {
		t.Fatalf("sent %d commands, want the pause and its copy", len(cmds))
	}
	var first, again Control
	_ = json.Unmarshal(cmds[0].Body, &first)
	_ = json.Unmarshal(cmds[1].Body, &again)
	if first.ID != cmds[0].Stamp.Sequence || again.ID != first.ID || again.Launch != 9 {
		t.Fatalf("first id %d (stamp %d), again id %d launch %d; want the first stamp's sequence on both, the copy to launch 9",
			first.ID, cmds[0].Stamp.Sequence, again.ID, again.Launch)
	}
}

// A device that loses the output to a higher claim and adopts the new
// owner's state in the same transition saves that state's position, not
// its own output's on the track it stops: restarted, it would resume in a
// track where nobody played that far (queue caller's duty 2).
func TestLosingTheOutputSavesTheNewOwnersPosition(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	r.advance(20 * time.Second)
	mine := r.app.Status().Claim
	higher := engine.Claim{Counter: mine.Counter + 1, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:cc", DurationMS: 200000}}, PositionMS: 1500, Playing: true,
		Volume: 100, Repeat: "off", Term: higher, Launch: 3}
	r.announce(peerB, higher, 40, true, &ps)
	q, _ := r.store.Queue()
	if len(q.Items) != 1 || q.Items[0].ContentID != "b3:cc" || q.PositionMS > 5000 {
		t.Fatalf("saved %d items, the first %q at %d ms; want b3:cc near 1500 ms", len(q.Items), q.Items[0].ContentID, q.PositionMS)
	}
}
