//go:build cgo && !noffmpeg && linux

package audio

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// mapsLibavcodec reports whether this process has libavcodec mapped.
func mapsLibavcodec(t *testing.T) bool {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(maps), "libavcodec")
}

// TestFFmpegLoadsAtFirstUse: a process maps FFmpeg's libraries only when
// it first decodes or asks for them (furudesk ctl never does), and then
// decodes through them. It runs in a child process of its own, where no
// other test decoded first.
func TestFFmpegLoadsAtFirstUse(t *testing.T) {
	if os.Getenv("FURUDESK_FFMPEG_LOAD_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFFmpegLoadsAtFirstUse$", "-test.v")
		cmd.Env = append(os.Environ(), "FURUDESK_FFMPEG_LOAD_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("child: %v\n%s", err, out)
		}
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
