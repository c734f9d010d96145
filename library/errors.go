package library

import "errors"

// Sentinel errors. Errors returned by this package wrap one of these where a
// caller may want to tell cases apart; they are also the categories a scan
// counts in ScanResult.
var (
	// ErrNotAudio means the file's content does not match its extension's
	// format (bad magic, no decodable frames, truncated headers).
	ErrNotAudio = errors.New("library: not an audio file of the expected format")
	// ErrUnsupported means a container furudesk cannot play (an Ogg stream
	// that is not Vorbis, a WAV that is not PCM or float).
	ErrUnsupported = errors.New("library: unsupported audio encoding")
	// ErrNotRegular means the path is not a regular file (FIFO, device,
	// socket), so it is never opened.
	ErrNotRegular = errors.New("library: not a regular file")
	// ErrSymlinkLoop means a symbolic link leads back into a folder that is
	// already being scanned, or cannot be resolved.
	ErrSymlinkLoop = errors.New("library: symbolic link loop")
	// ErrTooDeep means a folder is nested deeper than MaxDepth.
	ErrTooDeep = errors.New("library: folder nesting too deep")
	// ErrRootUnavailable means a music folder does not exist or cannot be
	// listed; its entries are kept (an unmounted disk is not a deletion).
	ErrRootUnavailable = errors.New("library: music folder unavailable")
	// ErrClosed is returned by a Watcher method after Close.
	ErrClosed = errors.New("library: watcher closed")
)
