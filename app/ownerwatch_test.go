package app

import (
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
)

const peerC engine.DeviceID = "dev_cccccccccccccccccccccccc"

// slowCfg fails over only after 10 s, well after an owner is shown
// stopped (MinOwnerQuiet).
func slowCfg() *engine.Config {
	c := engine.DefaultConfig()
	c.DiscoveryMS, c.OwnerTimeoutMS = 1000, 10000
	return &c
}

func lastNotice(st Status) string {
	if len(st.Notices) == 0 {
		return ""
	}
	return st.Notices[len(st.Notices)-1].Text
}

func hasNotice(st Status, part string) bool {
	for _, n := range st.Notices {
		if strings.Contains(n.Text, part) {
			return true
		}
	}
	return false
}

// ownerPlaying makes peerB the owner playing b3:aa at 10 s, heard now.
func ownerPlaying(r *rig) (engine.Claim, PlayerState) {
	claim := engine.Claim{Counter: 1, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:aa", Title: "A", DurationMS: 200000}}, PositionMS: 10000,
		Playing: true, Volume: 50, Repeat: "off", Term: claim}
	r.announce(peerB, claim, 1, true, &ps)
	return claim, ps
}

// QA N1: the last snapshot of an owner that closes makes a controller show
// the music stopped at the exact position at once, with a notice, and the
// device taking over still resumes there, playing.
func TestClosingOwnerShownStoppedAtExactPosition(t *testing.T) {
	r := newRig(t, self, Options{Config: slowCfg()}, peerB)
	claim, ps := ownerPlaying(r)
	r.advance(time.Second)
	if st := r.app.Status(); !st.Playing || st.PositionMS != 11000 {
		t.Fatalf("live owner: playing %v at %d, want playing at 11000", st.Playing, st.PositionMS)
	}
	ps.PositionMS, ps.Closing = 11200, true
	r.announce(peerB, claim, 2, true, &ps)
	r.advance(2 * time.Second)
	st := r.app.Status()
	if st.Playing || !st.OwnerGone || st.PositionMS != 11200 {
		t.Fatalf("closed owner: playing %v gone %v at %d, want stopped at 11200", st.Playing, st.OwnerGone, st.PositionMS)
	}
	if !strings.Contains(lastNotice(st), string(peerB)+" closed; playback will move here after") {
		t.Fatalf("notice %q", lastNotice(st))
	}
	r.j.reset()
	r.advance(9 * time.Second) // the engine fails over after owner_timeout
	st = r.app.Status()
	if st.Owner != self || !st.Playing || r.j.first("play b3:aa@11200") < 0 {
		t.Fatalf("takeover: owner %s playing %v, journal %q", st.Owner, st.Playing, r.j.list())
	}
	if hasNotice(st, "closed; playback") || !strings.Contains(lastNotice(st), "Playing here: "+string(peerB)) {
		t.Fatalf("notices after the takeover: %+v", st.Notices)
	}
}

// QA N1: an owner that stops responding is shown stopped where it was last
// heard (never extrapolated beyond), with a notice that is withdrawn when it
// is heard again.
func TestSilentOwnerShownStoppedWhereLastHeard(t *testing.T) {
	r := newRig(t, self, Options{Config: slowCfg()}, peerB)
	claim, ps := ownerPlaying(r)
	r.advance(2 * time.Second)
	if st := r.app.Status(); !st.Playing || st.OwnerGone {
		t.Fatalf("owner heard 2 s ago shown gone: %+v", st)
	}
	r.advance(2 * time.Second)
	st := r.app.Status()
	if st.Playing || !st.OwnerGone || st.PositionMS != 10000 {
		t.Fatalf("silent owner: playing %v gone %v at %d, want stopped at 10000", st.Playing, st.OwnerGone, st.PositionMS)
	}
	if !strings.Contains(lastNotice(st), "stopped responding; playback will move here after 7 seconds") {
		t.Fatalf("notice %q", lastNotice(st))
	}
	r.advance(time.Second)
	if st := r.app.Status(); st.PositionMS != 10000 || len(st.Notices) != 1 {
		t.Fatalf("position ran on to %d or notice repeated: %+v", st.PositionMS, st.Notices)
	}
	ps.PositionMS = 15000
	r.announce(peerB, claim, 2, true, &ps)
	st = r.app.Status()
	if !st.Playing || st.OwnerGone || hasNotice(st, "stopped responding") {
		t.Fatalf("owner heard again: playing %v gone %v notices %+v", st.Playing, st.OwnerGone, st.Notices)
	}
}

// QA N1: a passive box never fails over: it says the owner went offline
// and shows it stopped, for good.
func TestPassiveShowsOwnerOffline(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg(), Passive: true}, peerB)
	ownerPlaying(r)
	r.tr.setOffline(peerB, true)
	r.advance(500 * time.Millisecond)
	st := r.app.Status()
	if st.Playing || lastNotice(st) != string(peerB)+" went offline" {
		t.Fatalf("offline owner on a passive box: playing %v notice %q", st.Playing, lastNotice(st))
	}
	r.advance(10 * time.Second)
	if st := r.app.Status(); st.Owner != peerB || st.Playing || st.PositionMS != 10000 {
		t.Fatalf("passive box: owner %s playing %v at %d", st.Owner, st.Playing, st.PositionMS)
	}
}

// QA N7: a controller tells which device plays after a failover it did not
// cause.
func TestFailoverElsewhereIsNoticed(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg(), Passive: true}, peerB, peerC)
	_, ps := ownerPlaying(r)
	r.advance(time.Second)
	claimC := engine.Claim{Counter: 2, Issuer: peerC, Owner: peerC}
	ps.Term = claimC
	r.announce(peerC, claimC, 1, true, &ps)
	st := r.app.Status()
	if st.Owner != peerC || lastNotice(st) != "Playing on "+string(peerC) {
		t.Fatalf("after the failover: owner %s notices %+v", st.Owner, st.Notices)
	}
}

// QA N3: a device lacking the files that learns of a handoff from the
// announcement first and then from the handoff itself pauses with one
// notice, shared with one id; it is withdrawn once music plays again.
func TestMissingFileNoticeOncePerCondition(t *testing.T) {
	r := newRig(t, self, Options{Config: slowCfg()}, peerB)
	claim := engine.Claim{Counter: 1, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:zz", Title: "Elsewhere", DurationMS: 200000}}, PositionMS: 5000,
		Playing: true, Volume: 50, Repeat: "off", Term: claim}
	r.announce(peerB, claim, 1, true, &ps)
	handoff := engine.Claim{Counter: 2, Issuer: peerB, Owner: self}
	r.announce(peerB, handoff, 2, false, nil)
	r.peer(commandFrom(peerB, handoff, 1, true, Control{Op: OpHandoff, State: &ps}))
	st := r.app.Status()
	n := 0
	for _, x := range st.Notices {
		if strings.Contains(x.Text, "has no file") {
			n++
		}
	}
	if st.Owner != self || st.Playing || n != 1 {
		t.Fatalf("owner %s playing %v, %d missing-file notices: %+v", st.Owner, st.Playing, n, st.Notices)
	}
	if st.PositionMS != 5000 || st.OwnerNotice == "" {
		t.Fatalf("position %d, shared notice %q", st.PositionMS, st.OwnerNotice)
	}
	// The music moves on to a track this device has: the notice goes.
	if err := r.app.PlayTracks([]string{"b3:aa"}, 0); err != nil {
		t.Fatal(err)
	}
	if st := r.app.Status(); hasNotice(st, "has no file") || st.OwnerNotice != "" {
		t.Fatalf("notice kept while playing: %+v", st.Notices)
	}
}

// QA N3: a controller shows a peer's notice once, whatever number of
// snapshots carry it, and withdraws it once the owner plays again.
func TestPeerNoticeShownOnceAndWithdrawn(t *testing.T) {
	r := newRig(t, self, Options{Config: slowCfg()}, peerB)
	claim := engine.Claim{Counter: 1, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:zz", Title: "X", DurationMS: 200000}}, Volume: 50, Repeat: "off",
		Term: claim, Notice: &SharedNotice{ID: 4, Text: "B has no file for \"X\" or the tracks after it: paused"}}
	r.announce(peerB, claim, 1, true, &ps)
	r.announce(peerB, claim, 2, true, &ps)
	ps.Notice.ID = 5 // the same condition found again
	r.announce(peerB, claim, 3, true, &ps)
	if st := r.app.Status(); len(st.Notices) != 1 {
		t.Fatalf("notices %+v, want one", st.Notices)
	}
	ps.Notice, ps.Playing = nil, true
	r.announce(peerB, claim, 4, true, &ps)
	if st := r.app.Status(); len(st.Notices) != 0 {
		t.Fatalf("notices %+v, want none once the owner plays", st.Notices)
	}
}

func commandFrom(from engine.DeviceID, claim engine.Claim, seq uint64, handoff bool, c Control) devicesync.CommandReceived {
	return devicesync.CommandReceived{From: from, Target: self, Body: mustJSON(c), Handoff: handoff,
		Stamp: engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: claim, Sequence: seq}}
}

// QA N5: a revoked device learns it, drops the old group's owner and
// queue (idle, alone) and its controls then act locally.
func TestRevokedDeviceIsAloneAndIdle(t *testing.T) {
	r := newRig(t, self, Options{Config: slowCfg()}, peerB)
	ownerPlaying(r)
	r.tr.mu.Lock()
	r.tr.peers, r.tr.group = nil, "grp_new"
	r.tr.mu.Unlock()
	r.peer(devicesync.GroupChanged{Group: "grp_new", Devices: []devicesync.DeviceInfo{{ID: self, Name: "self", Self: true}}})
	st := r.app.Status()
	if st.GroupID != "grp_new" || st.Owner != "" || st.Playing || st.QueueLen != 0 || st.Volume != 50 {
		t.Fatalf("after the revocation: group %s owner %q playing %v queue %d volume %d", st.GroupID, st.Owner, st.Playing, st.QueueLen, st.Volume)
	}
	if lastNotice(st) != string(peerB)+" removed this device from the group" || hasNotice(st, "grp_") {
		t.Fatalf("notices %+v", st.Notices)
	}
	if err := r.app.Next(); err == nil {
		t.Fatal("next on an empty queue did nothing without an error")
	}
	if err := r.app.PlayTracks([]string{"b3:aa"}, 0); err != nil {
		t.Fatal(err)
	}
	if st := r.app.Status(); st.Owner != self || !st.Playing || r.j.first("play b3:aa@0") < 0 {
		t.Fatalf("play after the revocation: owner %q playing %v %q", st.Owner, st.Playing, r.j.list())
	}
}

// QA N5: joining names the group by a device, never by its raw id, and
// says it once.
func TestJoinNoticeNamesTheGroup(t *testing.T) {
	r := newRig(t, self, Options{Config: slowCfg()})
	r.peer(devicesync.GroupChanged{Group: "grp_theirs", Devices: []devicesync.DeviceInfo{
		{ID: self, Name: "self", Self: true}, {ID: peerB, Name: "Living room"}}})
	r.app.post(noticeIntent{level: "info", text: joinedText})
	r.sync()
	st := r.app.Status()
	if len(st.Notices) != 1 || st.Notices[0].Text != "Joined Living room's group" {
		t.Fatalf("notices %+v", st.Notices)
	}
}

// What devicesync tells the user about the group (leaving a group whose
// history was not signed, say) is shown as a notice, and the fingerprints
// it gives are in Status: this device's own and each request's.
func TestGroupNoticeAndFingerprintsReachStatus(t *testing.T) {
	r := newRig(t, self, Options{Config: slowCfg()})
	r.tr.mu.Lock()
	r.tr.pending = []devicesync.PairingRequest{{ID: "r1", DeviceID: peerB, Name: "Kitchen", Fingerprint: "3f9a-1c07-b2e4-5d18"}}
	r.tr.mu.Unlock()
	text := "This device's group was made by an older furudesk; pair your other devices again: Kitchen."
	r.peer(devicesync.Notice{Text: text})
	st := r.app.Status()
	if lastNotice(st) != text {
		t.Fatalf("notices %+v", st.Notices)
	}
	if st.Fingerprint != "fp-"+string(self) || len(st.Pairing) != 1 || st.Pairing[0].Fingerprint != "3f9a-1c07-b2e4-5d18" {
		t.Fatalf("fingerprint %q, pairing %+v", st.Fingerprint, st.Pairing)
	}
}
