package audio

import (
	"encoding/binary"
	"io"
	"math"
)

// Resampler parameters: a Blackman-windowed sinc with kernelHalf zero
// crossings each side, tabulated at kernelRes points per crossing.
const (
	kernelHalf = 12
	kernelRes  = 128
)

var kernelTable = func() []float32 {
	t := make([]float32, kernelHalf*kernelRes+2)
	for i := range t {
		u := float64(i) / kernelRes
		if u >= kernelHalf {
			continue
		}
		s := 1.0
		if u != 0 {
			s = math.Sin(math.Pi*u) / (math.Pi * u)
		}
		w := 0.42 + 0.5*math.Cos(math.Pi*u/kernelHalf) + 0.08*math.Cos(2*math.Pi*u/kernelHalf)
		t[i] = float32(s * w)
	}
	return t
}()

// kernel evaluates the tabulated windowed sinc at |u| < kernelHalf.
func kernel(u float64) float32 {
	if u < 0 {
		u = -u
	}
	x := u * kernelRes
	i := int(x)
	if i >= kernelHalf*kernelRes {
		return 0
	}
	f := float32(x - float64(i))
	return kernelTable[i]*(1-f) + kernelTable[i+1]*f
}

// resampler converts 16-bit stereo frames from one rate to another with a
// band-limited (windowed sinc) interpolator. Output frame k sits at input
// time k*from/to, computed in integers so long tracks do not drift.
type resampler struct {
	src      pcmReader
	from, to int64
	cutoff   float64 // relative to the input Nyquist: min(1, to/from)
	reach    int64   // input frames used on each side of an output frame
	srcLen   int64   // input frames when known (header), else 0

	buf  []float32 // interleaved input frames [base, base+len/2)
	base int64
	end  int64 // input frames in the source; -1 until EOF
	out  int64 // next output frame
	raw  []byte
	err  error
}

func newResampler(src pcmReader, from, to int, srcLen int64) *resampler {
	c := 1.0
	if to < from {
		c = float64(to) / float64(from) * 0.98 // a little below Nyquist
	}
	return &resampler{
		src: src, from: int64(from), to: int64(to), cutoff: c,
		reach: int64(math.Ceil(kernelHalf/c)) + 1, srcLen: srcLen, end: -1,
		raw: make([]byte, 4096*bytesPerFrame),
	}
}

// have returns the index one past the last buffered input frame.
func (r *resampler) have() int64 { return r.base + int64(len(r.buf)/2) }

// fillTo reads input until frame i is buffered or the source ends.
func (r *resampler) fillTo(i int64) error {
	for r.end < 0 && r.have() <= i {
		n, err := r.src.Read(r.raw)
		for j := 0; j+bytesPerFrame <= n; j += bytesPerFrame {
			l := int16(binary.LittleEndian.Uint16(r.raw[j:]))
			rt := int16(binary.LittleEndian.Uint16(r.raw[j+2:]))
			r.buf = append(r.buf, float32(l), float32(rt))
		}
		if err == io.EOF {
			r.end = r.have()
			return nil
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrNoProgress
		}
	}
	return nil
}

func (r *resampler) sample(j int64, ch int) float32 {
	if j < r.base || j >= r.have() {
		return 0
	}
	return r.buf[(j-r.base)*2+int64(ch)]
}

func (r *resampler) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n := 0
	for n+bytesPerFrame <= len(p) {
		t := r.out * r.from
		i0 := t / r.to
		frac := float64(t%r.to) / float64(r.to)
		if err := r.fillTo(i0 + r.reach); err != nil {
			r.err = err
			return n, err
		}
		if r.end >= 0 && r.out >= outFrames(r.end, r.from, r.to) {
			if n > 0 {
				return n, nil
			}
			return 0, io.EOF
		}
		var sl, sr float32
		for j := i0 - r.reach + 1; j <= i0+r.reach; j++ {
			w := kernel((float64(j-i0) - frac) * r.cutoff)
			if w == 0 {
				continue
			}
			sl += w * r.sample(j, 0)
			sr += w * r.sample(j, 1)
		}
		c := float32(r.cutoff)
		binary.LittleEndian.PutUint16(p[n:], uint16(clamp16(sl*c)))
		binary.LittleEndian.PutUint16(p[n+2:], uint16(clamp16(sr*c)))
		n += bytesPerFrame
		r.out++
		// Drop input nobody needs any more, in large steps.
		if keep := i0 - r.reach; keep-r.base > 8192 {
			r.buf = append(r.buf[:0], r.buf[(keep-r.base)*2:]...)
			r.base = keep
		}
	}
	return n, nil
}

func clamp16(v float32) int16 {
	v = float32(math.Round(float64(v)))
	if v > 32767 {
		return 32767
	}
	if v < -32768 {
		return -32768
	}
	return int16(v)
}

// SeekFrame moves to output frame k: the source is positioned reach input
// frames earlier so the interpolator has its history.
func (r *resampler) SeekFrame(k int64) error {
	i0 := k * r.from / r.to
	start := max(i0-r.reach, 0)
	r.buf = r.buf[:0]
	r.base = start
	r.end = -1
	r.err = nil
	r.out = k
	return r.src.SeekFrame(start)
}
