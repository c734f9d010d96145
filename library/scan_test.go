package library

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/furudesk/furudesk/internal/wavfile"
)

// albumTree writes root/Artist/Album/NN - Title.wav files and returns their
// paths.
func albumTree(t *testing.T, root string, albums, tracks int) []string {
	t.Helper()
	var paths []string
	for a := 0; a < albums; a++ {
		for n := 1; n <= tracks; n++ {
			p := filepath.Join(root, "Artist", "Album "+string(rune('A'+a)), "0"+string(rune('0'+n))+" - Song.wav")
			toneWAV(t, p, float64(200+a*50+n*7), wavfile.Tags{Title: "Song " + string(rune('A'+a)) + string(rune('0'+n)), Artist: "Artist", Album: "Album " + string(rune('A'+a)), Track: n})
			paths = append(paths, p)
		}
	}
	return paths
}

func TestScanIsIncrementalAndFollowsChanges(t *testing.T) {
	root := t.TempDir()
	paths := albumTree(t, root, 2, 3)
	if err := os.WriteFile(filepath.Join(root, "Artist", "Album A", "cover.jpg"), []byte("jpg"), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := NewMemIndex()
	var last Progress
	calls := 0
	res := scanOK(t, idx, []string{root}, ScanOptions{Progress: func(p Progress) { last = p; calls++ }})
	if res.Added != 6 || res.Found != 6 || res.Skipped != 0 || idx.Len() != 6 {
		t.Fatalf("cold scan: %+v, index %d", res, idx.Len())
	}
	if calls == 0 || last.Done != 6 || last.Found != 6 {
		t.Errorf("progress: %d calls, last %+v", calls, last)
	}
	tr, _ := idx.Get(paths[0])
	if tr.Cover != filepath.Join(root, "Artist", "Album A", "cover.jpg") || tr.Title != "Song A1" {
		t.Errorf("track: %+v", tr)
	}

	res = scanOK(t, idx, []string{root}, ScanOptions{})
	if res.Unchanged != 6 || res.Added+res.Updated+res.Removed+res.Moved != 0 {
		t.Fatalf("warm scan: %+v", res)
	}

	// Retag one file (size changes), move another, delete a third, add a
	// cover to album B.
	toneWAV(t, paths[1], float64(200+0*50+2*7), wavfile.Tags{Title: "Renamed Song", Artist: "Artist"})
	moved := filepath.Join(root, "Elsewhere", "moved.wav")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(paths[2], moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(paths[3]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "Artist", "Album B", "folder.png"), []byte("png"), 0o644); err != nil {
		t.Fatal(err)
	}
	old, _ := idx.Get(paths[2])
	res = scanOK(t, idx, []string{root}, ScanOptions{})
	if res.Updated != 3 || res.Moved != 1 || res.Removed != 1 || res.Unchanged != 1 {
		t.Fatalf("after changes: %+v", res)
	}
	if tr, _ := idx.Get(paths[1]); tr.Title != "Renamed Song" {
		t.Errorf("retagged title %q", tr.Title)
	}
	if tr, ok := idx.Get(moved); !ok || tr.ContentID != old.ContentID {
		t.Errorf("moved track %+v (old id %s)", tr, old.ContentID)
	}
	for _, p := range []string{paths[2], paths[3]} {
		if _, ok := idx.Get(p); ok {
			t.Errorf("%s still indexed", p)
		}
	}
	if tr, _ := idx.Get(paths[4]); tr.Cover != filepath.Join(root, "Artist", "Album B", "folder.png") {
		t.Errorf("cover added later not picked up: %q", tr.Cover)
	}
}

func TestScanCountsAndSkipsBadInput(t *testing.T) {
	root := t.TempDir()
	good := filepath.Join(root, "good", "01 - Good.wav")
	toneWAV(t, good, 440, wavfile.Tags{Title: "Good"})
	write := func(rel string, b []byte) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("bad/garbage.mp3", []byte(strings.Repeat("garbage ", 100)))
	write("bad/cut.flac", []byte("fLaC\x00\x00"))
	write("bad/notes.txt", []byte("ignored, not audio by extension"))
	// Broken tags: an id3 chunk full of junk in an otherwise good WAV.
	toneWAV(t, filepath.Join(root, "bad", "07 - Broken Tag.wav"), 330, wavfile.Tags{})
	wav, _ := os.ReadFile(filepath.Join(root, "bad", "07 - Broken Tag.wav"))
	junk := append([]byte("id3 \x10\x00\x00\x00ID3\x04\x00\x00\x7f\x7f\x7f\x7f"), make([]byte, 6)...)
	broken := append(append([]byte{}, wav...), junk...)
	write("bad/07 - Broken Tag.wav", broken)
	// A non-UTF-8 name.
	odd := filepath.Join(root, "bad", "caf\xe9 \xff.wav")
	toneWAV(t, odd, 550, wavfile.Tags{})
	// A symlink loop and a link to a file.
	if err := os.Symlink("..", filepath.Join(root, "good", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(good, filepath.Join(root, "bad", "link.wav")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "nowhere.wav"), filepath.Join(root, "bad", "dead.wav")); err != nil {
		t.Fatal(err)
	}

	idx := NewMemIndex()
	res := scanOK(t, idx, []string{root}, ScanOptions{})
	if res.NotAudio != 2 || res.Vanished != 1 || res.SymlinkLoops != 1 || res.BrokenTags != 1 || res.NonUTF8Names != 1 {
		t.Errorf("counts: %+v", res)
	}
	if res.Skipped != 3 || len(res.Problems) != 5 {
		t.Errorf("skipped %d, problems %v", res.Skipped, res.Problems)
	}
	// good, broken tag, odd name, link to good.
	if idx.Len() != 4 {
		t.Errorf("indexed %d tracks, want 4", idx.Len())
	}
	tr, ok := idx.Get(filepath.Join(root, "bad", "07 - Broken Tag.wav"))
	if !ok || tr.Title != "Broken Tag" || tr.TrackNo != 7 {
		t.Errorf("broken-tag fallback: %+v", tr)
	}
	tr, ok = idx.Get(odd)
	if !ok || !utf8.ValidString(tr.Title) || !strings.HasPrefix(tr.Title, "caf") {
		t.Errorf("non-UTF-8 name: %+v", tr)
	}
}

// Permission errors are injected (tests run as root, which chmod 000 does not
// stop): a file and a folder become unreadable after a first scan. Their
// entries are kept, the rest of the scan goes on.
func TestUnreadableFileAndFolderKeepTheirEntries(t *testing.T) {
	root := t.TempDir()
	paths := albumTree(t, root, 2, 2)
	idx := NewMemIndex()
	scanOK(t, idx, []string{root}, ScanOptions{})

	ffs := newFaultFS()
	ffs.open[paths[0]] = fs.ErrPermission
	ffs.readDir[filepath.Dir(paths[2])] = fs.ErrPermission
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(paths[0], later, later); err != nil { // forces a re-read
		t.Fatal(err)
	}
	res := scanOK(t, idx, []string{root}, ScanOptions{fsys: ffs})
	if res.Unreadable != 1 || res.FolderErrors != 1 || res.Removed != 0 {
		t.Fatalf("result: %+v", res)
	}
	if idx.Len() != 4 {
		t.Fatalf("entries lost: %d left", idx.Len())
	}
	if !errors.Is(res.Problems[0].Err, fs.ErrPermission) && !errors.Is(res.Problems[1].Err, fs.ErrPermission) {
		t.Errorf("problems %v", res.Problems)
	}
}

// A folder removed while the scan runs (just after its sibling was listed)
// and a file removed between listing and reading: counted, not fatal, and
// their entries go because the files are really gone.
func TestFolderRemovedWhileScanning(t *testing.T) {
	root := t.TempDir()
	paths := albumTree(t, root, 3, 2) // Album A, B, C
	idx := NewMemIndex()
	scanOK(t, idx, []string{root}, ScanOptions{})

	ffs := newFaultFS()
	albumB := filepath.Dir(paths[2])
	ffs.onRead[filepath.Dir(paths[0])] = func() {
		if err := os.RemoveAll(albumB); err != nil {
			t.Error(err)
		}
	}
	ffs.onOpen[paths[5]] = func() { _ = os.Remove(paths[5]) }
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(paths[5], later, later); err != nil {
		t.Fatal(err)
	}
	res := scanOK(t, idx, []string{root}, ScanOptions{fsys: ffs})
	if res.Vanished != 1 || res.Removed != 3 {
		t.Fatalf("result: %+v", res)
	}
	if idx.Len() != 3 {
		t.Fatalf("index has %d tracks, want 3", idx.Len())
	}
}

func TestMissingRootKeepsItsEntries(t *testing.T) {
	root := t.TempDir()
	albumTree(t, root, 1, 2)
	idx := NewMemIndex()
	scanOK(t, idx, []string{root}, ScanOptions{})
	gone := root + "-unmounted"
	if err := os.Rename(root, gone); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(gone) })
	res := scanOK(t, idx, []string{root}, ScanOptions{})
	if res.RootsMissing != 1 || res.Removed != 0 || idx.Len() != 2 {
		t.Fatalf("result %+v, index %d", res, idx.Len())
	}
	if !errors.Is(res.Problems[0].Err, ErrRootUnavailable) {
		t.Errorf("problem %v", res.Problems[0])
	}
}

func TestScanCancelKeepsWorkDoneAndDeletesNothing(t *testing.T) {
	root := t.TempDir()
	paths := albumTree(t, root, 3, 3)
	idx := NewMemIndex()
	if err := idx.Put([]Track{{Path: filepath.Join(root, "gone.wav"), ContentID: "b3:gone"}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// One worker reads files in walk order; cancel while the third opens.
	ffs := newFaultFS()
	ffs.onOpen[paths[2]] = cancel
	res, err := Scan(ctx, idx, []string{root}, ScanOptions{Workers: 1, fsys: ffs})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if res.Added != 3 {
		t.Errorf("added %d of %d, want the 3 read before the cancel", res.Added, len(paths))
	}
	if _, ok := idx.Get(filepath.Join(root, "gone.wav")); !ok {
		t.Error("a cancelled scan deleted an entry")
	}
	if idx.Len() != res.Added+1 {
		t.Errorf("index %d, added %d", idx.Len(), res.Added)
	}
}

func TestScanEveryFormat(t *testing.T) {
	root := t.TempDir()
	for i, ext := range allFormats {
		ffmpegTone(t, filepath.Join(root, "A", "B", "0"+string(rune('1'+i))+" - T."+ext), 300+100*i, 0.5, map[string]string{"title": "T " + ext})
	}
	idx := NewMemIndex()
	res := scanOK(t, idx, []string{root}, ScanOptions{})
	if res.Added != 4 || res.Skipped != 0 {
		t.Fatalf("result %+v", res)
	}
	for _, tr := range idx.Tracks() {
		if tr.Title != "T "+tr.Format || tr.Duration < 450*time.Millisecond {
			t.Errorf("track %+v", tr)
		}
	}
}

func TestGenerateDemoMakesAPlayableTaggedAlbum(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "furudesk demo")
	paths, err := GenerateDemo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 3 {
		t.Fatalf("%d demo tracks", len(paths))
	}
	idx := NewMemIndex()
	res := scanOK(t, idx, []string{filepath.Dir(dir)}, ScanOptions{})
	if res.Added != len(paths) {
		t.Fatalf("scan %+v", res)
	}
	ids := map[string]bool{}
	for i, tr := range idx.Tracks() {
		if len(tr.Artists) != 1 || tr.Artists[0] != DemoArtist || tr.Album != DemoAlbum || tr.TrackNo != i+1 || tr.Title == "" {
			t.Errorf("demo track tags: %+v", tr)
		}
		if tr.Duration < 20*time.Second || tr.Duration > 31*time.Second {
			t.Errorf("demo track %q lasts %v", tr.Title, tr.Duration)
		}
		ids[tr.ContentID] = true
	}
	if len(ids) != len(paths) {
		t.Errorf("demo tracks share content ids")
	}
}
