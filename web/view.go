package web

import (
	"github.com/furudesk/furudesk/app"
)

// The page's view of the group: app.Status without what is this device's
// own business (file paths, keys, pairing requests, settings). No local
// path ever reaches a browser: the views are built field by field.

// TrackView is a track as the page shows it.
type TrackView struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Artists    []string `json:"artists,omitempty"`
	Album      string   `json:"album,omitempty"`
	DurationMS int64    `json:"duration_ms"`
}

// DeviceView is a device of the group in the page's picker.
type DeviceView struct {
	ID         string `json:"id"`
	Name       string `json:"name"` // as pickers show it: a hub's browser too (app.DeviceStatus.Shown)
	Online     bool   `json:"online"`
	Owner      bool   `json:"owner"`
	Self       bool   `json:"self"` // the device that serves this page
	Selectable bool   `json:"selectable"`
}

// StateView is what the page shows live; the server pushes a new one
// whenever the app publishes a new status.
type StateView struct {
	Device      DeviceView   `json:"device"`
	Owner       string       `json:"owner"`
	OwnerName   string       `json:"owner_name"`
	OwnerGone   bool         `json:"owner_gone,omitempty"`
	OwnerNotice string       `json:"owner_notice,omitempty"`
	Playing     bool         `json:"playing"`
	PositionMS  int64        `json:"position_ms"`
	Track       *TrackView   `json:"track"`
	Liked       bool         `json:"liked"`
	Queue       []TrackView  `json:"queue"`
	Index       int          `json:"index"`
	Order       []int        `json:"order,omitempty"`
	Shuffle     bool         `json:"shuffle"`
	Repeat      string       `json:"repeat"`
	Volume      int          `json:"volume"`
	Devices     []DeviceView `json:"devices"`
	// The page fetches the library and the playlists again when these move.
	LibraryVersion   uint64 `json:"library_version"`
	PlaylistsVersion uint64 `json:"playlists_version"`
}

func trackView(q app.QueueItem) TrackView {
	return TrackView{ID: q.ContentID, Title: q.Title, Artists: q.Artists, Album: q.Album, DurationMS: q.DurationMS}
}

// ViewOf is the page's view of st.
func ViewOf(st app.Status) StateView {
	v := StateView{Owner: string(st.Owner), OwnerName: st.OwnerName, OwnerGone: st.OwnerGone, OwnerNotice: st.OwnerNotice,
		Playing: st.Playing, PositionMS: st.PositionMS, Liked: st.TrackLiked, Index: st.Index, Order: st.Order,
		Shuffle: st.Shuffle, Repeat: st.Repeat, Volume: st.Volume, Queue: make([]TrackView, 0, len(st.Queue)),
		Devices: make([]DeviceView, 0, len(st.Devices)), LibraryVersion: st.LibraryVersion, PlaylistsVersion: st.PlaylistsVersion}
	v.Device = DeviceView{ID: string(st.DeviceID), Name: st.DeviceName, Online: true, Self: true, Selectable: true, Owner: st.Owner == st.DeviceID}
	if st.Track != nil {
		t := trackView(*st.Track)
		v.Track = &t
	}
	for _, q := range st.Queue {
		v.Queue = append(v.Queue, trackView(q))
	}
	for _, d := range st.Devices {
		v.Devices = append(v.Devices, DeviceView{ID: string(d.DeviceID), Name: d.Shown(), Online: d.Online, Owner: d.Owner, Self: d.Self, Selectable: d.Selectable})
	}
	return v
}

// LibTrack is a track of the group's library as the page lists it, in a
// compact form (a 10,000-track library is one message).
type LibTrack struct {
	ID          string   `json:"id"`
	Title       string   `json:"t"`
	Artists     []string `json:"a,omitempty"`
	Album       string   `json:"al,omitempty"`
	AlbumArtist string   `json:"aa,omitempty"`
	TrackNo     int      `json:"n,omitempty"`
	DiscNo      int      `json:"d,omitempty"`
	Year        int      `json:"y,omitempty"`
	DurationMS  int64    `json:"ms"`
	Playable    bool     `json:"p"`
}

func libTrack(t app.LibraryTrack) LibTrack {
	return LibTrack{ID: t.ContentID, Title: t.Title, Artists: t.Artists, Album: t.Album, AlbumArtist: t.AlbumArtist,
		TrackNo: t.TrackNo, DiscNo: t.DiscNo, Year: t.Year, DurationMS: t.Duration.Milliseconds(), Playable: t.Playable}
}

// PlaylistEntryView is a track of a playlist as the page shows it.
type PlaylistEntryView struct {
	TrackView
	Playable bool `json:"playable"`
	Liked    bool `json:"liked"`
}

// PlaylistView is a playlist with its tracks.
type PlaylistView struct {
	app.PlaylistSummary
	Editable bool                `json:"editable"`
	Entries  []PlaylistEntryView `json:"entries"`
}

func playlistView(p app.PlaylistView) PlaylistView {
	v := PlaylistView{PlaylistSummary: p.PlaylistSummary, Editable: p.Editable(), Entries: make([]PlaylistEntryView, 0, len(p.Entries))}
	for _, e := range p.Entries {
		v.Entries = append(v.Entries, PlaylistEntryView{TrackView: TrackView{ID: e.ContentID, Title: e.Title, Artists: e.Artists,
			Album: e.Album, DurationMS: e.DurationMS}, Playable: e.Playable, Liked: e.Liked})
	}
	return v
}
