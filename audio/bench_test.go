package audio

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// BenchmarkDecode decodes 30 s of stereo 44.1 kHz audio per format and
// reports the cost per second of audio and its ratio to `ffmpeg -f null`
// on the same file in the same run (ffmpeg's own -benchmark rtime, so its
// process start does not count).
//
//	go test -run '^$' -bench Decode -benchtime 3x ./audio
func BenchmarkDecode(b *testing.B) {
	dir := b.TempDir()
	const secs = 30
	for _, c := range []struct {
		name  string
		file  string
		extra []string
	}{
		{"wav", "b.wav", nil},
		{"mp3", "b.mp3", nil},
		{"vorbis", "b.ogg", []string{"-c:a", "libvorbis"}},
		{"flac", "b.flac", nil},
		{"flac-48k", "c.flac", nil},
	} {
		rate := 44100
		if c.name == "flac-48k" {
			rate = 48000
		}
		path := ffmpegSine(b, dir, c.file, 440, secs, rate, append([]string{"-ac", "2"}, c.extra...)...)
		ff := ffmpegDecodeTime(b, path)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				d, err := NewDecoder(f, path, 44100)
				if err != nil {
					b.Fatal(err)
				}
				if x := decodeAll(b, d); len(x) < secs*44100-5000 {
					b.Fatalf("decoded %d frames", len(x))
				}
				d.Close()
				_ = f.Close()
			}
			per := b.Elapsed() / time.Duration(b.N) / secs
			b.ReportMetric(float64(per.Microseconds()), "µs/audio-s")
			b.ReportMetric(float64(per)/float64(ff/secs), "x-ffmpeg")
		})
	}
}

var rtimeRE = regexp.MustCompile(`rtime=([0-9.]+)s`)

// ffmpegDecodeTime is the best of 3 `ffmpeg -benchmark -i path -f null -`.
func ffmpegDecodeTime(b *testing.B, path string) time.Duration {
	best := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		out, err := exec.Command("ffmpeg", "-hide_banner", "-benchmark", "-i", path, "-f", "null", "-").CombinedOutput()
		if err != nil {
			b.Fatalf("ffmpeg: %v\n%s", err, out)
		}
		m := rtimeRE.FindSubmatch(out)
		if m == nil {
			b.Fatalf("no rtime in ffmpeg output:\n%s", out)
		}
		s, _ := strconv.ParseFloat(string(m[1]), 64) // the regexp matched a number
		best = min(best, time.Duration(s*float64(time.Second)))
	}
	return best
}
