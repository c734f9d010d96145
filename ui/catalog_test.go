package ui

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/furudesk/furudesk/grouplib"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/ui/internal/fakebackend"
)

// accentedTracks is a small library whose names need accent and letter
// folding to be found by what users type.
func accentedTracks() []library.Track {
	return []library.Track{
		{ContentID: "b3:1", Path: "/m/1.flac", Format: "flac", Title: "Svefn-g-englar", Artists: []string{"Sigur Rós"}, Album: "Ágætis byrjun"},
		{ContentID: "b3:2", Path: "/m/2.flac", Format: "flac", Title: "Kickstart My Heart", Artists: []string{"Mötley Crüe"}, Album: "Dr. Feelgood"},
		{ContentID: "b3:3", Path: "/m/3.flac", Format: "flac", Title: "Straße", Artists: []string{"Søren"}, Album: "Œuvre"},
		{ContentID: "b3:4", Path: "/m/4.flac", Format: "flac", Title: "Plain", Artists: []string{"Nobody"}, Album: "Roster"},
	}
}

// TestSearchIgnoresCaseAndAccents checks the GUI search folds like storage
// search (library.Normalize): the same queries find the same tracks.
func TestSearchIgnoresCaseAndAccents(t *testing.T) {
	c := buildCatalog(accentedTracks())
	for _, tc := range []struct {
		query string
		want  []string // titles
	}{
		{"agaetis", []string{"Svefn-g-englar"}},
		{"AGÆTIS", []string{"Svefn-g-englar"}},
		{"sigur ros", []string{"Svefn-g-englar"}},
		{"ros", []string{"Plain", "Svefn-g-englar"}}, // "Roster" contains it too; library order
		{"sigur  RÓS ", []string{"Svefn-g-englar"}},
		{"motley crue", []string{"Kickstart My Heart"}},
		{"Mötley Crüe", []string{"Kickstart My Heart"}},
		{"strasse", []string{"Straße"}},
		{"soren oeuvre", []string{"Straße"}},
		{"sigur crue", nil},
		{"", []string{"Kickstart My Heart", "Plain", "Svefn-g-englar", "Straße"}},
	} {
		var got []string
		for _, tr := range c.search(tc.query, searchLimit) {
			got = append(got, tr.Title)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("search(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
	if got := c.search("s", 2); len(got) != 2 {
		t.Errorf("limit 2 gave %d results", len(got))
	}
}

// TestTypingAnAccentlessQueryFindsTheTrack types into the window's search
// field as a user does.
func TestTypingAnAccentlessQueryFindsTheTrack(t *testing.T) {
	fa := test.NewTempApp(t)
	b := fakebackend.New(accentedTracks())
	u := newUI(fa, b, Options{}, func(f func()) { f() })
	u.win.Resize(fyne.NewSize(860, 520))
	t.Cleanup(func() { u.Close(); u.win.Close() })
	test.Type(u.search, "sigur ros")
	got := u.tracks.list.tracks
	if len(got) != 1 || got[0].Title != "Svefn-g-englar" {
		t.Fatalf("typing %q lists %d tracks, want Sigur Rós's", u.search.Text, len(got))
	}
}

// An album only other devices have shows the art of its first track that
// has some, fetched by the track's id from its holder; once a track of
// this device has art, the album's own art is used.
func TestCoverOfAnAlbumOfAnotherDevice(t *testing.T) {
	remote := []library.Track{
		{ContentID: "b3:1", Title: "One", Album: "Far", AlbumArtist: "X", TrackNo: 1},
		{ContentID: "b3:2", Title: "Two", Album: "Far", AlbumArtist: "X", TrackNo: 2, Cover: grouplib.CoverRemote},
		{ContentID: "b3:3", Title: "Three", Album: "Far", AlbumArtist: "X", TrackNo: 3, Cover: grouplib.CoverRemote},
	}
	c := buildCatalog(remote)
	if got := c.albums[0].coverID; got != "b3:2" {
		t.Fatalf("cover of a remote album: %q", got)
	}
	local := append(slices.Clone(remote), library.Track{ContentID: "b3:4", Title: "Four", Album: "Far", AlbumArtist: "X", TrackNo: 4, Path: "/m/4.flac", Cover: library.CoverEmbedded})
	c = buildCatalog(local)
	if got, want := c.albums[0].coverID, library.AlbumID(local[0]); got != want {
		t.Fatalf("cover with a local track's art: %q, want the album's %q", got, want)
	}
}

// TestCatalogKeepsOneCompactCopy guards how the window holds a large
// library: every page lists the catalog's own tracks (one copy, no
// per-page copies), each knows its place in the catalog, the first copy
// of a recording is what its content id finds, and a track of an older
// catalog (a reload happened since) is not taken for one of the new.
func TestCatalogKeepsOneCompactCopy(t *testing.T) {
	ts := accentedTracks()
	ts = append(ts, library.Track{ContentID: "b3:2", Path: "/n/2.flac", Format: "flac", Title: "Kickstart My Heart",
		Artists: []string{"Mötley Crüe"}, Album: "Zz Live"})
	c := buildCatalog(ts)
	own := map[*track]bool{}
	for i, tr := range c.tracks {
		if p, ok := c.index(tr); !ok || int(p) != i {
			t.Errorf("track %d (%s) says it is at %d, %v", i, tr.Title, p, ok)
		}
		if own[tr] {
			t.Errorf("track %d (%s) is listed twice", i, tr.Title)
		}
		own[tr] = true
	}
	first, ok := c.byContentID("b3:2")
	if !ok || first.Album != "Dr. Feelgood" || first.pos != 0 {
		t.Errorf("b3:2 finds %+v, want the first in library order (Dr. Feelgood)", first)
	}
	if _, ok := c.byContentID("b3:9"); ok {
		t.Error("an unknown content id was found")
	}

	fa := test.NewTempApp(t)
	u := newUI(fa, fakebackend.New(ts), Options{}, func(f func()) { f() })
	t.Cleanup(func() { u.Close(); u.win.Close() })
	if len(u.tracks.list.base) != len(ts) {
		t.Fatalf("the Tracks page lists %d tracks, want %d", len(u.tracks.list.base), len(ts))
	}
	for _, l := range u.libraryLists() {
		for _, tr := range l.base {
			if _, ok := u.cat.index(tr); !ok {
				t.Fatalf("the %s list holds a track that is not the catalog's: %+v", l.key, tr)
			}
		}
	}
	old := u.cat
	newer := buildCatalog(ts)
	if _, ok := newer.index(old.tracks[0]); ok {
		t.Error("a track of the older catalog was taken for one of the new")
	}
	// A playlist entry this device has no file for is in no catalog.
	if tr := u.trackFor("b3:9", "Gone", nil, "", 0); tr.pos != -1 {
		t.Errorf("an entry of no catalog has place %d", tr.pos)
	}
}

// TestCatalogPacksItsOwnText guards how the window keeps a large catalog
// in few allocations: each track's content id and title are copies end to
// end in blocks (one for a small catalog), in the order read, not the
// strings of the database read (whose garbage the catalog's strings would
// otherwise pin, page by page), and the tracks' artists are in shared
// lists; the values are the track's own.
func TestCatalogPacksItsOwnText(t *testing.T) {
	ts := accentedTracks()
	ts = append(ts, library.Track{ContentID: "b3:5", Path: "/m/5.flac", Format: "flac", Title: "Duet",
		Artists: []string{"Sigur Rós", "Søren"}, Album: "Together"})
	byID := map[string]library.Track{}
	size := 0
	for _, tr := range ts {
		byID[tr.ContentID] = tr
		size += len(tr.ContentID) + len(tr.Title)
	}
	c := buildCatalog(ts)
	lo, hi := uintptr(0), uintptr(0)
	var names []*string
	for _, tr := range c.tracks {
		want := byID[tr.ContentID]
		if tr.Title != want.Title || !slices.Equal(tr.Artists, want.Artists) {
			t.Fatalf("track %s: %q by %q, want %q by %q", tr.ContentID, tr.Title, tr.Artists, want.Title, want.Artists)
		}
		for _, s := range []string{tr.ContentID, tr.Title} {
			p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
			if p == uintptr(unsafe.Pointer(unsafe.StringData(want.ContentID))) || p == uintptr(unsafe.Pointer(unsafe.StringData(want.Title))) {
				t.Fatalf("track %s keeps the read's string %q", tr.ContentID, s)
			}
			if lo == 0 || p < lo {
				lo = p
			}
			hi = max(hi, p+uintptr(len(s)))
		}
	}
	// in the order the tracks were read
	for _, r := range ts {
		tr, _ := c.byContentID(r.ContentID)
		for i := range tr.Artists {
			names = append(names, &tr.Artists[i])
		}
	}
	if hi-lo != uintptr(size) {
		t.Errorf("the catalog's ids and titles span %d bytes, want one block of %d", hi-lo, size)
	}
	for i := 1; i < len(names); i++ {
		if uintptr(unsafe.Pointer(names[i]))-uintptr(unsafe.Pointer(names[i-1])) != unsafe.Sizeof("") {
			t.Fatalf("the artists of the catalog's tracks are not one list (%d)", i)
		}
	}
	// The albums and their lists of tracks: one array each, in order,
	// holding every track once.
	seen := 0
	for i, a := range c.albums {
		seen += len(a.tracks)
		if i == 0 {
			continue
		}
		prev := c.albums[i-1]
		if uintptr(unsafe.Pointer(a))-uintptr(unsafe.Pointer(prev)) != unsafe.Sizeof(*a) {
			t.Fatalf("album %d (%s) is not beside the one before it", i, a.title)
		}
		if uintptr(unsafe.Pointer(&a.tracks[0]))-uintptr(unsafe.Pointer(&prev.tracks[len(prev.tracks)-1])) != unsafe.Sizeof(a.tracks[0]) {
			t.Fatalf("the tracks of album %d (%s) do not follow those of the one before it", i, a.title)
		}
	}
	if seen != len(ts) {
		t.Fatalf("the albums list %d tracks, want %d", seen, len(ts))
	}
}
