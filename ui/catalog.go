package ui

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/furudesk/furudesk/grouplib"
	"github.com/furudesk/furudesk/library"
)

// catalog is the library as the window browses it: the tracks in library
// order (album artist, album, disc, track number, title, by collation)
// plus albums, artists, a library.SearchText per track and the collation
// ranks that make sorting 100,000 tracks by any column a matter of
// comparing integers. It is built off the UI goroutine from Backend.Tracks
// and then only read.
type catalog struct {
	tracks []*library.Track
	hay    []string
	pos    map[*library.Track]int32  // index in tracks
	byID   map[string]*library.Track // the first track of each content id
	rank   struct {
		title, artist, album, albumArtist, genre []int32 // by index in tracks
	}
	albums  []*albumEntry // by artist, year, title
	artists []*artistEntry
}

// albumEntry is one album of the grid.
type albumEntry struct {
	title, artist string // as shown ("Unknown album" for none)
	id            string // library.AlbumID: how its cover is found ("" without an album title)
	year          int
	added         time.Time // when its newest track was added
	tracks        []*library.Track
	coverID       string // cover key: the album id, or the content id of a track with art
	localArt      bool   // a track of this device has art
	titleRank     int32
	artistRank    int32
}

// artistEntry is one artist of the Artists page.
type artistEntry struct {
	name   string
	tracks []*library.Track
	albums int
}

func buildCatalog(ts []library.Track) *catalog {
	n := len(ts)
	col := newCollator()
	titles, artists, albums, aas, genres := newRanker(col), newRanker(col), newRanker(col), newRanker(col), newRanker(col)
	tr, ar, al, aa, ge := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	for i := range ts {
		t := &ts[i]
		tr[i] = titles.id(t.Title)
		first := ""
		if len(t.Artists) > 0 {
			first = t.Artists[0]
		}
		ar[i] = artists.id(artistSortName(first))
		al[i] = albums.id(t.Album)
		aa[i] = aas.id(artistSortName(t.AlbumArtistOrFirst()))
		ge[i] = genres.id(t.Genre)
	}
	applyRanks(tr, titles.ranks())
	applyRanks(ar, artists.ranks())
	applyRanks(al, albums.ranks())
	applyRanks(aa, aas.ranks())
	applyRanks(ge, genres.ranks())

	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int {
		a, b := &ts[x], &ts[y]
		return cmp.Or(cmp.Compare(aa[x], aa[y]), cmp.Compare(al[x], al[y]), cmp.Compare(a.DiscNo, b.DiscNo),
			cmp.Compare(a.TrackNo, b.TrackNo), cmp.Compare(tr[x], tr[y]), strings.Compare(a.Path, b.Path))
	})

	c := &catalog{tracks: make([]*library.Track, n), hay: make([]string, n),
		pos: make(map[*library.Track]int32, n), byID: make(map[string]*library.Track, n)}
	c.rank.title, c.rank.artist, c.rank.album = make([]int32, n), make([]int32, n), make([]int32, n)
	c.rank.albumArtist, c.rank.genre = make([]int32, n), make([]int32, n)
	for i, o := range order {
		t := &ts[o]
		// What the window never shows goes: a collector's library holds
		// 100,000 paths.
		t.Path, t.Format, t.Gain, t.ModTime = "", "", library.ReplayGain{}, time.Time{}
		c.tracks[i] = t
		c.hay[i] = library.SearchText(*t)
		c.pos[t] = int32(i)
		if _, ok := c.byID[t.ContentID]; !ok {
			c.byID[t.ContentID] = t
		}
		c.rank.title[i], c.rank.artist[i], c.rank.album[i] = tr[o], ar[o], al[o]
		c.rank.albumArtist[i], c.rank.genre[i] = aa[o], ge[o]
	}
	c.group()
	return c
}

// group makes the albums and artists, in library order.
func (c *catalog) group() {
	albums := map[string]*albumEntry{}
	artists := map[string]*artistEntry{}
	artistAlbums := map[string]map[string]bool{}
	var artistNames []string
	for i, t := range c.tracks {
		aa := t.AlbumArtistOrFirst()
		key := strings.ToLower(aa) + "\x00" + strings.ToLower(t.Album)
		a := albums[key]
		if a == nil {
			a = &albumEntry{title: orUnknown(t.Album, "album"), artist: orUnknown(aa, "artist"), year: t.Year,
				id: library.AlbumID(*t), titleRank: c.rank.album[i], artistRank: c.rank.albumArtist[i]}
			a.coverID = a.id
			albums[key] = a
			c.albums = append(c.albums, a)
		}
		a.tracks = append(a.tracks, t)
		a.year = max(a.year, t.Year)
		if t.Added.After(a.added) {
			a.added = t.Added
		}
		switch {
		case a.coverID == "" && t.Cover != "":
			a.coverID = t.ContentID // no album title: the track's own art
		case t.Cover == grouplib.CoverRemote && !a.localArt:
			// art only another device has: fetched by the track's id
			// (an album's art is looked up among this device's files)
			if a.coverID == a.id {
				a.coverID = t.ContentID
			}
		case t.Cover != "" && !a.localArt:
			a.localArt, a.coverID = true, a.id
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
				artistNames = append(artistNames, artistSortName(n))
			}
			ar.tracks = append(ar.tracks, t)
			if !artistAlbums[k][key] {
				artistAlbums[k][key] = true
				ar.albums++
			}
		}
	}
	sortAlbums(c.albums, albumByArtist)
	// Artists by collation of their names without "The".
	r := newRanker(newCollator())
	ids := make([]int32, len(artistNames))
	for i, n := range artistNames {
		ids[i] = r.id(n)
	}
	ranks := r.ranks()
	idx := make([]int, len(c.artists))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(ranks[ids[a]], ranks[ids[b]]) })
	sorted := make([]*artistEntry, len(idx))
	for i, j := range idx {
		sorted[i] = c.artists[j]
	}
	c.artists = sorted
}

// Orders of the album grid.
const (
	albumByArtist = "artist"
	albumByTitle  = "title"
	albumByYear   = "year"
	albumByAdded  = "added"
)

// sortAlbums sorts albums in place: by artist (then year, title), title,
// year (newest first) or date added (newest first).
func sortAlbums(as []*albumEntry, by string) {
	slices.SortStableFunc(as, func(a, b *albumEntry) int {
		switch by {
		case albumByTitle:
			return cmp.Or(cmp.Compare(a.titleRank, b.titleRank), cmp.Compare(a.artistRank, b.artistRank))
		case albumByYear:
			return cmp.Or(cmp.Compare(b.year, a.year), cmp.Compare(a.artistRank, b.artistRank), cmp.Compare(a.titleRank, b.titleRank))
		case albumByAdded:
			return cmp.Or(b.added.Compare(a.added), cmp.Compare(a.artistRank, b.artistRank), cmp.Compare(a.titleRank, b.titleRank))
		default:
			return cmp.Or(cmp.Compare(a.artistRank, b.artistRank), cmp.Compare(a.year, b.year), cmp.Compare(a.titleRank, b.titleRank))
		}
	})
}

// albumOf returns the album a track of the catalog belongs to.
func (c *catalog) albumOf(t *library.Track) *albumEntry {
	for _, a := range c.albums {
		if slices.Contains(a.tracks, t) {
			return a
		}
	}
	return nil
}

// coverKey is the cover to show for a queue entry (content id and album
// title as the entry names them): the album of that title holding that
// recording, else the recording's own art.
func (c *catalog) coverKey(contentID, album string) string {
	if c != nil && album != "" {
		for _, a := range c.albums {
			if a.id == "" || a.title != album {
				continue
			}
			for _, t := range a.tracks {
				if t.ContentID == contentID {
					return a.coverID
				}
			}
		}
	}
	return contentID
}

// search returns the tracks with a word starting with every word of q
// (library.QueryTerms and library.Matches over library.SearchText,
// ignoring case and accents: "ros" finds "Sigur Rós", "agaetis" finds
// "Ágætis"): the semantics of storage's search and so of `ctl search`. In
// catalog order, at most limit of them. A query of only spaces is no
// query.
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
