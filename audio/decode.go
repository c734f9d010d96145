package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hajimehoshi/ebiten/v2/audio/mp3"
	"github.com/hajimehoshi/ebiten/v2/audio/vorbis"
	"github.com/hajimehoshi/ebiten/v2/audio/wav"
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
	SampleRate     int   // output rate (the rate given to NewDecoder)
	Channels       int   // output channels: always 2
	SourceRate     int   // sample rate in the file; 0 when unknown
	SourceChannels int   // channels in the file; 0 when unknown
	Frames         int64 // total output frames; -1 when unknown
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
// panics and returns them as ErrCorrupt.
type Decoder struct {
	info Info
	pcm  pcmReader
	pos  int64
}

// NewDecoder sniffs r's format from its content (name is only a fallback,
// see Sniff), reads the headers and returns a decoder producing sampleRate
// Hz stereo. It does not close r. Errors wrap ErrUnknownFormat,
// ErrUnsupported, ErrCorrupt or ErrTooLarge.
func NewDecoder(r io.ReadSeeker, name string, sampleRate int) (d *Decoder, err error) {
	if sampleRate < minSourceRate || sampleRate > maxSourceRate {
		return nil, fmt.Errorf("audio: output sample rate %d out of range [%d, %d]", sampleRate, minSourceRate, maxSourceRate)
	}
	defer recoverAs(&err, "open")
	format, err := Sniff(r, name)
	if err != nil {
		return nil, err
	}
	info := Info{Format: format, SampleRate: sampleRate, Channels: 2, Frames: -1}
	var pcm pcmReader
	switch format {
	case FormatWAV:
		h, err := checkWAV(r)
		if err != nil {
			return nil, err
		}
		info.SourceRate, info.SourceChannels = h.rate, h.channels
		var src io.ReadSeeker = r
		if h.present != h.declared {
			// A truncated file (or a streaming header's 0xffffffff): ebiten
			// would pad the missing part with silence, so tell it the truth.
			var b [4]byte
			binary.LittleEndian.PutUint32(b[:], h.present)
			src = &overlay{r: r, off: h.sizeAt, patch: b[:]}
		}
		s, err := wav.DecodeWithSampleRate(sampleRate, src)
		if err != nil {
			return nil, fmt.Errorf("%w: wav: %v", ErrCorrupt, err)
		}
		info.Frames = s.Length() / bytesPerFrame
		pcm = &byteStream{s}
	case FormatMP3:
		info.SourceRate, info.SourceChannels = probeMP3(r)
		s, err := mp3.DecodeWithSampleRate(sampleRate, r)
		if err != nil {
			return nil, fmt.Errorf("%w: mp3: %v", ErrCorrupt, err)
		}
		if s.Length() > 0 {
			info.Frames = s.Length() / bytesPerFrame
		}
		pcm = &byteStream{s}
	case FormatVorbis:
		info.SourceRate, info.SourceChannels = probeVorbis(r)
		s, err := vorbis.DecodeWithSampleRate(sampleRate, r)
		if err != nil {
			return nil, fmt.Errorf("%w: vorbis: %v", ErrCorrupt, err)
		}
		if s.Length() > 0 {
			info.Frames = s.Length() / bytesPerFrame
		}
		pcm = &byteStream{s}
	case FormatFLAC:
		f, err := newFLAC(r)
		if err != nil {
			return nil, err
		}
		info.SourceRate, info.SourceChannels = f.rate, f.channels
		if f.frames > 0 {
			info.Frames = outFrames(f.frames, int64(f.rate), int64(sampleRate))
		}
		pcm = f
		if f.rate != sampleRate {
			pcm = newResampler(f, f.rate, sampleRate, f.frames)
		}
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnknownFormat, name)
	}
	return &Decoder{info: info, pcm: pcm}, nil
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
		err = fmt.Errorf("%w: %s: %v", ErrCorrupt, d.info.Format, err)
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
		return fmt.Errorf("%w: %s: seek: %v", ErrCorrupt, d.info.Format, err)
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

// byteStream adapts ebiten's byte-addressed streams.
type byteStream struct{ s io.ReadSeeker }

func (b *byteStream) Read(p []byte) (int, error) {
	// ebiten's resampler may return a partial frame; keep reading until a
	// whole frame is there so frames never split across calls.
	n, err := b.s.Read(p)
	for n%bytesPerFrame != 0 && err == nil {
		var m int
		m, err = b.s.Read(p[n : n+bytesPerFrame-n%bytesPerFrame])
		n += m
		if m == 0 && err == nil {
			err = io.ErrNoProgress
		}
	}
	if n%bytesPerFrame != 0 {
		n -= n % bytesPerFrame
	}
	return n, err
}

func (b *byteStream) SeekFrame(f int64) error {
	_, err := b.s.Seek(f*bytesPerFrame, io.SeekStart)
	return err
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

type wavHeader struct {
	rate, channels, bits int
	sizeAt               int64  // offset of the data chunk's size field
	declared, present    uint32 // data bytes the header claims / the file holds
}

// maxWAVChunks bounds the chunks walked before "data".
const maxWAVChunks = 64

// checkWAV validates the RIFF chunk walk that ebiten's decoder does, so a
// corrupt size cannot make it allocate gigabytes, and reports what it
// cannot decode. It leaves r at the start.
func checkWAV(r io.ReadSeeker) (h wavHeader, err error) {
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return h, err
	}
	if _, err := r.Seek(12, io.SeekStart); err != nil {
		return h, err
	}
	pos := int64(12)
	for i := 0; i < maxWAVChunks; i++ {
		var hdr [8]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return h, fmt.Errorf("%w: wav: no data chunk", ErrCorrupt)
		}
		pos += 8
		n := int64(binary.LittleEndian.Uint32(hdr[4:]))
		switch string(hdr[:4]) {
		case "data":
			if h.rate == 0 {
				return h, fmt.Errorf("%w: wav: data before fmt", ErrCorrupt)
			}
			align := int64(h.channels * h.bits / 8)
			h.sizeAt, h.declared = pos-4, uint32(n)
			h.present = uint32(min(n, size-pos) / align * align)
			_, err := r.Seek(0, io.SeekStart)
			return h, err
		case "fmt ":
			if n < 16 || n > 1024 {
				return h, fmt.Errorf("%w: wav: fmt chunk of %d bytes", ErrCorrupt, n)
			}
			buf := make([]byte, n)
			if _, err := io.ReadFull(r, buf); err != nil {
				return h, fmt.Errorf("%w: wav: short fmt chunk", ErrCorrupt)
			}
			tag := binary.LittleEndian.Uint16(buf)
			h.channels = int(binary.LittleEndian.Uint16(buf[2:]))
			h.rate = int(binary.LittleEndian.Uint32(buf[4:]))
			h.bits = int(binary.LittleEndian.Uint16(buf[14:]))
			if tag != 1 {
				return h, fmt.Errorf("%w: wav: format tag %#x (only integer PCM)", ErrUnsupported, tag)
			}
			if h.channels != 1 && h.channels != 2 {
				return h, fmt.Errorf("%w: wav: %d channels (only 1 or 2)", ErrUnsupported, h.channels)
			}
			if h.bits != 8 && h.bits != 16 {
				return h, fmt.Errorf("%w: wav: %d bits per sample (only 8 or 16)", ErrUnsupported, h.bits)
			}
			if h.rate < minSourceRate || h.rate > maxSourceRate {
				return h, fmt.Errorf("%w: wav: sample rate %d", ErrTooLarge, h.rate)
			}
		default:
			if n > size-pos {
				return h, fmt.Errorf("%w: wav: chunk %q of %d bytes in a %d byte file", ErrTooLarge, hdr[:4], n, size)
			}
			if _, err := r.Seek(n, io.SeekCurrent); err != nil {
				return h, err
			}
		}
		pos += n
	}
	return h, fmt.Errorf("%w: wav: more than %d chunks before data", ErrTooLarge, maxWAVChunks)
}

// probeMP3 reads rate and channels from the first frame header after an
// optional ID3v2 tag; zeros when it cannot tell. It leaves r at the start.
func probeMP3(r io.ReadSeeker) (rate, channels int) {
	defer func() { _, _ = r.Seek(0, io.SeekStart) }()
	var b [10]byte
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return 0, 0
	}
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, 0
	}
	off := int64(0)
	if string(b[:3]) == "ID3" {
		off = 10 + (int64(b[6]&0x7f)<<21 | int64(b[7]&0x7f)<<14 | int64(b[8]&0x7f)<<7 | int64(b[9]&0x7f))
		if b[5]&0x10 != 0 {
			off += 10
		}
	}
	var h [4]byte
	if _, err := r.Seek(off, io.SeekStart); err != nil {
		return 0, 0
	}
	if _, err := io.ReadFull(r, h[:]); err != nil || !isMP3Sync(h[0], h[1]) {
		return 0, 0
	}
	rates := [4][3]int{{11025, 12000, 8000}, {}, {22050, 24000, 16000}, {44100, 48000, 32000}}
	version := (h[1] >> 3) & 3
	idx := (h[2] >> 2) & 3
	if idx == 3 {
		return 0, 0
	}
	channels = 2
	if h[3]>>6 == 3 {
		channels = 1
	}
	return rates[version][idx], channels
}

// probeVorbis reads rate and channels from the identification header in
// the first Ogg page; zeros when it cannot tell. It leaves r at the start.
func probeVorbis(r io.ReadSeeker) (rate, channels int) {
	defer func() { _, _ = r.Seek(0, io.SeekStart) }()
	var b [128]byte
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return 0, 0
	}
	n, _ := io.ReadFull(r, b[:])
	for i := 0; i+16 <= n; i++ {
		if string(b[i:i+7]) == "\x01vorbis" {
			return int(binary.LittleEndian.Uint32(b[i+12:])), int(b[i+11])
		}
	}
	return 0, 0
}

// overlay reads r with patch laid over the bytes at off.
type overlay struct {
	r     io.ReadSeeker
	off   int64
	patch []byte
	pos   int64
}

func (o *overlay) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	for i := 0; i < n; i++ {
		if at := o.pos + int64(i) - o.off; at >= 0 && at < int64(len(o.patch)) {
			p[i] = o.patch[at]
		}
	}
	o.pos += int64(n)
	return n, err
}

func (o *overlay) Seek(offset int64, whence int) (int64, error) {
	pos, err := o.r.Seek(offset, whence)
	if err == nil {
		o.pos = pos
	}
	return pos, err
}
