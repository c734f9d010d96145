package ui

import (
	"image/color"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// trackRow is one row of a trackList.
type trackRow struct {
	widget.BaseWidget
	tl                   *trackList
	id                   int
	cells                [numColumns]*cell
	icon                 *widget.Icon
	heart                *heartCell
	bg, focus, hover     *canvas.Rectangle
	dropAbove, dropBelow *canvas.Rectangle
	head                 *widget.Label    // the group heading above the row, hidden when none
	body                 *fyne.Container  // the row under the heading
	mods                 fyne.KeyModifier // of the mouse button press being handled
	// box lays the cells out for the columns laid, laid out again when the
	// list's visible columns changed.
	box  *fyne.Container
	laid colSet
}

func newTrackRow(tl *trackList) *trackRow {
	r := &trackRow{tl: tl, id: -1}
	for c := range numColumns {
		r.cells[c] = newCell(colDefs[c].align, theme.ColorNameForeground)
	}
	r.icon = widget.NewIcon(theme.NewPrimaryThemedResource(theme.MediaPlayIcon()))
	r.icon.Hide()
	r.heart = newHeartCell(func() {
		if r.id >= 0 && r.id < len(r.tl.tracks) {
			r.tl.u.toggleLike(r.tl.tracks[r.id].ContentID)
		}
	})
	r.bg = canvas.NewRectangle(theme.Color(theme.ColorNameSelection))
	r.bg.CornerRadius = 4
	r.bg.Hide()
	r.hover = canvas.NewRectangle(theme.Color(theme.ColorNameHover))
	r.hover.CornerRadius = 4
	r.hover.Hide()
	r.focus = canvas.NewRectangle(color0)
	r.focus.StrokeColor = theme.Color(theme.ColorNameFocus)
	r.focus.StrokeWidth = 1
	r.focus.CornerRadius = 4
	r.focus.Hide()
	line := func() *canvas.Rectangle {
		x := canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))
		x.Hide()
		return x
	}
	r.dropAbove, r.dropBelow = line(), line()
	r.head = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.head.Truncation = fyne.TextTruncateEllipsis
	r.head.Hide()
	r.ExtendBaseWidget(r)
	keep(tl.u, r, func(r *trackRow) Control {
		ctl := Control{Kind: "row", Text: r.cells[colTitle].text}
		if r.tl.hooks.menu != nil {
			ctl.Secondary = "menu"
		}
		return ctl
	})
	if tl.rowH == 0 {
		tl.rowH = r.MinSize().Height
	}
	return r
}

func (r *trackRow) CreateRenderer() fyne.WidgetRenderer {
	objs := make([]fyne.CanvasObject, numColumns)
	for c := range numColumns {
		switch c {
		case colPos, colTrackNo:
			objs[c] = container.NewStack(r.cells[c], container.NewCenter(r.icon))
		case colHeart:
			objs[c] = r.heart
		default:
			objs[c] = r.cells[c]
		}
	}
	cells := container.New(colLayout{visible: &r.tl.visible}, objs...)
	r.box, r.laid = cells, r.tl.visible
	r.body = container.NewStack(r.hover, r.bg, r.focus, cells,
		container.New(dropLines{}, r.dropAbove, r.dropBelow))
	return widget.NewSimpleRenderer(container.New(headedRow{r.head}, r.head, r.body))
}

func (r *trackRow) bind(id int) {
	r.id = id
	tl := r.tl
	if id < 0 || id >= len(tl.tracks) {
		return
	}
	if h := tl.heading(id); h != "" || r.head.Visible() {
		r.head.SetText(h)
		r.head.Hidden = h == ""
		if r.body != nil {
			headedRow{r.head}.Layout([]fyne.CanvasObject{r.head, r.body}, r.Size())
		}
	}
	t := tl.tracks[id]
	if r.box != nil && r.laid != tl.visible {
		r.laid = tl.visible
		r.box.Refresh() // lays the cells out for the columns shown now
	}
	cur := tl.isCurrent(id)
	missing := tl.hooks.missing != nil && tl.hooks.missing(id)
	place, remote := tl.u.place(t)
	offline := remote && !place.Playable && !missing
	fg, low := theme.ColorNameForeground, colorNameSecondary
	if missing || offline {
		fg, low = theme.ColorNameDisabled, theme.ColorNameDisabled
	}
	ps := tl.u.plays[t.ContentID]
	now := tl.u.now()
	num := colTrackNo
	if tl.visible.has(colPos) {
		num = colPos
	}
	for c := range numColumns {
		if !tl.visible.has(c) || c == colHeart {
			continue
		}
		text := cellText(c, t, id, ps, now)
		color := fg
		switch c {
		case colTitle:
			switch {
			case missing:
				text += " (on no device online)"
			case offline && !tl.visible.has(colWhere):
				text += " — " + place.Where
			}
			if cur {
				color = theme.ColorNamePrimary
			}
		case colPos, colTrackNo, colTime, colYear, colDisc, colAdded, colPlays, colLast:
			color = low
		case colWhere:
			text, color = place.Where, low
		}
		if c == colPos && tl.perm != nil {
			text = itoa(tl.baseIndex(id) + 1)
		}
		r.cells[c].set(text, c == colTitle && cur, color)
	}
	if cur != r.icon.Visible() || (cur && r.cells[num].Visible()) {
		if cur {
			r.cells[num].Hide()
			r.icon.Show()
		} else {
			r.icon.Hide()
			r.cells[num].Show()
		}
	}
	if !cur && !r.cells[num].Visible() {
		r.cells[num].Show()
	}
	r.heart.set(tl.u.liked[t.ContentID])
	sel := tl.sel[id]
	if sel != r.bg.Visible() {
		r.bg.Hidden = !sel
		r.bg.Refresh()
	}
	foc := tl.focused && tl.cursor == id
	if foc != r.focus.Visible() {
		r.focus.Hidden = !foc
		r.focus.Refresh()
	}
	dragging := tl.dragRows != nil && tl.dropAt == id
	above := dragging && id < tl.dragRows[0]
	below := dragging && id > tl.dragRows[0]
	if above == r.dropAbove.Hidden || below == r.dropBelow.Hidden {
		r.dropAbove.Hidden, r.dropBelow.Hidden = !above, !below
		r.dropAbove.Refresh()
		r.dropBelow.Refresh()
	}
}

// MouseDown notes the modifier keys of a click for Tapped.
func (r *trackRow) MouseDown(e *desktop.MouseEvent) { r.mods = e.Modifier }

// MouseIn highlights the row and shows the text of a cell cut short
// under the mouse in full.
func (r *trackRow) MouseIn(e *desktop.MouseEvent) {
	r.hover.Show()
	r.MouseMoved(e)
}

// MouseMoved is part of desktop.Hoverable.
func (r *trackRow) MouseMoved(e *desktop.MouseEvent) {
	r.tl.u.tips.want(r, r.cutTextAt(e.Position), e.AbsolutePosition)
}

// MouseOut is part of desktop.Hoverable.
func (r *trackRow) MouseOut() {
	r.hover.Hide()
	r.tl.u.tips.hide(r)
}

// cutTextAt is the full text of the cell at pos (in the row) when it is
// shown cut with an ellipsis, else "".
func (r *trackRow) cutTextAt(pos fyne.Position) string {
	for c, cl := range r.cells {
		if !r.tl.visible.has(column(c)) || !cl.Visible() {
			continue
		}
		p := cl.Position()
		if column(c) == colPos || column(c) == colTrackNo {
			continue
		}
		if pos.X >= p.X && pos.X < p.X+cl.Size().Width && cl.cut() {
			return cl.text
		}
	}
	return ""
}

// MouseUp is part of desktop.Mouseable.
func (r *trackRow) MouseUp(*desktop.MouseEvent) {}

// Tapped selects the row (Ctrl and Shift extend the selection) and gives
// the list the keyboard.
func (r *trackRow) Tapped(*fyne.PointEvent) {
	if r.id >= 0 && r.id < len(r.tl.tracks) {
		r.tl.click(r.id, r.mods)
		r.mods = 0
		r.tl.focus()
	}
}

// DoubleTapped plays from this row.
func (r *trackRow) DoubleTapped(*fyne.PointEvent) {
	if r.id >= 0 && r.id < len(r.tl.tracks) && r.tl.hooks.activate != nil {
		r.tl.click(r.id, 0)
		r.tl.hooks.activate([]int{r.id})
	}
}

// TappedSecondary opens the context menu of the selection, or of this row.
func (r *trackRow) TappedSecondary(e *fyne.PointEvent) {
	if r.id < 0 || r.id >= len(r.tl.tracks) || r.tl.hooks.menu == nil {
		return
	}
	m := r.tl.hooks.menu(r.tl.menuRows(r.id))
	r.tl.u.popUpMenu(m, e.AbsolutePosition)
}

// Dragged moves the drop mark while rows of a list that allows moving
// are dragged: the selection when this row is in it, else this row.
func (r *trackRow) Dragged(e *fyne.DragEvent) {
	tl := r.tl
	if r.id < 0 || r.id >= len(tl.tracks) || !tl.movable() {
		return
	}
	if tl.dragRows == nil {
		if !tl.sel[r.id] {
			tl.click(r.id, 0)
		}
		tl.dragRows, tl.dragDY = tl.rows(), 0
		tl.dropAt, tl.dragStart = r.id, r.id
	}
	tl.dragDY += e.Dragged.DY
	step := tl.rowH + theme.Padding()
	if step <= 0 {
		return
	}
	to := tl.dragStart + int(math.Round(float64(tl.dragDY/step)))
	to = max(0, min(to, len(tl.tracks)-1))
	if to != tl.dropAt {
		tl.dropAt = to
		tl.list.Refresh()
	}
}

// DragEnd moves the dragged rows to where they were dropped.
func (r *trackRow) DragEnd() {
	tl := r.tl
	rows, at := tl.dragRows, tl.dropAt
	tl.dragRows, tl.dropAt, tl.dragDY = nil, -1, 0
	tl.list.Refresh()
	if rows == nil || at < 0 || at == tl.dragStart && len(rows) == 1 {
		return
	}
	to := dropPlace(rows, at)
	if to == rows[0] && rows[len(rows)-1]-rows[0] == len(rows)-1 {
		return // a block dropped where it is
	}
	tl.hooks.move(rows, to)
	clear(tl.sel)
	for i := range rows {
		tl.sel[to+i] = true
	}
	tl.cursor, tl.anchor = to, to
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

// dropLines lays out the two drop marks of a row: a thin line along its
// top edge and one along its bottom edge.
type dropLines struct{}

func (dropLines) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(size.Width, 2))
	objs[1].Move(fyne.NewPos(0, size.Height-2))
	objs[1].Resize(fyne.NewSize(size.Width, 2))
}

func (dropLines) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(0, 0) }

var color0 = color.Transparent

func upper(s string) string { return strings.ToUpper(s) }

// headedRow lays out a row under its group heading (when shown).
type headedRow struct{ head *widget.Label }

func (l headedRow) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	top := float32(0)
	if l.head.Visible() {
		top = groupHeadingHeight()
		objs[0].Move(fyne.NewPos(0, theme.Padding()))
		objs[0].Resize(fyne.NewSize(size.Width, top-theme.Padding()))
	}
	objs[1].Move(fyne.NewPos(0, top))
	objs[1].Resize(fyne.NewSize(size.Width, size.Height-top))
}

func (l headedRow) MinSize(objs []fyne.CanvasObject) fyne.Size {
	s := objs[1].MinSize()
	if l.head.Visible() {
		s.Height += groupHeadingHeight()
	}
	return s
}
