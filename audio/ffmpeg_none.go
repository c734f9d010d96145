//go:build !(cgo && !noffmpeg && (linux || windows || ffmpeg))

package audio

import (
	"errors"
	"io"
)

// A build without FFmpeg (-tags noffmpeg, cgo off, or macOS without
// -tags ffmpeg): the pure-Go decoders play everything.

func haveFFmpeg() bool { return false }

// WhenLoaded calls f, on a goroutine of its own, with Decoders(): the
// pure-Go decoders are always ready.
func WhenLoaded(f func(decoders string)) { go f(pureGoDecoders) }

func decoders() string { return pureGoDecoders }

type ffReader struct{}

var errNoFFmpeg = errors.New("audio: built without FFmpeg")

func newFFmpeg(io.ReadSeeker, Format, string, int) (*ffReader, Info, error) {
	return nil, Info{}, errNoFFmpeg
}

func (*ffReader) Read([]byte) (int, error) { return 0, errNoFFmpeg }
func (*ffReader) SeekFrame(int64) error    { return errNoFFmpeg }
func (*ffReader) Close()                   {}
func (*ffReader) tags() map[string]string  { return nil }

func ffLive() int { return 0 }

func cHeapInUse() int64 { return -1 }
