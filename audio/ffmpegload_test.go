//go:build cgo && !noffmpeg && linux

package audio

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// inChild runs the test named run again in a child process, with env
// added, and reports whether this is that child: the first load of
// FFmpeg's libraries happens once a process, so each case needs one of
// its own.
func inChild(t *testing.T, run string, env ...string) bool {
	t.Helper()
	if os.Getenv("FURUDESK_FFMPEG_LOAD_CHILD") != "" {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+run+"$", "-test.v")
	cmd.Env = append(append(os.Environ(), "FURUDESK_FFMPEG_LOAD_CHILD=1"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") || strings.Contains(string(out), "--- SKIP") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return false
}

// mappedLibs is the shared libraries this process has mapped, by path.
func mappedLibs(t *testing.T) []string {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var libs []string
	for _, l := range strings.Split(string(maps), "\n") {
		f := strings.Fields(l)
		if len(f) == 6 && strings.Contains(f[5], ".so") && !seen[f[5]] {
			seen[f[5]] = true
			libs = append(libs, f[5])
		}
	}
	return libs
}

// The libraries of FFmpeg itself, and some of those the system's FFmpeg
// pulls in (codecs for video, TLS, SVG…) that the audio-only build does not.
var (
	ffmpegLib       = regexp.MustCompile(`/lib(avutil|swresample|avcodec|avformat)\.so`)
	systemFFmpegDep = regexp.MustCompile(`/lib(x26[45]|rsvg|gnutls|vpx|aom|openmpt|zvbi)`)
)

// TestFFmpegLoadsTheAudioOnlyBuild: with the audio-only FFmpeg of
// scripts/build-ffmpeg.sh in FURUDESK_FFMPEG_DIR (make test builds it),
// its four libraries are the ones loaded and decode, and none of the
// hundred libraries the system's FFmpeg pulls in (codecs for video,
// TLS, SVG…) is mapped.
func TestFFmpegLoadsTheAudioOnlyBuild(t *testing.T) {
	dir := os.Getenv(FFmpegDirEnv)
	if dir == "" {
		t.Skip(FFmpegDirEnv + " names no audio-only FFmpeg build (make test builds one)")
	}
	if !inChild(t, "TestFFmpegLoadsTheAudioOnlyBuild") {
		return
	}
	before := len(mappedLibs(t))
	if x := decodeFile(t, ffmpegSine(t, t.TempDir(), "s.m4a", 1000, 0.5, 44100)); len(x) < 44100/4 {
		t.Fatalf("an AAC file of 0.5 s decoded to %d frames", len(x))
	}
	if v := Decoders(); !strings.Contains(v, "audio-only build in "+dir) {
		t.Fatalf("Decoders() = %q, want the audio-only build in %s", v, dir)
	}
	var ours, others []string
	for _, l := range mappedLibs(t) {
		switch {
		case ffmpegLib.MatchString(l):
			if filepath.Dir(l) != filepath.Clean(dir) {
				t.Errorf("%s is mapped, not the audio-only build's", l)
			}
			ours = append(ours, l)
		case systemFFmpegDep.MatchString(l):
			others = append(others, l)
		}
	}
	if len(ours) != 4 || len(others) > 0 {
		t.Fatalf("FFmpeg's libraries mapped: %q; of the system FFmpeg's dependencies: %q", ours, others)
	}
	t.Logf("%d shared objects before the first decode, %d after", before, len(mappedLibs(t)))
}

// TestFFmpegFallsBackToTheSystem: a folder whose libraries cannot be
// loaded (here a libavutil that is no library) leaves the system's FFmpeg to
// decode, and Decoders says why the folder's were not used.
func TestFFmpegFallsBackToTheSystem(t *testing.T) {
	dir := t.TempDir()
	if os.Getenv("FURUDESK_FFMPEG_LOAD_CHILD") != "" {
		dir = os.Getenv(FFmpegDirEnv)
	} else if err := os.WriteFile(filepath.Join(dir, "libavutil.so.57"), []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !inChild(t, "TestFFmpegFallsBackToTheSystem", FFmpegDirEnv+"="+dir) {
		return
	}
	if x := decodeFile(t, ffmpegSine(t, t.TempDir(), "s.m4a", 1000, 0.5, 44100)); len(x) < 44100/4 {
		t.Fatalf("an AAC file of 0.5 s decoded to %d frames", len(x))
	}
	v := Decoders()
	if !strings.HasPrefix(v, "FFmpeg ") || !strings.Contains(v, "the system's, not the audio-only build: ") ||
		!strings.Contains(v, filepath.Join(dir, "libavutil.so.")) {
		t.Fatalf("Decoders() = %q, want the system's FFmpeg and why not %s's", v, dir)
	}
}

// mapsLibavcodec reports whether this process has libavcodec mapped.
func mapsLibavcodec(t *testing.T) bool {
	t.Helper()
	return slices.ContainsFunc(mappedLibs(t), func(l string) bool { return strings.Contains(filepath.Base(l), "libavcodec") })
}

// TestFFmpegLoadsAtFirstUse: a process maps FFmpeg's libraries only when
// it first decodes or asks for them (furudesk ctl never does), and then
// decodes through them. It runs in a child process of its own, where no
// other test decoded first.
func TestFFmpegLoadsAtFirstUse(t *testing.T) {
	if !inChild(t, "TestFFmpegLoadsAtFirstUse") {
		return
	}
	told := make(chan string, 1)
	WhenLoaded(func(d string) { told <- d })
	if mapsLibavcodec(t) {
		t.Fatal("libavcodec is mapped before anything was decoded")
	}
	select {
	case d := <-told:
		t.Fatalf("WhenLoaded told %q before anything loaded", d)
	default:
	}
	v := Decoders()
	if !strings.HasPrefix(v, "FFmpeg ") {
		t.Fatalf("Decoders() = %q, want FFmpeg's version", v)
	}
	if !mapsLibavcodec(t) {
		t.Fatal("FFmpeg decodes but libavcodec is not mapped")
	}
	select {
	case d := <-told:
		if d != v {
			t.Fatalf("WhenLoaded told %q, want %q", d, v)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("WhenLoaded was not told of the load")
	}
}
