package grouplib

import (
	"context"
	"strings"
	"testing"

	"github.com/furudesk/furudesk/library"
)

// listFiles is a Files of tracks read in the order of the list.
type listFiles []library.Track

func (f listFiles) EachTrack(_ context.Context, fn func(library.Track) error) error {
	for _, t := range f {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}
func (listFiles) File(string) (string, bool)   { return "", false }
func (listFiles) Cover(string) ([]byte, error) { return nil, nil }

// The own catalog lists each recording once, from its first file by path
// that makes a valid entry, whatever order the library is read in; files
// of no known format or content id are left out.
func TestOwnEntriesTakeTheFirstFileByPath(t *testing.T) {
	id := func(c string) string { return library.ContentIDPrefix + c + strings.Repeat("0", 63) }
	ts := listFiles{
		{ContentID: id("a"), Path: "/m/0.flac", Format: "flac", Title: "no size: not a valid entry"},
		{ContentID: id("a"), Path: "/m/b.flac", Size: 1, Format: "flac", Title: "second copy"},
		{ContentID: id("a"), Path: "/m/a.flac", Size: 1, Format: "flac", Title: "first copy"},
		{ContentID: id("a"), Path: "/m/c.flac", Size: 1, Format: "flac", Title: "third copy"},
		{ContentID: id("b"), Path: "/m/0.xyz", Size: 1, Format: "xyz", Title: "no format"},
		{ContentID: id("b"), Path: "/m/1.mp3", Size: 1, Format: "mp3", Title: "only valid copy"},
		{ContentID: "not an id", Path: "/m/2.mp3", Size: 1, Format: "mp3", Title: "bad id"},
	}
	// every order they can be read in
	var orders func(k int)
	orders = func(k int) {
		if k == len(ts) {
			check(t, ts, id)
			return
		}
		for i := k; i < len(ts); i++ {
			ts[k], ts[i] = ts[i], ts[k]
			orders(k + 1)
			ts[k], ts[i] = ts[i], ts[k]
		}
	}
	orders(0)
}

func check(t *testing.T, ts listFiles, id func(string) string) {
	t.Helper()
	es, err := ownEntries(context.Background(), ts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range es {
		if _, twice := got[e.ContentID]; twice {
			t.Fatalf("%s listed twice", e.ContentID)
		}
		got[e.ContentID] = e.Title
	}
	if len(got) != 2 || got[id("a")] != "first copy" || got[id("b")] != "only valid copy" {
		t.Fatalf("read in the order %v, the catalog is %v", ts, got)
	}
}
