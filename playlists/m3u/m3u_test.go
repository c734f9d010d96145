package m3u

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string) File {
	t.Helper()
	fh, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := Parse(fh)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func paths(f File) []string {
	var out []string
	for _, e := range f.Entries {
		out = append(out, e.Path)
	}
	return out
}

// A playlist Music Player Daemon wrote: bare paths relative to its music
// folder, nothing else.
func TestParseMPD(t *testing.T) {
	f := parseFile(t, "mpd-relative.m3u")
	want := []string{"Björk/Debut/03 Venus as a Boy.flac", "Sigur Rós/Ágætis byrjun/02 Svefn-g-englar.ogg",
		"Björk/Debut/01 Human Behaviour.mp3", "Björk/Debut/03 Venus as a Boy.flac"}
	if !reflect.DeepEqual(paths(f), want) || len(f.Problems) != 0 {
		t.Fatalf("paths %q problems %v", paths(f), f.Problems)
	}
	for _, e := range f.Entries {
		if e.DurationS != -1 || e.Title != "" || e.URL {
			t.Errorf("entry %+v: no #EXTINF, want unknown duration", e)
		}
	}
	if got := Resolve(want[0], "/srv/music", false); got != "/srv/music/Björk/Debut/03 Venus as a Boy.flac" {
		t.Errorf("Resolve relative: %q", got)
	}
	abs := parseFile(t, "mpd-absolute.m3u")
	if got := Resolve(abs.Entries[1].Path, "/elsewhere", false); got != "/tmp/mpdfix.bwiL/music/Sigur Rós/Ágætis byrjun/02 Svefn-g-englar.ogg" {
		t.Errorf("Resolve absolute: %q", got)
	}
}

func TestParseOtherPlayers(t *testing.T) {
	vlc := parseFile(t, "vlc-style.m3u")
	if len(vlc.Entries) != 3 || len(vlc.Problems) != 0 {
		t.Fatalf("vlc-style: %+v", vlc)
	}
	e := vlc.Entries[0]
	if e.Path != "/home/anna/Music/Björk/Debut/03 Venus as a Boy.flac" || e.Artist != "Björk" || e.Title != "Venus as a Boy" || e.DurationS != 245 || e.Line != 3 {
		t.Errorf("file:// entry %+v", e)
	}
	if s := vlc.Entries[1]; !s.URL || s.Title != "Radio Paradise" || s.DurationS != -1 {
		t.Errorf("stream entry %+v", s)
	}

	foo := parseFile(t, "foobar-style.m3u8")
	if len(foo.Entries) != 2 || len(foo.Problems) != 0 {
		t.Fatalf("foobar-style: %+v", foo)
	}
	if got := Resolve(foo.Entries[0].Path, "/x", false); got != "D:/Music/Björk/Debut/03 Venus as a Boy.flac" {
		t.Errorf("a Windows drive path read on Linux: %q", got)
	}
	if got := Resolve(foo.Entries[1].Path, "/home/anna/Playlists", false); got != "/home/anna/Music/Sigur Rós/Ágætis byrjun/02 Svefn-g-englar.ogg" {
		t.Errorf("a relative Windows path read on Linux: %q", got)
	}

	cp := parseFile(t, "windows-1252.m3u")
	if len(cp.Entries) != 1 || cp.Entries[0].Artist != "Björk" || !strings.HasPrefix(cp.Entries[0].Path, `Björk\Debut`) {
		t.Errorf("Windows-1252 file: %+v", cp)
	}
}

// Every malformed line is reported with its number; the good ones import.
func TestParseMalformed(t *testing.T) {
	f := parseFile(t, "malformed.m3u")
	if f.Name != "Broken but useful" {
		t.Errorf("name %q", f.Name)
	}
	want := []string{"Björk/Debut/01 Human Behaviour.mp3", "Sigur Rós/Ágætis byrjun/02 Svefn-g-englar.ogg", "Björk/Debut/03 Venus as a Boy.flac"}
	if !reflect.DeepEqual(paths(f), want) {
		t.Fatalf("paths %q, want %q", paths(f), want)
	}
	if e := f.Entries[0]; e.Title != "Human Behaviour" || e.DurationS != -1 {
		t.Errorf("entry after a bad duration keeps its title: %+v", e)
	}
	var lines []int
	for _, p := range f.Problems {
		lines = append(lines, p.Line)
		if !strings.Contains(p.Text, "line ") {
			t.Errorf("problem %q does not name its line", p.Text)
		}
	}
	if !reflect.DeepEqual(lines, []int{3, 6, 9, 10, 12, 13}) {
		t.Errorf("problems on lines %v: %v", lines, f.Problems)
	}
}

func TestWriteReadsBack(t *testing.T) {
	in := []Track{
		{Path: "/music/Björk/Debut/01 Human Behaviour.mp3", Artist: "Björk", Title: "Human Behaviour", DurationS: 252},
		{Path: "Sigur Rós/02, with a comma.ogg", Title: "A title, with a comma\nand a break", DurationS: -1},
	}
	var b bytes.Buffer
	if err := Write(&b, "Mix #1", in); err != nil {
		t.Fatal(err)
	}
	f, err := Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "Mix #1" || len(f.Entries) != 2 || len(f.Problems) != 0 {
		t.Fatalf("read back %+v from\n%s", f, b.String())
	}
	for i, e := range f.Entries {
		want := in[i]
		want.Title = strings.ReplaceAll(want.Title, "\n", " ")
		if e.Path != want.Path || e.Artist != want.Artist || e.Title != want.Title || e.DurationS != want.DurationS {
			t.Errorf("entry %d: %+v, want %+v", i, e, want)
		}
	}
	if err := Write(&bytes.Buffer{}, "x", []Track{{Path: "a\nb"}}); err == nil {
		t.Error("a path with a line break was written")
	}
}
