package audio

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fuzzSeeds are valid tiny files of every format and damaged copies of them:
// truncated at several points and with bytes flipped from a fixed seed.
func fuzzSeeds(f *testing.F) [][]byte {
	valid := [][]byte{wavBytes(8000, 1, 800, sine(440, 0.5, 8000))}
	if _, err := exec.LookPath("ffmpeg"); err == nil {
		dir := f.TempDir()
		for _, c := range []struct {
			name  string
			extra []string
		}{{"s.flac", nil}, {"s.mp3", nil}, {"s.ogg", []string{"-c:a", "libvorbis"}}} {
			p := ffmpegSine(f, dir, c.name, 440, 0.1, 8000, c.extra...)
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			valid = append(valid, b)
		}
	} else if os.Getenv("CI") == "true" {
		f.Fatal("ffmpeg is required on CI for the fuzz seeds")
	}
	const seed = 5
	rng := rand.New(rand.NewSource(seed))
	var out [][]byte
	for _, v := range valid {
		out = append(out, v)
		for _, cut := range []int{0, 3, 4, 11, 12, 40, 44, 100, len(v) / 2, len(v) - 1} {
			if cut <= len(v) {
				out = append(out, v[:cut])
			}
		}
		for k := 0; k < 8; k++ {
			c := bytes.Clone(v)
			for j := 0; j < 1+k; j++ {
				c[rng.Intn(len(c))] ^= byte(1 + rng.Intn(255))
			}
			out = append(out, c)
		}
	}
	return out
}

// FuzzDecode: any bytes give a decoder or a package error, reading ends,
// seeking works or errors, and nothing panics or runs away.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := NewDecoder(bytes.NewReader(data), "x", 44100)
		if err != nil {
			if !isPackageError(err) {
				t.Fatalf("NewDecoder error not wrapping a package sentinel: %v", err)
			}
			return
		}
		buf := make([]byte, 4096*bytesPerFrame)
		const maxReads = 2000 // ~3 minutes of audio: a tiny input cannot legitimately be longer
		for i := 0; ; i++ {
			if i == maxReads {
				t.Fatalf("decoder still producing after %d reads from %d bytes", maxReads, len(data))
			}
			n, err := d.Read(buf)
			if n%bytesPerFrame != 0 {
				t.Fatalf("partial frame: %d bytes", n)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("read error not ErrCorrupt: %v", err)
				}
				break
			}
		}
		if err := d.SeekFrame(d.Info().Frames / 2); err == nil {
			if _, err := d.Read(buf); err != nil && err != io.EOF && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("read after seek: %v", err)
			}
		} else if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("seek error not ErrCorrupt: %v", err)
		}
	})
}

func isPackageError(err error) bool {
	for _, s := range []error{ErrCorrupt, ErrUnknownFormat, ErrUnsupported, ErrTooLarge} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// TestTruncatedFilesPlayOn: a truncated file and a corrupt one give
// DecodeError events through a real stream and the player moves on.
func TestTruncatedFilesPlayOn(t *testing.T) {
	dir := t.TempDir()
	full, err := os.ReadFile(ffmpegSine(t, dir, "t.mp3", 440, 1, 44100))
	if err != nil {
		t.Fatal(err)
	}
	trunc := writeFile(t, filepath.Join(dir, "trunc.flac"), []byte("fLaC\x00\x00\x00\x22"))
	var log errLog
	m := newMixer(testRate, 4, log.add)
	m.play(FileSource("trunc", trunc), 0)
	m.prepare(memSource("half", "half.mp3", full[:len(full)/2]))
	waitFor(t, "decode error of the truncated flac", func() bool { return log.len() >= 1 })
	waitFor(t, "the half mp3 to play", func() bool {
		for _, v := range pull(m, 441) {
			if v != 0 {
				return true
			}
		}
		return false
	})
}
