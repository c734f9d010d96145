package smtc

import (
	"fmt"
	"time"

	"github.com/furudesk/furudesk/app"
)

// Player is what the media keys need from the app. *app.App implements
// it. All methods must be safe from any goroutine and return within a
// bounded time: they run on the session's thread.
type Player interface {
	// Status is the latest published status.
	Status() app.Status
	// Subscribe returns a latest-value channel of statuses and a cancel
	// func; the session reads it until Close.
	Subscribe() (updates <-chan app.Status, cancel func())
	TogglePlay() error
	Pause() error
	Resume() error
	Next() error
	Prev() error
	// Seek moves to an absolute position in the current track.
	Seek(pos time.Duration) error
}

var _ Player = (*app.App)(nil)

// Button is a press to act on: the values up to ButtonChannelDown are
// Windows.Media.SystemMediaTransportControlsButton's.
type Button int32

// The buttons.
const (
	ButtonPlay        Button = 0
	ButtonPause       Button = 1
	ButtonStop        Button = 2
	ButtonRecord      Button = 3
	ButtonFastForward Button = 4
	ButtonRewind      Button = 5
	ButtonNext        Button = 6
	ButtonPrevious    Button = 7
	ButtonChannelUp   Button = 8
	ButtonChannelDown Button = 9
	// ButtonToggle is the play/pause media key taken as a hotkey (SMTC
	// says Play or Pause itself).
	ButtonToggle Button = 100
)

func (b Button) String() string {
	switch b {
	case ButtonPlay:
		return "play"
	case ButtonPause:
		return "pause"
	case ButtonStop:
		return "stop"
	case ButtonRecord:
		return "record"
	case ButtonFastForward:
		return "fast forward"
	case ButtonRewind:
		return "rewind"
	case ButtonNext:
		return "next"
	case ButtonPrevious:
		return "previous"
	case ButtonChannelUp:
		return "channel up"
	case ButtonChannelDown:
		return "channel down"
	case ButtonToggle:
		return "play/pause"
	}
	return fmt.Sprintf("Button(%d)", int32(b))
}

// The virtual keys of the media keys (winuser.h) the hotkey path
// registers.
const (
	VKMediaNextTrack = 0xB0
	VKMediaPrevTrack = 0xB1
	VKMediaStop      = 0xB2
	VKMediaPlayPause = 0xB3
)

// HotkeyKeys are the virtual keys the hotkey path registers, in order.
var HotkeyKeys = []uint32{VKMediaPlayPause, VKMediaNextTrack, VKMediaPrevTrack, VKMediaStop}

// HotkeyButton is the button of a media key's virtual key.
func HotkeyButton(vk uint32) (Button, bool) {
	switch vk {
	case VKMediaPlayPause:
		return ButtonToggle, true
	case VKMediaNextTrack:
		return ButtonNext, true
	case VKMediaPrevTrack:
		return ButtonPrevious, true
	case VKMediaStop:
		return ButtonStop, true
	}
	return 0, false
}

// Press does what b asks of p, given what the OS shows (a press of a
// button shown disabled, or with no track, does nothing: the OS may send
// one that was pressed before it saw the change). It reports whether it
// called p. Stop pauses and goes back to the start (the app has no
// stopped state with a track loaded). Buttons furudesk does not offer
// (record, fast forward, rewind, channels) do nothing.
func Press(p Player, shown Display, b Button) (bool, error) {
	if shown.Status == StatusStopped || shown.Status == StatusClosed {
		return false, nil
	}
	bt := shown.Buttons
	switch {
	case b == ButtonPlay && bt.Play:
		return true, p.Resume()
	case b == ButtonPause && bt.Pause:
		return true, p.Pause()
	case b == ButtonToggle && (bt.Play || bt.Pause):
		return true, p.TogglePlay()
	case b == ButtonNext && bt.Next:
		return true, p.Next()
	case b == ButtonPrevious && bt.Previous:
		return true, p.Prev()
	case b == ButtonStop && bt.Stop:
		if err := p.Pause(); err != nil {
			return true, err
		}
		return true, p.Seek(0)
	}
	return false, nil
}

// SeekTo moves p to pos as the OS's seek bar asks, within the shown
// timeline; it does nothing without a track or a known length. It
// reports whether it called p.
func SeekTo(p Player, shown Display, pos time.Duration) (bool, error) {
	end := shown.Timeline.End
	if shown.Status == StatusStopped || shown.Status == StatusClosed || end <= 0 {
		return false, nil
	}
	return true, p.Seek(min(max(pos, 0), end))
}
