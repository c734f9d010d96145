//go:build linux || darwin || freebsd

package library

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/furudesk/furudesk/internal/wavfile"
)

// A FIFO named like an audio file would block a reader forever: the scanner
// must skip it without opening it.
func TestScanSkipsFIFOWithoutOpeningIt(t *testing.T) {
	root := t.TempDir()
	toneWAV(t, filepath.Join(root, "ok.wav"), 440, wavfile.Tags{})
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.mp3"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	idx := NewMemIndex()
	res := scanOK(t, idx, []string{root}, ScanOptions{})
	if res.NotRegular != 1 || idx.Len() != 1 {
		t.Fatalf("result %+v", res)
	}
}
