package nowplaying

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/smtc"
)

var t0 = time.Date(2026, 12, 4, 19, 0, 0, 0, time.UTC)

func track(id, title string) *app.QueueItem {
	return &app.QueueItem{ContentID: id, Title: title, Artists: []string{"A", "B"}, Album: "Alb", DurationMS: 200_000, Path: "/Music/" + id + ".flac"}
}

func status(t *app.QueueItem, playing bool, posMS int64) app.Status {
	st := app.Status{Track: t, Playing: playing, PositionMS: posMS, QueueLen: 3, Index: 1, Repeat: "off"}
	if t == nil {
		st.QueueLen, st.Index = 0, 0
	}
	return st
}

func covers(id string) string { return "file:///covers/cover-" + id + ".jpg" }

// entries renders es as key=value lines, numbers with three decimals.
func entries(es []Entry) string {
	var b strings.Builder
	for _, e := range es {
		if e.IsNumber {
			fmt.Fprintf(&b, "%s=%.3f\n", e.Key, e.Number)
		} else {
			fmt.Fprintf(&b, "%s=%q\n", e.Key, e.Text)
		}
	}
	return b.String()
}

func TestTheKeysAreMediaPlayersStringValues(t *testing.T) {
	// The values of MediaPlayer's NSString constants, as MediaPlayer itself
	// spells them: a key of another spelling is silently ignored.
	for got, want := range map[string]string{
		KeyTitle:    "title",
		KeyArtist:   "artist",
		KeyAlbum:    "albumTitle",
		KeyDuration: "playbackDuration",
		KeyArtwork:  "artwork",
		KeyElapsed:  "MPNowPlayingInfoPropertyElapsedPlaybackTime",
		KeyRate:     "MPNowPlayingInfoPropertyPlaybackRate",
	} {
		if got != want {
			t.Errorf("key %q, want %q", got, want)
		}
	}
}

func TestEntriesOfAPlayingTrack(t *testing.T) {
	st := status(track("a", "Song A"), true, 65_500)
	d := smtc.NewCore(nil).Step(st, t0).Display
	want := `title="Song A"
artist="A, B"
albumTitle="Alb"
playbackDuration=200.000
MPNowPlayingInfoPropertyElapsedPlaybackTime=65.500
MPNowPlayingInfoPropertyPlaybackRate=1.000
`
	if got := entries(Entries(d, st)); got != want {
		t.Errorf("entries:\n%s\nwant:\n%s", got, want)
	}
}

func TestEntriesLeaveOutWhatIsNotKnown(t *testing.T) {
	tr := &app.QueueItem{ContentID: "x", Path: "/Music/untitled.ogg"} // no tags, no length
	st := status(tr, false, 3000)
	d := smtc.NewCore(nil).Step(st, t0).Display
	want := `title="untitled.ogg"
MPNowPlayingInfoPropertyElapsedPlaybackTime=3.000
MPNowPlayingInfoPropertyPlaybackRate=0.000
`
	if got := entries(Entries(d, st)); got != want {
		t.Errorf("entries:\n%s\nwant:\n%s", got, want)
	}
}

func TestEntriesAreNilWithoutATrack(t *testing.T) {
	st := status(nil, false, 0)
	if es := Entries(smtc.NewCore(nil).Step(st, t0).Display, st); es != nil {
		t.Errorf("entries without a track: %v, want nil (the info is cleared)", es)
	}
}

func TestTheElapsedTimeIsTheStatussWithinTheTrack(t *testing.T) {
	for _, tc := range []struct {
		name  string
		posMS int64
		want  float64
	}{
		{"as the status says", 12_000, 12},
		{"not past the end", 250_000, 200},
		{"not before the start", -5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := status(track("a", "A"), true, tc.posMS)
			d := smtc.NewCore(nil).Step(st, t0).Display
			for _, e := range Entries(d, st) {
				if e.Key == KeyElapsed && e.Number != tc.want {
					t.Errorf("elapsed %v, want %v", e.Number, tc.want)
				}
			}
		})
	}
}

func TestStateFollowsTheDisplay(t *testing.T) {
	for in, want := range map[smtc.PlaybackStatus]PlaybackState{
		smtc.StatusPlaying:  StatePlaying,
		smtc.StatusPaused:   StatePaused,
		smtc.StatusChanging: StatePaused,
		smtc.StatusStopped:  StateStopped,
		smtc.StatusClosed:   StateStopped,
	} {
		if got := State(in); got != want {
			t.Errorf("State(%v) = %v, want %v", in, got, want)
		}
	}
	if StatePlaying != 1 || StatePaused != 2 || StateStopped != 3 {
		t.Error("the states are not MPNowPlayingPlaybackState's values")
	}
}

func TestCoverPathOfAFileURL(t *testing.T) {
	for in, want := range map[string]string{
		"file:///Users/me/Library/furudesk/mpris-covers/cover-a.jpg": "/Users/me/Library/furudesk/mpris-covers/cover-a.jpg",
		"file:///covers/with%20space.png":                            "/covers/with space.png",
		"file://localhost/covers/a.jpg":                              "/covers/a.jpg",
		"file://elsewhere/covers/a.jpg":                              "",
		"https://example.com/a.jpg":                                  "",
		"":                                                           "",
		"%zz":                                                        "",
	} {
		if got := CoverPath(in); got != want {
			t.Errorf("CoverPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// what names the parts of an update, for short table entries.
func what(u Update) string {
	var s []string
	for _, f := range []struct {
		on   bool
		name string
	}{{u.Artwork, "artwork"}, {u.Info, "info"}, {u.State, "state"}, {u.Commands, "commands"}} {
		if f.on {
			s = append(s, f.name)
		}
	}
	return strings.Join(s, ",")
}

func TestPlanSetsOnlyWhatChanged(t *testing.T) {
	a, b := track("a", "Song A"), track("b", "Song B")
	type step struct {
		at   time.Duration // since t0
		st   app.Status
		want string
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"the first status sets everything", []step{
			{0, status(a, true, 0), "artwork,info,state,commands"},
		}},
		{"the same status again sets nothing", []step{
			{0, status(a, true, 0), "artwork,info,state,commands"},
			{time.Second, status(a, true, 1000), ""},
		}},
		{"a pause sets the info (rate 0), the state and the commands", []step{
			{0, status(a, true, 0), "artwork,info,state,commands"},
			{time.Second, status(a, false, 1000), "info,state,commands"},
		}},
		{"a seek sets the info (the elapsed time) and the commands", []step{
			{0, status(a, true, 0), "artwork,info,state,commands"},
			{time.Second, status(a, true, 90_000), "info,commands"},
		}},
		{"a new track sets the artwork and the info", []step{
			{0, status(a, true, 0), "artwork,info,state,commands"},
			{time.Second, status(b, true, 0), "artwork,info,commands"},
		}},
		{"the end of the queue clears everything", []step{
			{0, status(a, true, 0), "artwork,info,state,commands"},
			{time.Second, status(nil, false, 0), "artwork,info,state,commands"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core := smtc.NewCore(covers)
			for i, s := range tc.steps {
				if got := what(Plan(core.Step(s.st, t0.Add(s.at)), s.st)); got != s.want {
					t.Errorf("step %d: %q, want %q", i, got, s.want)
				}
			}
		})
	}
}

func TestPlanCarriesTheCoverAndTheStatussPosition(t *testing.T) {
	// The cover is rewritten when the library changes (a new file name).
	n := 0
	core := smtc.NewCore(func(id string) string {
		n++
		return fmt.Sprintf("file:///covers/cover-%s-%d.jpg", id, n)
	})
	st := status(track("a", "Song A"), true, 0)
	u := Plan(core.Step(st, t0), st)
	if u.CoverPath != "/covers/cover-a-1.jpg" || u.PlaybackState != StatePlaying {
		t.Errorf("first update: cover %q, state %v", u.CoverPath, u.PlaybackState)
	}
	// A new cover alone rewrites the dictionary: its elapsed time is the
	// status's, not the one of the timeline pushed 30 s before.
	st.PositionMS, st.LibraryVersion = 30_000, 1
	u = Plan(core.Step(st, t0.Add(30*time.Second)), st)
	if what(u) != "artwork,info" || u.CoverPath != "/covers/cover-a-2.jpg" {
		t.Fatalf("new cover: %q, cover %q; want artwork,info", what(u), u.CoverPath)
	}
	if got := entries(u.Entries); !strings.Contains(got, KeyElapsed+"=30.000\n") {
		t.Errorf("entries:\n%s\nwant the elapsed time 30 s", got)
	}
}

func TestPlanWithoutATrackClearsAndDisables(t *testing.T) {
	st := status(nil, false, 0)
	u := Plan(smtc.NewCore(covers).Step(st, t0), st)
	if !u.Info || u.Entries != nil || u.PlaybackState != StateStopped || u.Enabled != [NumCommands]bool{} || u.CoverPath != "" {
		t.Errorf("update without a track: %+v", u)
	}
}
