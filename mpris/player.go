package mpris

import (
	"time"

	"github.com/furudesk/furudesk/app"
)

// Player is what the MPRIS server needs from the app. *app.App implements
// it. All methods must be safe from any goroutine and return within a
// bounded time: they run on D-Bus handler goroutines. Errors are shown to
// the D-Bus caller as org.freedesktop.DBus.Error.Failed with their text.
type Player interface {
	// Status is the latest published status.
	Status() app.Status
	// Subscribe returns a latest-value channel of statuses and a cancel
	// func; the server reads it until Close.
	Subscribe() (updates <-chan app.Status, cancel func())
	TogglePlay() error
	Pause() error
	Resume() error
	Next() error
	Prev() error
	// Seek moves to an absolute position in the current track.
	Seek(pos time.Duration) error
	// SetVolume takes 0..100.
	SetVolume(v int) error
	SetShuffle(on bool) error
	// SetRepeat takes "off", "one" or "all".
	SetRepeat(mode string) error
}

var _ Player = (*app.App)(nil)

// Opener is what OpenUri needs; a Player that has it says so in
// SupportedUriSchemes (file) and SupportedMimeTypes (the library's).
type Opener interface {
	// OpenFiles plays the files at paths (absolute) now.
	OpenFiles(paths []string, enqueue bool) (app.Opened, error)
}

var _ Opener = (*app.App)(nil)
