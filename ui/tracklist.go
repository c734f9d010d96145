package ui

import (
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/library"
)

// trackList is a virtualized list of tracks with a column header: only the
// visible rows exist, so 10,000 tracks cost what a screenful does.
// Double-click plays the list from that row; right-click offers Play next,
// Add to queue and Add to playlist for the selection. Ctrl-click adds a
// row to the selection, Shift-click a range; the heart likes a track.
type trackList struct {
	u       *UI
	tracks  []*library.Track
	list    *widget.List
	layout  *columnsLayout
	header  fyne.CanvasObject
	view    fyne.CanvasObject
	current string // content id of the playing track, shown bold with an icon

	sel    map[int]bool // selected rows
	anchor int          // where a Shift-click range starts
}

// trackColumns are the columns of a track list: number, title, artist,
// album, heart, time.
func trackColumns() *columnsLayout {
	return &columnsLayout{
		fixed:  []float32{36, 0, 0, 0, 28, 56},
		weight: []float32{0, 4, 3, 3, 0, 0},
	}
}

func newTrackList(u *UI) *trackList {
	tl := &trackList{u: u, layout: trackColumns(), sel: map[int]bool{}}
	tl.list = widget.NewList(
		func() int { return len(tl.tracks) },
		func() fyne.CanvasObject { return newTrackRow(tl) },
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*trackRow).bind(id) },
	)
	tl.list.HideSeparators = true
	tl.header = columnHeader(tl.layout)
	tl.view = container.NewBorder(container.NewVBox(tl.header, widget.NewSeparator()), nil, nil, nil, tl.list)
	return tl
}

// columnHeader is the header row of a track list.
func columnHeader(l *columnsLayout) fyne.CanvasObject {
	hdr := func(s string, align fyne.TextAlign) fyne.CanvasObject {
		t := widget.NewLabelWithStyle(s, align, fyne.TextStyle{Bold: true})
		t.SizeName = theme.SizeNameCaptionText
		return secondary(t)
	}
	return container.New(l,
		hdr("#", fyne.TextAlignTrailing), hdr("TITLE", fyne.TextAlignLeading), hdr("ARTIST", fyne.TextAlignLeading),
		hdr("ALBUM", fyne.TextAlignLeading), hdr("", fyne.TextAlignCenter), hdr("TIME", fyne.TextAlignTrailing))
}

// set shows tracks (the slice is kept, not copied: callers hand over
// slices they no longer change).
func (tl *trackList) set(tracks []*library.Track) {
	tl.tracks = tracks
	clear(tl.sel)
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

// click selects row id: alone, or added to (Ctrl) or extended to (Shift)
// the selection.
func (tl *trackList) click(id int, mods fyne.KeyModifier) {
	switch {
	case mods&fyne.KeyModifierShortcutDefault != 0:
		if tl.sel[id] {
			delete(tl.sel, id)
		} else {
			tl.sel[id] = true
		}
		tl.anchor = id
	case mods&fyne.KeyModifierShift != 0 && len(tl.sel) > 0:
		clear(tl.sel)
		for i := min(tl.anchor, id); i <= max(tl.anchor, id); i++ {
			tl.sel[i] = true
		}
	default:
		clear(tl.sel)
		tl.sel[id] = true
		tl.anchor = id
	}
	tl.list.Refresh()
}

// selection is what a menu opened on row id acts on: the selection when
// id is part of it, else that row alone (which becomes the selection).
func (tl *trackList) selection(id int) []*library.Track {
	if !tl.sel[id] {
		tl.click(id, 0)
	}
	var out []*library.Track
	for i, t := range tl.tracks {
		if tl.sel[i] {
			out = append(out, t)
		}
	}
	return out
}

// trackRow is one row of a trackList.
type trackRow struct {
	widget.BaseWidget
	tl                            *trackList
	id                            int
	no, title, artist, album, dur *cell
	icon                          *widget.Icon
	numberCell                    *fyne.Container
	heart                         *heartCell
	bg                            *canvas.Rectangle
	mods                          fyne.KeyModifier // of the mouse button press being handled
}

func newTrackRow(tl *trackList) *trackRow {
	r := &trackRow{tl: tl, id: -1}
	fg, low := theme.ColorNameForeground, colorNameSecondary
	r.no, r.dur = newCell(fyne.TextAlignTrailing, low), newCell(fyne.TextAlignTrailing, low)
	r.title, r.artist, r.album = newCell(fyne.TextAlignLeading, fg), newCell(fyne.TextAlignLeading, fg), newCell(fyne.TextAlignLeading, fg)
	r.icon = widget.NewIcon(theme.NewPrimaryThemedResource(theme.MediaPlayIcon()))
	r.icon.Hide()
	r.numberCell = container.NewStack(r.no, container.NewCenter(r.icon))
	r.heart = newHeartCell(func() {
		if r.id >= 0 && r.id < len(r.tl.tracks) {
			r.tl.u.toggleLike(r.tl.tracks[r.id].ContentID)
		}
	})
	r.bg = canvas.NewRectangle(theme.Color(theme.ColorNameSelection))
	r.bg.CornerRadius = 4
	r.bg.Hide()
	r.ExtendBaseWidget(r)
	return r
}

func (r *trackRow) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewStack(r.bg,
		container.New(r.tl.layout, r.numberCell, r.title, r.artist, r.album, r.heart, r.dur)))
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
	r.heart.set(r.tl.u.liked[t.ContentID])
	if sel := r.tl.sel[id]; sel != r.bg.Visible() {
		r.bg.Hidden = !sel
		r.bg.Refresh()
	}
}

// MouseDown notes the modifier keys of a click for Tapped.
func (r *trackRow) MouseDown(e *desktop.MouseEvent) { r.mods = e.Modifier }

// MouseUp is part of desktop.Mouseable.
func (r *trackRow) MouseUp(*desktop.MouseEvent) {}

// Tapped selects the row (Ctrl and Shift extend the selection).
func (r *trackRow) Tapped(*fyne.PointEvent) {
	if r.id >= 0 {
		r.tl.click(r.id, r.mods)
		r.mods = 0
	}
}

// DoubleTapped plays the list from this row.
func (r *trackRow) DoubleTapped(*fyne.PointEvent) {
	if r.id >= 0 {
		r.tl.click(r.id, 0)
		r.tl.u.playTracks(r.tl.tracks, r.id)
	}
}

// TappedSecondary opens the context menu of the selection, or of this row.
func (r *trackRow) TappedSecondary(e *fyne.PointEvent) {
	if r.id < 0 || r.id >= len(r.tl.tracks) {
		return
	}
	sel := r.tl.selection(r.id)
	m := r.tl.u.trackMenu(r.tl.tracks, r.id, sel)
	widget.ShowPopUpMenuAtPosition(m, fyne.CurrentApp().Driver().CanvasForObject(r), e.AbsolutePosition)
}

// heartCell is the heart of a row: filled in the accent colour for a liked
// track, a faint outline otherwise; tapping it likes or unlikes.
type heartCell struct {
	widget.BaseWidget
	icon  *widget.Icon
	liked bool
	onTap func()
}

func newHeartCell(onTap func()) *heartCell {
	h := &heartCell{icon: widget.NewIcon(theme.NewDisabledResource(iconHeartOutline)), onTap: onTap}
	h.ExtendBaseWidget(h)
	return h
}

func (h *heartCell) set(liked bool) {
	if liked == h.liked {
		return
	}
	h.liked = liked
	if liked {
		h.icon.SetResource(iconLiked)
	} else {
		h.icon.SetResource(theme.NewDisabledResource(iconHeartOutline))
	}
}

func (h *heartCell) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewCenter(container.New(fixedSize{fyne.NewSize(18, 18)}, h.icon)))
}

// Tapped likes or unlikes the track.
func (h *heartCell) Tapped(*fyne.PointEvent) { h.onTap() }

func (h *heartCell) MinSize() fyne.Size { return fyne.NewSize(24, 24) }
