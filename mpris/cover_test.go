package mpris

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/furudesk/furudesk/app"
	"github.com/godbus/dbus/v5"
)

func pngBytes(t *testing.T, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, c)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestCoverCacheWritesAFileURL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "covers")
	img := pngBytes(t, color.White)
	c := NewCoverCache(dir, func(id string) ([]byte, error) {
		if id == "b3:none" {
			return nil, errors.New("app: no cover")
		}
		if id == "b3:huge" {
			return make([]byte, MaxCoverBytes+1), nil
		}
		return img, nil
	}, nil)

	u := c.ArtURL("b3:" + hex64('a'))
	parsed, err := url.Parse(u)
	if err != nil || parsed.Scheme != "file" || !strings.HasSuffix(parsed.Path, ".png") {
		t.Fatalf("ArtURL = %q, want a file:// URL of a .png", u)
	}
	got, err := os.ReadFile(filepath.FromSlash(parsed.Path))
	if err != nil || !bytes.Equal(got, img) {
		t.Errorf("the file at %s does not hold the cover: %v", parsed.Path, err)
	}
	for _, id := range []string{"b3:none", "b3:huge"} {
		if u := c.ArtURL(id); u != "" {
			t.Errorf("ArtURL(%s) = %q, want none", id, u)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the cover dir, want 1 (no temp files left)", len(entries))
	}
}

func TestCoverCacheKeepsAtMostMaxCoverFiles(t *testing.T) {
	dir := t.TempDir()
	img := pngBytes(t, color.Black)
	c := NewCoverCache(dir, func(string) ([]byte, error) { return img, nil }, nil)
	if err := os.WriteFile(filepath.Join(dir, "unrelated.txt"), []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	var last string
	for i := range MaxCoverFiles + 10 {
		last = c.ArtURL(fmt.Sprintf("b3:%04d", i))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != MaxCoverFiles+1 {
		t.Errorf("%d files, want %d covers and the unrelated file", len(entries), MaxCoverFiles)
	}
	u, _ := url.Parse(last)
	if _, err := os.Stat(filepath.FromSlash(u.Path)); err != nil {
		t.Errorf("the newest cover was pruned: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "unrelated.txt")); err != nil {
		t.Errorf("a file that is not a cover was removed: %v", err)
	}
}

func TestArtURLInMetadataFollowsTheTrack(t *testing.T) {
	t.Parallel()
	var asked []string
	r := newRig(t, newFakePlayer(pausedAt(0, 0)), Options{
		ArtURL: func(id string) string {
			asked = append(asked, id) // only the status goroutine calls it
			if id == testQueue()[1].ContentID {
				return "" // no cover
			}
			return "file:///c/" + id[3:6]
		},
	})
	sigs := r.watch(t)
	// Position updates of the same track do not ask again.
	r.fake.set(func(st *app.Status) { st.PositionMS = 1000 })
	r.applied(t, "position 1 s", func(st app.Status) bool { return st.PositionMS == 1000 })

	r.fake.set(func(st *app.Status) { st.Index = 1; st.Track = &st.Queue[1] })
	meta, _ := changedProps(t, nextSignal(t, sigs))["Metadata"].Value().(map[string]dbus.Variant)
	if _, ok := meta["mpris:artUrl"]; ok {
		t.Errorf("Metadata of a track without cover has mpris:artUrl %v", meta["mpris:artUrl"])
	}
	// A rescan may have found a cover: the library version changes.
	r.fake.set(func(st *app.Status) { st.LibraryVersion++ })
	r.applied(t, "the library version", func(st app.Status) bool { return st.LibraryVersion == 1 })
	r.fake.set(func(st *app.Status) { st.Index = 2; st.Track = &st.Queue[2] })
	meta, _ = changedProps(t, nextSignal(t, sigs))["Metadata"].Value().(map[string]dbus.Variant)
	if got := meta["mpris:artUrl"].Value(); got != "file:///c/ccc" {
		t.Errorf("mpris:artUrl = %v, want file:///c/ccc", got)
	}
	r.srv.Close()
	want := []string{testQueue()[0].ContentID, testQueue()[1].ContentID, testQueue()[1].ContentID, testQueue()[2].ContentID}
	if !slices.Equal(asked, want) {
		t.Errorf("ArtURL asked for %q, want %q", asked, want)
	}
}

func TestFileURLOfUnixAndWindowsPaths(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/home/u/covers/cover-a.jpg", "file:///home/u/covers/cover-a.jpg"},
		{"/music/a b#1.flac", "file:///music/a%20b%231.flac"},
		// filepath.ToSlash has made C:\Users\u\x.jpg this on Windows.
		{"C:/Users/u/mpris-covers/cover-a.jpg", "file:///C:/Users/u/mpris-covers/cover-a.jpg"},
	} {
		if got := FileURL(tc.path); got != tc.want {
			t.Errorf("FileURL(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}
