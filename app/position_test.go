package app

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
)

// snapsSince decodes the states this device published from snapshot n on.
func snapsSince(t *testing.T, r *rig, n int) []PlayerState {
	t.Helper()
	r.tr.mu.Lock()
	defer r.tr.mu.Unlock()
	var out []PlayerState
	for _, s := range r.tr.snaps[n:] {
		var ps PlayerState
		if err := json.Unmarshal(s.State, &ps); err != nil {
			t.Fatal(err)
		}
		out = append(out, ps)
	}
	return out
}

func snapCount(r *rig) int {
	r.tr.mu.Lock()
	defer r.tr.mu.Unlock()
	return len(r.tr.snaps)
}

// Issue 32, major 3: a controller pressed Next while this device played a
// track 60 s in; the next track is 34 s long. Every snapshot this device
// publishes after it says the new track from its start, never the old
// track's position (which the controllers show as the new one's end).
func TestNextFromAControllerPublishesTheNewTrackFromItsStart(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.store.addTrack("b3:bb", 34*time.Second)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	r.advance(60 * time.Second)
	claim := r.app.Status().Claim
	n := snapCount(r)
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(Control{Op: OpNext}),
		Stamp: engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: claim, Sequence: 1}})
	for i, ps := range snapsSince(t, r, n) {
		if ps.Index != 1 || ps.PositionMS > 500 {
			t.Fatalf("snapshot %d after Next: index %d at %d ms, want index 1 near 0", i, ps.Index, ps.PositionMS)
		}
	}
	if st := r.app.Status(); st.Index != 1 || st.PositionMS > 500 {
		t.Fatalf("after Next: index %d at %d ms", st.Index, st.PositionMS)
	}
}

// The same for a seek back asked by a controller: the snapshot says the
// new position, not where the output was before it.
func TestSeekFromAControllerPublishesTheNewPosition(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	r.advance(60 * time.Second)
	claim := r.app.Status().Claim
	n := snapCount(r)
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(Control{Op: OpSeek, PosMS: 5000}),
		Stamp: engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: claim, Sequence: 1}})
	for i, ps := range snapsSince(t, r, n) {
		if ps.PositionMS < 5000 || ps.PositionMS > 5500 {
			t.Fatalf("snapshot %d after the seek: at %d ms, want 5000", i, ps.PositionMS)
		}
	}
}

// Issue 32, major 3 as the controller sees it: whatever put its view
// ahead (here a snapshot with the previous track's position), the owner's
// next snapshots are shown, not held at a position the owner never
// played.
func TestControllerFollowsAnOwnerFarBehindItsView(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	owner, ps := ownerPlayingAt(r, 30_000)
	r.advance(500 * time.Millisecond)
	ps.PositionMS = 1_000 // 29 s behind, no jump counted
	r.announce(peerB, owner, 2, true, &ps)
	r.advance(500 * time.Millisecond)
	if got := r.app.Status().PositionMS; got > 2_000 {
		t.Fatalf("shows %d ms, the owner plays 1500", got)
	}
}

// Issue 32, major 4: the owner (the window) closes and restarts; while it
// holds its output to learn its last state, its snapshots say Resuming.
// This device (a passive box) must not count the owner's restart as time
// played: once the owner resumes where it closed, the box shows that
// position, and "Play here" on the box resumes there, not ahead by the
// restart.
func TestControllerOfARestartedOwnerShowsWhereItResumed(t *testing.T) {
	r := newRig(t, self, Options{Config: slowCfg(), Passive: true}, peerB)
	r.advance(1500 * time.Millisecond)
	owner, ps := ownerPlayingAt(r, 40_000)
	r.advance(1000 * time.Millisecond)
	ps.PositionMS, ps.Closing = 41_000, true
	r.announce(peerB, owner, 2, true, &ps)
	r.advance(8 * time.Second) // the window is down
	hb := uint64(3)
	hold := ps.Clone()
	hold.Closing, hold.Resuming = false, true
	for range 6 { // it holds for 3 s, reporting every 0.5 s
		r.announce(peerB, owner, hb, false, &hold)
		hb++
		r.advance(500 * time.Millisecond)
		if got := r.app.Status().PositionMS; got != 41_000 {
			t.Fatalf("while the window restarts the box shows %d ms, want 41000 where it closed", got)
		}
	}
	ps.PositionMS, ps.Closing = 41_000, false // resumed where it closed
	r.announce(peerB, owner, hb, true, &ps)
	r.advance(1000 * time.Millisecond)
	if got := r.app.Status().PositionMS; got < 41_500 || got > 42_600 {
		t.Fatalf("the box shows %d ms, the window plays 42000", got)
	}
	r.j.reset()
	if err := r.app.Transfer(self); err != nil {
		t.Fatal(err)
	}
	if at := lastPlayAt(r); at < 41_500 || at > 42_600 {
		t.Fatalf("Play here resumed at %d ms, want about 42000: %q", at, r.j.list())
	}
}

// lastPlayAt is the position of the last "play" in the journal, -1 when
// none.
func lastPlayAt(r *rig) int64 {
	at := int64(-1)
	for _, l := range r.j.list() {
		if !strings.HasPrefix(l, "play ") {
			continue
		}
		if _, ms, ok := strings.Cut(l, "@"); ok {
			if v, err := strconv.ParseInt(ms, 10, 64); err == nil {
				at = v
			}
		}
	}
	return at
}
