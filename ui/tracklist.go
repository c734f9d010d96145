package ui

import (
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/library"
)

// trackList is a virtualized list of tracks with a column header: only the
// visible rows exist, so 10,000 tracks cost what a screenful does.
// Double-click plays the list from that row; right-click offers Play next
// and Add to queue.
type trackList struct {
	u       *UI
	tracks  []*library.Track
	list    *widget.List
	layout  *columnsLayout
	header  fyne.CanvasObject
	view    fyne.CanvasObject
	current string // content id of the playing track, shown bold with an icon
}

func newTrackList(u *UI) *trackList {
	tl := &trackList{u: u, layout: &columnsLayout{
		fixed:  []float32{36, 0, 0, 0, 56},
		weight: []float32{0, 4, 3, 3, 0},
	}}
	tl.list = widget.NewList(
		func() int { return len(tl.tracks) },
		func() fyne.CanvasObject { return newTrackRow(tl) },
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*trackRow).bind(id) },
	)
	tl.list.HideSeparators = true
	hdr := func(s string, align fyne.TextAlign) fyne.CanvasObject {
		l := widget.NewLabelWithStyle(s, align, fyne.TextStyle{Bold: true})
		l.SizeName = theme.SizeNameCaptionText
		return secondary(l)
	}
	tl.header = container.New(tl.layout,
		hdr("#", fyne.TextAlignTrailing), hdr("TITLE", fyne.TextAlignLeading), hdr("ARTIST", fyne.TextAlignLeading),
		hdr("ALBUM", fyne.TextAlignLeading), hdr("TIME", fyne.TextAlignTrailing))
	tl.view = container.NewBorder(container.NewVBox(tl.header, widget.NewSeparator()), nil, nil, nil, tl.list)
	return tl
}

// set shows tracks (the slice is kept, not copied: callers hand over
// slices they no longer change).
func (tl *trackList) set(tracks []*library.Track) {
	tl.tracks = tracks
	tl.list.UnselectAll()
	tl.list.Refresh()
	tl.list.ScrollToTop()
}

// setCurrent marks the playing track; it redraws only when that changed.
func (tl *trackList) setCurrent(contentID string) {
	if tl.current == contentID {
		return
	}
	tl.current = contentID
	tl.list.Refresh()
}

// trackRow is one row of a trackList.
type trackRow struct {
	widget.BaseWidget
	tl                            *trackList
	id                            int
	no, title, artist, album, dur *cell
	icon                          *widget.Icon
	numberCell                    *fyne.Container
}

func newTrackRow(tl *trackList) *trackRow {
	r := &trackRow{tl: tl, id: -1}
	fg, low := theme.ColorNameForeground, colorNameSecondary
	r.no, r.dur = newCell(fyne.TextAlignTrailing, low), newCell(fyne.TextAlignTrailing, low)
	r.title, r.artist, r.album = newCell(fyne.TextAlignLeading, fg), newCell(fyne.TextAlignLeading, fg), newCell(fyne.TextAlignLeading, fg)
	r.icon = widget.NewIcon(theme.NewPrimaryThemedResource(theme.MediaPlayIcon()))
	r.icon.Hide()
	r.numberCell = container.NewStack(r.no, container.NewCenter(r.icon))
	r.ExtendBaseWidget(r)
	return r
}

func (r *trackRow) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.New(r.tl.layout, r.numberCell, r.title, r.artist, r.album, r.dur))
}

func (r *trackRow) bind(id int) {
	r.id = id
	if id < 0 || id >= len(r.tl.tracks) {
		return
	}
	t := r.tl.tracks[id]
	playing := t.ContentID != "" && t.ContentID == r.tl.current
	low := colorNameSecondary
	r.no.set(strconv.Itoa(id+1), false, low)
	if playing != r.icon.Visible() {
		if playing {
			r.no.Hide()
			r.icon.Show()
		} else {
			r.icon.Hide()
			r.no.Show()
		}
	}
	title := t.Title
	if title == "" {
		title = "Untitled"
	}
	color := theme.ColorNameForeground
	if playing {
		color = theme.ColorNamePrimary
	}
	r.title.set(title, playing, color)
	r.artist.set(joinArtists(t.Artists), false, theme.ColorNameForeground)
	r.album.set(orUnknown(t.Album, "album"), false, theme.ColorNameForeground)
	r.dur.set(formatDuration(t.Duration), false, low)
}

// Tapped selects the row.
func (r *trackRow) Tapped(*fyne.PointEvent) {
	if r.id >= 0 {
		r.tl.list.Select(r.id)
	}
}

// DoubleTapped plays the list from this row.
func (r *trackRow) DoubleTapped(*fyne.PointEvent) {
	if r.id >= 0 {
		r.tl.list.Select(r.id)
		r.tl.u.playTracks(r.tl.tracks, r.id)
	}
}

// TappedSecondary opens the row's context menu.
func (r *trackRow) TappedSecondary(e *fyne.PointEvent) {
	if r.id < 0 || r.id >= len(r.tl.tracks) {
		return
	}
	r.tl.list.Select(r.id)
	tracks, id := r.tl.tracks, r.id
	t := tracks[id]
	m := r.tl.u.trackMenu(tracks, id, []*library.Track{t})
	widget.ShowPopUpMenuAtPosition(m, fyne.CurrentApp().Driver().CanvasForObject(r), e.AbsolutePosition)
}
