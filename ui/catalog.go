package ui

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/furudesk/furudesk/grouplib"
	"github.com/furudesk/furudesk/internal/strpack"
	"github.com/furudesk/furudesk/library"
)

// catalog is the library as the window browses it: the tracks in library
// order (album artist, album, disc, track number, title, by collation)
// plus albums, artists, a library.SearchText per track and the collation
// ranks that make sorting 100,000 tracks by any column a matter of
// comparing integers. It is built off the UI goroutine from Backend.Tracks
// and then only read. It is the one copy of the library the window keeps:
// every page's lists hold pointers into it, and a track's place in it is
// in the track itself (track.pos), not in a map.
type catalog struct {
	tracks []*track // into catalogBuilder's chunks
	// hay holds every track's library.SearchText end to end, hayEnd
	// where each ends: one string rather than 100,000 small ones.
	hay    string
	hayEnd []uint32
	byID   []int32 // indexes in tracks, by content id (the first of each)
	rank   struct {
		title, artist, album, albumArtist, genre []int32 // by index in tracks
	}
	albums  []*albumEntry // by artist, year, title
	artists []*artistEntry
	// artistHay and albumHay are the artists' names and the albums' titles
	// (with their artist) folded for search, made at the first search.
	artistHay, albumHay []string
}

// track is what the window keeps of a library.Track: what its lists, the
// album grid and search show, and nothing else (no path, format, gain
// or file time). A collector's window holds 100,000 of them for as long
// as it is open: 160 bytes each where a library.Track takes 288. The
// field names are library.Track's.
type track struct {
	ContentID, Title          string
	Artists                   []string
	Album, AlbumArtist, Genre string
	Cover                     string // as library.Track.Cover
	Duration                  time.Duration
	addedMS                   int64 // library.Track.Added in Unix milliseconds; 0: not known
	TrackNo, DiscNo, Year     int32
	// pos is the track's index in the catalog's tracks, -1 for a track of
	// no catalog (a playlist entry this device has no file for).
	pos int32
}

// newTrack is the window's track of t, in no catalog.
func newTrack(t *library.Track) track {
	var added int64
	if !t.Added.IsZero() {
		added = t.Added.UnixMilli()
	}
	return track{ContentID: t.ContentID, Title: t.Title, Artists: t.Artists, Album: t.Album, AlbumArtist: t.AlbumArtist,
		Genre: t.Genre, Cover: t.Cover, Duration: t.Duration, addedMS: added,
		TrackNo: int32(t.TrackNo), DiscNo: int32(t.DiscNo), Year: int32(t.Year), pos: -1}
}

// Added is when the track entered its device's library; zero when not known.
func (t *track) Added() time.Time {
	if t.addedMS == 0 {
		return time.Time{}
	}
	return time.UnixMilli(t.addedMS)
}

// AlbumArtistOrFirst is library.Track.AlbumArtistOrFirst.
func (t *track) AlbumArtistOrFirst() string {
	if t.AlbumArtist != "" {
		return t.AlbumArtist
	}
	if len(t.Artists) > 0 {
		return t.Artists[0]
	}
	return ""
}

// tags is the track as a library.Track, for library's functions of tags
// (SearchText, AlbumID).
func (t *track) tags() library.Track {
	return library.Track{ContentID: t.ContentID, Title: t.Title, Artists: t.Artists, Album: t.Album,
		AlbumArtist: t.AlbumArtist, Genre: t.Genre, Year: int(t.Year), TrackNo: int(t.TrackNo), DiscNo: int(t.DiscNo)}
}

// index is t's index in c.tracks, or false when t is not one of c's
// tracks (one of an older catalog, or of a playlist).
func (c *catalog) index(t *track) (int32, bool) {
	if c == nil || t.pos < 0 || int(t.pos) >= len(c.tracks) || c.tracks[t.pos] != t {
		return -1, false
	}
	return t.pos, true
}

// byContentID is the first track in catalog order with content id id.
func (c *catalog) byContentID(id string) (*track, bool) {
	if c == nil {
		return nil, false
	}
	i, ok := slices.BinarySearchFunc(c.byID, id, func(x int32, id string) int {
		return strings.Compare(c.tracks[x].ContentID, id)
	})
	if !ok {
		return nil, false
	}
	return c.tracks[c.byID[i]], true
}

// albumEntry is one album of the grid.
type albumEntry struct {
	title, artist string // as shown ("Unknown album" for none)
	id            string // library.AlbumID: how its cover is found ("" without an album title)
	year          int
	added         time.Time // when its newest track was added
	tracks        []*track
	coverID       string // cover key: the album id, or the content id of a track with art
	localArt      bool   // a track of this device has art
	titleRank     int32
	artistRank    int32
}

// artistEntry is one artist of the Artists page.
type artistEntry struct {
	name   string
	tracks []*track
	albums int
}

// buildCatalog is the catalog of ts.
func buildCatalog(ts []library.Track) *catalog {
	var b catalogBuilder
	for i := range ts {
		b.add(&ts[i])
	}
	return b.build()
}

// catalogBuilder makes a catalog of the tracks given to add one at a
// time, as Backend.EachTrack reads them. Each is kept at once as the
// window's track, its own strings (content id, title, artists) copied
// into blocks; the library.Track it came from is garbage at once. Read
// whole first, 100,000 library.Tracks and their strings took more memory
// than the catalog made of them, and the window's highest memory was that
// read beside the catalog on screen (issue 37). The tracks are kept in
// chunks, not one growing slice: growing 16 MB of tracks copied them.
type catalogBuilder struct {
	in    []*track // the tracks in the order given
	chunk []track  // the chunk being filled
	pack  strpack.Packer
}

// catalogChunk bounds the tracks of one chunk of a catalogBuilder (the
// first chunks are smaller: a catalog of ten tracks takes ten's room).
const catalogChunk = 4096

// add keeps t.
func (b *catalogBuilder) add(t *library.Track) {
	if len(b.chunk) == cap(b.chunk) {
		b.chunk = make([]track, 0, min(max(2*cap(b.chunk), 64), catalogChunk))
	}
	tr := newTrack(t)
	tr.ContentID, tr.Title, tr.Artists = b.pack.Text(tr.ContentID), b.pack.Text(tr.Title), b.pack.List(tr.Artists)
	b.chunk = append(b.chunk, tr)
	b.in = append(b.in, &b.chunk[len(b.chunk)-1])
}

// build is the catalog of the tracks added, in library order. Tracks
// that sort alike keep the order they were added in (Backend.EachTrack's:
// by path last).
func (b *catalogBuilder) build() *catalog {
	in := b.in
	n := len(in)
	// Each track's search text (normalised title, artists, album: a
	// third of the build) is made on a goroutine of its own beside the
	// ranks and the sort, on the machine's other core: with 100,000
	// tracks a fifth off the launch's wait for its list (issue 37).
	texts := make([]string, n)
	textsDone := make(chan struct{})
	go func() {
		defer close(textsDone)
		for i, t := range in {
			texts[i] = library.SearchText(t.tags())
		}
	}()
	col := newCollator()
	titles, artists, albums, aas, genres := newRanker(col), newRanker(col), newRanker(col), newRanker(col), newRanker(col)
	tr, ar, al, aa, ge := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	for i, t := range in {
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
		a, b := in[x], in[y]
		return cmp.Or(cmp.Compare(aa[x], aa[y]), cmp.Compare(al[x], al[y]), cmp.Compare(a.DiscNo, b.DiscNo),
			cmp.Compare(a.TrackNo, b.TrackNo), cmp.Compare(tr[x], tr[y]), cmp.Compare(x, y))
	})

	c := &catalog{tracks: make([]*track, n), hayEnd: make([]uint32, n), byID: make([]int32, 0, n)}
	c.rank.title, c.rank.artist, c.rank.album = make([]int32, n), make([]int32, n), make([]int32, n)
	c.rank.albumArtist, c.rank.genre = make([]int32, n), make([]int32, n)
	<-textsDone
	size := 0
	for _, s := range texts {
		size += len(s)
	}
	var hay strings.Builder
	hay.Grow(size) // made once, at its length
	for i, o := range order {
		t := in[o]
		t.pos = int32(i)
		c.tracks[i] = t
		hay.WriteString(texts[o])
		c.hayEnd[i] = uint32(hay.Len())
		c.byID = append(c.byID, int32(i))
		c.rank.title[i], c.rank.artist[i], c.rank.album[i] = tr[o], ar[o], al[o]
		c.rank.albumArtist[i], c.rank.genre[i] = aa[o], ge[o]
	}
	// The first of each content id, in catalog order: a stable sort keeps
	// the copies of one recording in that order.
	slices.SortStableFunc(c.byID, func(x, y int32) int { return strings.Compare(c.tracks[x].ContentID, c.tracks[y].ContentID) })
	c.byID = slices.CompactFunc(c.byID, func(x, y int32) bool { return c.tracks[x].ContentID == c.tracks[y].ContentID })
	c.byID = slices.Clip(c.byID)
	c.hay = hay.String()
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
			a = &albumEntry{title: orUnknown(t.Album, "album"), artist: orUnknown(aa, "artist"), year: int(t.Year),
				id: library.AlbumID(t.tags()), titleRank: c.rank.album[i], artistRank: c.rank.albumArtist[i]}
			a.coverID = a.id
			albums[key] = a
			c.albums = append(c.albums, a)
		}
		a.tracks = append(a.tracks, t)
		a.year = max(a.year, int(t.Year))
		if added := t.Added(); added.After(a.added) {
			a.added = added
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
	c.packGroups()
}

// packGroups moves the albums and artists, their ids and their lists of
// tracks, into a few large allocations: made one by one while grouping,
// tens of thousands of small objects that the window keeps took the free
// room of as many pages of the Go heap, among the garbage of the reads
// and builds before (see strpack).
func (c *catalog) packGroups() {
	albums := make([]albumEntry, len(c.albums))
	artists := make([]artistEntry, len(c.artists))
	n := 0
	for _, a := range c.albums {
		n += len(a.tracks)
	}
	for _, a := range c.artists {
		n += len(a.tracks)
	}
	lists := make([]*track, 0, n)
	list := func(ts []*track) []*track {
		start := len(lists)
		lists = append(lists, ts...)
		return lists[start:len(lists):len(lists)]
	}
	var pack strpack.Packer
	for i, a := range c.albums {
		albums[i] = *a
		b := &albums[i]
		b.tracks = list(a.tracks)
		same := b.coverID == b.id
		b.id = pack.Text(b.id)
		if same {
			b.coverID = b.id
		}
		c.albums[i] = b
	}
	for i, a := range c.artists {
		artists[i] = *a
		artists[i].tracks = list(a.tracks)
		c.artists[i] = &artists[i]
	}
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
func (c *catalog) albumOf(t *track) *albumEntry {
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
// searchGroups are the artists whose names and the albums whose titles
// (with their artist) match q, at most limit of each, with the same
// folding as the tracks' search ("sigur ros" finds Sigur Rós).
func (c *catalog) searchGroups(q string, limit int) (artists []*artistEntry, albums []*albumEntry) {
	terms := library.QueryTerms(q)
	if len(terms) == 0 {
		return nil, nil
	}
	if c.artistHay == nil {
		c.artistHay = make([]string, len(c.artists))
		for i, a := range c.artists {
			c.artistHay[i] = library.Normalize(a.name)
		}
		c.albumHay = make([]string, len(c.albums))
		for i, a := range c.albums {
			c.albumHay[i] = library.Normalize(a.title + " " + a.artist)
		}
	}
	for i, h := range c.artistHay {
		if len(artists) < limit && library.Matches(h, terms) {
			artists = append(artists, c.artists[i])
		}
	}
	for i, h := range c.albumHay {
		if len(albums) < limit && library.Matches(h, terms) {
			albums = append(albums, c.albums[i])
		}
	}
	return artists, albums
}

func (c *catalog) search(q string, limit int) []*track {
	terms := library.QueryTerms(q)
	if len(terms) == 0 {
		return c.tracks
	}
	var out []*track
	start := uint32(0)
	for i, end := range c.hayEnd {
		h := c.hay[start:end]
		start = end
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
