package audio

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentinel errors. Wrapped errors carry the details; test with errors.Is.
var (
	// ErrUnknownFormat reports content that is none of the containers
	// Sniff knows (MP3, Ogg, WAV, FLAC, MP4, ADTS, AIFF).
	ErrUnknownFormat = errors.New("audio: unknown audio format")
	// ErrUnsupported reports a recognised container with content this
	// build cannot decode (a codec FFmpeg lacks, an Ogg stream of another
	// codec; *NeedsFFmpegError in a build without FFmpeg).
	ErrUnsupported = errors.New("audio: unsupported audio content")
	// ErrNoAudio reports a container without an audio stream (a video
	// without sound, an MP4 of chapters only).
	ErrNoAudio = errors.New("audio: no audio in the file")
	// ErrProtected reports encrypted (DRM-protected) audio, such as
	// iTunes Store purchases of before 2009 (.m4p).
	ErrProtected = errors.New("audio: DRM-protected")
	// ErrCorrupt reports data that does not decode, including a decoder
	// panic turned into an error.
	ErrCorrupt = errors.New("audio: corrupt audio data")
	// ErrTooLarge reports a header that declares more than the limits
	// allow (a chunk larger than the file, absurd sample rates).
	ErrTooLarge = errors.New("audio: header exceeds limits")
	// ErrAlreadyOpen reports a second Open in one process.
	ErrAlreadyOpen = errors.New("audio: output already opened in this process")
	// ErrNotConsuming reports a device that opened but does not consume
	// samples (not yet started, or stalled).
	ErrNotConsuming = errors.New("audio: device is not consuming samples")
	// ErrClosed reports use of an Output after Close.
	ErrClosed = errors.New("audio: output closed")
	// ErrNoSource reports a Source with neither Path nor Open.
	ErrNoSource = errors.New("audio: source has neither path nor opener")
)

// NeedsFFmpegError reports content that only the FFmpeg decoders play, in
// a build without them. It matches ErrUnsupported.
type NeedsFFmpegError struct {
	What string // what the file holds, for users: "Opus", "24-bit WAV"
}

func (e *NeedsFFmpegError) Error() string {
	return "audio: " + e.What + " needs FFmpeg's libraries"
}

// Is makes errors.Is(err, ErrUnsupported) true.
func (e *NeedsFFmpegError) Is(target error) bool { return target == ErrUnsupported }

// needsFFmpeg returns a *NeedsFFmpegError for what.
func needsFFmpeg(what string) error { return &NeedsFFmpegError{What: what} }

// maxReasonBytes bounds Reason's text: device errors can quote long paths.
const maxReasonBytes = 120

// Reason turns an Availability or Report error into a short phrase for a
// user ("the device is not taking any sound", "connection refused"): no
// package prefixes or call sites; the full error belongs in the log.
func Reason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrNotConsuming):
		return "the device is not taking any sound"
	case errors.Is(err, ErrClosed):
		return "the output was closed"
	}
	// "oto: ALSA error at snd_pcm_open: "default": Connection refused":
	// the last part says what went wrong.
	text := strings.TrimSpace(err.Error())
	if i := strings.LastIndex(text, ": "); i >= 0 && strings.TrimSpace(text[i+2:]) != "" {
		text = strings.TrimSpace(text[i+2:])
	}
	if len(text) > maxReasonBytes {
		text = strings.ToValidUTF8(text[:maxReasonBytes], "") + "…"
	}
	if r, n := utf8.DecodeRuneInString(text); n > 0 && unicode.IsUpper(r) && !isAcronym(text) {
		text = string(unicode.ToLower(r)) + text[n:]
	}
	if text == "" {
		return "unknown error"
	}
	return text
}

// isAcronym reports whether s starts with two capitals (ALSA, EPIPE), which
// keep their case.
func isAcronym(s string) bool {
	return len(s) >= 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}
