package nowplaying

import (
	"errors"
	"log/slog"
	"time"
)

// Errors of Start.
var (
	// ErrUnsupported is returned by Start where there is no macOS.
	ErrUnsupported = errors.New("nowplaying: MPRemoteCommandCenter and MPNowPlayingInfoCenter are macOS only")
	// ErrNoPlayer is returned by Start with a nil Player.
	ErrNoPlayer = errors.New("nowplaying: no player to show")
	// ErrNoMainThread is returned by Start without Options.Main: the
	// remote commands arrive on the main thread's run loop, which only a
	// window's event loop runs (a headless furudesk has none).
	ErrNoMainThread = errors.New("nowplaying: no main run loop to receive the media keys on")
	// ErrRunning is returned by Start while another session is open: the
	// OS has one command center and one now-playing entry per process.
	ErrRunning = errors.New("nowplaying: a session is already running")
)

// Options are the parts of a session.
type Options struct {
	// Main runs f on the main thread, in order, without waiting for it:
	// fyne.Do (framegov.Do in furudesk). Required. Every call on the
	// command center and the now-playing center goes through it.
	Main func(f func())
	// ArtURL returns a file:// URL of the cover of a track, or "" when
	// there is none; nil shows no artwork. It is called on the session's
	// goroutine when the track or the library version changes.
	ArtURL func(contentID string) string
	// Now is the clock the timeline is kept with; nil is time.Now.
	Now func() time.Time
	// Logger receives failed commands and what could not be had on the
	// main thread; nil discards.
	Logger *slog.Logger
}

// Limits of a session.
const (
	// MaxPendingCommands bounds the commands waiting for the session's
	// goroutine; more are dropped (a key held down repeats).
	MaxPendingCommands = 16
)
