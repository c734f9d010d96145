package audio

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/furudesk/furudesk/internal/benchlib"
	"github.com/furudesk/furudesk/internal/cputime"
)

// BenchmarkDecode decodes 30 s of stereo music-like audio per format to
// 16-bit stereo at 44.1 kHz, as the player does, and reports the CPU time
// per second of audio and its ratio to `ffmpeg -f null` decoding the same
// file in the same run (ffmpeg's own -benchmark utime+stime, so its process
// start does not count). Each format runs with every decoder set this build
// has (go, ffmpeg). Goal (issue 15): x-ffmpeg ≤ 1.5 for the FFmpeg path.
//
//	go test -run '^$' -bench Decode -benchtime 5x ./audio
func BenchmarkDecode(b *testing.B) {
	dir := b.TempDir()
	const secs = 30
	// Two tones and noise: something for the codecs to spend bits on.
	src := func(rate int) string {
		return "aevalsrc=exprs=0.3*sin(2*PI*440*t)+0.05*(random(0)-0.5)|0.3*sin(2*PI*660*t)+0.05*(random(1)-0.5):c=stereo:s=" +
			strconv.Itoa(rate) + ":d=" + strconv.Itoa(secs)
	}
	for _, c := range []struct {
		name string
		file string
		rate int
		opts []string
	}{
		{"mp3", "b.mp3", 44100, []string{"-c:a", "libmp3lame", "-b:a", "192k"}},
		{"aac", "b.m4a", 44100, []string{"-c:a", "aac", "-b:a", "192k"}},
		{"opus", "b.opus", 48000, []string{"-c:a", "libopus", "-b:a", "128k"}},
		{"vorbis", "b.ogg", 44100, []string{"-c:a", "libvorbis"}},
		{"flac-16-44k", "b.flac", 44100, nil},
		{"flac-24-96k", "c.flac", 96000, []string{"-sample_fmt", "s32", "-bits_per_raw_sample", "24"}},
		{"wav-16-44k", "b.wav", 44100, nil},
	} {
		path := ffmpegMake(b, dir, c.file, src(c.rate), c.opts...)
		ff := ffmpegDecodeCPU(b, path)
		for _, be := range backends() {
			b.Run(c.name+"/"+be.name, func(b *testing.B) {
				probe, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if d, err := newDecoder(probe, path, 44100, be.useFFmpeg); err != nil {
					_ = probe.Close()
					b.Skipf("%s decoders: %v", be.name, err)
				} else {
					d.Close()
					_ = probe.Close()
				}
				cpu0, haveCPU := cputime.Process()
				for b.Loop() {
					f, err := os.Open(path)
					if err != nil {
						b.Fatal(err)
					}
					d, err := newDecoder(f, path, 44100, be.useFFmpeg)
					if err != nil {
						b.Fatal(err)
					}
					buf := make([]byte, chunkFrames*bytesPerFrame)
					frames := 0
					for {
						n, err := d.Read(buf)
						frames += n / bytesPerFrame
						if err != nil {
							break
						}
					}
					if frames < secs*44100-5000 {
						b.Fatalf("decoded %d frames", frames)
					}
					d.Close()
					_ = f.Close()
				}
				spent := b.Elapsed()
				if cpu1, ok := cputime.Process(); ok && haveCPU {
					spent = cpu1 - cpu0
				}
				per := spent / time.Duration(b.N) / secs
				b.ReportMetric(float64(per.Microseconds()), "cpu-µs/audio-s")
				b.ReportMetric(float64(per)/float64(ff/secs), "x-ffmpeg")
			})
		}
	}
}

var (
	utimeRE = regexp.MustCompile(`utime=([0-9.]+)s`)
	stimeRE = regexp.MustCompile(`stime=([0-9.]+)s`)
)

// ffmpegDecodeCPU is the best of 3 `ffmpeg -benchmark -i path -f null -`:
// the CPU time ffmpeg reports for decoding the file.
func ffmpegDecodeCPU(b *testing.B, path string) time.Duration {
	best := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		out, err := exec.Command("ffmpeg", "-hide_banner", "-benchmark", "-i", path, "-f", "null", "-").CombinedOutput()
		if err != nil {
			b.Fatalf("ffmpeg: %v\n%s", err, out)
		}
		u, s := utimeRE.FindSubmatch(out), stimeRE.FindSubmatch(out)
		if u == nil || s == nil {
			b.Fatalf("no utime/stime in ffmpeg output:\n%s", out)
		}
		us, _ := strconv.ParseFloat(string(u[1]), 64) // the regexps matched numbers
		ss, _ := strconv.ParseFloat(string(s[1]), 64)
		best = min(best, time.Duration((us+ss)*float64(time.Second)))
	}
	return best
}

// BenchmarkProbe probes the small tagged files of the benchmark
// collection (package benchlib: what a library scan meets 100,000 times),
// one format at a time, as the scan does: the file is open and Probe
// reads it from the start. It reports the CPU time per probe.
//
//	go test -run '^$' -bench Probe ./audio
func BenchmarkProbe(b *testing.B) {
	c, err := benchlib.Generate(b.TempDir(), 60)
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{"mp3", "flac", "wav"} {
		var files []*os.File
		for _, p := range c.Paths {
			if filepath.Ext(p) != "."+format {
				continue
			}
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			files = append(files, f)
		}
		b.Run(format, func(b *testing.B) {
			if len(files) == 0 {
				b.Skipf("no %s file in the collection (benchlib makes MP3 with the ffmpeg command)", format)
			}
			cpu0, haveCPU := cputime.Process()
			i := 0
			for b.Loop() {
				f := files[i%len(files)]
				i++
				if _, err := f.Seek(0, io.SeekStart); err != nil {
					b.Fatal(err)
				}
				if _, err := Probe(f, f.Name()); err != nil {
					b.Fatalf("%s: %v", f.Name(), err)
				}
			}
			spent := b.Elapsed()
			if cpu1, ok := cputime.Process(); ok && haveCPU {
				spent = cpu1 - cpu0
			}
			b.ReportMetric(float64(spent.Microseconds())/float64(b.N), "cpu-µs/probe")
		})
	}
}
