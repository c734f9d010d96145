package library

import (
	"bytes"
	"context"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/furudesk/furudesk/internal/wavfile"
)

// needFFmpeg skips a test when ffmpeg is missing, except on CI (CI set),
// where a missing ffmpeg is a failure.
func needFFmpeg(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ffmpeg is required on CI: %v", err)
		}
		t.Skip("ffmpeg not installed")
	}
}

// ffmpegTone writes a tagged sine tone with ffmpeg; the format follows the
// extension of path.
func ffmpegTone(t testing.TB, path string, freq int, seconds float64, meta map[string]string, extra ...string) {
	t.Helper()
	needFFmpeg(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"-v", "error", "-y", "-f", "lavfi", "-i",
		"sine=frequency=" + strconv.Itoa(freq) + ":duration=" + strconv.FormatFloat(seconds, 'f', -1, 64)}
	args = append(args, extra...)
	for _, k := range sortedKeys(meta) {
		args = append(args, "-metadata", k+"="+meta[k])
	}
	args = append(args, path)
	ffmpeg(t, args...)
}

func ffmpeg(t testing.TB, args ...string) {
	t.Helper()
	cmd := exec.Command("ffmpeg", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", args, err, stderr.String())
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	return keys
}

// toneWAV writes a short Go-synthesized WAV with INFO tags; freq makes the
// audio (and so the content id) distinct.
func toneWAV(t testing.TB, path string, freq float64, tags wavfile.Tags) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	const rate = 8000
	s := make([]int16, rate/10)
	for i := range s {
		s[i] = int16(8000 * math.Sin(2*math.Pi*freq*float64(i)/rate))
	}
	var b bytes.Buffer
	if err := wavfile.Write(&b, rate, 1, s, tags); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// faultFS wraps the OS file system with hooks that fail or act at chosen
// moments. Tests run as root, which chmod 000 does not stop, so permission
// errors are injected here.
type faultFS struct {
	osFS
	mu      sync.Mutex
	open    map[string]error  // Open(path) fails with this error
	readDir map[string]error  // ReadDir(path) fails with this error
	onRead  map[string]func() // run before ReadDir(path)
	onOpen  map[string]func() // run before Open(path)
}

func newFaultFS() *faultFS {
	return &faultFS{open: map[string]error{}, readDir: map[string]error{}, onRead: map[string]func(){}, onOpen: map[string]func(){}}
}

func (f *faultFS) Open(name string) (file, error) {
	f.mu.Lock()
	err, hook := f.open[name], f.onOpen[name]
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f.osFS.Open(name)
}

func (f *faultFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f.mu.Lock()
	err, hook := f.readDir[name], f.onRead[name]
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return f.osFS.ReadDir(name)
}

func scanOK(t *testing.T, idx Index, roots []string, opts ScanOptions) ScanResult {
	t.Helper()
	res, err := Scan(context.Background(), idx, roots, opts)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return res
}
