package audio

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// needTool skips without the tool, but fails on CI (CI=true), which
// installs every tool PLATFORM.md lists.
func needTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required on CI (CI=true) but not installed: %v", name, err)
		}
		t.Skipf("%s not installed: %v", name, err)
	}
	return p
}

// wavBytes renders frames of 16-bit PCM; f returns -1..1 per frame and channel.
func wavBytes(rate, channels, frames int, f func(i, ch int) float64) []byte {
	var b bytes.Buffer
	data := frames * channels * 2
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) } // bytes.Buffer writes never fail
	b.WriteString("RIFF")
	w(uint32(36 + data))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1))
	w(uint16(channels))
	w(uint32(rate))
	w(uint32(rate * channels * 2))
	w(uint16(channels * 2))
	w(uint16(16))
	b.WriteString("data")
	w(uint32(data))
	for i := 0; i < frames; i++ {
		for ch := 0; ch < channels; ch++ {
			w(int16(math.Round(f(i, ch) * 32767)))
		}
	}
	return b.Bytes()
}

// sine returns a generator of a sine of freq Hz and amplitude amp.
func sine(freq, amp float64, rate int) func(i, ch int) float64 {
	return func(i, _ int) float64 { return amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)) }
}

func writeFile(t testing.TB, path string, b []byte) string {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ffmpegSine writes a sine of freq Hz, dur seconds, at rate into dir/name
// with the extra output arguments (codec, sample format).
func ffmpegSine(t testing.TB, dir, name string, freq float64, dur float64, rate int, extra ...string) string {
	t.Helper()
	ff := needTool(t, "ffmpeg")
	out := filepath.Join(dir, name)
	args := []string{"-loglevel", "error", "-y", "-f", "lavfi", "-i",
		"sine=frequency=" + strconv.FormatFloat(freq, 'f', -1, 64) + ":duration=" + strconv.FormatFloat(dur, 'f', -1, 64) + ":sample_rate=" + strconv.Itoa(rate)}
	args = append(args, extra...)
	args = append(args, out)
	if b, err := exec.Command(ff, args...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", args, err, b)
	}
	return out
}

type nopCloser struct{ io.ReadSeeker }

func (nopCloser) Close() error { return nil }

// memSource plays bytes from memory.
func memSource(id, name string, b []byte) Source {
	return Source{ID: id, Name: name, Open: func() (io.ReadSeekCloser, error) {
		return nopCloser{bytes.NewReader(b)}, nil
	}}
}

// decodeAll returns every left-channel sample of d as float64 in -1..1.
func decodeAll(t testing.TB, d *Decoder) []float64 {
	t.Helper()
	var out []float64
	buf := make([]byte, 4096*bytesPerFrame)
	for {
		n, err := d.Read(buf)
		for i := 0; i+bytesPerFrame <= n; i += bytesPerFrame {
			out = append(out, float64(int16(binary.LittleEndian.Uint16(buf[i:])))/32768)
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("decode after %d frames: %v", len(out), err)
		}
	}
}

// rms of x.
func rms(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s / float64(len(x)))
}

// zeroCrossFreq estimates the frequency of a sine from upward zero crossings.
func zeroCrossFreq(x []float64, rate int) float64 {
	first, last, n := -1.0, -1.0, 0
	for i := 1; i < len(x); i++ {
		if x[i-1] < 0 && x[i] >= 0 {
			p := float64(i-1) + -x[i-1]/(x[i]-x[i-1])
			if first < 0 {
				first = p
			} else {
				n++
			}
			last = p
		}
	}
	if n == 0 {
		return 0
	}
	return float64(n) * float64(rate) / (last - first)
}
