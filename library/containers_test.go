package library

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/formats"
)

// written is a file the system's ffmpeg writes for a container of
// package formats.
type written struct {
	file      string   // its name: the extension is what the scan looks at
	container string   // what its content is (formats.Container.Name)
	rate      int      // its sample rate
	layout    string   // its channels
	opts      []string // ffmpeg's output options
	untagged  bool     // the container holds no tags
}

// everyContainer is a file of each container and codec of package formats
// that the system's ffmpeg can write, and some written under another
// container's name. Monkey's Audio, Musepack, DSF, DSDIFF, TAK, Shorten
// and AMR have no writer in FFmpeg: formats' own test checks they are
// told by their content.
func everyContainer() []written {
	return []written{
		{"mp3.mp3", "mp3", 44100, "stereo", []string{"-c:a", "libmp3lame"}, false},
		{"mp2.mp2", "mp3", 48000, "stereo", []string{"-c:a", "mp2"}, true},
		{"vorbis.ogg", "ogg", 44100, "stereo", []string{"-c:a", "libvorbis"}, false},
		{"flac.oga", "ogg", 44100, "stereo", []string{"-c:a", "flac", "-f", "ogg"}, false},
		{"speex.spx", "ogg", 16000, "mono", []string{"-c:a", "libspeex"}, false},
		{"opus.opus", "opus", 48000, "stereo", []string{"-c:a", "libopus"}, false},
		{"flac.flac", "flac", 44100, "stereo", []string{"-c:a", "flac"}, false},
		{"s16.wav", "wav", 44100, "stereo", []string{"-c:a", "pcm_s16le"}, false},
		{"s24-3ch.wav", "wav", 48000, "3.0", []string{"-c:a", "pcm_s24le"}, false},
		{"mulaw.wav", "wav", 8000, "mono", []string{"-c:a", "pcm_mulaw"}, false},
		{"alaw.wav", "wav", 8000, "mono", []string{"-c:a", "pcm_alaw"}, false},
		{"adpcm.wav", "wav", 22050, "stereo", []string{"-c:a", "adpcm_ms"}, false},
		{"mp3-in.wav", "wav", 44100, "stereo", []string{"-c:a", "libmp3lame", "-f", "wav"}, false},
		{"rf64.wav", "wav", 44100, "stereo", []string{"-c:a", "pcm_s16le", "-rf64", "always"}, false},
		{"aac.m4a", "m4a", 44100, "stereo", []string{"-c:a", "aac"}, false},
		{"alac.m4a", "m4a", 44100, "stereo", []string{"-c:a", "alac"}, false},
		{"aac.mp4", "m4a", 44100, "stereo", []string{"-c:a", "aac", "-f", "mp4"}, false},
		{"s16.aiff", "aiff", 44100, "stereo", []string{"-c:a", "pcm_s16be", "-write_id3v2", "1"}, false},
		{"adts.aac", "aac", 44100, "stereo", []string{"-c:a", "aac", "-f", "adts", "-write_id3v2", "1"}, false},
		{"adts-named.mp3", "aac", 44100, "stereo", []string{"-c:a", "aac", "-f", "adts", "-write_id3v2", "1"}, false},
		{"opus.webm", "mka", 48000, "stereo", []string{"-c:a", "libopus", "-f", "webm"}, false},
		{"vorbis.webm", "mka", 44100, "stereo", []string{"-c:a", "libvorbis", "-f", "webm"}, false},
		{"flac.mka", "mka", 44100, "stereo", []string{"-c:a", "flac", "-f", "matroska"}, false},
		{"webm-named.mp4", "mka", 48000, "stereo", []string{"-c:a", "libopus", "-f", "webm"}, false},
		{"alac.caf", "caf", 44100, "stereo", []string{"-c:a", "alac"}, false},
		{"s16.caf", "caf", 44100, "stereo", []string{"-c:a", "pcm_s16le"}, false},
		{"wavpack.wv", "wv", 44100, "stereo", []string{"-c:a", "wavpack"}, false},
		{"wmav2.wma", "wma", 44100, "stereo", []string{"-c:a", "wmav2"}, false},
		{"wmav1.wma", "wma", 44100, "stereo", []string{"-c:a", "wmav1"}, false},
		{"s16.w64", "w64", 44100, "stereo", []string{"-c:a", "pcm_s16le"}, true},
		{"tta.tta", "tta", 44100, "stereo", []string{"-c:a", "tta"}, false},
		{"s16.au", "au", 44100, "stereo", []string{"-c:a", "pcm_s16be"}, false},
		{"ac3.ac3", "ac3", 48000, "stereo", []string{"-c:a", "ac3"}, true},
		{"eac3.eac3", "eac3", 48000, "stereo", []string{"-c:a", "eac3"}, true},
		{"dts.dts", "dts", 48000, "stereo", []string{"-c:a", "dca", "-strict", "-2"}, true},
	}
}

// TestEveryContainerScansAndPlays: of every container furudesk accepts
// that ffmpeg writes, one file (and a few under another container's name)
// is listed by a scan as the container it holds, with its tags, and plays
// what ffmpeg's own decode of it plays.
func TestEveryContainerScansAndPlays(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	files := everyContainer()
	for _, w := range files {
		args := []string{"-v", "error", "-y", "-f", "lavfi", "-i", tone(w.layout, w.rate, 2),
			"-metadata", "title=Every " + w.file, "-metadata", "artist=Ann", "-metadata", "album=Containers"}
		ffmpeg(t, append(append(args, w.opts...), filepath.Join(dir, w.file))...)
	}
	for _, c := range formats.All {
		if !hasWritten(files, c.Name) && !noWriter[c.Name] {
			t.Errorf("%s: no file of it is written for this test", c.Name)
		}
	}
	idx := NewMemIndex()
	res := scanOK(t, idx, []string{dir}, ScanOptions{})
	if res.Found != len(files) {
		t.Errorf("the scan found %d files of %d", res.Found, len(files))
	}
	for _, p := range res.Problems {
		var nf *audio.NeedsFFmpegError
		if ffmpegBuild || !errors.As(p.Err, &nf) {
			t.Errorf("%s: %v (%s)", filepath.Base(p.Path), p.Err, Reason(p.Err))
		}
	}
	if !ffmpegBuild {
		return // what the pure-Go decoders play is their own tests'
	}
	for _, w := range files {
		t.Run(w.file, func(t *testing.T) {
			p := filepath.Join(dir, w.file)
			tr, ok := idx.Get(p)
			if !ok {
				t.Fatal("not listed")
			}
			if tr.Format != w.container {
				t.Errorf("listed as %q", tr.Format)
			}
			if !w.untagged && (tr.Title != "Every "+w.file || tr.Album != "Containers" || len(tr.Artists) != 1 || tr.Artists[0] != "Ann") {
				t.Errorf("tags: %+v", tr)
			}
			if tr.Duration < 1900e6 || tr.Duration > 2200e6 {
				t.Errorf("duration %v, the music is 2 s", tr.Duration)
			}
			ours := decodeAt(t, p, w.rate)
			theirs := ffmpegDecode(t, p, w.rate, w.layout == "mono")
			// (furudesk trims the padding AAC's encoder adds at the end,
			// up to a frame of 2,048.)
			if d := len(ours) - len(theirs); d < -w.rate/50-2048 || d > w.rate/50 {
				t.Errorf("plays %d frames, ffmpeg %d", len(ours), len(theirs))
			}
			if snr := alignedSNR(ours, theirs, w.rate/10); snr < 40 {
				t.Errorf("plays something else than ffmpeg: %.1f dB apart", snr)
			}
		})
	}
}

// noWriter are the containers FFmpeg reads but cannot write.
var noWriter = map[string]bool{"ape": true, "mpc": true, "mpc8": true, "dsf": true, "dff": true, "tak": true,
	"shn": true, "amr": true}

func hasWritten(files []written, container string) bool {
	for _, w := range files {
		if w.container == container {
			return true
		}
	}
	return false
}

// decodeAt plays path with furudesk's decoder at rate: stereo frames.
func decodeAt(t *testing.T, path string, rate int) [][2]int16 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := audio.NewDecoder(f, path, rate)
	if err != nil {
		t.Fatalf("decoder: %v", err)
	}
	defer d.Close()
	var b bytes.Buffer
	buf := make([]byte, 16384)
	for {
		n, err := d.Read(buf)
		b.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d frames: %v", b.Len()/4, err)
		}
	}
	return frames(b.Bytes())
}

// ffmpegDecode is the system's ffmpeg's decode of path as 16-bit stereo
// at rate; mono is put on both sides at full level, as furudesk does.
func ffmpegDecode(t *testing.T, path string, rate int, mono bool) [][2]int16 {
	t.Helper()
	args := []string{"-v", "error", "-i", path}
	if mono {
		args = append(args, "-af", "pan=stereo|c0=c0|c1=c0")
	}
	args = append(args, "-ac", "2", "-ar", strconv.Itoa(rate), "-f", "s16le", "-")
	out, err := exec.Command("ffmpeg", args...).Output()
	if err != nil {
		t.Fatalf("ffmpeg decode: %v", err)
	}
	return frames(out)
}

func frames(b []byte) [][2]int16 {
	out := make([][2]int16, len(b)/4)
	for i := range out {
		out[i][0] = int16(binary.LittleEndian.Uint16(b[4*i:]))
		out[i][1] = int16(binary.LittleEndian.Uint16(b[4*i+2:]))
	}
	return out
}

// alignedSNR compares a window of a, a quarter in, with b shifted by up to
// maxLag frames either way (decoders trim priming differently) and
// returns the best ratio of signal to difference, in dB.
func alignedSNR(a, b [][2]int16, maxLag int) float64 {
	const window = 2048
	start := len(a) / 4
	if start+window+maxLag > len(a) || start+window+maxLag > len(b) || start < maxLag {
		return math.Inf(-1)
	}
	best := math.Inf(-1)
	for lag := -maxLag; lag <= maxLag; lag++ {
		var sig, diff float64
		for i := start; i < start+window; i++ {
			for c := 0; c < 2; c++ {
				x, y := float64(a[i][c]), float64(b[i+lag][c])
				sig += x * x
				diff += (x - y) * (x - y)
			}
		}
		if sig == 0 {
			continue
		}
		snr := math.Inf(1)
		if diff > 0 {
			snr = 10 * math.Log10(sig/diff)
		}
		best = math.Max(best, snr)
	}
	return best
}
