package library

import (
	"maps"
	"slices"
)

// mimeTypes are the MIME types of each format of formats, as
// shared-mime-info names them, their aliases included: the desktop entry
// and MPRIS announce them, so the file manager offers furudesk for exactly
// the files the library plays.
var mimeTypes = map[string][]string{
	"mp3":  {"audio/mpeg", "audio/mp3", "audio/x-mp3", "audio/x-mpeg"},
	"ogg":  {"audio/ogg", "audio/x-ogg", "audio/vorbis", "audio/x-vorbis", "audio/x-vorbis+ogg"},
	"opus": {"audio/opus", "audio/x-opus+ogg"},
	"flac": {"audio/flac", "audio/x-flac"},
	"wav":  {"audio/wav", "audio/x-wav", "audio/vnd.wave"},
	"m4a":  {"audio/mp4", "audio/x-m4a", "audio/m4a", "audio/x-m4b"},
	"aiff": {"audio/aiff", "audio/x-aiff", "audio/x-aifc"},
}

// MIMETypes lists, sorted, the MIME types of the formats the library
// indexes (formats): what the desktop entry's MimeType= and MPRIS's
// SupportedMimeTypes say furudesk opens.
func MIMETypes() []string {
	seen := map[string]bool{}
	for _, f := range formats {
		for _, m := range mimeTypes[f] {
			seen[m] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}
