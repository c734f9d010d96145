// Package library turns the user's music folders into the catalog the player
// shows: scanning, tags, cover art, content ids, live watching and search.
package library

import "time"

// Track is one playable file of the catalog. The wire and the queue refer to
// tracks by ContentID, never by Path: the same recording is the same track
// across devices and renames.
type Track struct {
	ContentID   string        `json:"content_id"` // "b3:" + BLAKE3 hex of the audio data (tags left out: retagging keeps it)
	Path        string        `json:"path"`       // absolute path on this device
	Size        int64         `json:"size"`
	ModTime     time.Time     `json:"mod_time"`
	Format      string        `json:"format"` // mp3, ogg, opus, flac, wav, m4a, aiff
	Title       string        `json:"title"`
	Artists     []string      `json:"artists"`
	Album       string        `json:"album"`
	AlbumArtist string        `json:"album_artist"`
	TrackNo     int           `json:"track_no"`
	DiscNo      int           `json:"disc_no"`
	Year        int           `json:"year"`
	Genre       string        `json:"genre"`
	Duration    time.Duration `json:"duration"`
	Cover       string        `json:"cover,omitempty"` // cover art reference: "embedded" or a path beside the file
	Gain        ReplayGain    `json:"replaygain,omitzero"`
}
