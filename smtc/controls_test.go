package smtc

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
)

// fakePlayer records the controls called, in order.
type fakePlayer struct {
	calls []string
	err   error
}

func (f *fakePlayer) Status() app.Status { return app.Status{} }
func (f *fakePlayer) Subscribe() (<-chan app.Status, func()) {
	return make(chan app.Status), func() {}
}
func (f *fakePlayer) call(name string) error { f.calls = append(f.calls, name); return f.err }
func (f *fakePlayer) TogglePlay() error      { return f.call("toggle") }
func (f *fakePlayer) Pause() error           { return f.call("pause") }
func (f *fakePlayer) Resume() error          { return f.call("resume") }
func (f *fakePlayer) Next() error            { return f.call("next") }
func (f *fakePlayer) Prev() error            { return f.call("prev") }
func (f *fakePlayer) Seek(pos time.Duration) error {
	return f.call("seek " + pos.String())
}

func TestPressCallsTheControl(t *testing.T) {
	playing := NewCore(nil).Step(status(track("a", "A"), true, 5000), t0).Display
	last := func() Display {
		s := status(track("a", "A"), false, 0)
		s.Index = 2
		return NewCore(nil).Step(s, t0).Display
	}()
	stopped := NewCore(nil).Step(status(nil, false, 0), t0).Display
	for _, tc := range []struct {
		name  string
		shown Display
		b     Button
		want  string // the calls, "" for none
	}{
		{"play resumes", playing, ButtonPlay, "resume"},
		{"pause pauses", playing, ButtonPause, "pause"},
		{"the play/pause hotkey toggles", playing, ButtonToggle, "toggle"},
		{"next", playing, ButtonNext, "next"},
		{"previous", playing, ButtonPrevious, "prev"},
		{"stop pauses and goes to the start", playing, ButtonStop, "pause,seek 0s"},
		{"next on the last track does nothing", last, ButtonNext, ""},
		{"previous on the last track still restarts", last, ButtonPrevious, "prev"},
		{"nothing without a track", stopped, ButtonToggle, ""},
		{"play without a track does nothing", stopped, ButtonPlay, ""},
		{"fast forward is not offered", playing, ButtonFastForward, ""},
		{"record is not offered", playing, ButtonRecord, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &fakePlayer{}
			called, err := Press(p, tc.shown, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(p.calls, ","); got != tc.want || called != (tc.want != "") {
				t.Errorf("Press(%v) called %q (reported %v), want %q", tc.b, got, called, tc.want)
			}
		})
	}
}

func TestPressReturnsTheAppsError(t *testing.T) {
	boom := errors.New("app: closed")
	p := &fakePlayer{err: boom}
	shown := NewCore(nil).Step(status(track("a", "A"), true, 0), t0).Display
	if _, err := Press(p, shown, ButtonStop); !errors.Is(err, boom) {
		t.Errorf("Press(stop) = %v, want %v", err, boom)
	}
	if got := strings.Join(p.calls, ","); got != "pause" {
		t.Errorf("after a failed pause, stop called %q, want only pause", got)
	}
}

func TestSeekToStaysWithinTheTrack(t *testing.T) {
	shown := NewCore(nil).Step(status(track("a", "A"), true, 0), t0).Display
	unknown := func() Display {
		tr := track("a", "A")
		tr.DurationMS = 0
		return NewCore(nil).Step(status(tr, true, 0), t0).Display
	}()
	for _, tc := range []struct {
		name  string
		shown Display
		pos   time.Duration
		want  string
	}{
		{"within", shown, 42 * time.Second, "seek 42s"},
		{"before the start", shown, -time.Second, "seek 0s"},
		{"past the end", shown, time.Hour, "seek 3m20s"},
		{"unknown length", unknown, time.Second, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &fakePlayer{}
			if _, err := SeekTo(p, tc.shown, tc.pos); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(p.calls, ","); got != tc.want {
				t.Errorf("SeekTo(%v) called %q, want %q", tc.pos, got, tc.want)
			}
		})
	}
}

func TestHotkeyButton(t *testing.T) {
	for _, tc := range []struct {
		vk   uint32
		want Button
		ok   bool
	}{
		{VKMediaPlayPause, ButtonToggle, true},
		{VKMediaNextTrack, ButtonNext, true},
		{VKMediaPrevTrack, ButtonPrevious, true},
		{VKMediaStop, ButtonStop, true},
		{0x41, 0, false}, // 'A'
	} {
		if b, ok := HotkeyButton(tc.vk); b != tc.want || ok != tc.ok {
			t.Errorf("HotkeyButton(%#x) = %v, %v; want %v, %v", tc.vk, b, ok, tc.want, tc.ok)
		}
	}
	for _, vk := range HotkeyKeys {
		if _, ok := HotkeyButton(vk); !ok {
			t.Errorf("registered key %#x has no button", vk)
		}
	}
}
