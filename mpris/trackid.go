package mpris

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/godbus/dbus/v5"
)

const (
	// TrackPathPrefix starts every mpris:trackid furudesk hands out. The
	// specification reserves /org/mpris for itself.
	TrackPathPrefix = "/org/furudesk/track/"
	// NoTrack is the specification's track id for "no track".
	NoTrack dbus.ObjectPath = "/org/mpris/MediaPlayer2/TrackList/NoTrack"
	// maxEscapedID bounds the last element of a track path; longer content
	// ids are named by their SHA-256.
	maxEscapedID = 200
)

// TrackID is the mpris:trackid of the track with this content id: the id
// with every byte outside [A-Za-z0-9] written as _XX (hex), so distinct ids
// give distinct paths ("b3:1f..." → /org/furudesk/track/b3_3a1f...). An
// empty id is NoTrack.
func TrackID(contentID string) dbus.ObjectPath {
	if contentID == "" {
		return NoTrack
	}
	return dbus.ObjectPath(TrackPathPrefix + idElement(contentID))
}

// idElement names a content id in object paths and file names: escaped,
// or by its SHA-256 when the escaped form is too long.
func idElement(contentID string) string {
	esc := escapeElement(contentID)
	if len(esc) > maxEscapedID {
		sum := sha256.Sum256([]byte(contentID))
		esc = "sha256_" + hex.EncodeToString(sum[:])
	}
	return esc
}

// escapeElement makes s a valid object path element.
func escapeElement(s string) string {
	const digits = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('_')
		b.WriteByte(digits[c>>4])
		b.WriteByte(digits[c&15])
	}
	return b.String()
}
