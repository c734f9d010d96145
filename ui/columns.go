package ui

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/furudesk/furudesk/app"
)

// column is one column of a track list.
type column int

// The columns, in the order they are shown.
const (
	colPos     column = iota // position in the queue or playlist
	colTrackNo               // the track number tag
	colTitle
	colArtist
	colAlbum
	colYear
	colGenre
	colDisc
	colAdded
	colPlays
	colLast
	colWhere // the devices that have it, and whether it plays now
	colHeart
	colTime
	numColumns
)

// colDef says how a column looks and sorts.
type colDef struct {
	name   string // in the header and the column chooser
	key    string // in the settings
	fixed  float32
	weight float32
	align  fyne.TextAlign
	// descFirst: the first click sorts the largest first (newest, most
	// played), as one wants of dates and counts.
	descFirst bool
	sortable  bool
}

var colDefs = [numColumns]colDef{
	colPos:     {name: "#", key: "pos", fixed: 40, align: fyne.TextAlignTrailing},
	colTrackNo: {name: "#", key: "track", fixed: 40, align: fyne.TextAlignTrailing, sortable: true},
	colTitle:   {name: "Title", key: "title", weight: 4, sortable: true},
	colArtist:  {name: "Artist", key: "artist", weight: 3, sortable: true},
	colAlbum:   {name: "Album", key: "album", weight: 3, sortable: true},
	colYear:    {name: "Year", key: "year", fixed: 56, align: fyne.TextAlignTrailing, sortable: true},
	colGenre:   {name: "Genre", key: "genre", weight: 2, sortable: true},
	colDisc:    {name: "Disc", key: "disc", fixed: 48, align: fyne.TextAlignTrailing, sortable: true},
	colAdded:   {name: "Added", key: "added", fixed: 96, align: fyne.TextAlignTrailing, sortable: true, descFirst: true},
	colPlays:   {name: "Plays", key: "plays", fixed: 56, align: fyne.TextAlignTrailing, sortable: true, descFirst: true},
	colLast:    {name: "Last played", key: "played", fixed: 112, align: fyne.TextAlignTrailing, sortable: true, descFirst: true},
	colWhere:   {name: "Where", key: "where", weight: 3, sortable: true},
	colHeart:   {name: "", key: "heart", fixed: 28, align: fyne.TextAlignCenter},
	colTime:    {name: "Time", key: "time", fixed: 64, align: fyne.TextAlignTrailing, sortable: true},
}

// headerName is how the column chooser names a column.
func (c column) chooserName() string {
	switch c {
	case colTrackNo:
		return "Track number"
	case colHeart:
		return "Liked"
	case colTime:
		return "Duration"
	case colAdded:
		return "Date added"
	case colPlays:
		return "Play count"
	}
	return colDefs[c].name
}

func columnByKey(k string) (column, bool) {
	for c := range numColumns {
		if colDefs[c].key == k {
			return c, true
		}
	}
	return 0, false
}

// colSet is a set of visible columns.
type colSet uint32

func colsOf(cs ...column) colSet {
	var s colSet
	for _, c := range cs {
		s |= 1 << c
	}
	return s
}

func (s colSet) has(c column) bool { return s&(1<<c) != 0 }

func (s colSet) with(c column, on bool) colSet {
	if on {
		return s | 1<<c
	}
	return s &^ (1 << c)
}

// String is the settings form: column keys joined by commas.
func (s colSet) String() string {
	var ks []string
	for c := range numColumns {
		if s.has(c) {
			ks = append(ks, colDefs[c].key)
		}
	}
	return strings.Join(ks, ",")
}

// parseColSet reads String's form; unknown keys are ignored, and a set
// without a title gets one (a list must say what it lists).
func parseColSet(v string, allowed colSet) (colSet, bool) {
	if v == "" {
		return 0, false
	}
	var s colSet
	for _, k := range strings.Split(v, ",") {
		if c, ok := columnByKey(strings.TrimSpace(k)); ok && allowed.has(c) {
			s = s.with(c, true)
		}
	}
	return s.with(colTitle, true), true
}

// sortSpec is how a list is sorted: by a column, largest first when desc.
// The zero column (colPos) with ok false is the list's own order.
type sortSpec struct {
	col  column
	desc bool
	ok   bool
}

// String is the settings form: "year" or "year:desc", "" for none.
func (s sortSpec) String() string {
	if !s.ok {
		return ""
	}
	if s.desc {
		return colDefs[s.col].key + ":desc"
	}
	return colDefs[s.col].key
}

func parseSortSpec(v string) sortSpec {
	k, dir, _ := strings.Cut(v, ":")
	c, ok := columnByKey(k)
	if !ok || !colDefs[c].sortable {
		return sortSpec{}
	}
	return sortSpec{col: c, desc: dir == "desc", ok: true}
}

// next is the sort after a click on column c's header: by c, the other
// way round when it is sorted by c already.
func (s sortSpec) next(c column) sortSpec {
	if s.ok && s.col == c {
		return sortSpec{col: c, desc: !s.desc, ok: true}
	}
	return sortSpec{col: c, desc: colDefs[c].descFirst, ok: true}
}

// sortKeys is what sorting reads of each row: the catalog's collation
// ranks (-1 for a track the catalog lacks, which goes last) and the play
// counts.
type sortKeys struct {
	cat   *catalog
	plays map[string]playStats
	where func(*track) int64 // whereRank
}

// sortRows returns the permutation of rows that sorts them by s; ties keep
// library order (album artist, album, disc, track number) and then the
// list's own order. Each row's key is read once into an integer (a
// collation rank, a year, a play count), so sorting 100,000 rows
// compares integers.
func (k sortKeys) sortRows(rows []*track, s sortSpec) []int32 {
	perm := make([]int32, len(rows))
	for i := range perm {
		perm[i] = int32(i)
	}
	if !s.ok || len(rows) < 2 {
		return perm
	}
	const last = 1 << 40 // a track the catalog lacks sorts after the others
	pos := make([]int64, len(rows))
	key := make([]int64, len(rows))
	var ranks []int32
	if k.cat != nil {
		switch s.col {
		case colTitle:
			ranks = k.cat.rank.title
		case colArtist:
			ranks = k.cat.rank.artist
		case colAlbum:
			ranks = k.cat.rank.album
		case colGenre:
			ranks = k.cat.rank.genre
		}
	}
	for i, t := range rows {
		p, inCat := k.cat.index(t)
		pos[i] = last
		if inCat {
			pos[i] = int64(p)
		}
		var v int64
		switch s.col {
		case colTitle, colArtist, colAlbum, colGenre:
			v = last
			if inCat && ranks != nil {
				v = int64(ranks[p])
			}
		case colTrackNo:
			v = int64(t.TrackNo)<<20 | int64(t.DiscNo)&0xfffff
		case colDisc:
			v = int64(t.DiscNo)<<20 | int64(t.TrackNo)&0xfffff
		case colYear:
			v = int64(t.Year)
		case colTime:
			v = int64(t.Duration)
		case colAdded:
			v = t.addedMS
		case colPlays:
			v = int64(k.plays[t.ContentID].plays)
		case colLast:
			v = k.plays[t.ContentID].lastMS
		case colWhere:
			if k.where != nil {
				v = k.where(t)
			}
		}
		if s.desc && v != last {
			v = -v
		}
		key[i] = v
	}
	slices.SortFunc(perm, func(a, b int32) int {
		return cmp.Or(cmp.Compare(key[a], key[b]), cmp.Compare(pos[a], pos[b]), cmp.Compare(a, b))
	})
	return perm
}

// whereRank orders tracks by where they are: on this device, then
// saved here from another, then on an online device, then on none online.
func whereRank(p app.Place, remote bool) int64 {
	switch {
	case !remote:
		return 0
	case p.Cached:
		return 1
	case p.Playable:
		return 2
	}
	return 3
}

// playStats is how often and when a track was played (app.PlayStats).
type playStats struct {
	plays  uint64
	lastMS int64
}

// cellText is what column c shows for a track.
func cellText(c column, t *track, pos int, ps playStats, now time.Time) string {
	switch c {
	case colPos:
		return itoa(pos + 1)
	case colTrackNo:
		if t.TrackNo > 0 {
			return itoa(int(t.TrackNo))
		}
	case colTitle:
		return orUntitled(t.Title)
	case colArtist:
		return joinArtists(t.Artists)
	case colAlbum:
		return orUnknown(t.Album, "album")
	case colYear:
		if t.Year > 0 {
			return itoa(int(t.Year))
		}
	case colGenre:
		return t.Genre
	case colDisc:
		if t.DiscNo > 0 {
			return itoa(int(t.DiscNo))
		}
	case colAdded:
		if t.addedMS != 0 {
			return addedText(t.Added(), now)
		}
	case colPlays:
		if ps.plays > 0 {
			return itoa(int(ps.plays))
		}
	case colLast:
		if ps.lastMS > 0 {
			return agoText(time.UnixMilli(ps.lastMS), now)
		}
	case colTime:
		return formatDuration(t.Duration)
	}
	return ""
}

// addedText is a date the way lists show it: "today", "yesterday", "3
// days ago" within a week, else the date.
func addedText(t, now time.Time) string {
	y1, m1, d1 := t.Local().Date()
	y2, m2, d2 := now.Local().Date()
	days := int(time.Date(y2, m2, d2, 0, 0, 0, 0, time.UTC).Sub(time.Date(y1, m1, d1, 0, 0, 0, 0, time.UTC)).Hours() / 24)
	switch {
	case days <= 0:
		return "today"
	case days == 1:
		return "yesterday"
	case days < 7:
		return itoa(days) + " days ago"
	}
	return t.Local().Format("2006-01-02")
}

// agoText says how long ago t was: "just now", "5 minutes ago", "3
// hours ago", "2 days ago".
func agoText(t, now time.Time) string {
	switch d := now.Sub(t); {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute", "minutes") + " ago"
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour", "hours") + " ago"
	default:
		return plural(int(d/(24*time.Hour)), "day", "days") + " ago"
	}
}

func orUntitled(s string) string {
	if s == "" {
		return "Untitled"
	}
	return s
}

// colLayout lays a row's cells (one per column, in column order) out side
// by side, leaving hidden columns out: fixed columns keep their
// width, the others share the rest by weight.
type colLayout struct {
	visible *colSet // shared by a list's header and rows
}

func (l colLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	var fixedSum, weightSum float32
	n := 0
	for i := range objs {
		c := column(i)
		if !l.visible.has(c) {
			continue
		}
		n++
		if d := colDefs[c]; d.fixed > 0 {
			fixedSum += d.fixed
		} else {
			weightSum += d.weight
		}
	}
	free := max(size.Width-fixedSum-pad*float32(max(n-1, 0)), 0)
	x := float32(0)
	for i, o := range objs {
		c := column(i)
		if !l.visible.has(c) {
			o.Hide()
			continue
		}
		o.Show()
		d := colDefs[c]
		w := d.fixed
		if w == 0 && weightSum > 0 {
			w = free * d.weight / weightSum
		}
		h := o.MinSize().Height
		o.Move(fyne.NewPos(x, (size.Height-h)/2))
		o.Resize(fyne.NewSize(w, h))
		x += w + pad
	}
}

func (l colLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w, h float32
	n := 0
	for i, o := range objs {
		c := column(i)
		if !l.visible.has(c) {
			continue
		}
		n++
		if d := colDefs[c]; d.fixed > 0 {
			w += d.fixed
		} else {
			w += 40
		}
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(w+theme.Padding()*float32(max(n-1, 0)), h)
}
