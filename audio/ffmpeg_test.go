package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needFFmpegBuild skips a test of the FFmpeg decoders in a build without
// them.
func needFFmpegBuild(t testing.TB) {
	t.Helper()
	if !haveFFmpeg() {
		t.Skip("built without FFmpeg (-tags noffmpeg or cgo off)")
	}
}

// ffmpegMake runs ffmpeg with the lavfi source src and the output options
// opts, writing dir/name.
func ffmpegMake(t testing.TB, dir, name, src string, opts ...string) string {
	t.Helper()
	ff := needTool(t, "ffmpeg")
	out := filepath.Join(dir, name)
	args := append([]string{"-loglevel", "error", "-y", "-f", "lavfi", "-i", src}, opts...)
	args = append(args, out)
	if b, err := exec.Command(ff, args...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", args, err, b)
	}
	return out
}

// tones is an aevalsrc source of one sine per channel (freqs[i] Hz on
// channel i) in layout, at rate, for secs seconds.
func tones(layout string, rate int, secs float64, amp float64, freqs ...int) string {
	var ex []string
	for _, f := range freqs {
		ex = append(ex, fmt.Sprintf("%g*sin(2*PI*%d*t)", amp, f))
	}
	return fmt.Sprintf("aevalsrc=exprs=%s:c=%s:s=%d:d=%g", strings.Join(ex, "|"), layout, rate, secs)
}

// stereoPCM is a decode split into its two channels, -1..1.
type stereoPCM struct{ l, r []float64 }

func (p stereoPCM) frames() int { return len(p.l) }

func pcmFromS16(b []byte) stereoPCM {
	var p stereoPCM
	for i := 0; i+4 <= len(b); i += 4 {
		p.l = append(p.l, float64(int16(binary.LittleEndian.Uint16(b[i:])))/32768)
		p.r = append(p.r, float64(int16(binary.LittleEndian.Uint16(b[i+2:])))/32768)
	}
	return p
}

// ffmpegReference is ffmpeg's own decode of path as 16-bit stereo at
// rate: its standard downmix, and mono on both sides at full level as the
// player does.
func ffmpegReference(t testing.TB, path string, rate int, mono bool) stereoPCM {
	t.Helper()
	args := []string{"-loglevel", "error", "-i", path}
	if mono {
		args = append(args, "-af", "pan=stereo|c0=c0|c1=c0")
	} else {
		args = append(args, "-ac", "2")
	}
	args = append(args, "-ar", fmt.Sprint(rate), "-f", "s16le", "-")
	out, err := exec.Command(needTool(t, "ffmpeg"), args...).Output()
	if err != nil {
		t.Fatalf("ffmpeg reference decode of %s: %v", path, err)
	}
	return pcmFromS16(out)
}

// decodeStereo decodes the whole of d.
func decodeStereo(t testing.TB, d *Decoder) stereoPCM {
	t.Helper()
	var all []byte
	buf := make([]byte, 4096*bytesPerFrame)
	for {
		n, err := d.Read(buf)
		all = append(all, buf[:n]...)
		if err == io.EOF {
			return pcmFromS16(all)
		}
		if err != nil {
			t.Fatalf("decode after %d frames: %v", len(all)/bytesPerFrame, err)
		}
	}
}

func openDecoder(t testing.TB, path string, rate int, useFFmpeg bool) *Decoder {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	d, err := newDecoder(f, path, rate, useFFmpeg)
	if err != nil {
		t.Fatalf("open %s: %v", filepath.Base(path), err)
	}
	t.Cleanup(d.Close)
	return d
}

// correlation is the normalised cross-correlation of a and b at lag 0 over
// their common length.
func correlation(a, b []float64) float64 {
	n := min(len(a), len(b))
	var ab, aa, bb float64
	for i := 0; i < n; i++ {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// power is the relative power of freq Hz in x (Goertzel), 0..~0.5 for a
// full-scale sine.
func power(x []float64, freq float64, rate int) float64 {
	w := 2 * math.Pi * freq / float64(rate)
	c := 2 * math.Cos(w)
	var s1, s2 float64
	for _, v := range x {
		s1, s2 = v+c*s1-s2, s1
	}
	re := s1 - s2*math.Cos(w)
	im := s2 * math.Sin(w)
	n := float64(len(x))
	return (re*re + im*im) / (n * n)
}

// id3v2 is a minimal ID3v2.3 tag with a title frame, padded to size
// bytes.
func id3v2(title string, size int) []byte {
	frame := append([]byte("TIT2"), 0, 0, 0, byte(len(title)+1), 0, 0, 0)
	frame = append(frame, title...)
	body := make([]byte, size-10)
	copy(body, frame)
	n := len(body)
	h := []byte{'I', 'D', '3', 3, 0, 0, byte(n >> 21 & 0x7f), byte(n >> 14 & 0x7f), byte(n >> 7 & 0x7f), byte(n & 0x7f)}
	return append(h, body...)
}

// pcmWAV writes a WAV of frames of f(i, ch) with the given format tag
// (1 integer PCM, 3 float) and bits, in the plain WAVEFORMAT header (not
// the extensible one).
func pcmWAV(rate, channels, bits int, float bool, frames int, f func(i, ch int) float64) []byte {
	var data bytes.Buffer
	for i := 0; i < frames; i++ {
		for ch := 0; ch < channels; ch++ {
			v := f(i, ch)
			switch {
			case float && bits == 32:
				_ = binary.Write(&data, binary.LittleEndian, float32(v))
			case float:
				_ = binary.Write(&data, binary.LittleEndian, v)
			case bits == 24:
				s := int32(math.Round(v * (1<<23 - 1)))
				data.Write([]byte{byte(s), byte(s >> 8), byte(s >> 16)})
			case bits == 32:
				_ = binary.Write(&data, binary.LittleEndian, int32(math.Round(v*(1<<31-1))))
			}
		}
	}
	tag := uint16(1)
	if float {
		tag = 3
	}
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + data.Len()))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(tag)
	w(uint16(channels))
	w(uint32(rate))
	w(uint32(rate * channels * bits / 8))
	w(uint16(channels * bits / 8))
	w(uint16(bits))
	b.WriteString("data")
	w(uint32(data.Len()))
	b.Write(data.Bytes())
	return b.Bytes()
}

// variant is one kind of file a library holds.
type variant struct {
	name    string
	make    func(t testing.TB, dir string) string
	format  Format
	rate    int  // source sample rate
	ch      int  // source channels
	mono    bool // reference duplicates the one channel
	secs    float64
	gapless bool // the codec pads: the decode must still be exactly secs long
}

// variants are made with ffmpeg (or written here) at test time: every
// kind of file issue 15 lists.
func variants() []variant {
	st := func(rate int, secs float64) string { return tones("stereo", rate, secs, 0.4, 440, 660) }
	mono := func(rate int, secs float64) string { return tones("mono", rate, secs, 0.4, 440) }
	five1 := func(rate int, secs float64) string {
		return tones("5.1", rate, secs, 0.3, 300, 500, 700, 100, 900, 1100)
	}
	five1side := func(rate int, secs float64) string {
		return tones("5.1(side)", rate, secs, 0.3, 300, 500, 700, 100, 900, 1100)
	}
	ff := func(name, src string, opts ...string) func(testing.TB, string) string {
		return func(t testing.TB, dir string) string { return ffmpegMake(t, dir, name, src, opts...) }
	}
	return []variant{
		{name: "mp3-lame-44k", make: ff("a.mp3", st(44100, 2), "-c:a", "libmp3lame", "-b:a", "192k"), format: FormatMP3, rate: 44100, ch: 2, secs: 2, gapless: true},
		{name: "mp3-mpeg2.5-8k", make: ff("b.mp3", mono(8000, 2), "-c:a", "libmp3lame", "-b:a", "24k"), format: FormatMP3, rate: 8000, ch: 1, mono: true, secs: 2, gapless: true},
		{name: "mp3-mpeg2-24k", make: ff("c.mp3", st(24000, 2), "-c:a", "libmp3lame"), format: FormatMP3, rate: 24000, ch: 2, secs: 2, gapless: true},
		{name: "aac-m4a", make: ff("a.m4a", st(44100, 2), "-c:a", "aac", "-b:a", "160k"), format: FormatAAC, rate: 44100, ch: 2, secs: 2, gapless: true},
		{name: "aac-m4a-48k-5.1", make: ff("b.m4a", five1(48000, 2), "-c:a", "aac"), format: FormatAAC, rate: 48000, ch: 6, secs: 2, gapless: true},
		{name: "alac-16", make: ff("c.m4a", st(44100, 2), "-c:a", "alac", "-sample_fmt", "s16p"), format: FormatALAC, rate: 44100, ch: 2, secs: 2},
		{name: "alac-24-96k", make: ff("d.m4a", st(96000, 2), "-c:a", "alac", "-sample_fmt", "s32p"), format: FormatALAC, rate: 96000, ch: 2, secs: 2},
		{name: "opus", make: ff("a.opus", st(48000, 2), "-c:a", "libopus", "-b:a", "128k"), format: FormatOpus, rate: 48000, ch: 2, secs: 2, gapless: true},
		{name: "opus-in-ogg", make: ff("b.ogg", mono(48000, 2), "-c:a", "libopus"), format: FormatOpus, rate: 48000, ch: 1, mono: true, secs: 2, gapless: true},
		{name: "opus-5.1", make: ff("c.opus", five1(48000, 2), "-c:a", "libopus", "-mapping_family", "1"), format: FormatOpus, rate: 48000, ch: 6, secs: 2, gapless: true},
		{name: "vorbis", make: ff("d.ogg", st(44100, 2), "-c:a", "libvorbis"), format: FormatVorbis, rate: 44100, ch: 2, secs: 2, gapless: true},
		{name: "vorbis-5.1", make: ff("e.ogg", five1(48000, 2), "-c:a", "libvorbis"), format: FormatVorbis, rate: 48000, ch: 6, secs: 2, gapless: true},
		{name: "flac-16", make: ff("a.flac", st(44100, 2)), format: FormatFLAC, rate: 44100, ch: 2, secs: 2},
		{name: "flac-24-96k", make: ff("b.flac", st(96000, 2), "-sample_fmt", "s32", "-bits_per_raw_sample", "24"), format: FormatFLAC, rate: 96000, ch: 2, secs: 2},
		{name: "flac-after-id3v2", make: func(t testing.TB, dir string) string {
			p := ffmpegMake(t, dir, "c.flac", st(44100, 2))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			return writeFile(t, filepath.Join(dir, "id3.flac"), append(id3v2("Tagged by an MP3 tagger", 4096), b...))
		}, format: FormatFLAC, rate: 44100, ch: 2, secs: 2},
		{name: "flac-5.1", make: ff("d.flac", five1(48000, 2)), format: FormatFLAC, rate: 48000, ch: 6, secs: 2},
		{name: "wav-u8", make: ff("a.wav", st(44100, 2), "-c:a", "pcm_u8"), format: FormatWAV, rate: 44100, ch: 2, secs: 2},
		{name: "wav-s16", make: ff("b.wav", st(44100, 2), "-c:a", "pcm_s16le"), format: FormatWAV, rate: 44100, ch: 2, secs: 2},
		{name: "wav-s24-extensible", make: ff("c.wav", st(48000, 2), "-c:a", "pcm_s24le"), format: FormatWAV, rate: 48000, ch: 2, secs: 2},
		{name: "wav-s32", make: ff("d.wav", st(44100, 2), "-c:a", "pcm_s32le"), format: FormatWAV, rate: 44100, ch: 2, secs: 2},
		{name: "wav-f32", make: ff("e.wav", st(44100, 2), "-c:a", "pcm_f32le"), format: FormatWAV, rate: 44100, ch: 2, secs: 2},
		{name: "wav-f64", make: ff("f.wav", st(44100, 2), "-c:a", "pcm_f64le"), format: FormatWAV, rate: 44100, ch: 2, secs: 2},
		{name: "wav-5.1(side)", make: ff("g.wav", five1side(48000, 2), "-c:a", "pcm_s16le"), format: FormatWAV, rate: 48000, ch: 6, secs: 2},
		{name: "wav-s24-plain", make: func(t testing.TB, dir string) string {
			return writeFile(t, filepath.Join(dir, "h.wav"), pcmWAV(44100, 2, 24, false, 88200, sine(440, 0.4, 44100)))
		}, format: FormatWAV, rate: 44100, ch: 2, secs: 2},
		{name: "wav-f32-plain", make: func(t testing.TB, dir string) string {
			return writeFile(t, filepath.Join(dir, "i.wav"), pcmWAV(44100, 2, 32, true, 88200, sine(440, 0.4, 44100)))
		}, format: FormatWAV, rate: 44100, ch: 2, secs: 2},
		{name: "wav-192k", make: ff("j.wav", st(192000, 2), "-c:a", "pcm_s24le"), format: FormatWAV, rate: 192000, ch: 2, secs: 2},
		{name: "wav-22k-mono", make: ff("k.wav", mono(22050, 2)), format: FormatWAV, rate: 22050, ch: 1, mono: true, secs: 2},
		{name: "aiff-16", make: ff("a.aiff", st(44100, 2), "-c:a", "pcm_s16be"), format: FormatAIFF, rate: 44100, ch: 2, secs: 2},
		{name: "aifc-float", make: ff("b.aifc", st(48000, 2), "-c:a", "pcm_f32be", "-f", "aiff"), format: FormatAIFF, rate: 48000, ch: 2, secs: 2},
	}
}

// TestFFmpegVariantsMatchFFmpeg decodes every variant through the player's
// decoder and checks it against ffmpeg's own decode of the same file:
// the same samples (correlation per channel), the same length within
// 1 ms, the music's own length for codecs that pad (gapless), and the
// file's rate and channels reported.
func TestFFmpegVariantsMatchFFmpeg(t *testing.T) {
	needFFmpegBuild(t)
	dir := t.TempDir()
	const out = 44100
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			path := v.make(t, dir)
			d := openDecoder(t, path, out, true)
			info := d.Info()
			if info.Format != v.format || info.SourceRate != v.rate || info.SourceChannels != v.ch {
				t.Errorf("info %+v, want format %v, %d Hz, %d channels", info, v.format, v.rate, v.ch)
			}
			got := decodeStereo(t, d)
			ref := ffmpegReference(t, path, out, v.mono)
			diff := got.frames() - ref.frames()
			switch {
			case v.gapless:
				// ffmpeg's CLI leaves the padding after an MP4's edit list
				// in; the player must not.
				if want := int(v.secs * out); absInt(got.frames()-want) > out/1000 || diff > out/1000 {
					t.Errorf("decoded %d frames (ffmpeg %d), the music is %d: encoder delay or padding left in", got.frames(), ref.frames(), want)
				}
			case absInt(diff) > out/1000:
				t.Errorf("decoded %d frames, ffmpeg %d: differ by more than 1 ms", got.frames(), ref.frames())
			}
			for ch, pair := range [][2][]float64{{got.l, ref.l}, {got.r, ref.r}} {
				if c := correlation(pair[0], pair[1]); c < 0.9999 {
					t.Errorf("channel %d: correlation with ffmpeg's decode %.6f, want ≥ 0.9999", ch, c)
				}
			}
			if info.Frames >= 0 && absInt(int(info.Frames)-got.frames()) > out/1000 {
				t.Errorf("Info.Frames %d, decoded %d", info.Frames, got.frames())
			}
		})
	}
}

// TestFFmpegDownmixLayout: 5.1 files (one tone per channel) reach the
// stereo output through the standard matrix: left carries front left,
// centre and side left; right their mirror; the LFE channel is left out.
func TestFFmpegDownmixLayout(t *testing.T) {
	needFFmpegBuild(t)
	dir := t.TempDir()
	const out = 44100
	// 5.1: FL 300, FR 500, FC 700, LFE 100, BL (SL) 900, BR (SR) 1100.
	for _, v := range variants() {
		if v.ch != 6 {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			got := decodeStereo(t, openDecoder(t, v.make(t, dir), out, true))
			l, r := got.l[out/4:out*3/2], got.r[out/4:out*3/2]
			has := func(x []float64, f float64) bool { return power(x, f, out) > 1e-4 }
			for _, c := range []struct {
				side string
				x    []float64
				in   []float64
				out  []float64
			}{{"left", l, []float64{300, 700, 900}, []float64{500, 1100, 100}}, {"right", r, []float64{500, 700, 1100}, []float64{300, 900, 100}}} {
				for _, f := range c.in {
					if !has(c.x, f) {
						t.Errorf("%s lacks the %g Hz channel (power %.2g)", c.side, f, power(c.x, f, out))
					}
				}
				for _, f := range c.out {
					if has(c.x, f) {
						t.Errorf("%s carries the %g Hz channel (power %.2g)", c.side, f, power(c.x, f, out))
					}
				}
			}
		})
	}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestPureGoDecodersRefuseWhatNeedsFFmpeg: the build without FFmpeg says
// what a file needs instead of failing on it as corrupt.
func TestPureGoDecodersRefuseWhatNeedsFFmpeg(t *testing.T) {
	dir := t.TempDir()
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			path := v.make(t, dir)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, err := newDecoder(f, path, 44100, false)
			var nf *NeedsFFmpegError
			if err != nil {
				if !errors.As(err, &nf) || !errors.Is(err, ErrUnsupported) {
					t.Fatalf("pure Go: %v, want a *NeedsFFmpegError", err)
				}
				t.Logf("pure Go: %s", strings.TrimPrefix(err.Error(), "audio: "))
				return
			}
			defer d.Close()
			if x := decodeStereo(t, d); x.frames() < int(v.secs*44100)*9/10 {
				t.Fatalf("pure Go decoded %d frames of %g s", x.frames(), v.secs)
			}
		})
	}
}

// TestFFmpegSeekLandsOnTheFrame: after SeekFrame, every variant continues
// with the samples a full decode has at that frame (the codecs' pre-roll
// decoded and dropped, the resampler given history), so a seek is heard
// where it was asked, and going back to 0 replays the start.
func TestFFmpegSeekLandsOnTheFrame(t *testing.T) {
	needFFmpegBuild(t)
	dir := t.TempDir()
	const out = 44100
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			path := v.make(t, dir)
			full := decodeStereo(t, openDecoder(t, path, out, true))
			d := openDecoder(t, path, out, true)
			for _, at := range []int{out, out / 3, 0, out * 3 / 2} {
				if err := d.SeekFrame(int64(at)); err != nil {
					t.Fatalf("SeekFrame(%d): %v", at, err)
				}
				buf := make([]byte, 4096*bytesPerFrame)
				n, err := d.Read(buf)
				if err != nil || n != len(buf) {
					t.Fatalf("read after seek to %d: %d bytes, %v", at, n, err)
				}
				got := pcmFromS16(buf)
				want := full.l[at : at+4096]
				if c := correlation(got.l, want); c < 0.999 {
					t.Errorf("seek to %d: correlation with the full decode there %.5f, want ≥ 0.999", at, c)
				}
			}
		})
	}
}
