package ui

import (
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
)

// Backend is what the window needs from the app (*app.App satisfies it).
// Every method is safe from any goroutine and may block for a bounded time,
// so the window calls the intents off the UI goroutine; errors are
// user-readable sentences shown where the action was taken.
type Backend interface {
	// Status returns the latest published status; Subscribe delivers newer
	// ones on a latest-value channel until cancel is called.
	Status() app.Status
	Subscribe() (updates <-chan app.Status, cancel func())

	PlayTracks(contentIDs []string, start int) error
	Enqueue(contentIDs []string, next bool) error
	// OpenFiles plays files and folders (absolute paths) from outside,
	// such as those dropped on the window, or appends them (enqueue). It
	// reads each file: call it off the UI goroutine.
	OpenFiles(paths []string, enqueue bool) (app.Opened, error)
	JumpTo(index int) error
	RemoveFromQueue(index int) error
	// MoveInQueue, RemoveQueueEntries and RestoreQueue edit the shared
	// queue (see app.App): indexes as in Status.Queue, ids their content
	// ids, to a place in the play order.
	MoveInQueue(indexes []int, ids []string, to int) error
	RemoveQueueEntries(indexes []int, ids []string) error
	RestoreQueue(q app.SavedQueue) error
	ClearQueue() error
	TogglePlay() error
	Next() error
	Prev() error
	Seek(pos time.Duration) error
	SetVolume(v int) error
	SetShuffle(on bool) error
	SetRepeat(mode string) error

	Transfer(to engine.DeviceID) error
	Invite() (app.Invite, error)
	Pair(code string) error
	Accept(requestID string, joinTheirs bool) error
	Deny(requestID string) error
	Revoke(device engine.DeviceID) error
	SetDeviceName(name string) error

	PlaybackConfig() engine.Config
	SetPlaybackConfig(cfg engine.Config) error
	SetPassive(on bool) error
	SetReplayGain(mode string) error

	// Playlists, likes and history: the group's, the same on every device
	// (Status.PlaylistsVersion moves when they changed). Ids are
	// PlaylistSummary.ID; indexes count from 0 as listed.
	Playlists() ([]app.PlaylistSummary, error)
	Playlist(id string) (app.PlaylistView, error)
	CreatePlaylist(name string) (app.PlaylistSummary, error)
	RenamePlaylist(id, name string) error
	DeletePlaylist(id string) error
	AddToPlaylist(id string, contentIDs []string, at int) error
	RemoveFromPlaylist(id string, indexes []int) error
	MoveInPlaylist(id string, from, to int) error
	PlayPlaylist(id string, start int, appendToQueue bool) error
	SetLiked(contentID string, liked bool) error
	LikedIDs() (map[string]bool, error)
	PlayCounts() (map[string]app.PlayStats, error)
	ImportPlaylist(file string) (app.ImportReport, error)
	ExportPlaylist(id, file string) (app.ExportReport, error)

	// EachTrack calls fn with every track of the group's library in
	// Library's order, one at a time (the window keeps its own copy, not
	// the list); an error of fn stops it and is returned.
	EachTrack(fn func(library.Track) error) error
	// Places says where each track only other devices have is and whether
	// it plays now, by content id (Status.PlacesVersion moves when that
	// changed); tracks with a file here are in none of it.
	Places() (map[string]app.Place, error)
	Cover(contentID string) ([]byte, error)
	// The cache of tracks played from other devices and what this device
	// sends them (see app.App).
	Cache() (app.CacheStatus, error)
	SetCacheLimit(mb int64) error
	ClearCache() error
	UploadLimit() int64
	SetUploadLimit(kbps int64) error
	// Carry and SetCarry: Settings › Carry other devices' traffic.
	Carry() bool
	SetCarry(on bool) error
	// SetPublicAddrs and SetPortMap: Settings › Reach from outside (what
	// they did is in Status.Reach).
	SetPublicAddrs(addrs []string) error
	SetPortMap(on bool) error
	AlbumCover(albumID string) ([]byte, error)
	AddFolder(path string) error
	RemoveFolder(path string) error
	Rescan() error
	GenerateDemo() error
}
