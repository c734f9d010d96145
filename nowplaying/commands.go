package nowplaying

import (
	"fmt"
	"math"
	"time"

	"github.com/furudesk/furudesk/smtc"
)

// Command is one of MPRemoteCommandCenter's commands furudesk answers.
type Command int

// The commands.
const (
	CommandPlay Command = iota
	CommandPause
	CommandTogglePlayPause
	CommandNextTrack
	CommandPreviousTrack
	CommandChangePlaybackPosition
	// NumCommands is how many commands there are.
	NumCommands
)

// Commands are all the commands, in order.
var Commands = [NumCommands]Command{
	CommandPlay, CommandPause, CommandTogglePlayPause,
	CommandNextTrack, CommandPreviousTrack, CommandChangePlaybackPosition,
}

var commandNames = [NumCommands]struct{ name, getter, action string }{
	CommandPlay:                   {"play", "playCommand", "furudeskPlay:"},
	CommandPause:                  {"pause", "pauseCommand", "furudeskPause:"},
	CommandTogglePlayPause:        {"play/pause", "togglePlayPauseCommand", "furudeskTogglePlayPause:"},
	CommandNextTrack:              {"next", "nextTrackCommand", "furudeskNextTrack:"},
	CommandPreviousTrack:          {"previous", "previousTrackCommand", "furudeskPreviousTrack:"},
	CommandChangePlaybackPosition: {"seek", "changePlaybackPositionCommand", "furudeskChangePlaybackPosition:"},
}

func (c Command) valid() bool { return c >= 0 && c < NumCommands }

func (c Command) String() string {
	if !c.valid() {
		return fmt.Sprintf("Command(%d)", int(c))
	}
	return commandNames[c].name
}

// Getter is the MPRemoteCommandCenter property (a selector) that returns
// c's MPRemoteCommand.
func (c Command) Getter() string {
	if !c.valid() {
		return ""
	}
	return commandNames[c].getter
}

// Action is the selector of the target's method that answers c; it
// takes the MPRemoteCommandEvent and returns an
// MPRemoteCommandHandlerStatus.
func (c Command) Action() string {
	if !c.valid() {
		return ""
	}
	return commandNames[c].action
}

// Button is the SMTC button c presses (smtc.Press); false for
// CommandChangePlaybackPosition, which is smtc.SeekTo.
func (c Command) Button() (smtc.Button, bool) {
	switch c {
	case CommandPlay:
		return smtc.ButtonPlay, true
	case CommandPause:
		return smtc.ButtonPause, true
	case CommandTogglePlayPause:
		return smtc.ButtonToggle, true
	case CommandNextTrack:
		return smtc.ButtonNext, true
	case CommandPreviousTrack:
		return smtc.ButtonPrevious, true
	}
	return 0, false
}

// Enabled is which commands are enabled while d is shown: as SMTC's
// buttons, toggling when play or pause is, seeking when the track's
// length is known; none without a track.
func Enabled(d smtc.Display) [NumCommands]bool {
	var e [NumCommands]bool
	if d.Status == smtc.StatusStopped || d.Status == smtc.StatusClosed {
		return e
	}
	b := d.Buttons
	e[CommandPlay] = b.Play
	e[CommandPause] = b.Pause
	e[CommandTogglePlayPause] = b.Play || b.Pause
	e[CommandNextTrack] = b.Next
	e[CommandPreviousTrack] = b.Previous
	e[CommandChangePlaybackPosition] = d.Timeline.End > 0
	return e
}

// Act does what c asks of p, given what the OS shows, through smtc.Press
// and smtc.SeekTo (so a command the OS sent before it saw a change does
// nothing); pos is the position a CommandChangePlaybackPosition asks for.
// It reports whether it called p.
func Act(p smtc.Player, shown smtc.Display, c Command, pos time.Duration) (bool, error) {
	if c == CommandChangePlaybackPosition {
		return smtc.SeekTo(p, shown, pos)
	}
	b, ok := c.Button()
	if !ok {
		return false, nil
	}
	return smtc.Press(p, shown, b)
}

// maxPosition is the largest position Position returns: far beyond any
// track, far below time.Duration's overflow.
const maxPosition = 1000 * time.Hour

// Position is an MPChangePlaybackPositionCommandEvent's positionTime (an
// NSTimeInterval, seconds) as a Duration: NaN and negatives are 0, and it
// is at most maxPosition (smtc.SeekTo bounds it by the track).
func Position(seconds float64) time.Duration {
	if math.IsNaN(seconds) || seconds <= 0 {
		return 0
	}
	if seconds >= maxPosition.Seconds() {
		return maxPosition
	}
	return time.Duration(seconds * float64(time.Second))
}
