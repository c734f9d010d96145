package grouplib

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"lukechampine.com/blake3"

	"github.com/furudesk/furudesk/formats"
	"github.com/furudesk/furudesk/library"
)

// Entry is one track of a device's catalog as it travels between devices:
// what the library shows and what a fetch needs (content id, tags,
// duration, format, size, whether it has cover art, ReplayGain), never a
// local path. A catalog lists each content id once.
type Entry struct {
	ContentID   string             `json:"id"`
	Title       string             `json:"t,omitempty"`
	Artists     []string           `json:"a,omitempty"`
	Album       string             `json:"al,omitempty"`
	AlbumArtist string             `json:"aa,omitempty"`
	TrackNo     int                `json:"n,omitempty"`
	DiscNo      int                `json:"dn,omitempty"`
	Year        int                `json:"y,omitempty"`
	Genre       string             `json:"g,omitempty"`
	DurationMS  int64              `json:"ms,omitempty"`
	Format      string             `json:"f"`
	Size        int64              `json:"sz"`
	Cover       bool               `json:"c,omitempty"` // the holder has cover art for it (fetched by content id)
	Gain        library.ReplayGain `json:"rg,omitzero"`
}

// Limits of an entry: what a peer may send.
const (
	maxTextBytes     = 1024
	maxArtists       = 32
	maxContentIDLen  = 128
	maxTrackSize     = 1 << 40
	maxFormatLen     = 8
	maxEntryDuration = 100 * 24 * time.Hour
)

// ErrBadEntry is returned for an entry outside the limits.
var ErrBadEntry = errors.New("grouplib: malformed catalog entry")

// EntryOf is the catalog entry of a library track. Text that is not valid
// UTF-8 is repaired, so every device encodes (and hashes) the entry the
// same way.
func EntryOf(t library.Track) Entry {
	e := Entry{ContentID: t.ContentID, Title: clean(t.Title), Album: clean(t.Album), AlbumArtist: clean(t.AlbumArtist),
		TrackNo: t.TrackNo, DiscNo: t.DiscNo, Year: t.Year, Genre: clean(t.Genre), DurationMS: t.Duration.Milliseconds(),
		Format: t.Format, Size: t.Size, Cover: t.Cover != "", Gain: t.Gain}
	for _, a := range t.Artists {
		if len(e.Artists) < maxArtists {
			e.Artists = append(e.Artists, clean(a))
		}
	}
	return e
}

// clean makes s valid UTF-8 of at most maxTextBytes.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxTextBytes {
		return s
	}
	s = s[:maxTextBytes]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// Track is the entry as a library track without a path: how the union
// lists a track this device has no file for.
func (e Entry) Track() library.Track {
	return library.Track{ContentID: e.ContentID, Size: e.Size, Format: e.Format, Title: e.Title,
		Artists: append([]string(nil), e.Artists...), Album: e.Album, AlbumArtist: e.AlbumArtist, TrackNo: e.TrackNo,
		DiscNo: e.DiscNo, Year: e.Year, Genre: e.Genre, Duration: time.Duration(e.DurationMS) * time.Millisecond,
		Cover: coverRef(e.Cover), Gain: e.Gain}
}

// CoverRemote is library.Track.Cover for a track whose cover art is on
// another device.
const CoverRemote = "remote"

func coverRef(has bool) string {
	if has {
		return CoverRemote
	}
	return ""
}

// validate checks an entry a peer sent.
func (e Entry) validate() error {
	bad := func(what string) error { return fmt.Errorf("%w: %s of %q", ErrBadEntry, what, trim(e.ContentID)) }
	switch {
	case !ValidContentID(e.ContentID):
		return fmt.Errorf("%w: content id %q", ErrBadEntry, trim(e.ContentID))
	case !validText(e.Title) || !validText(e.Album) || !validText(e.AlbumArtist) || !validText(e.Genre):
		return bad("text")
	case len(e.Artists) > maxArtists:
		return bad("artists")
	case e.Size <= 0 || e.Size > maxTrackSize:
		return bad("size")
	case e.Format == "" || len(e.Format) > maxFormatLen || Ext(e.Format) == "":
		return bad("format")
	case e.DurationMS < 0 || e.DurationMS > maxEntryDuration.Milliseconds():
		return bad("duration")
	case e.TrackNo < 0 || e.DiscNo < 0 || e.Year < 0 || e.TrackNo > 1e6 || e.DiscNo > 1e6 || e.Year > 1e5:
		return bad("numbers")
	case !finite(e.Gain.TrackGain, e.Gain.TrackPeak, e.Gain.AlbumGain, e.Gain.AlbumPeak):
		return bad("ReplayGain")
	}
	for _, a := range e.Artists {
		if !validText(a) {
			return bad("artist")
		}
	}
	return nil
}

func validText(s string) bool { return len(s) <= maxTextBytes && utf8.ValidString(s) }

func finite(fs ...float64) bool {
	for _, f := range fs {
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e6 {
			return false
		}
	}
	return true
}

func trim(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// ValidContentID reports whether id has the shape of a content id: the
// prefix and 64 lower-case hex digits.
func ValidContentID(id string) bool {
	h, ok := strings.CutPrefix(id, library.ContentIDPrefix)
	if !ok || len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Ext is the file extension of a catalog format ("flac" → ".flac"), ""
// for one the library does not index.
func Ext(format string) string { return formats.Ext(format) }

// Hash is a BLAKE3-256 digest.
type Hash [32]byte

// contentHash is the hash of the entry's canonical encoding: every field,
// length-prefixed, in a fixed order. It does not depend on JSON, so any
// two devices that hold the same entry compute the same hash.
func (e Entry) contentHash() Hash {
	b := make([]byte, 0, 256)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	num := func(v int64) { b = binary.AppendVarint(b, v) }
	flt := func(f float64) { b = binary.BigEndian.AppendUint64(b, math.Float64bits(f)) }
	flag := func(f bool) {
		if f {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	str("furudesk/catalog-entry/v1")
	str(e.ContentID)
	str(e.Title)
	num(int64(len(e.Artists)))
	for _, a := range e.Artists {
		str(a)
	}
	str(e.Album)
	str(e.AlbumArtist)
	num(int64(e.TrackNo))
	num(int64(e.DiscNo))
	num(int64(e.Year))
	str(e.Genre)
	num(e.DurationMS)
	str(e.Format)
	num(e.Size)
	flag(e.Cover)
	flt(e.Gain.TrackGain)
	flt(e.Gain.TrackPeak)
	flag(e.Gain.HasTrack)
	flt(e.Gain.AlbumGain)
	flt(e.Gain.AlbumPeak)
	flag(e.Gain.HasAlbum)
	return blake3.Sum256(b)
}

// Item is an entry of a catalog with the catalog version it last changed
// at. Items are immutable once made (newItem): catalogs and the union
// share them.
type Item struct {
	Entry
	Ver     uint64
	content Hash // contentHash of Entry
	hash    Hash // of content and Ver: what the catalog digest covers
}

func newItem(e Entry, ver uint64) *Item {
	it := &Item{Entry: e, Ver: ver, content: e.contentHash()}
	it.hash = itemHash(it.content, ver)
	return it
}

// itemHash is the hash of an item of an entry's content hash at a
// version: what the catalog digest covers.
func itemHash(content Hash, ver uint64) Hash {
	var b [40]byte
	copy(b[:], content[:])
	binary.BigEndian.PutUint64(b[32:], ver)
	return blake3.Sum256(b[:])
}
