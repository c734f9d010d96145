package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
)

// queuePage is the group's shared queue in the order it plays: what
// plays now, then "Up next" and the "History" of what played before it
// (the play order: shuffled while shuffle is on). Every edit is a control
// the owner applies: drag or Alt+↑/↓ moves the selection, Delete removes
// it (with an undo), "Clear queue" empties it (with an undo).
type queuePage struct {
	u     *UI
	items []app.QueueItem
	order []int // play order: queue indexes
	index int   // current queue index, -1: none
	pos0  int   // the current entry's place in the play order

	next, history *trackList
	nextIdx       []int // up next's rows -> queue indexes
	histIdx       []int // history's rows -> queue indexes

	tabs              *container.AppTabs
	nextTab, histTab  *container.TabItem
	nowCover          *canvas.Image
	nowCoverV         coverView
	nowTitle          *widget.Label
	nowSub            *subtle
	nowBox            fyne.CanvasObject
	empty             fyne.CanvasObject
	view              *fyne.Container
	clear, save       *widget.Button
	more              *subtle
	lastLen, lastHist int
}

func newQueuePage(u *UI) *queuePage {
	p := &queuePage{u: u, index: -1}
	p.next = p.newList("queue", func() []int { return p.nextIdx })
	p.history = p.newList("queue-history", func() []int { return p.histIdx })

	p.clear = widget.NewButtonWithIcon("Clear queue", theme.ContentClearIcon(), p.clearQueue)
	p.clear.Importance = widget.LowImportance
	p.save = widget.NewButtonWithIcon("Save as playlist…", iconPlaylistAdd, func() {
		ids := make([]string, len(p.items))
		for i, it := range p.items {
			ids[i] = it.ContentID
		}
		u.newPlaylistDialog(func(pl app.PlaylistSummary) { u.addTo(pl, ids) })
	})
	u.openingDialog(p.save)
	p.save.Importance = widget.LowImportance
	p.more = newSubtle("")

	p.nowCover = canvas.NewImageFromImage(nil)
	p.nowCover.FillMode = canvas.ImageFillContain
	p.nowCover.CornerRadius = 4
	p.nowCoverV.img = p.nowCover
	ph := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	ph.CornerRadius = 4
	cover := container.New(fixedSize{fyne.NewSize(48, 48)}, ph, p.nowCover)
	p.nowTitle = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.nowTitle.Truncation = fyne.TextTruncateEllipsis
	p.nowSub = newSubtle("")
	p.nowSub.Truncation = fyne.TextTruncateEllipsis
	label := newSubtleWithStyle("NOW PLAYING", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	label.SizeName = theme.SizeNameCaptionText
	nowText := container.New(layout.NewCustomPaddedVBoxLayout(-14), label, p.nowTitle, p.nowSub)
	p.nowBox = container.NewBorder(nil, nil, cover, container.NewHBox(p.save, p.clear), nowText)

	p.nextTab = container.NewTabItem("Up next", container.NewBorder(nil, p.more, nil, nil, p.next.view))
	p.histTab = container.NewTabItem("History", p.history.view)
	p.tabs = container.NewAppTabs(p.nextTab, p.histTab)

	icon := widget.NewIcon(iconQueue)
	msg := widget.NewLabelWithStyle("The queue is empty", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	hint := newSubtleWithStyle("Right-click a track and choose “Add to queue”,\nor double-click one to play it.", fyne.TextAlignCenter, fyne.TextStyle{})
	p.empty = container.NewCenter(container.NewVBox(
		container.NewCenter(container.New(fixedSize{fyne.NewSize(64, 64)}, icon)), msg, hint))

	p.view = container.NewStack(container.NewBorder(container.NewVBox(p.nowBox, widget.NewSeparator()), nil, nil, nil, p.tabs), p.empty)
	p.render()
	return p
}

// newList is one of the page's lists; idx maps its rows to queue indexes.
func (p *queuePage) newList(view string, idx func() []int) *trackList {
	u := p.u
	var tl *trackList
	qi := func(rows []int) []int {
		m := idx()
		out := make([]int, len(rows))
		for i, r := range rows {
			out[i] = m[r]
		}
		return out
	}
	tl = newTrackList(u, listConfig{view: view, allowed: listColumns, defaults: listDefault}, listHooks{
		activate: func(rows []int) { p.jump(qi(rows[:1])[0]) },
		menu:     func(rows []int) *fyne.Menu { return p.menu(tl, qi(rows)) },
		remove:   func(rows []int) { p.remove(qi(rows)) },
		move: func(rows []int, to int) {
			// to is a place among the list's other rows: the history
			// starts the play order, up next follows the current track.
			if tl == p.next {
				to += p.pos0 + 1
			}
			p.move(qi(rows), to)
		},
		current: func(int) bool { return false },
	})
	return tl
}

func (p *queuePage) update(st, prev app.Status, first bool) {
	if !first && st.Index == prev.Index && st.QueueLen == prev.QueueLen && sameQueue(st.Queue, p.items) &&
		slices.Equal(st.Order, p.order) && (st.Track == nil) == (p.index < 0) {
		return
	}
	p.items = st.Queue
	p.order = st.Order
	p.index = st.Index
	if st.Track == nil {
		p.index = -1
	}
	p.render()
}

// render builds the lists from the queue: the play order around the
// current entry.
func (p *queuePage) render() {
	u := p.u
	play := p.playOrder()
	p.pos0 = -1
	if p.index >= 0 {
		p.pos0 = max(slices.Index(play, p.index), 0)
	}
	p.histIdx = slices.Clone(play[:max(p.pos0, 0)])
	p.nextIdx = slices.Clone(play[p.pos0+1:])
	if p.index < 0 {
		p.histIdx, p.nextIdx = nil, play
	}
	tracks := func(idx []int) []*track {
		out := make([]*track, len(idx))
		for i, q := range idx {
			it := p.items[q]
			out[i] = u.trackFor(it.ContentID, it.Title, it.Artists, it.Album, it.DurationMS)
		}
		return out
	}
	keepNext := len(p.nextIdx) == p.lastLen
	keepHist := len(p.histIdx) == p.lastHist
	p.lastLen, p.lastHist = len(p.nextIdx), len(p.histIdx)
	p.next.setKeep(tracks(p.nextIdx), keepNext || len(p.next.sel) > 0)
	p.history.setKeep(tracks(p.histIdx), keepHist || len(p.history.sel) > 0)
	p.nextTab.Text = "Up next (" + itoa(len(p.nextIdx)) + ")"
	p.histTab.Text = "History (" + itoa(len(p.histIdx)) + ")"
	p.tabs.Refresh()

	if p.index >= 0 && p.index < len(p.items) {
		it := p.items[p.index]
		p.nowTitle.SetText(orUntitled(it.Title))
		sub := joinArtists(it.Artists)
		if it.Album != "" {
			sub += " — " + it.Album
		}
		p.nowSub.SetText(sub)
		p.nowCoverV.show(u.covers, u.cat.coverKey(it.ContentID, it.Album))
	} else {
		p.nowTitle.SetText("Nothing playing")
		p.nowSub.SetText("")
		p.nowCoverV.show(u.covers, "")
	}
	if len(p.items) == 0 {
		p.empty.Show()
		p.clear.Disable()
		p.save.Disable()
	} else {
		p.empty.Hide()
		p.clear.Enable()
		p.save.Enable()
	}
	if n := u.st.QueueLen - len(p.items); n > 0 {
		p.more.SetText("… and " + plural(n, "more track", "more tracks"))
		p.more.Show()
	} else {
		p.more.Hide()
	}
}

// refreshLists redraws the lists (likes, play counts).
func (p *queuePage) refreshLists() {
	p.next.list.Refresh()
	p.history.list.Refresh()
}

// playOrder is the queue's indexes in the order they play.
func (p *queuePage) playOrder() []int {
	if len(p.order) == len(p.items) && len(p.items) > 0 {
		return slices.Clone(p.order)
	}
	o := make([]int, len(p.items))
	for i := range o {
		o[i] = i
	}
	return o
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

func (p *queuePage) ids(qi []int) []string {
	out := make([]string, len(qi))
	for i, q := range qi {
		out[i] = p.items[q].ContentID
	}
	return out
}

// jump plays the entry at queue index q.
func (p *queuePage) jump(q int) {
	u := p.u
	u.run("Could not play that track", func() error { return u.b.JumpTo(q) })
}

// move moves the entries at queue indexes qi to place to of the play
// order.
func (p *queuePage) move(qi []int, to int) {
	u, ids := p.u, p.ids(qi)
	u.run("Could not move it in the queue", func() error { return u.b.MoveInQueue(qi, ids, to) })
}

// remove removes the entries at queue indexes qi, with an undo.
func (p *queuePage) remove(qi []int) {
	u, ids := p.u, p.ids(qi)
	saved := app.SaveQueue(u.st)
	saved.PositionMS = u.position().Milliseconds()
	what := "“" + orUntitled(p.items[qi[0]].Title) + "”"
	if len(qi) > 1 {
		what = plural(len(qi), "track", "tracks")
	}
	u.runThen(func() error { return u.b.RemoveQueueEntries(qi, ids) }, func(err error) {
		if err != nil {
			u.showError("Could not remove it from the queue: " + userError(err))
			return
		}
		u.notices.undo(what+" removed from the queue.", func() { u.restoreQueue(saved) })
	})
}

// clearQueue empties the queue, with an undo.
func (p *queuePage) clearQueue() {
	u := p.u
	if len(u.st.Queue) == 0 {
		return
	}
	saved := app.SaveQueue(u.st)
	saved.PositionMS = u.position().Milliseconds()
	u.runThen(u.b.ClearQueue, func(err error) {
		if err != nil {
			u.showError("Could not clear the queue: " + userError(err))
			return
		}
		u.notices.undo("Queue cleared ("+plural(len(saved.Items), "track", "tracks")+").", func() { u.restoreQueue(saved) })
	})
}

// restoreQueue puts a saved queue back (an undo).
func (u *UI) restoreQueue(q app.SavedQueue) {
	u.run("Could not undo", func() error { return u.b.RestoreQueue(q) })
}

// menu is the menu of queue entries (queue indexes qi): play, play next,
// move to the end, remove, add to a playlist, like.
func (p *queuePage) menu(tl *trackList, qi []int) *fyne.Menu {
	u := p.u
	ids := p.ids(qi)
	items := []*fyne.MenuItem{
		fyne.NewMenuItemWithIcon("Play", theme.MediaPlayIcon(), func() { p.jump(qi[0]) }),
	}
	if p.index >= 0 {
		label := "Play next"
		if tl == p.history {
			label = "Play again next"
		}
		items = append(items, fyne.NewMenuItemWithIcon(label, iconQueue, func() {
			// After the current track: its place among the others.
			to := p.pos0 + 1
			if tl == p.history {
				to -= len(qi)
			}
			p.move(qi, to)
		}))
	}
	items = append(items,
		fyne.NewMenuItemWithIcon("Move to the end", theme.MoveDownIcon(), func() { p.move(qi, len(p.items)) }),
		fyne.NewMenuItemWithIcon("Remove from queue", theme.ContentRemoveIcon(), func() { p.remove(qi) }),
		fyne.NewMenuItemSeparator(),
		u.addToPlaylistItem(ids))
	if len(ids) == 1 {
		items = append(items, u.likeItem(ids[0]))
	}
	return fyne.NewMenu("", items...)
}
