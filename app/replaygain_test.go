package app

import (
	"errors"
	"testing"
	"time"

	"github.com/furudesk/furudesk/library"
)

// setTrack changes a track of the fake store.
func (s *fakeStore) setTrack(id string, f func(t *library.Track)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tracks[id]
	f(&t)
	s.tracks[id] = t
}

func gainsRig(t *testing.T, stored string) *rig {
	r := buildRig(t, self)
	for id, album := range map[string]string{"b3:aa": "Album A", "b3:bb": "Album A", "b3:cc": "Album C"} {
		r.store.setTrack(id, func(t *library.Track) {
			t.Album = album
			t.Gain = library.ReplayGain{TrackGain: -3, TrackPeak: 0.5, HasTrack: true, AlbumGain: -5, AlbumPeak: 0.6, HasAlbum: true}
		})
	}
	if stored != "" {
		if err := r.store.SetSetting(settingReplayGain, stored); err != nil {
			t.Fatal(err)
		}
	}
	r.start(Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	return r
}

// The played and prepared tracks carry the gain of this device's mode:
// auto uses the album gain while the album plays in order; a new mode is
// stored, shown, and applied to both at once; a bad one changes nothing.
func TestReplayGainModeDrivesTheOutput(t *testing.T) {
	r := gainsRig(t, "")
	if st := r.app.Status(); st.ReplayGain != library.GainAuto {
		t.Fatalf("default mode %q, want auto", st.ReplayGain)
	}
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb", "b3:cc"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	r.out.mu.Lock()
	played, prepared := r.out.gainDB, r.out.nextSrc.GainDB
	r.out.mu.Unlock()
	if played != -5 || prepared != -5 {
		t.Fatalf("auto in album order: played at %+.1f dB, prepared at %+.1f dB; want the album gain -5", played, prepared)
	}
	r.j.reset()
	if err := r.app.SetReplayGain("track"); err != nil {
		t.Fatal(err)
	}
	if r.j.count("gain b3:aa -3.00") != 1 || r.j.count("gain b3:bb -3.00") != 1 {
		t.Fatalf("the new mode was not applied to the loaded tracks: %q", r.j.list())
	}
	if v, _, _ := r.store.Setting(settingReplayGain); v != "track" || r.app.Status().ReplayGain != library.GainTrack {
		t.Fatalf("stored %q, shown %q", v, r.app.Status().ReplayGain)
	}
	if err := r.app.SetReplayGain("loud"); !errors.Is(err, ErrBadArgument) || UserMessage(err) == "" {
		t.Fatalf("bad mode: %v", err)
	}
	if r.app.Status().ReplayGain != library.GainTrack {
		t.Fatalf("a bad mode changed the setting")
	}
}

// The mode is this device's own: read back at start, and a broken stored
// value is reported and replaced by the default.
func TestReplayGainModeStoredPerDevice(t *testing.T) {
	if r := gainsRig(t, "album"); r.app.Status().ReplayGain != library.GainAlbum {
		t.Fatalf("stored album, started with %q", r.app.Status().ReplayGain)
	}
	r := gainsRig(t, "louder")
	st := r.app.Status()
	if st.ReplayGain != library.DefaultGainMode || len(st.Notices) == 0 {
		t.Fatalf("broken stored mode: %q, notices %+v", st.ReplayGain, st.Notices)
	}
}

// inAlbum: auto mode's "an album playing in order".
func TestInAlbum(t *testing.T) {
	q := []Entry{{Album: "A"}, {Album: "A"}, {Album: "B"}, {Album: ""}, {Album: ""}, {Album: "C"}}
	for _, c := range []struct {
		idx     int
		shuffle bool
		want    bool
	}{
		{0, false, true}, {1, false, true}, {2, false, false}, {3, false, false}, {5, false, false},
		{0, true, false}, {9, false, false},
	} {
		if got := inAlbum(PlayerState{Queue: q, Shuffle: c.shuffle}, c.idx); got != c.want {
			t.Errorf("inAlbum(%d, shuffle %v) = %v, want %v", c.idx, c.shuffle, got, c.want)
		}
	}
}
