package app

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/library"
)

// musicRig is a device whose library holds the three tracks the m3u
// fixtures name, under root.
func musicRig(t *testing.T, root string) *rig {
	r := newPlaylistRig(t, newFakeOpLog(self))
	r.store.mu.Lock()
	for _, tr := range []library.Track{
		{ContentID: "b3:venus", Path: filepath.Join(root, "Björk/Debut/03 Venus as a Boy.flac"), Title: "Venus as a Boy", Artists: []string{"Björk"}, Duration: 245 * time.Second},
		{ContentID: "b3:human", Path: filepath.Join(root, "Björk/Debut/01 Human Behaviour.mp3"), Title: "Human Behaviour", Artists: []string{"Björk"}, Duration: 252 * time.Second},
		{ContentID: "b3:svefn", Path: filepath.Join(root, "Sigur Rós/Ágætis byrjun/02 Svefn-g-englar.ogg"), Title: "Svefn-g-englar", Artists: []string{"Sigur Rós"}, Duration: 372 * time.Second},
	} {
		r.store.tracks[tr.ContentID] = tr
	}
	r.store.mu.Unlock()
	return r
}

func fixture(name string) string { return filepath.Join("..", "playlists", "m3u", "testdata", name) }

func reportLines(ls []ReportLine) []int {
	var out []int
	for _, l := range ls {
		out = append(out, l.Line)
	}
	return out
}

// Playlists written by MPD (paths relative to its own music folder) and in
// VLC's and foobar2000's forms find their tracks by path, under another
// root; a stream is reported.
func TestImportFromOtherPlayers(t *testing.T) {
	r := musicRig(t, "/home/me/Music")
	a := r.app
	rep, err := a.ImportPlaylist(fixture("mpd-relative.m3u"))
	if err != nil {
		t.Fatal(err)
	}
	v := mustView(t, a, rep.Playlist.ID)
	if got := entryIDsOf(v); !slices.Equal(got, []string{"b3:venus", "b3:svefn", "b3:human", "b3:venus"}) || v.Name != "mpd-relative" {
		t.Fatalf("MPD playlist imported as %q %v (report %+v)", v.Name, got, rep)
	}
	if rep.Imported != 4 || rep.MatchedByPath != 4 || rep.NotFound != 0 {
		t.Errorf("report %+v", rep)
	}

	rep, err = a.ImportPlaylist(fixture("vlc-style.m3u"))
	if err != nil {
		t.Fatal(err)
	}
	if got := entryIDsOf(mustView(t, a, rep.Playlist.ID)); !slices.Equal(got, []string{"b3:venus", "b3:svefn"}) {
		t.Fatalf("VLC playlist: %v", got)
	}
	if rep.NotFound != 1 || !slices.Equal(reportLines(rep.Unmatched), []int{5}) || !strings.Contains(rep.Unmatched[0].Reason, "stream") {
		t.Errorf("the stream is not reported: %+v", rep)
	}

	rep, err = a.ImportPlaylist(fixture("foobar-style.m3u8"))
	if err != nil || rep.Imported != 2 {
		t.Fatalf("foobar2000 playlist: %+v %v", rep, err)
	}
}

// Malformed lines are reported with their numbers and the rest imports.
func TestImportReportsMalformedLines(t *testing.T) {
	r := musicRig(t, "/srv/music")
	rep, err := r.app.ImportPlaylist(fixture("malformed.m3u"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Playlist.Name != "Broken but useful" || rep.Imported != 3 {
		t.Fatalf("report %+v", rep)
	}
	if got := reportLines(rep.Problems); !slices.Equal(got, []int{3, 6, 9, 10, 12, 13}) {
		t.Errorf("problems on lines %v: %+v", got, rep.Problems)
	}
}

// Without a path that names a track, the title, artist and length find
// it; a length more than 3 s off does not.
func TestImportByTags(t *testing.T) {
	r := musicRig(t, "/srv/music")
	dir := t.TempDir()
	file := filepath.Join(dir, "tags.m3u8")
	mustWriteFile(t, file, "#EXTM3U\n#EXTINF:251,BJORK - human behaviour\nZ:\\nowhere\\track.mp3\n"+
		"#EXTINF:200,Sigur Rós - Svefn-g-englar\n/gone/a.ogg\n#EXTINF:-1,Venus as a Boy\n/gone/b.flac\n")
	rep, err := r.app.ImportPlaylist(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := entryIDsOf(mustView(t, r.app, rep.Playlist.ID)); !slices.Equal(got, []string{"b3:human", "b3:venus"}) {
		t.Fatalf("matched %v (report %+v)", got, rep)
	}
	if rep.MatchedByTags != 2 || !slices.Equal(reportLines(rep.Unmatched), []int{5}) {
		t.Errorf("report %+v", rep)
	}

	none := filepath.Join(dir, "none.m3u")
	mustWriteFile(t, none, "/gone/x.mp3\n")
	before, _ := r.app.Playlists()
	if _, err := r.app.ImportPlaylist(none); !errors.Is(err, ErrNotInLibrary) || !strings.Contains(UserMessage(err), "none of the 1 tracks") {
		t.Fatalf("importing nothing: %v", err)
	}
	if after, _ := r.app.Playlists(); len(after) != len(before) {
		t.Fatal("a playlist was created for a file with no track found")
	}
	if _, err := r.app.ImportPlaylist(filepath.Join(dir, "missing.m3u")); err == nil || !strings.Contains(UserMessage(err), "missing.m3u") {
		t.Fatalf("a missing file: %v", err)
	}
}

// Export writes paths relative to the file for tracks beneath its folder,
// leaves out what this device lacks, and imports back the same.
func TestExportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "music")
	r := musicRig(t, root)
	a := r.app
	r.store.mu.Lock()
	r.store.tracks["b3:elsewhere"] = library.Track{ContentID: "b3:elsewhere", Path: "/mnt/other/x.mp3", Title: "Elsewhere", Duration: time.Second}
	r.store.mu.Unlock()
	p, _ := a.CreatePlaylist("Trip, part 1")
	if err := a.AddToPlaylist(p.ID, []string{"b3:svefn", "b3:venus", "b3:elsewhere", "b3:svefn"}, -1); err != nil {
		t.Fatal(err)
	}
	r.store.mu.Lock()
	delete(r.store.tracks, "b3:elsewhere") // its file went away
	r.store.mu.Unlock()
	r.do(func(ac *actor) { ac.libRun.version++ }) // as a rescan does
	file := filepath.Join(dir, "trip.m3u8")
	rep, err := a.ExportPlaylist(p.ID, file)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Written != 3 || len(rep.Skipped) != 1 || rep.Skipped[0].Text != "Elsewhere" {
		t.Fatalf("export report %+v", rep)
	}
	b, _ := os.ReadFile(file)
	text := string(b)
	if !strings.Contains(text, "#PLAYLIST:Trip, part 1\n") || !strings.Contains(text, "\nmusic/Sigur Rós/Ágætis byrjun/02 Svefn-g-englar.ogg\n") ||
		!strings.Contains(text, "#EXTINF:372,Sigur Rós - Svefn-g-englar\n") {
		t.Fatalf("exported:\n%s", text)
	}
	back, err := a.ImportPlaylist(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := entryIDsOf(mustView(t, a, back.Playlist.ID)); !slices.Equal(got, []string{"b3:svefn", "b3:venus", "b3:svefn"}) || back.Playlist.Name != "Trip, part 1" {
		t.Fatalf("imported back %q %v", back.Playlist.Name, got)
	}
	if _, err := a.ExportPlaylist(p.ID, filepath.Join(dir, "no", "such", "dir.m3u")); err == nil || !strings.Contains(UserMessage(err), "could not write") {
		t.Fatalf("export into a missing folder: %v", err)
	}
}

func mustWriteFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
