package app

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
)

// QA bug 6: after a failover the new owner resumes where the old owner
// was last heard playing, not at a position extrapolated across the
// owner timeout it was silent for.
func TestFailoverResumesWhereOwnerWasLastHeard(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	owner := engine.Claim{Counter: 1, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:aa", DurationMS: 200000}}, PositionMS: 10000, Playing: true,
		Volume: 50, Repeat: "off", Term: owner}
	r.announce(peerB, owner, 1, true, &ps)
	r.advance(time.Second)
	ps.PositionMS = 11000
	r.announce(peerB, owner, 2, true, &ps)
	r.j.reset()
	r.advance(5 * time.Second) // the owner went silent: failover after owner_timeout (3 s)
	r.started()
	st := r.app.Status()
	if st.Owner != self || !st.Rendering {
		t.Fatalf("no failover: owner %s", st.Owner)
	}
	if r.j.first("play b3:aa@11000") < 0 {
		t.Fatalf("did not resume at 11000 where the owner was last heard: %q", r.j.list())
	}
}

// QA bug 6: an owner shutting down (SIGTERM, Close) publishes a last
// snapshot with its exact position, and the device taking over resumes
// exactly there.
func TestGracefulShutdownHandsOverExactPosition(t *testing.T) {
	a := newRig(t, self, Options{Config: fastCfg()}, peerB)
	a.advance(1500 * time.Millisecond)
	if err := a.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	a.advance(5300 * time.Millisecond)
	want := a.out.Report().Pos.Milliseconds()
	a.tr.mu.Lock()
	before := len(a.tr.snaps)
	a.tr.mu.Unlock()
	if err := a.app.Close(); err != nil {
		t.Fatal(err)
	}
	a.tr.mu.Lock()
	after := len(a.tr.snaps)
	a.tr.mu.Unlock()
	last := a.tr.lastSnap()
	var ps PlayerState
	if err := json.Unmarshal(last.State, &ps); err != nil {
		t.Fatal(err)
	}
	if after != before+1 || ps.PositionMS != want || !ps.Playing {
		t.Fatalf("last snapshot on Close: %d new, position %d playing %v, want one at %d playing", after-before, ps.PositionMS, ps.Playing, want)
	}

	b := newRig(t, peerB, Options{Config: fastCfg()}, self)
	b.peer(devicesync.SnapshotReceived{From: self, State: last.State, Coordination: last.Coordination})
	b.advance(5 * time.Second)
	b.started()
	if st := b.app.Status(); st.Owner != peerB || !st.Rendering {
		t.Fatalf("B did not take over: %+v", st.Claim)
	}
	if b.j.first("play b3:aa@"+itoa(want)) < 0 {
		t.Fatalf("B did not resume at %d: %q", want, b.j.list())
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
