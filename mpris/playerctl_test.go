package mpris

import (
	"slices"
	"strconv"
	"time"

	"testing"

	"github.com/furudesk/furudesk/app"
)

// The tests in this file drive the server with the real playerctl, as a
// user's media keys and desktop widgets would, on a private session bus.

func TestPlayerctlStatusAndMetadata(t *testing.T) {
	requireTools(t, "playerctl")
	t.Parallel()
	r := newRig(t, newFakePlayer(pausedAt(1, 0)), Options{
		ArtURL: func(id string) string { return "file:///covers/" + id + ".jpg" },
	})

	if got := r.playerctl(t, "status"); got != "Paused" {
		t.Errorf("status = %q, want Paused", got)
	}
	for field, want := range map[string]string{
		"title":         "Second Wind",
		"artist":        "Aurora Lane, Mo",
		"album":         "Harbour",
		"mpris:length":  "200000000",
		"mpris:trackid": "'/org/furudesk/track/b3_3a" + hex64('b') + "'", // playerctl prints the GVariant
		"mpris:artUrl":  "file:///covers/b3:" + hex64('b') + ".jpg",
	} {
		if got := r.playerctl(t, "metadata", field); got != want {
			t.Errorf("metadata %s = %q, want %q", field, got, want)
		}
	}

	r.fake.set(func(st *app.Status) { st.Playing = true })
	r.eventually(t, "Playing", "status")

	r.fake.set(func(st *app.Status) { *st = app.Status{Volume: 80, Repeat: "off"} })
	r.eventually(t, "Stopped", "status")
}

func TestPlayerctlPlayPauseNextPrevious(t *testing.T) {
	requireTools(t, "playerctl")
	t.Parallel()
	r := newRig(t, newFakePlayer(pausedAt(0, 0)), Options{})

	r.playerctl(t, "play-pause")
	r.eventually(t, "Playing", "status")
	r.playerctl(t, "play-pause")
	r.eventually(t, "Paused", "status")
	r.playerctl(t, "play")
	r.eventually(t, "Playing", "status")
	r.playerctl(t, "pause")
	r.eventually(t, "Paused", "status")

	r.playerctl(t, "next")
	r.eventually(t, "Second Wind", "metadata", "title")
	r.playerctl(t, "next")
	r.eventually(t, "Third Tide", "metadata", "title")
	r.playerctl(t, "previous")
	r.eventually(t, "Second Wind", "metadata", "title")

	want := []string{"toggle", "toggle", "resume", "pause", "next", "next", "prev"}
	if got := r.fake.callLog(); !slices.Equal(got, want) {
		t.Errorf("app calls = %q, want %q", got, want)
	}
}

// TestPlayerctlNextAtTheEnd: on the last track without repeat, CanGoNext
// is false and Next does nothing, as the specification says; with repeat
// all it wraps.
func TestPlayerctlNextAtTheEnd(t *testing.T) {
	requireTools(t, "playerctl")
	t.Parallel()
	r := newRig(t, newFakePlayer(pausedAt(2, 0)), Options{})

	if out, err := r.playerctlErr("next"); err == nil {
		t.Errorf("playerctl next on the last track succeeded (%q); CanGoNext should be false", out)
	}
	if got := r.fake.callLog(); len(got) != 0 {
		t.Errorf("Next on the last track called the app: %q", got)
	}
	r.playerctl(t, "loop", "Playlist")
	r.eventually(t, "Playlist", "loop")
	r.playerctl(t, "next")
	r.eventually(t, "First Light", "metadata", "title")
}

func TestPlayerctlStop(t *testing.T) {
	requireTools(t, "playerctl")
	t.Parallel()
	st := pausedAt(1, 42_000)
	st.Playing = true
	r := newRig(t, newFakePlayer(st), Options{})

	r.playerctl(t, "stop")
	r.eventually(t, "Paused", "status")
	r.eventually(t, "0.000000", "position")
}

func TestPlayerctlPosition(t *testing.T) {
	requireTools(t, "playerctl")
	t.Parallel()
	r := newRig(t, newFakePlayer(pausedAt(0, 12_345)), Options{})

	if got := r.playerctl(t, "position"); got != "12.345000" {
		t.Errorf("position = %q, want 12.345000", got)
	}

	// Absolute: SetPosition with the current track id.
	r.playerctl(t, "position", "30")
	r.eventually(t, "30.000000", "position")
	// Relative: Seek.
	r.playerctl(t, "position", "5+")
	r.eventually(t, "35.000000", "position")
	r.playerctl(t, "position", "10-")
	r.eventually(t, "25.000000", "position")

	// While playing, the position advances with the clock between statuses.
	r.fake.set(func(st *app.Status) { st.Playing = true })
	r.eventually(t, "Playing", "status")
	r.clock.Advance(1500 * time.Millisecond)
	// playerctl itself adds the real time between its read and its print:
	// at most the time the call took, however long a loaded machine made it.
	called := time.Now()
	got := seconds(t, r.playerctl(t, "position"))
	if took := time.Since(called).Seconds(); got < 26.5 || got > 26.5+took+0.001 {
		t.Errorf("position 1.5 s after 25 s while playing = %v, want 26.5 (plus at most the %.3f s playerctl took)", got, took)
	}

	// Past the end of the track is Next.
	r.playerctl(t, "position", "1000+")
	r.eventually(t, "Second Wind", "metadata", "title")

	want := []string{"seek 30s", "seek 35s", "seek 25s", "next"}
	if got := r.fake.callLog(); !slices.Equal(got, want) {
		t.Errorf("app calls = %q, want %q", got, want)
	}
}

func TestPlayerctlVolumeRoundTrip(t *testing.T) {
	requireTools(t, "playerctl")
	t.Parallel()
	r := newRig(t, newFakePlayer(pausedAt(0, 0)), Options{})

	if got := r.playerctl(t, "volume"); got != "0.800000" {
		t.Errorf("volume = %q, want 0.800000", got)
	}
	r.playerctl(t, "volume", "0.42")
	r.eventually(t, "0.420000", "volume")
	r.playerctl(t, "volume", "0.1-")
	r.eventually(t, "0.320000", "volume")
	r.playerctl(t, "volume", "1.5") // clamped
	r.eventually(t, "1.000000", "volume")

	r.fake.set(func(st *app.Status) { st.Volume = 7 }) // changed in the window
	r.eventually(t, "0.070000", "volume")

	want := []string{"volume 42", "volume 32", "volume 100"}
	if got := r.fake.callLog(); !slices.Equal(got, want) {
		t.Errorf("app calls = %q, want %q", got, want)
	}
}

func TestPlayerctlLoopAndShuffle(t *testing.T) {
	requireTools(t, "playerctl")
	t.Parallel()
	r := newRig(t, newFakePlayer(pausedAt(0, 0)), Options{})

	r.eventually(t, "None", "loop")
	r.eventually(t, "Off", "shuffle")
	for _, c := range []struct{ loop, repeat string }{{"Track", "one"}, {"Playlist", "all"}, {"None", "off"}} {
		r.playerctl(t, "loop", c.loop)
		r.eventually(t, c.loop, "loop")
		if got := r.fake.Status().Repeat; got != c.repeat {
			t.Errorf("loop %s: app repeat = %q, want %q", c.loop, got, c.repeat)
		}
	}
	r.playerctl(t, "shuffle", "On")
	r.eventually(t, "On", "shuffle")
	r.playerctl(t, "shuffle", "Toggle")
	r.eventually(t, "Off", "shuffle")

	r.fake.set(func(st *app.Status) { st.Repeat, st.Shuffle = "one", true })
	r.eventually(t, "Track", "loop")
	r.eventually(t, "On", "shuffle")
}

func seconds(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number of seconds: %q", s)
	}
	return f
}
