package nowplaying

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/smtc"
)

// fakePlayer records the controls called, in order.
type fakePlayer struct{ calls []string }

func (f *fakePlayer) Status() app.Status { return app.Status{} }
func (f *fakePlayer) Subscribe() (<-chan app.Status, func()) {
	return make(chan app.Status), func() {}
}
func (f *fakePlayer) call(name string) error { f.calls = append(f.calls, name); return nil }
func (f *fakePlayer) TogglePlay() error      { return f.call("toggle") }
func (f *fakePlayer) Pause() error           { return f.call("pause") }
func (f *fakePlayer) Resume() error          { return f.call("resume") }
func (f *fakePlayer) Next() error            { return f.call("next") }
func (f *fakePlayer) Prev() error            { return f.call("prev") }
func (f *fakePlayer) Seek(pos time.Duration) error {
	return f.call("seek " + pos.String())
}

var _ smtc.Player = (*fakePlayer)(nil)

func shown(st app.Status) smtc.Display { return smtc.NewCore(nil).Step(st, t0).Display }

func TestActCallsTheControl(t *testing.T) {
	playing := shown(status(track("a", "A"), true, 5000))
	last := func() smtc.Display {
		s := status(track("a", "A"), false, 0)
		s.Index = 2
		return shown(s)
	}()
	unknownLength := shown(status(&app.QueueItem{ContentID: "x", Title: "X"}, true, 0))
	stopped := shown(status(nil, false, 0))
	for _, tc := range []struct {
		name  string
		shown smtc.Display
		c     Command
		pos   time.Duration
		want  string // the calls, "" for none
	}{
		{"play resumes", playing, CommandPlay, 0, "resume"},
		{"pause pauses", playing, CommandPause, 0, "pause"},
		{"play/pause toggles", playing, CommandTogglePlayPause, 0, "toggle"},
		{"next", playing, CommandNextTrack, 0, "next"},
		{"previous", playing, CommandPreviousTrack, 0, "prev"},
		{"the seek bar seeks", playing, CommandChangePlaybackPosition, 42 * time.Second, "seek 42s"},
		{"a seek past the end goes to the end", playing, CommandChangePlaybackPosition, time.Hour, "seek 3m20s"},
		{"no seek in a track of unknown length", unknownLength, CommandChangePlaybackPosition, time.Second, ""},
		{"next on the last track does nothing", last, CommandNextTrack, 0, ""},
		{"nothing without a track", stopped, CommandTogglePlayPause, 0, ""},
		{"no seek without a track", stopped, CommandChangePlaybackPosition, time.Second, ""},
		{"an unknown command does nothing", playing, NumCommands, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &fakePlayer{}
			called, err := Act(p, tc.shown, tc.c, tc.pos)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(p.calls, ","); got != tc.want || called != (tc.want != "") {
				t.Errorf("calls %q (called %v), want %q", got, called, tc.want)
			}
		})
	}
}

func TestEnabledFollowsTheButtons(t *testing.T) {
	all := [NumCommands]bool{true, true, true, true, true, true}
	if got := Enabled(shown(status(track("a", "A"), true, 0))); got != all {
		t.Errorf("a track in the middle of the queue: %v, want all", got)
	}
	last := status(track("a", "A"), true, 0)
	last.Index = 2
	want := all
	want[CommandNextTrack] = false
	if got := Enabled(shown(last)); got != want {
		t.Errorf("the last track: %v, want %v", got, want)
	}
	want = all
	want[CommandChangePlaybackPosition] = false
	if got := Enabled(shown(status(&app.QueueItem{ContentID: "x", Title: "X"}, true, 0))); got != want {
		t.Errorf("a track of unknown length: %v, want %v", got, want)
	}
	if got := Enabled(shown(status(nil, false, 0))); got != [NumCommands]bool{} {
		t.Errorf("no track: %v, want none", got)
	}
}

func TestEveryCommandHasItsSelectors(t *testing.T) {
	seen := map[string]bool{}
	for i, c := range Commands {
		if int(c) != i {
			t.Errorf("Commands[%d] is %v", i, c)
		}
		g, a := c.Getter(), c.Action()
		if !strings.HasSuffix(g, "Command") || !strings.HasPrefix(a, "furudesk") || !strings.HasSuffix(a, ":") {
			t.Errorf("%v: getter %q, action %q", c, g, a)
		}
		if seen[a] {
			t.Errorf("%v: action %q twice", c, a)
		}
		seen[a] = true
		if _, ok := c.Button(); ok == (c == CommandChangePlaybackPosition) {
			t.Errorf("%v: Button ok %v", c, ok)
		}
	}
	if NumCommands.Getter() != "" || NumCommands.Action() != "" || NumCommands.String() != "Command(6)" {
		t.Error("an unknown command has selectors")
	}
}

func TestPositionOfTheSeekEvent(t *testing.T) {
	for _, tc := range []struct {
		seconds float64
		want    time.Duration
	}{
		{42.5, 42500 * time.Millisecond},
		{0, 0},
		{-3, 0},
		{math.NaN(), 0},
		{math.Inf(1), maxPosition},
		{1e300, maxPosition},
	} {
		if got := Position(tc.seconds); got != tc.want {
			t.Errorf("Position(%v) = %v, want %v", tc.seconds, got, tc.want)
		}
	}
}
