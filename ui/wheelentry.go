package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// wheelEntry is a one-line text field on a scrolled page. Fyne's entry
// scrolls its own text and so swallows the mouse wheel: the page stopped
// scrolling whenever the pointer rested on a field. A transparent layer
// over the field takes only the wheel (it is no Tappable, Hoverable or
// Focusable: clicks, the text cursor and typing still reach the field) and
// hands it to the page.
type wheelEntry struct {
	widget.Entry
	page func() *container.Scroll
}

func newWheelEntry(page func() *container.Scroll) *wheelEntry {
	e := &wheelEntry{page: page}
	e.ExtendBaseWidget(e)
	return e
}

func (e *wheelEntry) CreateRenderer() fyne.WidgetRenderer {
	wheel := &wheelPass{page: e.page}
	wheel.ExtendBaseWidget(wheel)
	return &wheelEntryRenderer{WidgetRenderer: e.Entry.CreateRenderer(), wheel: wheel}
}

type wheelEntryRenderer struct {
	fyne.WidgetRenderer
	wheel *wheelPass
}

func (r *wheelEntryRenderer) Layout(size fyne.Size) {
	r.WidgetRenderer.Layout(size)
	r.wheel.Move(fyne.NewPos(0, 0))
	r.wheel.Resize(size)
}

func (r *wheelEntryRenderer) Objects() []fyne.CanvasObject {
	return append(r.WidgetRenderer.Objects(), r.wheel) // last: over the field
}

// wheelPass takes the wheel over a field and scrolls the page with it.
type wheelPass struct {
	widget.BaseWidget
	page func() *container.Scroll
}

func (w *wheelPass) Scrolled(ev *fyne.ScrollEvent) {
	if s := w.page(); s != nil {
		s.Scrolled(ev)
	}
}

func (w *wheelPass) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout())
}
