package ui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/storage"
)

// One search everywhere: for the same query the window (its catalog)
// finds exactly the tracks that storage finds, which is what `furudesk ctl
// search` prints (app.Search is storage's). The order may differ: the
// window sorts by locale collation, storage by SQLite's NOCASE.
func TestWindowAndStorageSearchAlike(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 20))
	words := []string{"Größe", "Sigur", "Rós", "Ágætis", "byrjun", "Mötley", "Crüe", "Don’t", "Stop", "AC/DC",
		"Beyoncé", "Straße", "Søren", "Œuvre", "Café", "Tacvba", "Hoppípolla", "Ça", "plane", "R&B", "Jay-Z",
		"東京", "事変", "हिंदी", "गाना", "Καλημέρα", "No.9", "Op.27-2", "2²", "Ⅻ", "l'été", "Łódź", "Dvořák"}
	pick := func(n int) string {
		var b []string
		for range n {
			b = append(b, words[r.IntN(len(words))])
		}
		return strings.Join(b, " ")
	}
	var ts []library.Track
	for i := range 300 {
		ts = append(ts, library.Track{Path: fmt.Sprintf("/m/%03d.flac", i), ContentID: fmt.Sprintf("b3:%03d", i),
			Format: "flac", Title: pick(1 + r.IntN(3)), Artists: []string{pick(1 + r.IntN(2))}, Album: pick(1 + r.IntN(2)),
			TrackNo: 1 + r.IntN(12)})
	}
	st, err := storage.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.PutTracks(ts); err != nil {
		t.Fatal(err)
	}
	all, err := st.Tracks()
	if err != nil {
		t.Fatal(err)
	}
	c := buildCatalog(all)
	queries := []string{"grosse", "rosse", "gros", "sigur ros", "ros sig", "agaetis", "AGÆTIS BYR", "crue", "don't", "don t",
		"ac dc", "ac/dc", "beyonce", "strasse", "soren", "oeuvre", "cafe tac", "ca pla", "r&b", "jay z", "東京", "事",
		"हिंदी", "καλη", "no 9", "op 27", "2", "ⅻ", "ete", "l ete", "lodz", "dvorak", "igur", "x", "", "  "}
	for range 40 { // the start of a random word of the catalog, as typed
		w := library.Words(library.Normalize(words[r.IntN(len(words))]))
		if len(w) == 0 {
			continue
		}
		q := w[r.IntN(len(w))]
		if n := 1 + r.IntN(utf8.RuneCountInString(q)); n < utf8.RuneCountInString(q) {
			q = string([]rune(q)[:n])
		}
		queries = append(queries, q)
	}
	for _, q := range queries {
		var fromWindow []string
		if strings.TrimSpace(q) != "" {
			for _, tr := range c.search(q, storage.MaxSearchLimit) {
				fromWindow = append(fromWindow, tr.ContentID) // the window keeps no paths
			}
		}
		res, err := st.Search(q, storage.MaxSearchLimit)
		if err != nil {
			t.Fatalf("seed %d: storage search %q: %v", seed, q, err)
		}
		var fromStorage []string
		for _, tr := range res {
			fromStorage = append(fromStorage, tr.ContentID)
		}
		slices.Sort(fromWindow)
		slices.Sort(fromStorage)
		if strings.Join(fromWindow, ",") != strings.Join(fromStorage, ",") {
			t.Errorf("seed %d: query %q: the window finds %d tracks %v, storage %d %v", seed, q,
				len(fromWindow), fromWindow, len(fromStorage), fromStorage)
		}
	}
}
