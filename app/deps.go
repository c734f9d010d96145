package app

import (
	"context"
	"encoding/json"
	"net"
	"time"

	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/storage"
)

// Store is what the actor needs from the database. *storage.Store
// implements it. Commit is the one durable write of a transition; the
// actor calls it before any effect of that transition.
type Store interface {
	Commit(t storage.Transition) error
	LoadCheckpoint(group string) (engine.Checkpoint, bool, error)
	Queue() (storage.QueueState, error)
	PlaybackConfig() (engine.Config, error)
	SetPlaybackConfig(c engine.Config) error
	Setting(key string) (string, bool, error)
	SetSetting(key, value string) error
	SetGroup(group string) error
	SetDeviceName(name string) error
	LibraryFolders() ([]string, error)
	SetLibraryFolders(folders []string) error
	DeleteTracksUnder(folder string) (int64, error)
	TrackByContentID(id string) (library.Track, error)
	TrackByPath(path string) (library.Track, error)
	// TracksByContentIDs returns the local tracks of ids that exist (the
	// first by path when several files share one), by content id.
	TracksByContentIDs(ids []string) (map[string]library.Track, error)
	TrackCount() (int, error)
	AlbumCoverTrack(artist, title string) (library.Track, error)
	Tracks() ([]library.Track, error)
	EachTrack(offset, limit int, fn func(library.Track) error) error
	Search(query string, limit int) ([]library.Track, error)
}

// Output is the local audio endpoint. *audio.Output implements it. Its
// methods return quickly; Report is the measured truth fed to Heartbeat.
type Output interface {
	Play(src audio.Source, at time.Duration) audio.Track
	PrepareNext(src audio.Source) audio.Track
	ClearNext()
	Pause()
	Resume()
	Stop()
	Seek(d time.Duration) bool
	SetVolume(v int)
	SetGain(t audio.Track, db float64) bool
	Report() audio.Report
	Events() <-chan audio.Event
}

// Relay is an Output whose reports come from another endpoint through a
// gateway (the web hub's browser): its only liveness inputs are the
// audio.Relayed events it sends, fed to engine.OutputReport; the actor
// never heartbeats its Report on a tick.
type Relay interface {
	Relays() bool
}

// Labeled is an Output that plays through another endpoint and names it
// (the web hub's browser chosen last, while it is open): the devices'
// pickers show that name. Presentation only: it never feeds ownership.
type Labeled interface {
	// OutputLabel is the endpoint's name, "" when there is none now.
	OutputLabel() string
}

// Transport carries snapshots and stamped commands between the trusted
// devices and runs pairing. *devicesync.Node implements it. Devices and
// its Online flags are presentation only.
type Transport interface {
	ID() engine.DeviceID
	Group() string
	Addr() net.Addr
	Events() <-chan devicesync.Event
	PublishSnapshot(state json.RawMessage, c engine.Coordination) error
	SendCommand(target engine.DeviceID, stamp engine.CommandStamp, handoff bool, body json.RawMessage) (string, error)
	Devices() []devicesync.DeviceInfo
	CreateInvite() (code string, expires time.Time, err error)
	Pair(ctx context.Context, code string) error
	Pending() []devicesync.PairingRequest
	Accept(id string, joinTheirs bool) error
	Deny(id string) error
	Revoke(id engine.DeviceID) error
	Leave() error
}

// Library scans music folders into the catalog and watches them. Both run
// on their own goroutines (never the actor's); progress must return
// quickly. The actor calls Watch before Scan so no change falls between.
type Library interface {
	Scan(ctx context.Context, roots []string, progress func(library.Progress)) (library.ScanResult, error)
	Watch(ctx context.Context, roots []string) (Watcher, error)
}

// Watcher reports the changes of the watched music folders after the
// catalog was updated; its Events channel is closed when it stops (ctx
// done or Close). *library.Watcher implements it.
type Watcher interface {
	Events() <-chan library.Event
	Close() error
}

// Compile-time checks that the real packages satisfy the interfaces.
var (
	_ Store     = (*storage.Store)(nil)
	_ Output    = (*audio.Output)(nil)
	_ Transport = (*devicesync.Node)(nil)
	_ Library   = Scanner{}
	_ Watcher   = (*library.Watcher)(nil)
)
