package app

import (
	"encoding/json"
	"strings"

	"github.com/furudesk/furudesk/audio"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/queue"
)

const (
	self  engine.DeviceID = "dev_aaaaaaaaaaaaaaaaaaaaaaaa"
	peerB engine.DeviceID = "dev_bbbbbbbbbbbbbbbbbbbbbbbb"
)

func fastCfg() *engine.Config {
	c := engine.DefaultConfig()
	c.DiscoveryMS, c.OwnerTimeoutMS = 1000, 3000
	return &c
}

// A device alone claims after discovery and plays: every effect comes after
// the commit that covers it.
func TestPersistBeforeEffects(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if st := r.app.Status(); st.Owner != self || !st.Rendering {
		t.Fatalf("alone after discovery: owner %q rendering %v, want self", st.Owner, st.Rendering)
	}
	r.j.reset()
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 1); err != nil {
		t.Fatal(err)
	}
	commit, publish, play := r.j.first("commit"), r.j.first("publish"), r.j.first("play b3:bb@0")
	if commit < 0 || publish < 0 || play < 0 || !(commit < publish && publish < play) {
		t.Fatalf("want commit < publish < play, got %q", r.j.list())
	}
	st := r.app.Status()
	if !st.Playing || st.Track == nil || st.Track.ContentID != "b3:bb" || st.QueueLen != 2 {
		t.Fatalf("status after play: %+v", st)
	}
	if q, _ := r.store.Queue(); len(q.Items) != 2 || q.Index != 1 || !q.Playing {
		t.Fatalf("queue not durable: %+v", q)
	}
}

// A failed commit leaves no trace: no audio effect, no publish, no send,
// the engine and state as before.
func TestRollbackOnFailedCommit(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	before := r.app.Status()
	r.j.reset()
	r.store.failNext = 1
	if err := r.app.PlayTracks([]string{"b3:aa"}, 0); err == nil {
		t.Fatal("PlayTracks succeeded although the commit failed")
	}
	if got := r.j.list(); len(got) != 1 || got[0] != "commit-failed" {
		t.Fatalf("after a failed commit the fakes saw %q, want only the failed commit", got)
	}
	after := r.app.Status()
	if after.Playing || after.QueueLen != 0 || after.Claim != before.Claim {
		t.Fatalf("state changed by a failed transition: before %+v after %+v", before, after)
	}
	// The next attempt works.
	if err := r.app.PlayTracks([]string{"b3:aa"}, 0); err != nil {
		t.Fatal(err)
	}
	if r.j.first("play b3:aa") < 0 {
		t.Fatalf("retry did not play: %q", r.j.list())
	}
}

// A transfer whose commit fails sends no handoff and keeps rendering.
func TestRollbackTransfer(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	r.j.reset()
	r.store.failNext = 1
	if err := r.app.Transfer(peerB); err == nil {
		t.Fatal("transfer succeeded although the commit failed")
	}
	if r.j.count("send") != 0 || r.j.count("stop") != 0 || r.j.count("publish") != 0 {
		t.Fatalf("effects after a failed commit: %q", r.j.list())
	}
	if st := r.app.Status(); st.Owner != self || !st.Rendering {
		t.Fatalf("owner changed by a failed transfer: %+v", st)
	}
}

// The effect of an accepted command is dropped when its fence no longer
// holds when it reaches the output.
func TestFenceRecheckedBeforeEffect(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	r.j.reset()
	r.do(func(a *actor) {
		stale := engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: engine.Claim{Counter: 1, Issuer: peerB, Owner: self}, Sequence: 1}
		tx := &txn{ch: queue.Change{Track: true}, fence: &stale}
		a.plan(tx)() // the effect of a command whose term is over
	})
	if n := r.j.count("play"); n != 0 {
		t.Fatalf("a fenced-out command reached the output: %q", r.j.list())
	}
	// And a real command from a peer in an older term is not executed.
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(Control{Op: OpNext}),
		Stamp: engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: engine.Claim{Counter: 0, Issuer: peerB, Owner: peerB}, Sequence: 9}})
	if r.j.count("play") != 0 {
		t.Fatalf("stale command executed: %q", r.j.list())
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// One startup intent per launch: the device claims once, and after a peer
// took over (and keeps reporting) it never claims again by itself.
func TestOneStartupIntentPerLaunch(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	st := r.app.Status()
	if st.Claim.Counter != 1 || st.Claim.Owner != self || st.StartupPending {
		t.Fatalf("startup claim: %+v", st.Claim)
	}
	taken := engine.Claim{Counter: 2, Issuer: peerB, Owner: peerB}
	for hb := uint64(1); hb <= 40; hb++ {
		r.announce(peerB, taken, hb, true, nil)
		r.advance(500 * time.Millisecond)
	}
	if st := r.app.Status(); st.Claim != taken || st.Rendering {
		t.Fatalf("claimed again: %+v", st.Claim)
	}
	if r.j.count("stop") == 0 && r.out.Report().Playing {
		t.Fatal("still playing after losing the claim")
	}
}

// Passive never claims by itself (startup or failover), but plays when a
// transfer names it, from the transferred position.
func TestPassiveNeverClaimsButPlaysWhenPicked(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg(), Passive: true}, peerB)
	r.advance(5 * time.Second)
	if st := r.app.Status(); !st.Claim.IsZero() || st.Rendering {
		t.Fatalf("passive claimed on startup: %+v", st.Claim)
	}
	owner := engine.Claim{Counter: 1, Issuer: peerB, Owner: peerB}
	r.announce(peerB, owner, 1, true, nil)
	r.advance(20 * time.Second) // peer stops reporting: no failover
	if st := r.app.Status(); st.Claim != owner || st.Rendering {
		t.Fatalf("passive failed over: %+v", st.Claim)
	}
	handoff := engine.Claim{Counter: 2, Issuer: peerB, Owner: self}
	state := PlayerState{Queue: []Entry{{ContentID: "b3:aa", Title: "A", DurationMS: 200000}, {ContentID: "b3:bb", DurationMS: 200000}},
		Index: 1, PositionMS: 42000, Playing: true, Volume: 70, Repeat: "off"}
	r.j.reset()
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Handoff: true,
		Stamp: engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: handoff, Sequence: 1},
		Body:  mustJSON(Control{Op: OpHandoff, State: &state})})
	st := r.app.Status()
	if st.Rendering || st.Owner != self || st.Track == nil || st.Track.ContentID != "b3:bb" {
		t.Fatalf("after handoff, before the output took the first samples: %+v", st)
	}
	r.started()
	if st := r.app.Status(); !st.Rendering {
		t.Fatalf("not rendering once the output took the first samples: %+v", st)
	}
	if r.j.first("play b3:bb@42000") < 0 {
		t.Fatalf("did not resume at the transferred position: %q", r.j.list())
	}
	if r.j.first("commit") > r.j.first("play") {
		t.Fatalf("played before persisting: %q", r.j.list())
	}
}

// While another device owns the output, controls become stamped commands to
// it; the view shows the command at once and ignores owner snapshots that
// do not reflect it yet.
func TestControllerSendsStampedCommands(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	owner := engine.Claim{Counter: 3, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:aa", DurationMS: 200000}, {ContentID: "b3:bb", DurationMS: 200000}},
		PositionMS: 10000, Playing: true, Volume: 50, Repeat: "off", Term: owner}
	r.announce(peerB, owner, 1, true, &ps)
	r.advance(time.Second)
	st := r.app.Status()
	if st.Owner != peerB || st.Rendering || !st.Playing || st.PositionMS < 10900 || st.PositionMS > 11100 {
		t.Fatalf("controller view: owner %s rendering %v playing %v pos %d", st.Owner, st.Rendering, st.Playing, st.PositionMS)
	}
	if r.j.count("play") != 0 {
		t.Fatal("a controller rendered audio")
	}
	for _, f := range []func() error{r.app.Pause, func() error { return r.app.Seek(5 * time.Second) }, r.app.Next} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	cmds := r.tr.sentCmds()
	if len(cmds) != 3 {
		t.Fatalf("sent %d commands, want 3", len(cmds))
	}
	var ops []string
	for i, c := range cmds {
		var ctl Control
		_ = json.Unmarshal(c.Body, &ctl)
		ops = append(ops, ctl.Op)
		if c.Target != peerB || c.Stamp.Claim != owner || c.Handoff || (i > 0 && c.Stamp.Sequence <= cmds[i-1].Stamp.Sequence) {
			t.Fatalf("command %d: %+v", i, c)
		}
	}
	if ops[0] != OpPause || ops[1] != OpSeek || ops[2] != OpNext {
		t.Fatalf("ops %v", ops)
	}
	if st := r.app.Status(); st.Playing || st.Index != 1 {
		t.Fatalf("optimistic view: playing %v index %d", st.Playing, st.Index)
	}
	// An owner snapshot without our ack is ignored...
	r.announce(peerB, owner, 2, true, &ps)
	if st := r.app.Status(); st.Index != 1 || st.Playing {
		t.Fatal("view jumped back to a snapshot that does not reflect our command")
	}
	// ...one that acknowledges it is shown.
	done := ps.Clone()
	done.Index, done.Playing, done.PositionMS = 1, false, 0
	done.Acks = map[engine.DeviceID]uint64{self: cmds[2].Stamp.Sequence}
	r.announce(peerB, owner, 3, false, &done)
	if st := r.app.Status(); st.Index != 1 || st.Playing || st.PositionMS != 0 {
		t.Fatalf("acknowledged snapshot not shown: %+v", st)
	}
}

// The owner applies commands in order and its next snapshot carries the
// result and the ack.
func TestOwnerAppliesCommandsInOrder(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb", "b3:cc"}, 0); err != nil {
		t.Fatal(err)
	}
	claim := r.app.Status().Claim
	r.j.reset()
	for i, c := range []Control{{Op: OpPause}, {Op: OpSeek, PosMS: 7000}, {Op: OpNext}, {Op: OpResume}} {
		r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(c),
			Stamp: engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: claim, Sequence: uint64(i + 1)}})
	}
	// A duplicate is dropped.
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(Control{Op: OpNext}),
		Stamp: engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: claim, Sequence: 4}})
	st := r.app.Status()
	if st.Index != 1 || !st.Playing {
		t.Fatalf("after pause, seek, next, resume: index %d playing %v", st.Index, st.Playing)
	}
	var ps PlayerState
	_ = json.Unmarshal(r.tr.lastSnap().State, &ps)
	if ps.Index != 1 || ps.Acks[peerB] != 4 {
		t.Fatalf("snapshot does not distribute the result: %+v", ps)
	}
	if i, j := r.j.first("pause"), r.j.first("play b3:bb"); i < 0 || j < i {
		t.Fatalf("effects out of order: %q", r.j.list())
	}
}

// Learning a greater claim stops audio in the same transition.
func TestLosingTheClaimStopsAtOnce(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa"}, 0); err != nil {
		t.Fatal(err)
	}
	if !r.app.Status().RenderingSince.IsZero() {
		t.Fatal("RenderingSince set before the output took the first samples")
	}
	r.started()
	if r.app.Status().RenderingSince.IsZero() {
		t.Fatal("no RenderingSince while rendering")
	}
	r.j.reset()
	r.announce(peerB, engine.Claim{Counter: 9, Issuer: peerB, Owner: peerB}, 1, true, nil)
	if r.j.first("stop") < 0 || r.out.Report().Playing {
		t.Fatalf("still playing after a greater claim: %q", r.j.list())
	}
	if st := r.app.Status(); !st.RenderingSince.IsZero() {
		t.Fatalf("RenderingSince %v after losing the output", st.RenderingSince)
	}
}

// Transfer hands over the queue, index, position and play state.
func TestTransferCarriesTransport(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 1); err != nil {
		t.Fatal(err)
	}
	r.advance(3 * time.Second)
	if err := r.app.Transfer(peerB); err != nil {
		t.Fatal(err)
	}
	cmds := r.tr.sentCmds()
	if len(cmds) != 1 || !cmds[0].Handoff || cmds[0].Target != peerB || cmds[0].Stamp.Claim.Owner != peerB {
		t.Fatalf("handoff: %+v", cmds)
	}
	var c Control
	_ = json.Unmarshal(cmds[0].Body, &c)
	if c.Op != OpHandoff || c.State == nil || c.State.Index != 1 || !c.State.Playing ||
		c.State.PositionMS < 2900 || c.State.PositionMS > 3100 || len(c.State.Queue) != 2 {
		t.Fatalf("handoff state: %+v", c.State)
	}
	if r.out.Report().Playing || r.app.Status().Rendering {
		t.Fatal("source still renders after the transfer")
	}
}

// A track this device has no file for is skipped with a notice.
func TestMissingTrackIsSkipped(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	claim := r.app.Status().Claim
	state := PlayerState{Queue: []Entry{{ContentID: "b3:zz", Title: "Elsewhere"}, {ContentID: "b3:cc"}}, Playing: true, Volume: 100, Repeat: "off"}
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(Control{Op: OpPlayTracks, Entries: state.Queue}),
		Stamp: engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: claim, Sequence: 1}})
	st := r.app.Status()
	if st.Index != 1 || r.j.first("play b3:cc") < 0 {
		t.Fatalf("missing track not skipped: index %d, %q", st.Index, r.j.list())
	}
	if len(st.Notices) == 0 || st.Notices[len(st.Notices)-1].Level != "error" {
		t.Fatalf("no notice: %+v", st.Notices)
	}
}

// A restart resumes the persisted queue and position on the owner.
func TestRestartResumes(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 1); err != nil {
		t.Fatal(err)
	}
	r.advance(5 * time.Second)
	if err := r.app.Close(); err != nil {
		t.Fatal(err)
	}
	r.j.reset()
	r.out = newFakeOutput(r.j, r.clock)
	r.start(Options{Config: fastCfg()})
	// The restarted owner holds its output for the discovery grace (1 s)
	// while it learns whether the group knows a newer state.
	r.advance(500 * time.Millisecond)
	if r.j.count("play") != 0 || r.app.Status().Rendering {
		t.Fatalf("played before the discovery grace: %q", r.j.list())
	}
	r.advance(time.Second)
	if i := r.j.first("play b3:bb@"); i < 0 {
		t.Fatalf("did not resume: %q", r.j.list())
	}
	if st := r.app.Status(); st.PositionMS < 4900 || st.Index != 1 {
		t.Fatalf("resumed at %d index %d", st.PositionMS, st.Index)
	}
}

// Steady playback writes the database at most 60 times an hour.
func TestWritesPerHour(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates an hour")
	}
	n, unflushed := writesPerHour(t)
	t.Logf("%d writes in one hour of playback, %d of them the position without a flush", n, unflushed)
	if n-unflushed > 60 {
		t.Fatalf("%d flushed writes per hour, want <= 60", n-unflushed)
	}
	// The position is saved often enough that a kill -9 restart resumes
	// within DefaultPersistEvery of where it was.
	if unflushed < int(time.Hour/DefaultPersistEvery)*9/10 {
		t.Fatalf("the position was saved %d times in an hour, want about every %s", unflushed, DefaultPersistEvery)
	}
}

// writesPerHour returns the commits of one hour of playback and how many
// of them were committed without a flush.
func writesPerHour(t testing.TB) (int, int) {
	r := newRigTB(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if err := r.app.SetRepeat("all"); err != nil {
		t.Fatal(err)
	}
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb", "b3:cc"}, 0); err != nil {
		t.Fatal(err)
	}
	r.store.mu.Lock()
	start, startNS := r.store.commits, r.store.noSync
	r.store.mu.Unlock()
	for range int(time.Hour / DefaultTick) {
		r.clock.add(DefaultTick)
		r.tick()
		if rep := r.out.Report(); rep.Track.Seq != 0 && rep.Pos >= 200*time.Second {
			r.audio(audio.Finished{Track: rep.Track})
		}
	}
	r.started()
	if st := r.app.Status(); !st.Playing || !st.Rendering {
		t.Fatalf("not playing after an hour: %+v", st)
	}
	r.store.mu.Lock()
	defer r.store.mu.Unlock()
	return r.store.commits - start, r.store.noSync - startNS
}

// BenchmarkWritesPerHour reports database writes per simulated hour of
// steady playback (200 s tracks, fake clock through the actor).
func BenchmarkWritesPerHour(b *testing.B) {
	n, unflushed := 0, 0
	for b.Loop() {
		n, unflushed = writesPerHour(b)
	}
	b.ReportMetric(float64(n-unflushed), "flushed-writes/hour")
	b.ReportMetric(float64(unflushed), "unflushed-writes/hour")
}

// A device without a window says so in its snapshots, and the others list
// it as a box; presentation only, even when it owns the output.
func TestABoxSaysItIsOne(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg(), Box: true}, peerB)
	r.advance(3 * time.Second)
	if !strings.Contains(string(r.tr.lastSnap().State), `"box":true`) {
		t.Fatalf("a box's snapshot %s does not say so", r.tr.lastSnap().State)
	}
	box := func(id engine.DeviceID) bool {
		for _, d := range r.app.Status().Devices {
			if d.DeviceID == id {
				return d.Box
			}
		}
		t.Fatalf("%s not listed", id)
		return false
	}
	if !box(self) || box(peerB) {
		t.Fatal("this box is not listed as one, or the peer is")
	}
	owner := engine.Claim{Counter: 5, Issuer: peerB, Owner: peerB}
	r.announce(peerB, owner, 1, true, &PlayerState{Box: true, Volume: 50, Repeat: "off"})
	if !box(peerB) {
		t.Fatal("the peer's snapshot said box, its row does not")
	}
	r.announce(peerB, owner, 2, true, &PlayerState{Volume: 50, Repeat: "off"})
	if box(peerB) {
		t.Fatal("the peer became a window, its row still says box")
	}
}
