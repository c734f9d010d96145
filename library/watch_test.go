package library

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/internal/wavfile"
)

type watchHarness struct {
	t    *testing.T
	w    *Watcher
	idx  *MemIndex
	root string
	log  []string
}

func startWatch(t *testing.T) *watchHarness {
	t.Helper()
	root := t.TempDir()
	idx := NewMemIndex()
	w, err := Watch(context.Background(), idx, []string{root}, WatchOptions{Debounce: 30 * time.Millisecond, MaxDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return &watchHarness{t: t, w: w, idx: idx, root: root}
}

// waitFor reads events until one satisfies pred, with a generous deadline
// (no sleeps: the wait ends as soon as the event arrives).
func (h *watchHarness) waitFor(what string, pred func(Event) bool) Event {
	h.t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case e, ok := <-h.w.Events():
			if !ok {
				h.t.Fatalf("events closed while waiting for %s", what)
			}
			h.log = append(h.log, fmt.Sprintf("%v %s (old %s) %v", e.Kind, e.Track.Path, e.OldPath, e.Err))
			if pred(e) {
				return e
			}
		case <-deadline.C:
			h.t.Fatalf("no %s within the deadline; events seen:\n%s", what, strings.Join(h.log, "\n"))
		}
	}
}

func (h *watchHarness) path(rel string) string { return filepath.Join(h.root, rel) }

func is(kind EventKind, path string) func(Event) bool {
	return func(e Event) bool { return e.Kind == kind && e.Track.Path == path }
}

func TestWatchFollowsAddChangeRenameMoveAndDelete(t *testing.T) {
	h := startWatch(t)

	// Add into folders created after the watch started.
	first := h.path("Artist/Album/01 - First.wav")
	toneWAV(t, first, 440, wavfile.Tags{Title: "First", Artist: "Artist"})
	e := h.waitFor("Added first", is(Added, first))
	if e.Track.Title != "First" || !strings.HasPrefix(e.Track.ContentID, "b3:") {
		t.Errorf("added track %+v", e.Track)
	}
	id := e.Track.ContentID
	second := h.path("Artist/Album/02 - Second.wav")
	toneWAV(t, second, 660, wavfile.Tags{Title: "Second"})
	h.waitFor("Added second", is(Added, second))

	// Retag: Changed, same content id.
	toneWAV(t, first, 440, wavfile.Tags{Title: "First (remaster tag)", Artist: "Artist"})
	e = h.waitFor("Changed", is(Changed, first))
	if e.Track.Title != "First (remaster tag)" || e.Track.ContentID != id {
		t.Errorf("changed track %+v", e.Track)
	}

	// Rename in place: Moved, identity kept.
	renamed := h.path("Artist/Album/01 - Renamed.wav")
	if err := os.Rename(first, renamed); err != nil {
		t.Fatal(err)
	}
	e = h.waitFor("Moved by rename", is(Moved, renamed))
	if e.OldPath != first || e.Track.ContentID != id {
		t.Errorf("rename event %+v", e)
	}

	// Move into a new folder.
	if err := os.MkdirAll(h.path("Inbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	inbox := h.path("Inbox/01 - Renamed.wav")
	if err := os.Rename(renamed, inbox); err != nil {
		t.Fatal(err)
	}
	e = h.waitFor("Moved into new folder", is(Moved, inbox))
	if e.OldPath != renamed {
		t.Errorf("move event %+v", e)
	}

	// Move the whole folder, then add a file inside it: the new path is
	// watched, the old one forgotten.
	if err := os.Rename(h.path("Inbox"), h.path("Sorted")); err != nil {
		t.Fatal(err)
	}
	sorted := h.path("Sorted/01 - Renamed.wav")
	e = h.waitFor("Moved with its folder", is(Moved, sorted))
	if e.OldPath != inbox || e.Track.ContentID != id {
		t.Errorf("folder move event %+v", e)
	}
	later := h.path("Sorted/03 - Later.wav")
	toneWAV(t, later, 880, wavfile.Tags{Title: "Later"})
	h.waitFor("Added in moved folder", is(Added, later))

	// Delete a file, then a whole folder.
	if err := os.Remove(later); err != nil {
		t.Fatal(err)
	}
	e = h.waitFor("Removed file", is(Removed, later))
	if e.Track.ContentID == "" {
		t.Errorf("removed event without content id: %+v", e)
	}
	if err := os.RemoveAll(h.path("Artist")); err != nil {
		t.Fatal(err)
	}
	h.waitFor("Removed with its folder", is(Removed, second))

	if got := h.idx.Len(); got != 1 {
		t.Errorf("index holds %d tracks, want 1: %v", got, h.idx.Tracks())
	}
	if tr, ok := h.idx.Get(sorted); !ok || tr.ContentID != id {
		t.Errorf("moved track in index: %+v %v", tr, ok)
	}
}

func TestWatchCopyOfAnAlbumAndASymlinkLoop(t *testing.T) {
	h := startWatch(t)
	if err := os.MkdirAll(h.path("Loop"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..", h.path("Loop/up")); err != nil {
		t.Fatal(err)
	}
	// Build the album elsewhere and move it in, like a file manager copy
	// finishing, plus files written directly.
	src := filepath.Join(t.TempDir(), "Album")
	for i := 1; i <= 5; i++ {
		toneWAV(t, filepath.Join(src, fmt.Sprintf("%02d - T.wav", i)), float64(300+i*20), wavfile.Tags{Title: fmt.Sprint("T", i)})
	}
	if err := os.Rename(src, h.path("Album")); err != nil {
		// Different file systems: copy instead.
		t.Skipf("rename across temp dirs: %v", err)
	}
	for i := 6; i <= 8; i++ {
		toneWAV(t, h.path(fmt.Sprintf("Album/%02d - T.wav", i)), float64(300+i*20), wavfile.Tags{Title: fmt.Sprint("T", i)})
	}
	added := map[string]bool{}
	h.waitFor("8 tracks added", func(e Event) bool {
		if e.Kind == Added {
			added[e.Track.Path] = true
		}
		return len(added) == 8
	})
	if h.idx.Len() != 8 {
		t.Errorf("index %d", h.idx.Len())
	}
}

func TestDebounceWaitsForQuietOrMaxDelay(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	d := debounce{quiet: 100 * time.Millisecond, maxDelay: 1000 * time.Millisecond}
	if ok, _ := d.due(ms(0)); ok || d.pending() {
		t.Fatal("due with nothing pending")
	}
	d.touch(ms(0))
	d.touch(ms(50))
	if ok, wait := d.due(ms(100)); ok || wait != 50*time.Millisecond {
		t.Fatalf("due at 100: %v %v", ok, wait)
	}
	if ok, _ := d.due(ms(150)); !ok {
		t.Fatal("not due after 100 ms of quiet")
	}
	d.reset()
	// A burst that never pauses is flushed at maxDelay.
	for i := 0; i <= 990; i += 10 {
		d.touch(ms(2000 + i))
	}
	if ok, wait := d.due(ms(2990)); ok || wait != 10*time.Millisecond {
		t.Fatalf("due at 2990: %v %v", ok, wait)
	}
	if ok, _ := d.due(ms(3000)); !ok {
		t.Fatal("endless burst not flushed at maxDelay")
	}
}

// A music folder that goes says so (a Failed event with
// ErrRootUnavailable naming it) besides removing its tracks: a drive
// unplugged or a folder deleted is not a silent empty library.
func TestWatchSaysAMusicFolderWent(t *testing.T) {
	root := filepath.Join(t.TempDir(), "Music")
	song := filepath.Join(root, "Album", "01.wav")
	toneWAV(t, song, 440, wavfile.Tags{Title: "One"})
	idx := NewMemIndex()
	if _, err := Scan(context.Background(), idx, []string{root}, ScanOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := Watch(context.Background(), idx, []string{root}, WatchOptions{Debounce: 30 * time.Millisecond, MaxDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	h := &watchHarness{t: t, w: w, idx: idx, root: root}
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	e := h.waitFor("the folder's failure", is(Failed, root))
	if !errors.Is(e.Err, ErrRootUnavailable) {
		t.Fatalf("err %v, want ErrRootUnavailable", e.Err)
	}
	h.waitFor("its track removed", is(Removed, song))
}
