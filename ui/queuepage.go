package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
)

// queuePage is the shared queue, the current track marked. Double-click
// jumps to a track; right-click plays or removes it.
type queuePage struct {
	u      *UI
	items  []app.QueueItem
	index  int
	list   *widget.List
	layout *columnsLayout
	empty  fyne.CanvasObject
	view   *fyne.Container
	clear  *widget.Button
	save   *widget.Button
	more   *widget.Label
}

func newQueuePage(u *UI) *queuePage {
	p := &queuePage{u: u, index: -1, layout: &columnsLayout{
		fixed:  []float32{36, 0, 0, 0, 56},
		weight: []float32{0, 4, 3, 3, 0},
	}}
	p.list = widget.NewList(
		func() int { return len(p.items) },
		func() fyne.CanvasObject { return newQueueRow(p) },
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*queueRow).bind(id) })
	p.list.HideSeparators = true
	p.clear = widget.NewButtonWithIcon("Clear queue", theme.ContentClearIcon(), func() {
		u.run("Could not clear the queue", u.b.ClearQueue)
	})
	p.clear.Importance = widget.LowImportance
	p.save = widget.NewButtonWithIcon("Save as playlist…", iconPlaylistAdd, func() {
		ids := make([]string, len(p.items))
		for i, it := range p.items {
			ids[i] = it.ContentID
		}
		u.newPlaylistDialog(func(pl app.PlaylistSummary) { u.addTo(pl, ids) })
	})
	p.save.Importance = widget.LowImportance
	p.more = widget.NewLabel("")
	title := widget.NewLabel("Double-click a track to play it; right-click to remove it.")
	top := container.NewBorder(nil, nil, nil, container.NewHBox(p.save, p.clear), secondary(title))

	icon := widget.NewIcon(iconQueue)
	msg := widget.NewLabelWithStyle("The queue is empty", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	hint := widget.NewLabelWithStyle("Right-click a track and choose “Add to queue”,\nor double-click one to play it.", fyne.TextAlignCenter, fyne.TextStyle{})
	p.empty = container.NewCenter(container.NewVBox(
		container.NewCenter(container.New(fixedSize{fyne.NewSize(64, 64)}, icon)), msg, secondary(hint)))

	p.view = container.NewStack(container.NewBorder(top, secondary(p.more), nil, nil, p.list), p.empty)
	p.render()
	return p
}

func (p *queuePage) update(st, prev app.Status, first bool) {
	if !first && st.Index == prev.Index && st.QueueLen == prev.QueueLen && sameQueue(st.Queue, p.items) {
		return
	}
	p.items = st.Queue
	p.index = st.Index
	if st.Track == nil {
		p.index = -1
	}
	p.render()
}

func (p *queuePage) render() {
	if len(p.items) == 0 {
		p.empty.Show()
		p.clear.Disable()
		p.save.Disable()
	} else {
		p.empty.Hide()
		p.clear.Enable()
		p.save.Enable()
	}
	if n := p.u.st.QueueLen - len(p.items); n > 0 {
		p.more.SetText("… and " + plural(n, "more track", "more tracks"))
		p.more.Show()
	} else {
		p.more.Hide()
	}
	p.list.Refresh()
}

func sameQueue(a, b []app.QueueItem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ContentID != b[i].ContentID {
			return false
		}
	}
	return true
}

// queueRow is one entry of the queue.
type queueRow struct {
	widget.BaseWidget
	p                             *queuePage
	id                            int
	no, title, artist, album, dur *cell
	icon                          *widget.Icon
	numberCell                    *fyne.Container
}

func newQueueRow(p *queuePage) *queueRow {
	r := &queueRow{p: p, id: -1}
	fg, low := theme.ColorNameForeground, colorNameSecondary
	r.no, r.dur = newCell(fyne.TextAlignTrailing, low), newCell(fyne.TextAlignTrailing, low)
	r.title, r.artist, r.album = newCell(fyne.TextAlignLeading, fg), newCell(fyne.TextAlignLeading, fg), newCell(fyne.TextAlignLeading, fg)
	r.icon = widget.NewIcon(theme.NewPrimaryThemedResource(theme.MediaPlayIcon()))
	r.numberCell = container.NewStack(r.no, container.NewCenter(r.icon))
	r.ExtendBaseWidget(r)
	return r
}

func (r *queueRow) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.New(r.p.layout, r.numberCell, r.title, r.artist, r.album, r.dur))
}

func (r *queueRow) bind(id int) {
	r.id = id
	if id < 0 || id >= len(r.p.items) {
		return
	}
	it := r.p.items[id]
	cur := id == r.p.index
	low := colorNameSecondary
	r.no.set(itoa(id+1), false, low)
	if cur {
		r.no.Hide()
		r.icon.Show()
	} else {
		r.icon.Hide()
		r.no.Show()
	}
	title := it.Title
	if title == "" {
		title = "Untitled"
	}
	color := theme.ColorNameForeground
	if cur {
		color = theme.ColorNamePrimary
	}
	r.title.set(title, cur, color)
	r.artist.set(joinArtists(it.Artists), false, theme.ColorNameForeground)
	r.album.set(orUnknown(it.Album, "album"), false, theme.ColorNameForeground)
	r.dur.set(formatDuration(msDuration(it.DurationMS)), false, low)
}

// Tapped selects the row.
func (r *queueRow) Tapped(*fyne.PointEvent) {
	if r.id >= 0 {
		r.p.list.Select(r.id)
	}
}

// DoubleTapped plays this entry of the queue.
func (r *queueRow) DoubleTapped(*fyne.PointEvent) {
	if r.id >= 0 {
		i := r.id
		r.p.u.run("Could not play that track", func() error { return r.p.u.b.JumpTo(i) })
	}
}

// TappedSecondary offers Play, Remove from queue, Add to playlist and
// Like.
func (r *queueRow) TappedSecondary(e *fyne.PointEvent) {
	if r.id < 0 {
		return
	}
	i, u := r.id, r.p.u
	m := fyne.NewMenu("",
		fyne.NewMenuItemWithIcon("Play", theme.MediaPlayIcon(), func() {
			u.run("Could not play that track", func() error { return u.b.JumpTo(i) })
		}),
		fyne.NewMenuItemWithIcon("Remove from queue", theme.ContentRemoveIcon(), func() {
			u.run("Could not remove it from the queue", func() error { return u.b.RemoveFromQueue(i) })
		}),
		fyne.NewMenuItemSeparator(),
		u.addToPlaylistItem([]string{r.p.items[i].ContentID}),
		u.likeItem(r.p.items[i].ContentID))
	widget.ShowPopUpMenuAtPosition(m, fyne.CurrentApp().Driver().CanvasForObject(r), e.AbsolutePosition)
}

var _ = layout.NewSpacer
