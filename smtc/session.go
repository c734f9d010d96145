package smtc

import (
	"errors"
	"log/slog"
	"time"
)

// Errors of Start.
var (
	// ErrUnsupported is returned by Start where there is no Windows.
	ErrUnsupported = errors.New("smtc: the System Media Transport Controls and media-key hotkeys are Windows only")
	// ErrNoPlayer is returned by Start with a nil Player.
	ErrNoPlayer = errors.New("smtc: no player to show")
	// ErrNoWindow is the Reason SMTC is not used when Start had no window
	// handle (a headless furudesk): SMTC belongs to a window.
	ErrNoWindow = errors.New("smtc: no window to attach the System Media Transport Controls to")
)

// Mode is the path the media keys take.
type Mode int

// The modes.
const (
	// ModeNone: neither SMTC nor the hotkeys could be had.
	ModeNone Mode = iota
	// ModeSMTC: the System Media Transport Controls of the window.
	ModeSMTC
	// ModeHotkeys: the media keys registered as global hotkeys.
	ModeHotkeys
)

func (m Mode) String() string {
	switch m {
	case ModeSMTC:
		return "System Media Transport Controls"
	case ModeHotkeys:
		return "global hotkeys"
	}
	return "none"
}

// Options are the optional parts of a session.
type Options struct {
	// HWND is the window SMTC belongs to; 0 takes the hotkeys only.
	HWND uintptr
	// ArtURL returns a URI (file:///C:/...) of the cover of a track, or ""
	// when there is none; nil shows no thumbnails. It is called on the
	// session's thread when the track or the library version changes.
	ArtURL func(contentID string) string
	// Now is the clock the timeline is kept with; nil is time.Now.
	Now func() time.Time
	// Logger receives failed pushes and controls (at Debug: they are not
	// the user's concern); nil discards.
	Logger *slog.Logger
}

// Limits of a session.
const (
	// MaxPendingPresses bounds the presses waiting for the session's
	// thread; more are dropped (a key held down repeats).
	MaxPendingPresses = 16
)
