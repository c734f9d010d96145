package app

import (
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
)

// Status is what every front end (the window, `furudesk ctl`, MPRIS) shows.
// It is derived from the actor's state after every step and never stored.
// While another device owns the output, the transport fields (Playing,
// PositionMS, Track, Queue, Index, Volume, Shuffle, Repeat) are the owner's,
// from its latest snapshot, with the position extrapolated.
type Status struct {
	DeviceID   engine.DeviceID `json:"device_id"`
	DeviceName string          `json:"device_name"`
	// Fingerprint is this device's key fingerprint: the device it asks to
	// join shows it next to the request, so the user can tell it apart
	// from a look-alike.
	Fingerprint string          `json:"fingerprint"`
	GroupID     string          `json:"group_id"`
	Claim       engine.Claim    `json:"claim"`
	Owner       engine.DeviceID `json:"owner"`
	OwnerName   string          `json:"owner_name"`
	// Rendering is true while this device owns the output (engine
	// MayRender) and, when the music plays, its output has taken the
	// first samples of the current track: a device that just took over
	// says so once it really plays, not when it decided to.
	Rendering bool `json:"rendering"`
	// RenderingSince is when this device last began to render (wall
	// clock); zero while it does not render.
	RenderingSince time.Time     `json:"rendering_since,omitzero"`
	StartupPending bool          `json:"startup_pending"`
	Output         engine.Output `json:"output"` // this device's measured audio output
	OutputError    string        `json:"output_error,omitempty"`
	// OwnerGone says another device owns the output but stopped
	// responding or closed: Playing is false and PositionMS is where it
	// was last heard until it answers again or another device takes over.
	OwnerGone bool `json:"owner_gone,omitempty"`
	// OwnerHeard counts the owner's snapshots this device adopted; a
	// change says the owner confirmed a state (e.g. after a transfer).
	OwnerHeard uint64 `json:"owner_heard"`
	// OwnerNotice is the owner's current shared notice ("B has no file
	// for ...: paused"), empty when none.
	OwnerNotice string        `json:"owner_notice,omitempty"`
	Passive     bool          `json:"passive"`
	Config      engine.Config `json:"config"`
	// ReplayGain is this device's ReplayGain mode: off, track, album or
	// auto (album gain while an album plays in order).
	ReplayGain library.GainMode `json:"replaygain"`

	Playing    bool  `json:"playing"`
	PositionMS int64 `json:"position_ms"`
	// Jumps counts the seeks and track changes controls made in the
	// shared state (queue.State.Jumps): a position that goes back with a
	// new count was moved there on purpose.
	Jumps uint64     `json:"jumps"`
	Track *QueueItem `json:"track"` // nil when the queue is empty
	// Source is where this device plays the current track from, while
	// it renders it: "local" (its own file), "stream" (fetched from
	// Holder as it plays) or "cache" (a copy fetched before).
	Source     string          `json:"source,omitempty"`
	Holder     engine.DeviceID `json:"holder,omitempty"`
	HolderName string          `json:"holder_name,omitempty"`
	TrackLiked bool            `json:"track_liked,omitempty"`
	QueueLen   int             `json:"queue_len"`
	Queue      []QueueItem     `json:"queue,omitempty"`
	Index      int             `json:"index"`
	Volume     int             `json:"volume"` // 0..100
	Shuffle    bool            `json:"shuffle"`
	// Order is the play order while Shuffle is on: the indexes of Queue in
	// the order they play (the same on every device); empty otherwise.
	Order  []int  `json:"order,omitempty"`
	Repeat string `json:"repeat"` // "off", "all", "one"

	Listen string `json:"listen"`
	// Reach is how this device is reached from outside its network.
	Reach   *ReachStatus     `json:"reach,omitempty"`
	Devices []DeviceStatus   `json:"devices"`
	Pairing []PairingRequest `json:"pairing,omitempty"`

	Scan           ScanStatus `json:"scan"`
	LibraryVersion uint64     `json:"library_version"` // changes whenever the union of the group's libraries changed
	// PlacesVersion changes whenever the devices that hold tracks this
	// one lacks came or went, or the cache changed: where tracks play
	// from (App.Places).
	PlacesVersion uint64 `json:"places_version"`
	// PlaylistsVersion changes whenever playlists, likes or play counts
	// changed, here or on another device.
	PlaylistsVersion uint64   `json:"playlists_version"`
	Folders          []string `json:"folders"`

	// Notices are recent user-facing messages, newest last: "Playing on
	// Living room", "Could not play x.mp3: not an audio file", ... Each has
	// an id so a front end shows each one once.
	Notices []Notice `json:"notices,omitempty"`
}

// QueueItem is one entry of the shared queue. Tracks are named by content id
// on the wire; Path is only set on the device that has the file.
type QueueItem struct {
	ContentID  string   `json:"content_id"`
	Title      string   `json:"title"`
	Artists    []string `json:"artists,omitempty"`
	Album      string   `json:"album,omitempty"`
	DurationMS int64    `json:"duration_ms"`
	Path       string   `json:"path,omitempty"`
}

// DeviceStatus is one device of the trusted group. Online is presentation
// only: it never feeds ownership.
type DeviceStatus struct {
	DeviceID    engine.DeviceID `json:"device_id"`
	Name        string          `json:"name"`
	Fingerprint string          `json:"fingerprint,omitempty"`
	Online      bool            `json:"online"`
	// Relayed says an online device is not reached directly: its
	// snapshots come through other devices of the group.
	Relayed bool `json:"relayed,omitempty"`
	// Via and ViaName name the member that carries this device's
	// connection when it is not reached directly ("through Living room").
	Via     engine.DeviceID `json:"via,omitempty"`
	ViaName string          `json:"via_name,omitempty"`
	// Unreachable says why an offline member cannot be reached: "no
	// direct route and no member carries it", ...
	Unreachable string `json:"unreachable,omitempty"`
	Owner       bool   `json:"owner"`
	Self        bool   `json:"self"`
	// Box: the device runs without a window (an always-on box).
	Box bool `json:"box,omitempty"`
	// Output names the endpoint the device plays through when it is not
	// the device itself: the browser a web hub plays in, while that page is
	// open as its output ("Linux · Chrome"). Presentation only.
	Output string `json:"output,omitempty"`
	// Selectable says whether the device picker may offer this device:
	// this device, or another one that is online. Transfer refuses the
	// others (ErrOffline), so a front end disables their entries.
	Selectable bool `json:"selectable"`
}

// Shown is the device as pickers name it: the endpoint it plays through,
// by way of the device ("Linux · Chrome (via Web hub)"), else its name.
func (d DeviceStatus) Shown() string {
	if d.Output == "" {
		return d.Name
	}
	if d.Name == "" {
		return d.Output
	}
	return d.Output + " (via " + d.Name + ")"
}

// PairingRequest is a device asking to join, waiting for the user's answer.
//
// Fingerprint is the requester's key fingerprint, the one it shows as its
// own (Status.Fingerprint): compare them before accepting, since a device
// can call itself by any name.
type PairingRequest struct {
	ID            string          `json:"id"`
	DeviceID      engine.DeviceID `json:"device_id"`
	Name          string          `json:"name"`
	Fingerprint   string          `json:"fingerprint"`
	GroupConflict bool            `json:"group_conflict"` // ask: join their group or keep ours
}

// ScanStatus is the progress of the library scan.
type ScanStatus struct {
	Running bool   `json:"running"`
	Done    int    `json:"done"`
	Found   int    `json:"found"`
	Current string `json:"current,omitempty"`
	Errors  int    `json:"errors"`
	// Failed names the first files (at most MaxScanFailed) the last scan
	// could not read, and why.
	Failed []ScanFailure `json:"failed,omitempty"`
	// Missing are the music folders that are gone or cannot be read (the
	// last scan's, and those the watcher saw go since).
	Missing []string `json:"missing,omitempty"`
}

// MaxScanFailed bounds ScanStatus.Failed.
const MaxScanFailed = 50

// ScanFailure is one file or folder a scan skipped.
type ScanFailure struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Notice is a message for the user.
type Notice struct {
	ID    uint64 `json:"id"`
	Level string `json:"level"` // "info", "error"
	Text  string `json:"text"`
}
