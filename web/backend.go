package web

import (
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/engine"
)

// Backend is what the web player needs from the app (*app.App satisfies
// it). The controls are the same App methods ctl and the window call, so
// a page's command is stamped and sent to the owner exactly as theirs.
// Every method is safe from any goroutine and blocks for a bounded time.
type Backend interface {
	// Status returns the latest status; Subscribe delivers newer ones on
	// a latest-value channel until cancel is called.
	Status() app.Status
	Subscribe() (updates <-chan app.Status, cancel func())

	TogglePlay() error
	Next() error
	Prev() error
	Seek(pos time.Duration) error
	SetVolume(v int) error
	SetShuffle(on bool) error
	SetRepeat(mode string) error
	Transfer(to engine.DeviceID) error

	JumpTo(index int) error
	MoveInQueue(indexes []int, ids []string, to int) error
	RemoveQueueEntries(indexes []int, ids []string) error
	Enqueue(contentIDs []string, next bool) error
	PlayTracks(contentIDs []string, start int) error

	Library() ([]app.LibraryTrack, error)
	SearchLibrary(query string, limit int) ([]app.LibraryTrack, error)
	Cover(contentID string) ([]byte, error)

	Playlists() ([]app.PlaylistSummary, error)
	Playlist(id string) (app.PlaylistView, error)
	AddToPlaylist(id string, contentIDs []string, at int) error
	PlayPlaylist(id string, start int, appendToQueue bool) error
	SetLiked(contentID string, liked bool) error
}

var _ Backend = (*app.App)(nil)

// CredStore keeps the paired browsers (Pairing.Marshal's bytes) across
// launches.
type CredStore interface {
	LoadBrowsers() ([]byte, error)
	SaveBrowsers(data []byte) error
}
