package audio

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// backend is one set of decoders this build has.
type backend struct {
	name      string
	useFFmpeg bool
}

// backends lists the pure-Go decoders and, in a build with it, FFmpeg.
func backends() []backend {
	b := []backend{{"go", false}}
	if haveFFmpeg() {
		b = append(b, backend{"ffmpeg", true})
	}
	return b
}

// TestDecodeSine decodes a 1 s 440 Hz sine from every format the pure-Go
// decoders play (files made at test time), with each backend, and checks
// what a listener would: duration, rate, channels, pitch and loudness, all
// at the 44.1 kHz output rate.
func TestDecodeSine(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { testDecodeSine(t, b.useFFmpeg) })
	}
}

func testDecodeSine(t *testing.T, useFFmpeg bool) {
	dir := t.TempDir()
	const out = 44100
	cases := []struct {
		name       string
		path       func() string
		format     Format
		srcRate    int
		srcCh      int
		amp        float64 // peak amplitude of the sine
		durTol     time.Duration
		exactFrame bool // lossless at the output rate: compare samples
	}{
		{"wav16-stereo", func() string {
			return writeFile(t, filepath.Join(dir, "a.wav"), wavBytes(out, 2, out, sine(440, 0.5, out)))
		}, FormatWAV, out, 2, 0.5, 0, true},
		{"wav16-mono-22k", func() string {
			return writeFile(t, filepath.Join(dir, "m.wav"), wavBytes(22050, 1, 22050, sine(440, 0.5, 22050)))
		}, FormatWAV, 22050, 1, 0.5, 2 * time.Millisecond, false},
		{"flac", func() string { return ffmpegSine(t, dir, "a.flac", 440, 1, out) }, FormatFLAC, out, 1, 0.125, 0, false},
		{"flac-48k-24bit", func() string {
			return ffmpegSine(t, dir, "b.flac", 440, 1, 48000, "-sample_fmt", "s32", "-ac", "2")
		}, FormatFLAC, 48000, 2, 0.125 / math.Sqrt2, time.Millisecond, false}, // ffmpeg's mono to stereo is -3 dB
		{"mp3", func() string { return ffmpegSine(t, dir, "a.mp3", 440, 1, out) }, FormatMP3, out, 1, 0.125 * 0.95, mp3Tol(useFFmpeg), false}, // the encoder's low-pass costs 5% RMS
		{"vorbis", func() string { return ffmpegSine(t, dir, "a.ogg", 440, 1, out, "-c:a", "libvorbis") }, FormatVorbis, out, 1, 0.125, 10 * time.Millisecond, false},
		{"vorbis-48k", func() string {
			return ffmpegSine(t, dir, "b.ogg", 440, 1, 48000, "-c:a", "libvorbis")
		}, FormatVorbis, 48000, 1, 0.125, 10 * time.Millisecond, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path()
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, err := newDecoder(f, path, out, useFFmpeg)
			if err != nil {
				t.Fatalf("NewDecoder: %v", err)
			}
			defer d.Close()
			info := d.Info()
			if info.Format != c.format || info.SampleRate != out || info.Channels != 2 ||
				info.SourceRate != c.srcRate || info.SourceChannels != c.srcCh {
				t.Errorf("info = %+v, want format %v rate %d/%d channels 2/%d", info, c.format, out, c.srcRate, c.srcCh)
			}
			if got := info.Duration(); absDur(got-time.Second) > c.durTol && !(useFFmpeg && info.Frames < 0) {
				t.Errorf("header duration = %v, want 1s ±%v", got, c.durTol)
			}
			x := decodeAll(t, d)
			if got := framesToDuration(int64(len(x)), out); absDur(got-time.Second) > c.durTol {
				t.Errorf("decoded %d frames = %v, want 1s ±%v", len(x), got, c.durTol)
			}
			mid := x[len(x)/4 : len(x)*3/4] // away from codec edges
			if f := zeroCrossFreq(mid, out); math.Abs(f-440) > 1 {
				t.Errorf("pitch = %.2f Hz, want 440", f)
			}
			if r, want := rms(mid), c.amp/math.Sqrt2; math.Abs(r-want) > want*0.03 {
				t.Errorf("rms = %.4f, want %.4f ±3%%", r, want)
			}
			if c.exactFrame {
				gen := sine(440, c.amp, out)
				for i, v := range x {
					if want := math.Round(gen(i, 0)*32767) / 32768; math.Abs(v-want) > 1.0/32768 {
						t.Fatalf("sample %d = %v, want %v", i, v, want)
					}
				}
			}
		})
	}
}

// mp3Tol is how far an MP3's decoded length may be from the music's: go-mp3
// keeps the encoder delay and padding (71 ms); FFmpeg trims them.
func mp3Tol(useFFmpeg bool) time.Duration {
	if useFFmpeg {
		return time.Millisecond
	}
	return 80 * time.Millisecond
}

// TestDecodeFLACMatchesWAV checks FLAC samples bit for bit against the same
// sine rendered by ffmpeg as WAV.
func TestDecodeFLACMatchesWAV(t *testing.T) {
	dir := t.TempDir()
	fl := decodeFile(t, ffmpegSine(t, dir, "s.flac", 1000, 0.5, 44100))
	wv := decodeFile(t, ffmpegSine(t, dir, "s.wav", 1000, 0.5, 44100))
	if len(fl) != len(wv) {
		t.Fatalf("flac %d frames, wav %d", len(fl), len(wv))
	}
	for i := range fl {
		if fl[i] != wv[i] {
			t.Fatalf("frame %d: flac %v, wav %v", i, fl[i], wv[i])
		}
	}
}

func decodeFile(t *testing.T, path string) []float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := NewDecoder(f, path, 44100)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	return decodeAll(t, d)
}

// TestDecoderSeek: after SeekFrame the samples are those of a full decode at
// that frame, for lossless formats exactly, through the resampler closely.
func TestDecoderSeek(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		path string
		tol  float64
	}{
		{"wav", writeFile(t, filepath.Join(dir, "a.wav"), wavBytes(44100, 2, 44100, sine(440, 0.5, 44100))), 0},
		{"flac", ffmpegSine(t, dir, "a.flac", 440, 1, 44100), 0},
		{"flac-48k", ffmpegSine(t, dir, "b.flac", 440, 1, 48000), 2.0 / 32768},
	} {
		t.Run(c.name, func(t *testing.T) {
			full := decodeFile(t, c.path)
			f, err := os.Open(c.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, err := NewDecoder(f, c.path, 44100)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			for _, at := range []int64{30000, 1000, 0} {
				if err := d.SeekFrame(at); err != nil {
					t.Fatalf("SeekFrame(%d): %v", at, err)
				}
				buf := make([]byte, 512*bytesPerFrame)
				n, err := d.Read(buf)
				if err != nil || n != len(buf) {
					t.Fatalf("read after seek: %d, %v", n, err)
				}
				for i := 0; i < 512; i++ {
					v := float64(int16(uint16(buf[i*4])|uint16(buf[i*4+1])<<8)) / 32768
					if math.Abs(v-full[int(at)+i]) > c.tol {
						t.Fatalf("seek %d: frame %d = %v, want %v", at, i, v, full[int(at)+i])
					}
				}
			}
		})
	}
}

// TestSniffByContent: a file is decoded by what it contains, whatever its
// name says; garbage gets a clear error.
func TestSniffByContent(t *testing.T) {
	dir := t.TempDir()
	flacData, err := os.ReadFile(ffmpegSine(t, dir, "x.flac", 440, 0.2, 44100))
	if err != nil {
		t.Fatal(err)
	}
	mp3Data, err := os.ReadFile(ffmpegSine(t, dir, "x.mp3", 440, 0.2, 44100))
	if err != nil {
		t.Fatal(err)
	}
	wavData := wavBytes(44100, 2, 100, sine(440, 0.5, 44100))
	for _, c := range []struct {
		name string
		data []byte
		want Format
		err  error
	}{
		{"song.mp3", flacData, FormatFLAC, nil},
		{"song.flac", mp3Data, FormatMP3, nil},
		{"song.ogg", wavData, FormatWAV, nil},
		{"song.flac", []byte("this is a text file, not music"), FormatUnknown, ErrUnknownFormat},
		{"song.wav", nil, FormatUnknown, ErrUnknownFormat},
		{"song.ogg", []byte("OggS\x00\x02" + string(make([]byte, 22)) + "\x13OpusHead"), FormatOpus, nil},
		{"song.ogg", []byte("OggS\x00\x02" + string(make([]byte, 22)) + "\x13Speex   "), FormatOgg, nil},
		{"song.mp3", []byte("wvpk\x2a\x00\x00\x00\x10\x04"), FormatWavPack, nil},
		{"song.flac", []byte("ID3\x04\x00\x00\x00\x00\x00\x00MAC \x96\x0f"), FormatAPE, nil},
		{"song.m4a", []byte("\x00\x00\x00\x20ftypM4A \x00\x00\x02\x00"), FormatMP4, nil},
	} {
		got, err := Sniff(bytes.NewReader(c.data), c.name)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("Sniff(%s, %d bytes) = %v, %v; want %v, %v", c.name, len(c.data), got, err, c.want, c.err)
		}
	}
	d, err := NewDecoder(bytes.NewReader(flacData), "song.mp3", 44100)
	if err != nil {
		t.Fatalf("mislabelled FLAC: %v", err)
	}
	defer d.Close()
	if x := decodeAll(t, d); len(x) != 8820 {
		t.Errorf("mislabelled FLAC decoded %d frames, want 8820", len(x))
	}
}

// TestWAVHeaderLimits: a chunk claiming more bytes than the file holds is
// refused before any decoder allocates it, and a truncated file plays what
// it holds, with either backend.
func TestWAVHeaderLimits(t *testing.T) {
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			b := []byte("RIFF\x00\x00\x00\x00WAVEjunk\xff\xff\xff\x7f")
			_, err := newDecoder(bytes.NewReader(b), "x.wav", 44100, be.useFFmpeg)
			if !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrTooLarge or ErrCorrupt", err)
			}
			// Truncated: the header claims 1 s, the file holds 100 frames.
			tr := wavBytes(44100, 2, 44100, sine(440, 0.5, 44100))[:44+400]
			d, err := newDecoder(bytes.NewReader(tr), "t.wav", 44100, be.useFFmpeg)
			if err != nil {
				t.Fatalf("truncated wav: %v", err)
			}
			defer d.Close()
			if x := decodeAll(t, d); len(x) != 100 {
				t.Fatalf("truncated wav gave %d frames, want the 100 present", len(x))
			}
			if !be.useFFmpeg && d.Info().Frames != 100 {
				t.Fatalf("truncated wav: header frames %d, want the 100 present", d.Info().Frames)
			}
		})
	}
	w := wavBytes(44100, 2, 10, sine(440, 0.5, 44100))
	w[34] = 24 // 24-bit
	var nf *NeedsFFmpegError
	if _, err := newDecoder(bytes.NewReader(w), "x.wav", 44100, false); !errors.As(err, &nf) || !errors.Is(err, ErrUnsupported) {
		t.Fatalf("24-bit with the pure-Go decoders: err = %v, want a *NeedsFFmpegError", err)
	}
}

func TestGainCurve(t *testing.T) {
	for _, c := range []struct {
		v    int
		want float64
	}{{-5, 0}, {0, 0}, {10, 0.001}, {50, 0.125}, {100, 1}, {150, 1}} {
		if g := Gain(c.v); math.Abs(g-c.want) > 1e-9 {
			t.Errorf("Gain(%d) = %v, want %v", c.v, g, c.want)
		}
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
