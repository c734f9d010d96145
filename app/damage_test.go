package app

import (
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/audio"
)

// TestDamagedTrackPlaysOnWithANotice: a track the decoder played with
// damage skipped keeps playing; a notice names it and the damage, here
// and in the snapshot every device shows.
func TestDamagedTrackPlaysOnWithANotice(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	cur := r.out.Report().Track
	r.j.reset()
	r.audio(audio.Damaged{Track: cur, Err: &audio.DamageError{Skipped: 3}})
	st := r.app.Status()
	if st.Index != 0 || !st.Playing || r.j.count("play") != 0 || r.j.count("stop") != 0 {
		t.Fatalf("a damaged track did not play on: index %d, playing %v, %q", st.Index, st.Playing, r.j.list())
	}
	n := st.Notices[len(st.Notices)-1]
	if n.Level != "error" || !strings.Contains(n.Text, "T b3:aa") || !strings.Contains(n.Text, "3 undecodable frames skipped") {
		t.Fatalf("notice %+v", n)
	}
	if st.OwnerNotice != n.Text {
		t.Fatalf("the snapshot's notice is %q, want %q", st.OwnerNotice, n.Text)
	}
}

// TestTrackThatCannotPlayIsToldEverywhere: a track that fails to decode
// is named in the snapshot's notice, and the queue moves on.
func TestTrackThatCannotPlayIsToldEverywhere(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	r.audio(audio.DecodeError{Track: r.out.Report().Track, Err: audio.ErrCorrupt})
	st := r.app.Status()
	if !strings.Contains(st.OwnerNotice, "Could not play") || !strings.Contains(st.OwnerNotice, "T b3:aa") {
		t.Fatalf("the snapshot's notice is %q", st.OwnerNotice)
	}
}
