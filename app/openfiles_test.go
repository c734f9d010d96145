package app

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeWAV writes a short 16-bit mono WAV of samples (a ramp, so that
// two files differ in content id by their length).
func writeWAV(t *testing.T, path string, samples int) {
	t.Helper()
	data := make([]byte, 2*samples)
	for i := range samples {
		binary.LittleEndian.PutUint16(data[2*i:], uint16(i*64))
	}
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+len(data)))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)
	binary.LittleEndian.PutUint16(h[22:], 1)
	binary.LittleEndian.PutUint32(h[24:], 8000)
	binary.LittleEndian.PutUint32(h[28:], 16000)
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(len(data)))
	if err := os.WriteFile(path, append(h, data...), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Issue 39: a file outside the music folders plays from where it is,
// without being added; a missing file and a text file are named in a
// notice and the others still play.
func TestOpenFilesPlaysFilesOutsideTheLibraryAndNamesTheOthers(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.wav"), filepath.Join(dir, "b.wav")
	writeWAV(t, a, 4000)
	writeWAV(t, b, 6000)
	txt := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(txt, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)

	res, err := r.app.OpenFiles([]string{a, filepath.Join(dir, "gone.flac"), txt, b}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tracks != 2 || res.Outside != 2 || len(res.Problems) != 2 {
		t.Fatalf("opened %+v", res)
	}
	st := r.waitStatus("playing a.wav, the notices", func(s Status) bool {
		return s.Playing && len(s.Queue) == 2 && len(s.Notices) >= 2
	})
	if r.out.path != a {
		t.Fatalf("the output plays %q, want %q", r.out.path, a)
	}
	if _, err := r.store.TrackByPath(a); err == nil {
		t.Errorf("a.wav is in the library: opened files must not be added")
	}
	var texts []string
	for _, n := range st.Notices {
		texts = append(texts, n.Text)
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"gone.flac (does not exist)", "notes.txt (not an audio file furudesk plays)",
		"2 files from outside the music folders: played from where they are"} {
		if !strings.Contains(all, want) {
			t.Errorf("notices %q lack %q", texts, want)
		}
	}

	// --enqueue appends, and a file opened again is found again.
	if _, err := r.app.OpenFiles([]string{a}, true); err != nil {
		t.Fatal(err)
	}
	r.waitStatus("a.wav appended", func(s Status) bool { return len(s.Queue) == 3 })
	if e, err := r.app.ResolveEntry(b); err != nil || e.ContentID != st.Queue[1].ContentID {
		t.Errorf("ResolveEntry(b.wav) = %+v, %v", e, err)
	}

	// Nothing playable: the queue stays and the error names why.
	_, err = r.app.OpenFiles([]string{txt}, false)
	if !errors.Is(err, ErrNothingToOpen) || !strings.Contains(UserMessage(err), "notes.txt (not an audio file") {
		t.Fatalf("nothing to open: %v", err)
	}
	if q := r.app.Status().Queue; len(q) != 3 {
		t.Fatalf("the queue changed to %d entries", len(q))
	}
}

// Issue 39: a file played from outside the library still plays after a
// restart (the queue keeps it); one changed since does not.
func TestOpenedFilesPlayAfterARestart(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.wav"), filepath.Join(dir, "b.wav")
	writeWAV(t, a, 4000)
	writeWAV(t, b, 6000)
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if _, err := r.app.OpenFiles([]string{a, b}, false); err != nil {
		t.Fatal(err)
	}
	q := r.waitStatus("both queued", func(s Status) bool { return len(s.Queue) == 2 }).Queue
	if err := r.app.Close(); err != nil {
		t.Fatal(err)
	}
	writeWAV(t, b, 7000) // b changes while furudesk is not running

	r.start(Options{Config: fastCfg()})
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(5 * time.Millisecond) // polling a background read, with a deadline
		}
	}
	waitFor("a.wav to be found again", func() bool {
		t, err := r.app.store.TrackByContentID(q[0].ContentID)
		return err == nil && t.Path == a
	})
	if _, err := r.app.store.TrackByContentID(q[1].ContentID); err == nil {
		t.Errorf("b.wav changed since, but its old content id still finds it")
	}
}
