package storage

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/library"
)

func TestSearchIgnoresCaseAndAccents(t *testing.T) {
	s, _ := openTemp(t)
	tracks := manyTracks(200)
	if err := s.PutTracks(tracks); err != nil {
		t.Fatal(err)
	}
	count := func(artist string) int {
		n := 0
		for _, tr := range tracks {
			if tr.Artists[0] == artist {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		query, artist string
	}{
		{"beyonce", "Beyoncé"},
		{"BEYONCÉ", "Beyoncé"},
		{"sigur ros", "Sigur Rós"},
		{"SIGUR RÓS", "Sigur Rós"},
		{"bjork", "Björk"},
		{"motley crue", "Mötley Crüe"},
		{"zoe", "Zoë Keating"},
		{"olafur", "Ólafur Arnalds"},
		{"ac/dc", "AC/DC"},
		{"cafe tacv", "Café Tacvba"},
	} {
		res, err := s.Search(c.query, 500)
		if err != nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		if len(res) != count(c.artist) {
			t.Errorf("Search(%q) = %d tracks, want the %d of %s", c.query, len(res), count(c.artist), c.artist)
		}
		for _, r := range res {
			if r.Artists[0] != c.artist {
				t.Errorf("Search(%q) found %s by %v", c.query, r.Title, r.Artists)
			}
		}
	}
	// Title and album words, prefixes, several words all required.
	res, err := s.Search("hoppipo", 500)
	if err != nil || len(res) == 0 {
		t.Fatalf("title prefix: %d %v", len(res), err)
	}
	res, _ = s.Search("etude bjork", 500)
	for _, r := range res {
		if r.Artists[0] != "Björk" {
			t.Fatalf("both words required: %v", r)
		}
	}
	if len(res) == 0 {
		t.Fatalf("étude by Björk not found")
	}
	// FTS5 syntax in input is just text.
	for _, q := range []string{`"`, `AND OR NOT`, `title:x`, `*`, `(a`, `NEAR(a b)`, ``, `   `} {
		if _, err := s.Search(q, 10); err != nil {
			t.Errorf("Search(%q): %v", q, err)
		}
	}
	if res, _ := s.Search("", 10); len(res) != 0 {
		t.Errorf("empty query found %d", len(res))
	}
	if res, _ := s.Search("love", 3); len(res) != 3 {
		t.Errorf("limit 3 gave %d", len(res))
	}
}

var searchQueries = []string{"a", "b", "lo", "love", "beyonce", "sigur ros hopp", "étude", "crazy night", "zzzz", "daft punk summer", "the", "r", "mötley", "ca plane", "river 3"}

// pct returns the p-th percentile of d (sorting it).
func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	i := len(d) * p / 100
	if i >= len(d) {
		i = len(d) - 1
	}
	return d[i]
}

// TestSearchFoldsLikeTheGUI checks that storage search folds letters the
// way library.Normalize does (æ, ø, ß, accents), so a query finds the same
// tracks in `ctl search` as in the window.
func TestSearchFoldsLikeTheGUI(t *testing.T) {
	s, _ := openTemp(t)
	tracks := []library.Track{
		{Path: "/m/1.flac", ContentID: "b3:1", Format: "flac", Title: "Svefn-g-englar", Artists: []string{"Sigur Rós"}, Album: "Ágætis byrjun"},
		{Path: "/m/2.flac", ContentID: "b3:2", Format: "flac", Title: "Kickstart My Heart", Artists: []string{"Mötley Crüe"}, Album: "Dr. Feelgood"},
		{Path: "/m/3.flac", ContentID: "b3:3", Format: "flac", Title: "Straße", Artists: []string{"Søren Ærø"}, Album: "Œuvre"},
		{Path: "/m/4.flac", ContentID: "b3:4", Format: "flac", Title: "Plain", Artists: []string{"Nobody"}, Album: "Else"},
	}
	if err := s.PutTracks(tracks); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query string
		want  []string // titles
	}{
		{"agaetis", []string{"Svefn-g-englar"}},
		{"Ágætis", []string{"Svefn-g-englar"}},
		{"AGÆTIS BYRJUN", []string{"Svefn-g-englar"}},
		{"sigur ros", []string{"Svefn-g-englar"}},
		{"ros", []string{"Svefn-g-englar"}},
		{"motley crue", []string{"Kickstart My Heart"}},
		{"strasse", []string{"Straße"}},
		{"straße", []string{"Straße"}},
		{"soren aero", []string{"Straße"}},
		{"oeuvre", []string{"Straße"}},
		{"ægætis", nil},
	} {
		res, err := s.Search(c.query, 10)
		if err != nil {
			t.Fatalf("Search(%q): %v", c.query, err)
		}
		var got []string
		for _, r := range res {
			got = append(got, r.Title)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("Search(%q) = %q, want %q", c.query, got, c.want)
		}
	}
	// A retitled track is found by its new title only.
	tracks[0].Album = "Takk"
	if err := s.PutTracks(tracks[:1]); err != nil {
		t.Fatal(err)
	}
	if res, _ := s.Search("agaetis", 10); len(res) != 0 {
		t.Errorf("old album still found after the update: %v", res)
	}
	if res, _ := s.Search("takk", 10); len(res) != 1 {
		t.Errorf("new album not found: %v", res)
	}
}

// The search index follows every change of the catalog (it is kept by the
// statements that change tracks, batch by batch): new tracks, a track
// whose tags changed, a file moved over another, deleted, rejected and
// removed with its folder; an unchanged rescan leaves it as it was.
func TestSearchIndexFollowsEveryChange(t *testing.T) {
	s, _ := openTemp(t)
	paths := func(q string) []string {
		t.Helper()
		ts, err := s.Search(q, 100)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tr := range ts {
			out = append(out, tr.Path)
		}
		sort.Strings(out)
		return out
	}
	want := func(q string, ps ...string) {
		t.Helper()
		if got := paths(q); strings.Join(got, ",") != strings.Join(ps, ",") {
			t.Fatalf("search %q: %q, want %q", q, got, ps)
		}
	}
	tr := func(p, title string) library.Track {
		return library.Track{Path: p, ContentID: "b3:" + p, Format: "mp3", Title: title, Artists: []string{"Ensemble"}}
	}
	if err := s.PutTracks([]library.Track{tr("/m/a.mp3", "Größe"), tr("/m/b.mp3", "Nocturne"), tr("/m/x/c.mp3", "Nocturne Two")}); err != nil {
		t.Fatal(err)
	}
	want("grosse", "/m/a.mp3")
	want("nocturne", "/m/b.mp3", "/m/x/c.mp3")
	want("ensemble", "/m/a.mp3", "/m/b.mp3", "/m/x/c.mp3")
	// a rescan with new tags, and one of the same tags, in one batch
	if err := s.PutTracks([]library.Track{tr("/m/a.mp3", "Klein"), tr("/m/b.mp3", "Nocturne")}); err != nil {
		t.Fatal(err)
	}
	want("grosse")
	want("klein", "/m/a.mp3")
	want("nocturne", "/m/b.mp3", "/m/x/c.mp3")
	// the same path twice in one batch: the last one counts
	if err := s.PutTracks([]library.Track{tr("/m/d.mp3", "Etude"), tr("/m/d.mp3", "Prelude")}); err != nil {
		t.Fatal(err)
	}
	want("etude")
	want("prelude", "/m/d.mp3")
	if err := s.MoveTrack("/m/b.mp3", "/m/a.mp3"); err != nil { // over a.mp3
		t.Fatal(err)
	}
	want("klein")
	want("nocturne", "/m/a.mp3", "/m/x/c.mp3")
	if err := s.DeleteTracks([]string{"/m/d.mp3"}); err != nil {
		t.Fatal(err)
	}
	want("prelude")
	if err := s.PutRejectedFiles([]RejectedFile{{Path: "/m/a.mp3", Reason: "not audio"}}); err != nil {
		t.Fatal(err)
	}
	want("nocturne", "/m/x/c.mp3")
	if _, err := s.DeleteTracksUnder("/m/x"); err != nil {
		t.Fatal(err)
	}
	want("nocturne")
	want("ensemble")
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM tracks_fts`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the index holds %d rows (%v) for an empty catalog", n, err)
	}
}
