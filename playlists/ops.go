package playlists

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Op kinds this package reads. Devices that do not know them store and
// relay them.
const (
	KindPlaylistCreated = "playlist_created"
	KindPlaylistRenamed = "playlist_renamed"
	KindPlaylistDeleted = "playlist_deleted"
	KindTrackAdded      = "playlist_track_added"
	KindTrackRemoved    = "playlist_track_removed"
	KindTrackMoved      = "playlist_track_moved"
	KindLikeSet         = "track_like_set"
	KindListenRecorded  = "listen_recorded"
)

var kinds = []string{KindPlaylistCreated, KindPlaylistRenamed, KindPlaylistDeleted, KindTrackAdded,
	KindTrackRemoved, KindTrackMoved, KindLikeSet, KindListenRecorded}

// Kinds lists the op kinds this package reads.
func Kinds() []string { return slices.Clone(kinds) }

// IsKind reports whether kind is one of Kinds.
func IsKind(kind string) bool { return slices.Contains(kinds, kind) }

// Limits. Local edits beyond them are refused with an error naming the
// limit; ops from other devices that break the per-op limits are ignored
// whole, on every device alike.
const (
	MaxNameRunes    = 200
	MaxPlaylists    = 10_000  // live playlists in a group
	MaxEntries      = 100_000 // entries of one playlist
	MaxItemsPerOp   = 1000    // entries, removals or moves in one op
	MaxEditBytes    = 256 << 10
	MaxIDBytes      = 200
	MaxContentID    = 128
	MaxTextBytes    = 1024
	MaxTrackArtists = 32
)

// Op is one entry of the group's operation log, as devicesync keeps it.
// ID is unique ("origin:seq"); HLCms is the hybrid logical clock of the op,
// greater than that of every op its origin had seen.
type Op struct {
	ID     string
	Origin string
	Seq    uint64
	HLCms  int64
	Kind   string
	Body   json.RawMessage
}

// Edit is an op to append: what a Plan function returns.
type Edit struct {
	Kind string
	Body json.RawMessage
}

// Track is a track as entries, likes and listens name it: its content id,
// and what to show of it where no device has the file.
type Track struct {
	ContentID  string   `json:"id"`
	Title      string   `json:"title,omitempty"`
	Artists    []string `json:"artists,omitempty"`
	Album      string   `json:"album,omitempty"`
	DurationMS int64    `json:"duration_ms,omitempty"`
}

// The op bodies. AtMS, where present, dates a last-writer-wins value older
// than its op (a value carried into another group keeps its date); it is
// never later than the op's own clock.
type (
	createdBody struct {
		ID   string `json:"id,omitempty"` // default: the op id; set when carried into another group
		Name string `json:"name"`
		AtMS int64  `json:"at_ms,omitempty"`
	}
	renamedBody struct {
		Playlist string `json:"playlist"`
		Name     string `json:"name"`
	}
	deletedBody struct {
		Playlist string `json:"playlist"`
	}
	addedBody struct {
		Playlist string       `json:"playlist"`
		Entries  []addedEntry `json:"entries"`
	}
	addedEntry struct {
		ID    string `json:"id,omitempty"` // default: op id + "/" + index; set when carried
		Pos   string `json:"pos"`
		Track Track  `json:"track"`
		AtMS  int64  `json:"at_ms,omitempty"`
	}
	removedBody struct {
		Playlist string   `json:"playlist"`
		Entries  []string `json:"entries"`
	}
	movedBody struct {
		Playlist string `json:"playlist"`
		Moves    []move `json:"moves"`
	}
	move struct {
		Entry string `json:"entry"`
		Pos   string `json:"pos"`
	}
	likeBody struct {
		Track Track `json:"track"`
		Liked bool  `json:"liked"`
		AtMS  int64 `json:"at_ms,omitempty"`
	}
	listenBody struct {
		Track Track  `json:"track"`
		Plays uint64 `json:"plays"` // this device's plays of the track so far, this one included
		AtMS  int64  `json:"at_ms,omitempty"`
	}
)

// decode parses an op body. Unknown fields are allowed (newer versions
// may add some); anything else malformed makes the op ignored.
func decode(body json.RawMessage, v any) bool { return json.Unmarshal(body, v) == nil }

func mustEdit(kind string, v any) Edit {
	b, err := json.Marshal(v)
	if err != nil {
		panic("playlists: encode " + kind + ": " + err.Error())
	}
	return Edit{Kind: kind, Body: b}
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func validID(s string) bool {
	return s != "" && len(s) <= MaxIDBytes && printable(s) && !strings.ContainsAny(s, " \t")
}

// validName reports whether name is a playlist name as stored: trimmed,
// 1 to MaxNameRunes characters, no control characters.
func validName(name string) bool {
	n := utf8.RuneCountInString(name)
	return n > 0 && n <= MaxNameRunes && printable(name) && strings.TrimSpace(name) == name
}

func validTrack(t Track) bool {
	if t.ContentID == "" || len(t.ContentID) > MaxContentID || !printable(t.ContentID) || strings.ContainsAny(t.ContentID, " \t") {
		return false
	}
	if len(t.Title) > MaxTextBytes || len(t.Album) > MaxTextBytes || !printable(t.Title) || !printable(t.Album) {
		return false
	}
	if len(t.Artists) > MaxTrackArtists || t.DurationMS < 0 {
		return false
	}
	for _, a := range t.Artists {
		if len(a) > MaxTextBytes || !printable(a) {
			return false
		}
	}
	return true
}

// cleanTrack cuts a track's texts to the limits, for local edits of tracks
// with overlong tags.
func cleanTrack(t Track) Track {
	cut := func(s string) string {
		s = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, strings.ToValidUTF8(s, "\uFFFD"))
		for len(s) > MaxTextBytes {
			_, n := utf8.DecodeLastRuneInString(s)
			s = s[:len(s)-n]
		}
		return s
	}
	out := Track{ContentID: t.ContentID, Title: cut(t.Title), Album: cut(t.Album), DurationMS: max(t.DurationMS, 0)}
	for _, a := range t.Artists[:min(len(t.Artists), MaxTrackArtists)] {
		out.Artists = append(out.Artists, cut(a))
	}
	return out
}

// stamp orders last-writer-wins values: time, then op id.
type stamp struct {
	ms int64
	id string
}

func (s stamp) after(t stamp) bool {
	if s.ms != t.ms {
		return s.ms > t.ms
	}
	return s.id > t.id
}

// stampOf is the stamp of a value set by op o, dated at (0: the op's own
// clock; never later than it).
func stampOf(o Op, at int64) stamp {
	ms := o.HLCms
	if at > 0 && at < ms {
		ms = at
	}
	return stamp{ms: ms, id: o.ID}
}
