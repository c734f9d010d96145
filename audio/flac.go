package audio

import (
	"fmt"
	"io"

	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
)

// flacReader decodes FLAC to 16-bit stereo at the file's own rate.
// More than two channels keep the front pair; more than 16 bits are
// truncated, fewer are scaled up.
type flacReader struct {
	s        *flac.Stream
	rate     int
	channels int
	bits     int
	frames   int64 // total source frames; 0 when the header does not say
	pending  []byte
	skip     int64 // frames to drop after a seek landed on a frame start
}

func newFLAC(r io.ReadSeeker) (*flacReader, error) {
	s, err := flac.NewSeek(r)
	if err != nil {
		return nil, fmt.Errorf("%w: flac: %v", ErrCorrupt, err)
	}
	info := s.Info
	if info == nil {
		return nil, fmt.Errorf("%w: flac: no stream info", ErrCorrupt)
	}
	if info.SampleRate < minSourceRate || info.SampleRate > maxSourceRate {
		return nil, fmt.Errorf("%w: flac: sample rate %d", ErrTooLarge, info.SampleRate)
	}
	if info.NChannels < 1 || info.NChannels > 8 {
		return nil, fmt.Errorf("%w: flac: %d channels", ErrCorrupt, info.NChannels)
	}
	return &flacReader{s: s, rate: int(info.SampleRate), channels: int(info.NChannels), bits: int(info.BitsPerSample), frames: int64(info.NSamples)}, nil
}

func (f *flacReader) Read(p []byte) (int, error) {
	n := 0
	for n+bytesPerFrame <= len(p) {
		if len(f.pending) == 0 {
			fr, err := f.s.ParseNext()
			if err == io.EOF {
				if n > 0 {
					return n, nil
				}
				return 0, io.EOF
			}
			if err != nil {
				return n, fmt.Errorf("%w: flac: %v", ErrCorrupt, err)
			}
			if err := f.fill(fr); err != nil {
				return n, err
			}
			continue
		}
		c := copy(p[n:len(p)/bytesPerFrame*bytesPerFrame], f.pending)
		f.pending = f.pending[c:]
		n += c
	}
	return n, nil
}

// fill converts one FLAC frame into pending int16 stereo bytes.
func (f *flacReader) fill(fr *frame.Frame) error {
	if len(fr.Subframes) == 0 {
		return fmt.Errorf("%w: flac: frame without subframes", ErrCorrupt)
	}
	left := fr.Subframes[0].Samples
	right := left
	if len(fr.Subframes) > 1 {
		right = fr.Subframes[1].Samples
	}
	if len(right) != len(left) {
		return fmt.Errorf("%w: flac: subframes of %d and %d samples", ErrCorrupt, len(left), len(right))
	}
	bps := int(fr.BitsPerSample)
	if bps == 0 {
		bps = int(f.s.Info.BitsPerSample)
	}
	if bps < 4 || bps > 32 {
		return fmt.Errorf("%w: flac: %d bits per sample", ErrCorrupt, bps)
	}
	need := len(left) * bytesPerFrame
	if cap(f.pending) < need {
		f.pending = make([]byte, need)
	}
	buf := f.pending[:need]
	for i := range left {
		putSample(buf[i*4:], left[i], bps)
		putSample(buf[i*4+2:], right[i], bps)
	}
	if f.skip > 0 {
		drop := min(f.skip, int64(len(left)))
		buf = buf[drop*bytesPerFrame:]
		f.skip -= drop
	}
	f.pending = buf
	return nil
}

func putSample(b []byte, v int32, bps int) {
	if bps > 16 {
		v >>= uint(bps - 16)
	} else if bps < 16 {
		v <<= uint(16 - bps)
	}
	v = max(min(v, 32767), -32768)
	b[0] = byte(v)
	b[1] = byte(v >> 8)
}

func (f *flacReader) SeekFrame(n int64) error {
	f.pending = f.pending[:0]
	f.skip = 0
	if f.frames > 0 && n >= f.frames {
		// Seeking to the end: mewkiz/flac refuses, so park after the last
		// frame by reading to EOF.
		for {
			if _, err := f.s.ParseNext(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	}
	start, err := f.s.Seek(uint64(n))
	if err != nil {
		return err
	}
	f.skip = n - int64(start)
	return nil
}
