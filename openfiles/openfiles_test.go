package openfiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/furudesk/furudesk/library"
)

func TestPathsDecodeFileURIsAndTakeRelativePathsFromTheCaller(t *testing.T) {
	got, probs := Paths([]string{
		"file:///music/A%20B/01%20%C3%A9t%C3%A9.flac",
		"file://localhost/music/x.mp3",
		"song.ogg",
		"../up/song.wav",
		"/abs/./dir/",
		"http://example.com/a.mp3",
		"file://otherhost/a.mp3",
		"",
	}, "/home/u/cwd")
	want := []string{"/music/A B/01 été.flac", "/music/x.mp3", "/home/u/cwd/song.ogg", "/home/u/up/song.wav", "/abs/dir"}
	if !slices.Equal(got, want) {
		t.Errorf("paths = %q, want %q", got, want)
	}
	var reasons []string
	for _, p := range probs {
		reasons = append(reasons, p.String())
	}
	wantR := []string{
		"http://example.com/a.mp3: furudesk opens files, not http addresses",
		"file://otherhost/a.mp3: a file of another computer (otherhost)",
		": an empty name",
	}
	if !slices.Equal(reasons, wantR) {
		t.Errorf("problems = %q, want %q", reasons, wantR)
	}
}

// fakeAnalyzer reads "disc track" from the file's content, and refuses a
// file whose content is "bad".
func fakeAnalyzer(p string) (library.Track, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return library.Track{}, err
	}
	if library.FormatOf(p) == "" {
		return library.Track{}, fmt.Errorf("%w: extension of %q", library.ErrUnsupported, filepath.Base(p))
	}
	if string(b) == "bad" {
		return library.Track{}, fmt.Errorf("%s: %w", p, library.ErrNotAudio)
	}
	var disc, track int
	if _, err := fmt.Sscan(string(b), &disc, &track); err != nil {
		return library.Track{}, err
	}
	return library.Track{Path: p, DiscNo: disc, TrackNo: track}, nil
}

func write(t *testing.T, p, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func names(ts []library.Track, root string) []string {
	var out []string
	for _, t := range ts {
		r, _ := filepath.Rel(root, t.Path)
		out = append(out, r)
	}
	return out
}

func TestFoldersPlayInTrackOrderAndFilesInTheOrderGiven(t *testing.T) {
	root := t.TempDir()
	album := filepath.Join(root, "album")
	write(t, filepath.Join(album, "a.flac"), "1 3")
	write(t, filepath.Join(album, "b.flac"), "1 1")
	write(t, filepath.Join(album, "c.mp3"), "2 1")
	write(t, filepath.Join(album, "z.flac"), "1 2")
	write(t, filepath.Join(album, "cover.jpg"), "jpeg")
	write(t, filepath.Join(album, "notes.txt"), "text")
	write(t, filepath.Join(album, "broken.ogg"), "bad")
	write(t, filepath.Join(album, "CD2", "x.wav"), "0 1")
	single := write(t, filepath.Join(root, "single.opus"), "0 9")
	text := write(t, filepath.Join(root, "readme.txt"), "hello")
	missing := filepath.Join(root, "gone.flac")
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}

	got, probs := Tracks([]string{single, album, missing, text, empty}, fakeAnalyzer)
	want := []string{"single.opus", "album/b.flac", "album/z.flac", "album/a.flac", "album/c.mp3", "album/CD2/x.wav"}
	if g := names(got, root); !slices.Equal(g, want) {
		t.Errorf("tracks = %q, want %q", g, want)
	}
	var reasons []string
	for _, p := range probs {
		r, _ := filepath.Rel(root, p.Arg)
		reasons = append(reasons, r+": "+p.Reason)
	}
	wantR := []string{
		"album/broken.ogg: not audio furudesk can read (not audio)",
		"gone.flac: does not exist",
		"readme.txt: not an audio file furudesk plays",
		"empty: has no audio files furudesk plays",
	}
	if !slices.Equal(reasons, wantR) {
		t.Errorf("problems = %q, want %q", reasons, wantR)
	}
}

func TestAnOpeningStopsAtMax(t *testing.T) {
	root := t.TempDir()
	n := 0
	analyze := func(p string) (library.Track, error) {
		n++
		return library.Track{Path: p}, nil
	}
	for i := range 3 {
		write(t, filepath.Join(root, "d", fmt.Sprintf("%d.mp3", i)), "")
	}
	paths := make([]string, Max-2)
	for i := range paths {
		paths[i] = write(t, filepath.Join(root, "f.mp3"), "")
	}
	got, probs := Tracks(append(paths, filepath.Join(root, "d"), filepath.Join(root, "f.mp3")), analyze)
	if len(got) != Max || n != Max {
		t.Fatalf("%d tracks (%d analyzed), want %d", len(got), n, Max)
	}
	if len(probs) != 2 || !strings.Contains(probs[0].Reason, "at most") || probs[1].Arg != filepath.Join(root, "f.mp3") {
		t.Errorf("problems = %v, want the folder's third file and the last file left out", probs)
	}
}

func TestProblemsAreBounded(t *testing.T) {
	var paths []string
	for i := range maxProblems + 7 {
		paths = append(paths, fmt.Sprintf("/nonexistent/l5/%d.flac", i))
	}
	_, probs := Tracks(paths, func(string) (library.Track, error) { return library.Track{}, errors.New("unused") })
	if len(probs) != maxProblems+1 || probs[maxProblems].Reason != "and 7 more files left out" {
		t.Errorf("%d problems, last %v", len(probs), probs[len(probs)-1])
	}
}
