package library

import (
	"strings"
	"time"
)

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
	// Added is when the file entered this device's library (kept across
	// rescans and moves); zero for a track not read from the catalog.
	Added time.Time `json:"added,omitzero"`
}

// AlbumIDPrefix starts every AlbumID.
const AlbumIDPrefix = "al:"

// AlbumArtistOrFirst is the artist an album is listed under: the album artist
// tag, else the track's first artist.
func (t Track) AlbumArtistOrFirst() string {
	if t.AlbumArtist != "" {
		return t.AlbumArtist
	}
	if len(t.Artists) > 0 {
		return t.Artists[0]
	}
	return ""
}

// AlbumID names the album t belongs to on this device: its album artist
// (else first artist) and album title, as the catalog groups them. A
// track without an album title belongs to no album: "". Two copies of the
// same recording on different albums have one content id but two album
// ids, which is why covers are looked up by album.
func AlbumID(t Track) string {
	if t.Album == "" {
		return ""
	}
	return AlbumIDPrefix + t.AlbumArtistOrFirst() + "\x1f" + t.Album
}

// ParseAlbumID splits an AlbumID into artist and title.
func ParseAlbumID(id string) (artist, title string, ok bool) {
	rest, found := strings.CutPrefix(id, AlbumIDPrefix)
	if !found {
		return "", "", false
	}
	artist, title, ok = strings.Cut(rest, "\x1f")
	return artist, title, ok && title != ""
}
