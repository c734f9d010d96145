package audio

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/furudesk/furudesk/formats"
	"github.com/hajimehoshi/ebiten/v2/audio/mp3"
	"github.com/hajimehoshi/ebiten/v2/audio/vorbis"
	"github.com/hajimehoshi/ebiten/v2/audio/wav"
)

// The pure-Go decoders: ebiten's MP3, Vorbis and WAV decoders and
// github.com/mewkiz/flac. A build without FFmpeg plays with these; in a
// build with FFmpeg they stay compiled so their tests keep them working.

// newGoDecoder opens r, already sniffed as format, with the pure-Go
// decoders. What only FFmpeg plays is a *NeedsFFmpegError.
func newGoDecoder(r io.ReadSeeker, format Format, name string, sampleRate int) (*Decoder, error) {
	info := Info{Format: format, SampleRate: sampleRate, Channels: 2, Frames: -1}
	var pcm pcmReader
	switch format {
	case FormatWAV:
		h, err := checkWAV(r)
		if err != nil {
			return nil, err
		}
		info.SourceRate, info.SourceChannels, info.SourceBits, info.Codec = h.rate, h.channels, h.bits, "pcm"
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
		var version int
		info.SourceRate, info.SourceChannels, version = probeMP3(r)
		if version == 0 {
			return nil, needsFFmpeg("MPEG-2.5 MP3")
		}
		if layer := mp3Layer(r); layer != 0 && layer != 3 {
			return nil, needsFFmpeg(fmt.Sprintf("MPEG audio layer %d (MP%d)", layer, layer))
		}
		info.Codec = "mp3"
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
		if info.SourceChannels > 2 {
			return nil, needsFFmpeg(fmt.Sprintf("Vorbis with %d channels", info.SourceChannels))
		}
		info.Codec = "vorbis"
		s, err := vorbis.DecodeWithSampleRate(sampleRate, r)
		if err != nil {
			return nil, fmt.Errorf("%w: vorbis: %v", ErrCorrupt, err)
		}
		if s.Length() > 0 {
			info.Frames = s.Length() / bytesPerFrame
		}
		pcm = &byteStream{s}
	case FormatFLAC:
		// mewkiz/flac wants "fLaC" first: hide an ID3v2 tag in front.
		var head [10]byte
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return nil, fmt.Errorf("%w: flac: %v", ErrCorrupt, err)
		}
		src := io.ReadSeeker(r)
		if string(head[:3]) == "ID3" {
			src = &offsetReader{r: r, off: id3v2Len(head[:])}
		}
		if _, err := src.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		f, err := newFLAC(src)
		if err != nil {
			return nil, err
		}
		info.SourceRate, info.SourceChannels, info.SourceBits, info.Codec = f.rate, f.channels, f.bits, "flac"
		if f.frames > 0 {
			info.Frames = outFrames(f.frames, int64(f.rate), int64(sampleRate))
		}
		pcm = f
		if f.rate != sampleRate {
			pcm = newResampler(f, f.rate, sampleRate, f.frames)
		}
	case FormatOpus:
		return nil, needsFFmpeg("Opus")
	case FormatOggFLAC:
		return nil, needsFFmpeg("FLAC in Ogg")
	case FormatMP4:
		return nil, needsFFmpeg("MP4 audio (AAC, ALAC)")
	case FormatAAC:
		return nil, needsFFmpeg("AAC")
	case FormatAIFF:
		return nil, needsFFmpeg("AIFF")
	default:
		if c := formats.ByName(format.Container()); c != nil {
			return nil, needsFFmpeg(c.Label)
		}
		return nil, fmt.Errorf("%w: %q", ErrUnknownFormat, name)
	}
	return &Decoder{info: info, pcm: pcm}, nil
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

type wavHeader struct {
	rate, channels, bits int
	sizeAt               int64  // offset of the data chunk's size field
	declared, present    uint32 // data bytes the header claims / the file holds
}

// wavCodecs names the compressed WAV format tags seen in music
// collections.
var wavCodecs = map[uint16]string{2: "ADPCM", 6: "A-law", 7: "µ-law", 0x11: "IMA ADPCM", 0x31: "GSM",
	0x50: "MPEG audio", 0x55: "MP3", 0x2000: "AC-3"}

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
	var riff [4]byte
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return h, err
	}
	if _, err := io.ReadFull(r, riff[:]); err == nil && string(riff[:]) != "RIFF" {
		return h, needsFFmpeg(string(riff[:]) + " WAV") // RF64, BW64: 64-bit sizes
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
			switch tag {
			case 1:
			case 3:
				return h, needsFFmpeg("floating-point WAV")
			case 0xfffe:
				return h, needsFFmpeg("WAVE_FORMAT_EXTENSIBLE WAV")
			default:
				if name := wavCodecs[tag]; name != "" {
					return h, needsFFmpeg(name + " in WAV")
				}
				return h, needsFFmpeg(fmt.Sprintf("WAV of format tag %#x", tag))
			}
			if h.channels != 1 && h.channels != 2 {
				return h, needsFFmpeg(fmt.Sprintf("WAV with %d channels", h.channels))
			}
			if h.bits != 8 && h.bits != 16 {
				return h, needsFFmpeg(fmt.Sprintf("%d-bit WAV", h.bits))
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

// mp3Layer is the MPEG audio layer (1, 2, 3) of the first frame after an
// optional ID3v2 tag, 0 when it cannot tell. It leaves r at the start.
func mp3Layer(r io.ReadSeeker) int {
	defer func() { _, _ = r.Seek(0, io.SeekStart) }()
	var b [10]byte
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return 0
	}
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0
	}
	off := int64(0)
	if string(b[:3]) == "ID3" {
		off = id3v2Len(b[:])
	}
	var h [2]byte
	if _, err := r.Seek(off, io.SeekStart); err != nil {
		return 0
	}
	if _, err := io.ReadFull(r, h[:]); err != nil || !isMP3Sync(h[0], h[1]) {
		return 0
	}
	return 4 - int(h[1]>>1&3)
}

// probeMP3 reads rate, channels and the MPEG version (3: MPEG-1, 2:
// MPEG-2, 0: MPEG-2.5; -1 when it cannot tell) from the first frame header
// after an optional ID3v2 tag. It leaves r at the start.
func probeMP3(r io.ReadSeeker) (rate, channels, version int) {
	defer func() { _, _ = r.Seek(0, io.SeekStart) }()
	var b [10]byte
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return 0, 0, -1
	}
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, 0, -1
	}
	off := int64(0)
	if string(b[:3]) == "ID3" {
		off = id3v2Len(b[:])
	}
	var h [4]byte
	if _, err := r.Seek(off, io.SeekStart); err != nil {
		return 0, 0, -1
	}
	if _, err := io.ReadFull(r, h[:]); err != nil || !isMP3Sync(h[0], h[1]) {
		return 0, 0, -1
	}
	rates := [4][3]int{{11025, 12000, 8000}, {}, {22050, 24000, 16000}, {44100, 48000, 32000}}
	version = int(h[1]>>3) & 3
	idx := (h[2] >> 2) & 3
	if idx == 3 {
		return 0, 0, version
	}
	channels = 2
	if h[3]>>6 == 3 {
		channels = 1
	}
	return rates[version][idx], channels, version
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

// offsetReader reads r from off on, as if the bytes before were not there.
type offsetReader struct {
	r   io.ReadSeeker
	off int64
}

func (o *offsetReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func (o *offsetReader) Seek(offset int64, whence int) (int64, error) {
	if whence == io.SeekStart {
		offset += o.off
	}
	pos, err := o.r.Seek(offset, whence)
	return pos - o.off, err
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
