package smtc

import (
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
)

var t0 = time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)

func track(id, title string) *app.QueueItem {
	return &app.QueueItem{ContentID: id, Title: title, Artists: []string{"A", "B"}, Album: "Alb", DurationMS: 200_000, Path: `C:\Music\` + id + ".flac"}
}

func status(t *app.QueueItem, playing bool, posMS int64) app.Status {
	st := app.Status{Track: t, Playing: playing, PositionMS: posMS, QueueLen: 3, Index: 1, Repeat: "off"}
	if t == nil {
		st.QueueLen, st.Index = 0, 0
	}
	return st
}

// what names the parts of a push, for short table entries.
func what(p Push) string {
	var s []string
	for _, f := range []struct {
		on   bool
		name string
	}{{p.Status, "status"}, {p.Buttons, "buttons"}, {p.Properties, "properties"}, {p.Thumbnail, "thumbnail"}, {p.Timeline, "timeline"}} {
		if f.on {
			s = append(s, f.name)
		}
	}
	return strings.Join(s, ",")
}

func TestStepPushesOnlyWhatChanged(t *testing.T) {
	a, b := track("a", "Song A"), track("b", "Song B")
	type step struct {
		at     time.Duration // since t0
		st     app.Status
		tick   bool // Tick at `at` instead of Step
		want   string
		status PlaybackStatus
		pos    time.Duration // the pushed (or still shown) position
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"the first status pushes everything", []step{
			{0, status(a, true, 1000), false, "status,buttons,properties,thumbnail,timeline", StatusPlaying, time.Second},
		}},
		{"the same status again pushes nothing", []step{
			{0, status(a, false, 1000), false, "status,buttons,properties,thumbnail,timeline", StatusPaused, time.Second},
			{time.Second, status(a, false, 1000), false, "", StatusPaused, time.Second},
		}},
		{"playback that goes on as expected pushes nothing", []step{
			{0, status(a, true, 1000), false, "status,buttons,properties,thumbnail,timeline", StatusPlaying, time.Second},
			{3 * time.Second, status(a, true, 4200), false, "", StatusPlaying, time.Second},
		}},
		{"a seek pushes the timeline only", []step{
			{0, status(a, true, 1000), false, "status,buttons,properties,thumbnail,timeline", StatusPlaying, time.Second},
			{time.Second, status(a, true, 60_000), false, "timeline", StatusPlaying, time.Minute},
		}},
		{"pause pushes the status and the timeline", []step{
			{0, status(a, true, 1000), false, "status,buttons,properties,thumbnail,timeline", StatusPlaying, time.Second},
			{2 * time.Second, status(a, false, 3000), false, "status,timeline", StatusPaused, 3 * time.Second},
		}},
		{"a new track pushes its properties, thumbnail and timeline", []step{
			{0, status(a, true, 1000), false, "status,buttons,properties,thumbnail,timeline", StatusPlaying, time.Second},
			{time.Second, status(b, true, 0), false, "properties,thumbnail,timeline", StatusPlaying, 0},
		}},
		{"an empty queue stops and disables the buttons", []step{
			{0, status(a, false, 1000), false, "status,buttons,properties,thumbnail,timeline", StatusPaused, time.Second},
			{time.Second, status(nil, false, 0), false, "status,buttons,properties,thumbnail,timeline", StatusStopped, 0},
		}},
		{"the last track without repeat disables next", []step{
			{0, status(a, false, 0), false, "status,buttons,properties,thumbnail,timeline", StatusPaused, 0},
			{0, func() app.Status { s := status(a, false, 0); s.Index = 2; return s }(), false, "buttons", StatusPaused, 0},
		}},
		{"tick refreshes the position while playing", []step{
			{0, status(a, true, 1000), false, "status,buttons,properties,thumbnail,timeline", StatusPlaying, time.Second},
			{4 * time.Second, app.Status{}, true, "", StatusPlaying, time.Second},
			{5 * time.Second, app.Status{}, true, "timeline", StatusPlaying, 6 * time.Second},
			{8 * time.Second, app.Status{}, true, "", StatusPlaying, 6 * time.Second},
		}},
		{"tick pushes nothing while paused", []step{
			{0, status(a, false, 1000), false, "status,buttons,properties,thumbnail,timeline", StatusPaused, time.Second},
			{time.Minute, app.Status{}, true, "", StatusPaused, time.Second},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCore(func(id string) string { return "file:///C:/covers/" + id + ".jpg" })
			for i, s := range tc.steps {
				var p Push
				if s.tick {
					p = c.Tick(t0.Add(s.at))
				} else {
					p = c.Step(s.st, t0.Add(s.at))
				}
				if got := what(p); got != s.want {
					t.Errorf("step %d: pushed %q, want %q", i, got, s.want)
				}
				if p.Display.Status != s.status || p.Display.Timeline.Position != s.pos {
					t.Errorf("step %d: shows %v at %v, want %v at %v", i, p.Display.Status, p.Display.Timeline.Position, s.status, s.pos)
				}
				if p.Display != c.Shown() {
					t.Errorf("step %d: Shown() is not the pushed display", i)
				}
			}
		})
	}
}

func TestDeriveProperties(t *testing.T) {
	long := strings.Repeat("é", MaxStringBytes) // 2 bytes each
	for _, tc := range []struct {
		name string
		t    app.QueueItem
		want Properties
	}{
		{"tags", app.QueueItem{ContentID: "x", Title: "T", Artists: []string{"A", "B"}, Album: "L"},
			Properties{Title: "T", Artist: "A, B", Album: "L", Thumbnail: "uri:x"}},
		{"no title: the file name", app.QueueItem{ContentID: "x", Path: "/music/song.flac"},
			Properties{Title: "song.flac", Thumbnail: "uri:x"}},
		{"NUL and bad UTF-8 are replaced", app.QueueItem{ContentID: "x", Title: "a\x00b\xff"},
			Properties{Title: "a\uFFFDb\uFFFD", Thumbnail: "uri:x"}},
		{"long titles are cut on a character", app.QueueItem{ContentID: "x", Title: long},
			Properties{Title: long[:MaxStringBytes], Thumbnail: "uri:x"}},
		{"at most MaxArtists", app.QueueItem{ContentID: "x", Title: "T", Artists: strings.Split("1,2,3,4,5,6,7,8,9,10", ",")},
			Properties{Title: "T", Artist: "1, 2, 3, 4, 5, 6, 7, 8", Thumbnail: "uri:x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCore(func(id string) string { return "uri:" + id })
			st := app.Status{Track: &tc.t, QueueLen: 1}
			if got := c.Step(st, t0).Display.Properties; got != tc.want {
				t.Errorf("properties = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestArtIsAskedOncePerTrackAndLibraryVersion(t *testing.T) {
	calls := 0
	c := NewCore(func(id string) string { calls++; return "uri:" + id })
	a := track("a", "A")
	st := status(a, true, 0)
	c.Step(st, t0)
	c.Step(st, t0.Add(time.Second))
	st.LibraryVersion++
	c.Step(st, t0.Add(2*time.Second))
	c.Step(status(track("b", "B"), true, 0), t0.Add(3*time.Second))
	if calls != 3 {
		t.Errorf("art was asked %d times, want 3 (a, a after the library changed, b)", calls)
	}
}

func TestNoArtFuncShowsNoThumbnail(t *testing.T) {
	c := NewCore(nil)
	if th := c.Step(status(track("a", "A"), true, 0), t0).Display.Properties.Thumbnail; th != "" {
		t.Errorf("thumbnail %q without an art func", th)
	}
}
