package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// headerCell is the header of one column: its name and, when the list is
// sorted by it, an arrow. A click sorts; a right-click chooses columns.
type headerCell struct {
	widget.BaseWidget
	tl      *trackList
	c       column
	label   *canvas.Text
	arrow   *widget.Icon
	focused bool
}

func newHeaderCell(tl *trackList, c column) *headerCell {
	d := colDefs[c]
	name := d.name
	if c != colPos && c != colTrackNo {
		name = upper(name)
	}
	h := &headerCell{tl: tl, c: c, label: canvas.NewText(name, themeColor(colorNameSecondary)), arrow: widget.NewIcon(theme.MenuDropDownIcon())}
	h.label.TextStyle.Bold = true
	h.label.TextSize = theme.CaptionTextSize()
	h.label.Alignment = d.align
	h.arrow.Hide()
	h.ExtendBaseWidget(h)
	keep(tl.u, h, func(h *headerCell) Control { return Control{Kind: "header", Text: h.label.Text, Secondary: "menu"} })
	return h
}

func (h *headerCell) setSorted(on, desc bool) {
	icon := theme.MenuDropUpIcon()
	if desc {
		icon = theme.MenuDropDownIcon()
	}
	if on {
		h.arrow.SetResource(icon)
		h.arrow.Show()
	} else {
		h.arrow.Hide()
	}
	h.Refresh()
}

func (h *headerCell) CreateRenderer() fyne.WidgetRenderer {
	return &headerRenderer{h: h}
}

type headerRenderer struct{ h *headerCell }

func (r *headerRenderer) Layout(size fyne.Size) {
	pad := theme.InnerPadding()
	const a = 14
	ls := r.h.label.MinSize()
	w := max(size.Width-2*pad, 0)
	if r.h.arrow.Visible() {
		w = max(w-a, 0)
	}
	x := pad
	if r.h.label.Alignment == fyne.TextAlignTrailing && r.h.arrow.Visible() {
		x += a
	}
	r.h.label.Move(fyne.NewPos(x, (size.Height-ls.Height)/2))
	r.h.label.Resize(fyne.NewSize(w, ls.Height))
	ax := pad + min(ls.Width, w)
	if r.h.label.Alignment == fyne.TextAlignTrailing {
		ax = pad
	}
	r.h.arrow.Move(fyne.NewPos(ax, (size.Height-a)/2))
	r.h.arrow.Resize(fyne.NewSize(a, a))
}

func (r *headerRenderer) MinSize() fyne.Size {
	pad := theme.InnerPadding()
	return fyne.NewSize(2*pad, r.h.label.MinSize().Height+pad)
}

func (r *headerRenderer) Refresh() {
	r.h.label.Color = themeColor(colorNameSecondary)
	if r.h.focused {
		r.h.label.Color = theme.Color(theme.ColorNamePrimary)
	}
	r.h.label.Refresh()
	r.Layout(r.h.Size())
}

func (r *headerRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.h.label, r.h.arrow}
}
func (r *headerRenderer) Destroy() {}

// Tapped sorts by the column.
func (h *headerCell) Tapped(*fyne.PointEvent) { h.tl.sortBy(h.c) }

// TappedSecondary chooses the columns.
func (h *headerCell) TappedSecondary(e *fyne.PointEvent) {
	h.tl.u.popUpMenu(h.tl.columnsMenu(), e.AbsolutePosition)
}

// FocusGained is part of fyne.Focusable: Tab reaches the headers, Enter
// or Space sorts by the column, the menu key chooses the columns.
func (h *headerCell) FocusGained() {
	h.focused = true
	h.label.Color = theme.Color(theme.ColorNamePrimary)
	h.label.Refresh()
}

// FocusLost is part of fyne.Focusable.
func (h *headerCell) FocusLost() {
	h.focused = false
	h.Refresh()
}

// TypedRune is part of fyne.Focusable.
func (h *headerCell) TypedRune(rune) {}

// Disabled is part of fyne.Disableable: Tab skips the headers of a list
// that does not sort by them.
func (h *headerCell) Disabled() bool { return !h.tl.sortable || !colDefs[h.c].sortable }

// Enable and Disable are part of fyne.Disableable; a header is enabled
// by what its list allows.
func (h *headerCell) Enable()  {}
func (h *headerCell) Disable() {}

// TypedKey sorts on Enter or Space and opens the column chooser on the
// menu key.
func (h *headerCell) TypedKey(e *fyne.KeyEvent) {
	switch e.Name {
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace:
		h.tl.sortBy(h.c)
	case desktop.KeyMenu:
		h.tl.u.popUpMenuAt(h.tl.columnsMenu(), h)
	default:
		h.tl.u.typedKey(e)
	}
}

// Cursor is part of desktop.Cursorable: a sortable column's header is a
// link.
func (h *headerCell) Cursor() desktop.Cursor {
	if h.tl.sortable && colDefs[h.c].sortable {
		return desktop.PointerCursor
	}
	return desktop.DefaultCursor
}
