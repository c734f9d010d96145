package app

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
)

// QA bug 1: a transfer to an offline device is refused with a sentence
// naming it, the music keeps playing here, and the status tells the
// picker the device cannot be picked. Online is only a front-end check:
// it never changes the claim.
func TestTransferToOfflineDeviceIsRefused(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	r.tr.setOffline(peerB, true)
	r.sync()
	claim := r.app.Status().Claim
	r.j.reset()
	err := r.app.Transfer(peerB)
	if !errors.Is(err, ErrOffline) {
		t.Fatalf("transfer to an offline device: %v, want ErrOffline", err)
	}
	if got, want := UserMessage(err), string(peerB)+" is offline"; got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
	if r.j.count("send") != 0 || r.j.count("stop") != 0 || r.j.count("commit") != 0 {
		t.Fatalf("a refused transfer had effects: %q", r.j.list())
	}
	st := r.app.Status()
	if st.Owner != self || !st.Rendering || st.Claim != claim || !r.out.Report().Playing {
		t.Fatalf("refused transfer changed playback: %+v", st)
	}
	for _, d := range st.Devices {
		if want := d.DeviceID != peerB; d.Selectable != want {
			t.Errorf("device %s selectable %v, want %v", d.DeviceID, d.Selectable, want)
		}
	}
	// Back online: the transfer goes through.
	r.tr.setOffline(peerB, false)
	if err := r.app.Transfer(peerB); err != nil {
		t.Fatal(err)
	}
	if st := r.app.Status(); st.Owner != peerB || st.Rendering {
		t.Fatalf("after the transfer: owner %s rendering %v", st.Owner, st.Rendering)
	}
}

// handoffTo feeds r a handoff of state from peerB.
func handoffTo(r *rig, state PlayerState) {
	r.announce(peerB, engine.Claim{Counter: 1, Issuer: peerB, Owner: peerB}, 1, true, nil)
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Handoff: true,
		Stamp: engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: engine.Claim{Counter: 2, Issuer: peerB, Owner: self}, Sequence: 1},
		Body:  mustJSON(Control{Op: OpHandoff, State: &state})})
}

// QA bug 2: a device that has none of the queue's files keeps the shared
// index and position, pauses, and tells every device (the notice travels
// in its snapshot); transferring back resumes where the group was.
func TestHandoffWithoutFilesKeepsPosition(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	state := PlayerState{Queue: []Entry{{ContentID: "b3:xx", Title: "One"}, {ContentID: "b3:yy", Title: "Elsewhere", DurationMS: 300000},
		{ContentID: "b3:zz", Title: "Three"}}, Index: 1, PositionMS: 42000, Playing: true, Volume: 80, Repeat: "off"}
	r.j.reset()
	handoffTo(r, state)
	st := r.app.Status()
	if !st.Rendering || st.Index != 1 || st.PositionMS != 42000 || st.Playing {
		t.Fatalf("after a handoff this device cannot play: index %d position %d playing %v rendering %v",
			st.Index, st.PositionMS, st.Playing, st.Rendering)
	}
	if r.j.count("play") != 0 {
		t.Fatalf("played something: %q", r.j.list())
	}
	if q, _ := r.store.Queue(); q.Index != 1 || q.PositionMS != 42000 || q.Playing {
		t.Fatalf("stored transport %+v, want index 1 at 42000 paused", q.Transport)
	}
	last := st.Notices[len(st.Notices)-1]
	if last.Level != "error" || !strings.Contains(last.Text, `no file for "Elsewhere"`) || !strings.Contains(last.Text, "paused") {
		t.Fatalf("notice %+v", last)
	}
	var ps PlayerState
	if err := json.Unmarshal(r.tr.lastSnap().State, &ps); err != nil {
		t.Fatal(err)
	}
	if ps.Notice == nil || ps.Notice.Text != last.Text || ps.Index != 1 || ps.PositionMS != 42000 || ps.Playing {
		t.Fatalf("snapshot does not carry the position and notice to the others: %+v", ps)
	}
	// Transfer back: the handoff carries the untouched position.
	if err := r.app.Transfer(peerB); err != nil {
		t.Fatal(err)
	}
	cmds := r.tr.sentCmds()
	var c Control
	_ = json.Unmarshal(cmds[len(cmds)-1].Body, &c)
	if c.State == nil || c.State.Index != 1 || c.State.PositionMS != 42000 {
		t.Fatalf("handoff back: %+v", c.State)
	}
}

// QA bug 2: a missing track is skipped only forward, to a track this
// device has, and the skip is told to every device.
func TestMissingTrackSkipsForwardToOneThisDeviceHas(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	state := PlayerState{Queue: []Entry{{ContentID: "b3:aa", Title: "Had before"}, {ContentID: "b3:yy", Title: "Elsewhere"},
		{ContentID: "b3:bb", Title: "Here"}}, Index: 1, PositionMS: 42000, Playing: true, Volume: 80, Repeat: "all"}
	handoffTo(r, state)
	st := r.app.Status()
	if st.Index != 2 || !st.Playing || r.j.first("play b3:bb@0") < 0 {
		t.Fatalf("index %d playing %v, journal %q", st.Index, st.Playing, r.j.list())
	}
	var ps PlayerState
	_ = json.Unmarshal(r.tr.lastSnap().State, &ps)
	if ps.Notice == nil || !strings.Contains(ps.Notice.Text, `skipped to "Here"`) {
		t.Fatalf("snapshot notice %+v", ps.Notice)
	}
}

// QA bug 2: a controller shows the owner's notice once, however many
// snapshots carry it; a snapshot older than one seen is not adopted.
func TestControllerShowsOwnersNoticeOnce(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	owner := engine.Claim{Counter: 3, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:aa", DurationMS: 200000}}, PositionMS: 5000, Volume: 50, Repeat: "off",
		Notice: &SharedNotice{ID: 7, Text: `B has no file for "X" or the tracks after it: paused`}}
	r.announce(peerB, owner, 1, false, &ps)
	r.announce(peerB, owner, 2, false, &ps)
	n := 0
	for _, x := range r.app.Status().Notices {
		if x.Text == ps.Notice.Text {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("owner's notice shown %d times, want once: %+v", n, r.app.Status().Notices)
	}
	old := ps.Clone()
	old.PositionMS, old.Notice = 1000, nil
	r.announce(peerB, owner, 1, false, &old)
	if st := r.app.Status(); st.PositionMS != 5000 {
		t.Fatalf("adopted an older snapshot: position %d", st.PositionMS)
	}
}
