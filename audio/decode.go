package audio

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// bytesPerFrame is the size of one output frame: 16-bit little-endian stereo.
const bytesPerFrame = 4

// Limits on what a header may declare.
const (
	minSourceRate = 1000
	maxSourceRate = 768000
)

// Info describes a decoded track.
type Info struct {
	Format         Format
	Codec          string // the decoder's name for the codec ("aac", "opus", "mp3"); may be empty
	SampleRate     int    // output rate (the rate given to NewDecoder)
	Channels       int    // output channels: always 2
	SourceRate     int    // sample rate in the file; 0 when unknown
	SourceChannels int    // channels in the file; 0 when unknown
	SourceBits     int    // bits per sample in the file; 0 when the codec does not say
	Layout         string // the file's channel layout as FFmpeg names it ("5.1(side)"); may be empty
	Frames         int64  // total output frames; -1 when unknown
	// SourceFrames is the length in frames at SourceRate, counted or, where
	// the container only estimates it (from the bit rate), estimated; -1
	// when unknown. FFmpeg's decoders only.
	SourceFrames int64
	// Tags are the container's and the audio stream's tags as FFmpeg reads
	// them (keys as the file spells them: "title", "ARTIST"), filled by
	// Probe with FFmpeg only; nil otherwise.
	Tags map[string]string
}

// Duration is the length of the track; 0 when unknown.
func (i Info) Duration() time.Duration {
	if i.Frames < 0 || i.SampleRate <= 0 {
		return 0
	}
	return framesToDuration(i.Frames, i.SampleRate)
}

// pcmReader yields 16-bit little-endian stereo frames; Read returns whole
// frames only.
type pcmReader interface {
	Read(p []byte) (int, error)
	SeekFrame(f int64) error
}

// Decoder reads one track as 16-bit little-endian stereo PCM at the output
// rate. It is not safe for concurrent use. Every call recovers decoder
// panics and returns them as ErrCorrupt. Close it when done: the FFmpeg
// decoders hold memory outside Go's heap.
type Decoder struct {
	info  Info
	pcm   pcmReader
	close func()
	pos   int64
}

// NewDecoder sniffs r's format from its content (name is only a fallback,
// see Sniff), reads the headers, decodes the first audio and returns a
// decoder producing sampleRate Hz stereo. It decodes through FFmpeg when
// this build has it (Decoders says), else with the pure-Go decoders. It
// does not close r. Errors wrap ErrUnknownFormat, ErrUnsupported (a
// *NeedsFFmpegError without FFmpeg), ErrNoAudio, ErrProtected, ErrCorrupt
// or ErrTooLarge, or are the reader's own.
func NewDecoder(r io.ReadSeeker, name string, sampleRate int) (*Decoder, error) {
	return newDecoder(r, name, sampleRate, haveFFmpeg())
}

func newDecoder(r io.ReadSeeker, name string, sampleRate int, useFFmpeg bool) (d *Decoder, err error) {
	if sampleRate < minSourceRate || sampleRate > maxSourceRate {
		return nil, fmt.Errorf("audio: output sample rate %d out of range [%d, %d]", sampleRate, minSourceRate, maxSourceRate)
	}
	defer recoverAs(&err, "open")
	format, err := Sniff(r, name)
	if err != nil {
		return nil, err
	}
	if useFFmpeg {
		f, info, err := newFFmpeg(r, format, name, sampleRate)
		if err != nil {
			return nil, err
		}
		return &Decoder{info: info, pcm: f, close: f.Close}, nil
	}
	return newGoDecoder(r, format, name, sampleRate)
}

// Decoders names the decoders of this build: "FFmpeg 5.1.9-0+deb12u1
// (libavcodec 59.37.100, audio-only build in /opt/furudesk/bin/ffmpeg)"
// (or "the system's" libraries, and why not the audio-only build's where
// they could not be loaded), or "pure Go (MP3, Ogg Vorbis, FLAC, WAV)" in a build
// without FFmpeg (followed by why where its libraries could not be
// loaded). It loads FFmpeg's libraries when nothing did yet (see
// WhenLoaded).
func Decoders() string { return decoders() }

// pureGoDecoders names the decoders of a build without FFmpeg.
const pureGoDecoders = "pure Go (MP3, Ogg Vorbis, FLAC, WAV)"

// Probe tells whether this build plays r: it opens a decoder as a Play
// would and decodes the first moments (FFmpeg: its first frame, converted
// at the file's own rate, so no resampling filter is built for the
// question). The errors are NewDecoder's; a file that Probe accepts starts
// playing.
func Probe(r io.ReadSeeker, name string) (info Info, err error) {
	defer recoverAs(&err, "probe")
	if haveFFmpeg() {
		format, err := Sniff(r, name)
		if err != nil {
			return Info{}, err
		}
		f, info, err := newFFmpeg(r, format, name, 0)
		if err != nil {
			return info, err
		}
		info.Tags = f.tags()
		f.Close()
		return info, nil
	}
	d, err := newDecoder(r, name, probeRate, false)
	if err != nil {
		return Info{}, err
	}
	defer d.Close()
	buf := make([]byte, chunkFrames*bytesPerFrame)
	if _, err := d.Read(buf); err != nil && !errors.Is(err, io.EOF) {
		return d.info, err
	}
	return d.info, nil
}

// probeRate is the output rate the pure-Go decoders probe at: the usual
// one, so a probe exercises the same conversion as most plays.
const probeRate = 44100

// Close frees the decoder's resources; it does not close the reader.
// Calling it again does nothing.
func (d *Decoder) Close() {
	if d.close != nil {
		d.close()
		d.close = nil
	}
}

// Info returns what the headers said about the track.
func (d *Decoder) Info() Info { return d.info }

// Pos returns the output frame Read returns next.
func (d *Decoder) Pos() int64 { return d.pos }

// Read fills p with whole frames. At the end it returns io.EOF; a decode
// failure wraps ErrCorrupt.
func (d *Decoder) Read(p []byte) (n int, err error) {
	defer recoverAs(&err, "read")
	p = p[:len(p)/bytesPerFrame*bytesPerFrame]
	if len(p) == 0 {
		return 0, nil
	}
	n, err = d.pcm.Read(p)
	n = n / bytesPerFrame * bytesPerFrame
	d.pos += int64(n / bytesPerFrame)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, ErrCorrupt) {
		err = fmt.Errorf("%w: %s: %w", ErrCorrupt, d.info.Format, err) // the source's own error stays reachable
	}
	return n, err
}

// SeekFrame moves to output frame f (clamped at 0 and, when known, the end).
func (d *Decoder) SeekFrame(f int64) (err error) {
	defer recoverAs(&err, "seek")
	if f < 0 {
		f = 0
	}
	if d.info.Frames >= 0 && f > d.info.Frames {
		f = d.info.Frames
	}
	if err := d.pcm.SeekFrame(f); err != nil {
		if errors.Is(err, ErrCorrupt) {
			return err
		}
		return fmt.Errorf("%w: %s: seek: %w", ErrCorrupt, d.info.Format, err)
	}
	d.pos = f
	return nil
}

// recoverAs turns a decoder panic into ErrCorrupt: third-party decoders
// index slices with values read from the file.
func recoverAs(err *error, op string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %s: decoder panic: %v", ErrCorrupt, op, r)
	}
}

// outFrames converts a frame count at rate from into one at rate to,
// rounding up like the resamplers do.
func outFrames(n, from, to int64) int64 {
	if from == to {
		return n
	}
	return (n*to + from - 1) / from
}

func framesToDuration(frames int64, rate int) time.Duration {
	r := int64(rate)
	return time.Duration(frames/r)*time.Second + time.Duration(frames%r)*time.Second/time.Duration(r)
}

func durationToFrames(d time.Duration, rate int) int64 {
	if d <= 0 {
		return 0
	}
	r := int64(rate)
	return int64(d/time.Second)*r + int64(d%time.Second)*r/int64(time.Second)
}
