package audio

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// fuzzSeeds are valid tiny files of every format and damaged copies of them:
// truncated at several points and with bytes flipped from a fixed seed.
func fuzzSeeds(f testing.TB) [][]byte {
	valid := [][]byte{wavBytes(8000, 1, 800, sine(440, 0.5, 8000))}
	if _, err := exec.LookPath("ffmpeg"); err == nil {
		dir := f.TempDir()
		for _, c := range []struct {
			name  string
			extra []string
		}{{"s.flac", nil}, {"s.mp3", nil}, {"s.ogg", []string{"-c:a", "libvorbis"}}, {"s.m4a", []string{"-c:a", "aac"}},
			{"a.m4a", []string{"-c:a", "alac"}}, {"s.opus", []string{"-c:a", "libopus"}}, {"s24.wav", []string{"-c:a", "pcm_s24le"}},
			{"f.wav", []string{"-c:a", "pcm_f32le", "-ac", "6"}}, {"m25.mp3", []string{"-ar", "8000", "-c:a", "libmp3lame"}}} {
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
		live := ffLive()
		d, err := NewDecoder(bytes.NewReader(data), "x", 44100)
		if err != nil {
			if !isPackageError(err) {
				t.Fatalf("NewDecoder error not wrapping a package sentinel: %v", err)
			}
			if ffLive() != live {
				t.Fatalf("a failed open left %d FFmpeg decoders open", ffLive()-live)
			}
			return
		}
		defer func() {
			d.Close()
			if ffLive() != live {
				t.Fatalf("Close left %d FFmpeg decoders open", ffLive()-live)
			}
		}()
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
	for _, s := range []error{ErrCorrupt, ErrUnknownFormat, ErrUnsupported, ErrTooLarge, ErrNoAudio, ErrProtected} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// TestFFmpegNoLeak opens, reads, seeks and closes every fuzz seed (valid,
// truncated and damaged files of every format) many times: every FFmpeg
// decoder is freed, on success and on failure, and the C heap does not
// grow.
func TestFFmpegNoLeak(t *testing.T) {
	needFFmpegBuild(t)
	seeds := fuzzSeeds(t)
	// One thread for every C call: glibc's per-thread caches count as
	// heap in use, and would grow with every thread the calls hop to.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pass := func() {
		for _, s := range seeds {
			d, err := NewDecoder(bytes.NewReader(s), "x", 44100)
			if err != nil {
				continue
			}
			buf := make([]byte, 4096*bytesPerFrame)
			for i := 0; i < 100; i++ {
				if _, err := d.Read(buf); err != nil {
					break
				}
			}
			_ = d.SeekFrame(100)
			_, _ = d.Read(buf)
			d.Close()
		}
	}
	pass() // FFmpeg's one-time tables and the allocator's caches
	pass()
	live, heap := ffLive(), cHeapInUse()
	const passes = 20
	for i := 0; i < passes; i++ {
		pass()
	}
	if got := ffLive(); got != live {
		t.Errorf("%d FFmpeg decoders left open after %d opens", got-live, passes*len(seeds))
	}
	if heap < 0 {
		t.Logf("the C heap cannot be measured here; decoders counted only")
		return
	}
	// A leak of even 32 bytes per open shows (FFmpeg's smallest context is
	// larger); the allocator's own bookkeeping stays far below.
	if grew := cHeapInUse() - heap; grew > int64(32*passes*len(seeds)) {
		t.Errorf("the C heap grew by %d bytes over %d opens", grew, passes*len(seeds))
	}
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
