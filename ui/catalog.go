package ui

import (
	"sort"
	"strings"

	"github.com/furudesk/furudesk/library"
)

// catalog is the library as the window browses it: the tracks in the app's
// order plus albums, artists and a library.SearchText per track. It is
// built off the UI goroutine from Backend.Tracks and then only read.
type catalog struct {
	tracks  []*library.Track
	hay     []string
	albums  []*albumEntry
	artists []*artistEntry
}

// albumEntry is one album of the grid.
type albumEntry struct {
	title, artist string
	year          int
	tracks        []*library.Track
	coverID       string // content id whose cover represents the album
}

// artistEntry is one artist of the Artists page.
type artistEntry struct {
	name   string
	tracks []*library.Track
	albums int
}

func buildCatalog(ts []library.Track) *catalog {
	c := &catalog{tracks: make([]*library.Track, len(ts)), hay: make([]string, len(ts))}
	albums := map[string]*albumEntry{}
	artists := map[string]*artistEntry{}
	artistAlbums := map[string]map[string]bool{}
	for i := range ts {
		t := &ts[i]
		c.tracks[i] = t
		c.hay[i] = library.SearchText(*t)

		aa := t.AlbumArtist
		if aa == "" && len(t.Artists) > 0 {
			aa = t.Artists[0]
		}
		key := strings.ToLower(aa) + "\x00" + strings.ToLower(t.Album)
		al := albums[key]
		if al == nil {
			al = &albumEntry{title: orUnknown(t.Album, "album"), artist: orUnknown(aa, "artist"), year: t.Year}
			albums[key] = al
			c.albums = append(c.albums, al)
		}
		al.tracks = append(al.tracks, t)
		if al.coverID == "" && t.Cover != "" {
			al.coverID = t.ContentID
		}

		names := t.Artists
		if len(names) == 0 {
			names = []string{""}
		}
		for _, n := range names {
			k := strings.ToLower(n)
			ar := artists[k]
			if ar == nil {
				ar = &artistEntry{name: orUnknown(n, "artist")}
				artists[k] = ar
				artistAlbums[k] = map[string]bool{}
				c.artists = append(c.artists, ar)
			}
			ar.tracks = append(ar.tracks, t)
			if !artistAlbums[k][key] {
				artistAlbums[k][key] = true
				ar.albums++
			}
		}
	}
	sort.SliceStable(c.albums, func(i, j int) bool {
		a, b := c.albums[i], c.albums[j]
		if x, y := strings.ToLower(a.artist), strings.ToLower(b.artist); x != y {
			return x < y
		}
		if a.year != b.year {
			return a.year < b.year
		}
		return strings.ToLower(a.title) < strings.ToLower(b.title)
	})
	sort.SliceStable(c.artists, func(i, j int) bool {
		return strings.ToLower(c.artists[i].name) < strings.ToLower(c.artists[j].name)
	})
	return c
}

// search returns the tracks with a word starting with every word of q
// (library.QueryTerms and library.Matches over library.SearchText,
// ignoring case and accents: "ros" finds "Sigur Rós", "agaetis" finds
// "Ágætis"): the semantics of storage's search and so of `ctl search`. In
// catalog order, at most limit of them.
func (c *catalog) search(q string, limit int) []*library.Track {
	terms := library.QueryTerms(q)
	if len(terms) == 0 {
		return c.tracks
	}
	var out []*library.Track
	for i, h := range c.hay {
		if !library.Matches(h, terms) {
			continue
		}
		out = append(out, c.tracks[i])
		if len(out) >= limit {
			break
		}
	}
	return out
}
