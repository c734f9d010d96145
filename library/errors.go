package library

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/furudesk/furudesk/audio"
)

// Sentinel errors. Errors returned by this package wrap one of these where a
// caller may want to tell cases apart; they are also the categories a scan
// counts in ScanResult.
var (
	// ErrNotAudio means the file's content does not match its extension's
	// format (bad magic, no decodable frames, truncated headers).
	ErrNotAudio = errors.New("library: not an audio file of the expected format")
	// ErrUnsupported means audio furudesk cannot play: a format it does
	// not play (WMA), one that needs FFmpeg in a build without it (an
	// *audio.NeedsFFmpegError in the chain), encrypted audio
	// (ErrProtected in the chain), a codec the decoders lack.
	ErrUnsupported = errors.New("library: unsupported audio encoding")
	// ErrProtected means DRM-protected audio (FairPlay .m4p, Audible);
	// errors carrying it also carry ErrUnsupported.
	ErrProtected = errors.New("library: DRM-protected")
	// ErrDamaged means audio the decoder refuses at its start; errors
	// carrying it also carry ErrNotAudio.
	ErrDamaged = errors.New("library: damaged audio data")
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

// Reason says in a few words why a file was not listed, for the scan
// summary: "not audio", "damaged audio data", "DRM-protected", "Opus
// needs FFmpeg's libraries", "WMA files are not supported",
// "permission denied". The caller names the file.
func Reason(err error) string {
	var nf *audio.NeedsFFmpegError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &nf):
		return nf.What + " needs FFmpeg's libraries"
	case errors.Is(err, ErrProtected):
		return "DRM-protected"
	case errors.Is(err, ErrDamaged):
		return "damaged audio data"
	case errors.Is(err, ErrNotAudio):
		return "not audio"
	case errors.Is(err, ErrNotRegular):
		return "not a regular file"
	case errors.Is(err, ErrSymlinkLoop):
		return "a symbolic link loop"
	case errors.Is(err, ErrTooDeep):
		return "folders nested too deep"
	case errors.Is(err, ErrRootUnavailable):
		return "the folder is unavailable"
	case errors.Is(err, fs.ErrNotExist):
		return "the file disappeared"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, ErrUnsupported):
		text := err.Error()
		if i := strings.LastIndex(text, ErrUnsupported.Error()+": "); i >= 0 {
			text = text[i+len(ErrUnsupported.Error())+2:]
		}
		return strings.TrimPrefix(strings.TrimPrefix(text, "audio: "), "library: ")
	}
	text := err.Error()
	if i := strings.LastIndex(text, ": "); i >= 0 {
		text = text[i+2:]
	}
	return text
}
