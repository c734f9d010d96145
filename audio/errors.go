package audio

import "errors"

// Sentinel errors. Wrapped errors carry the details; test with errors.Is.
var (
	// ErrUnknownFormat reports content that is none of MP3, Ogg Vorbis, WAV
	// or FLAC.
	ErrUnknownFormat = errors.New("audio: unknown audio format")
	// ErrUnsupported reports a recognised container with content this
	// package cannot decode (Opus in Ogg, compressed WAV, ...).
	ErrUnsupported = errors.New("audio: unsupported audio content")
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
