package ui

import (
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/furudesk/furudesk/internal/framegov"
)

// Tooltips: icon buttons say what they do, and text cut with an ellipsis
// shows in full, when the mouse rests on them for tipDelay. Fyne 2.7 has
// no tooltips, so the window draws them itself in a layer over the
// content that takes no clicks.

const tipDelay = 600 * time.Millisecond

// tipCheckEvery is how often a shown tooltip checks that its owner is
// still where it was: a scroll or a page change moves the owner away
// without the mouse moving, and no hover event says so.
const tipCheckEvery = 250 * time.Millisecond

// tipLayer is the layer the tooltip is drawn in.
type tipLayer struct {
	u      *UI
	view   *fyne.Container // without layout: the bubble is placed by hand
	bubble *fyne.Container
	text   *canvas.Text
	owner  fyne.CanvasObject // what the tooltip shown (or pending) is for
	at     fyne.Position     // the owner's place when the tooltip came
	timer  *time.Timer
	gen    int
}

func newTipLayer(u *UI) *tipLayer {
	t := &tipLayer{u: u, text: canvas.NewText("", theme.Color(theme.ColorNameForeground))}
	t.text.TextSize = theme.CaptionTextSize()
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	bg.StrokeColor = theme.Color(theme.ColorNameSeparator)
	bg.StrokeWidth = 1
	bg.CornerRadius = 4
	t.bubble = container.NewStack(bg, container.New(padAll{4, 8}, t.text))
	t.bubble.Hide()
	t.view = container.NewWithoutLayout(t.bubble)
	return t
}

// want shows text for owner near pos (absolute) after tipDelay, unless
// the mouse left owner first (hide).
func (t *tipLayer) want(owner fyne.CanvasObject, text string, pos fyne.Position) {
	if text == "" {
		t.hide(owner)
		return
	}
	if t.owner == owner && t.text.Text == text && t.bubble.Visible() {
		return
	}
	t.owner = owner
	t.gen++
	gen := t.gen
	if t.timer != nil {
		t.timer.Stop()
	}
	if !t.u.ticking { // tests: at once
		t.show(text, pos)
		return
	}
	t.timer = time.AfterFunc(tipDelay, func() {
		framegov.Do(func() {
			if t.gen == gen {
				t.show(text, pos)
			}
		})
	})
}

func (t *tipLayer) show(text string, pos fyne.Position) {
	t.text.Text = text
	t.text.Refresh()
	size := t.bubble.MinSize()
	win := t.u.win.Canvas().Size()
	x := min(pos.X+12, win.Width-size.Width-4)
	y := pos.Y + 20
	if y+size.Height > win.Height {
		y = pos.Y - size.Height - 8
	}
	t.bubble.Move(fyne.NewPos(max(x, 0), max(y, 0)))
	t.bubble.Resize(size)
	t.bubble.Show()
	t.view.Refresh()
	if t.owner != nil {
		t.at = fyne.CurrentApp().Driver().AbsolutePositionForObject(t.owner)
		if t.u.ticking {
			t.follow(t.gen)
		}
	}
}

// follow hides the tooltip once its owner moved (scrolled) or left the
// window (another page); it runs only while a tooltip shows.
func (t *tipLayer) follow(gen int) {
	t.timer = time.AfterFunc(tipCheckEvery, func() {
		framegov.Do(func() {
			if t.gen != gen || !t.bubble.Visible() {
				return
			}
			if t.ownerMoved() {
				t.hide(nil)
				return
			}
			t.follow(gen)
		})
	})
}

// ownerMoved reports whether the tooltip's owner is no longer where the
// tooltip was shown for it.
func (t *tipLayer) ownerMoved() bool {
	o := t.owner
	return o == nil || !onCanvas(t.u.win.Canvas(), o) || fyne.CurrentApp().Driver().AbsolutePositionForObject(o) != t.at
}

// hide takes owner's tooltip away (nil: any).
func (t *tipLayer) hide(owner fyne.CanvasObject) {
	if owner != nil && owner != t.owner {
		return
	}
	t.gen++
	t.owner = nil
	if t.timer != nil {
		t.timer.Stop()
	}
	if t.bubble.Visible() {
		t.bubble.Hide()
		t.view.Refresh()
	}
}

// shown is the tooltip on screen, "" when none.
func (t *tipLayer) shown() string {
	if !t.bubble.Visible() {
		return ""
	}
	return t.text.Text
}

// padAll pads its one object by v vertically and h horizontally.
type padAll struct{ v, h float32 }

func (p padAll) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(p.h, p.v))
		o.Resize(fyne.NewSize(size.Width-2*p.h, size.Height-2*p.v))
	}
}

func (p padAll) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s.Add(fyne.NewSize(2*p.h, 2*p.v))
}

// tipButton is a button with a tooltip.
type tipButton struct {
	widget.Button
	u     *UI
	tip   string
	opens string // what a click opens (menu, dialog, popup), for Inspect
}

// newTipButton is an icon button (or one with text) saying tip when the
// mouse rests on it.
func (u *UI) newTipButton(text string, icon fyne.Resource, tip string, tapped func()) *tipButton {
	b := &tipButton{u: u, tip: tip}
	b.Text, b.Icon, b.OnTapped = text, icon, tapped
	b.ExtendBaseWidget(b)
	keep(u, b, func(b *tipButton) Control {
		return Control{Kind: "button", Text: b.Text, Tip: b.tip, Opens: b.opens, Disabled: b.Disabled()}
	})
	return b
}

// MouseIn is part of desktop.Hoverable.
func (b *tipButton) MouseIn(e *desktop.MouseEvent) {
	b.Button.MouseIn(e)
	b.u.tips.want(b, b.tip, e.AbsolutePosition)
}

// MouseMoved is part of desktop.Hoverable.
func (b *tipButton) MouseMoved(e *desktop.MouseEvent) {
	b.Button.MouseMoved(e)
	b.u.tips.want(b, b.tip, e.AbsolutePosition)
}

// MouseOut is part of desktop.Hoverable.
func (b *tipButton) MouseOut() {
	b.Button.MouseOut()
	b.u.tips.hide(b)
}

// Tapped is part of fyne.Tappable: the tooltip goes.
func (b *tipButton) Tapped(e *fyne.PointEvent) {
	b.u.tips.hide(b)
	b.Button.Tapped(e)
}

// tapArea makes its content one click target (the now-playing bar's cover
// and title) with a pointer cursor and a tooltip: the tip, or the texts
// cut short in it.
type tapArea struct {
	widget.BaseWidget
	content fyne.CanvasObject
	onTap   func()
	tip     func() string
	u       *UI
	focused bool
	ring    *canvas.Rectangle
}

func newTapArea(u *UI, content fyne.CanvasObject, tip func() string, onTap func()) *tapArea {
	t := &tapArea{u: u, content: content, onTap: onTap, tip: tip}
	t.ExtendBaseWidget(t)
	return t
}

func (t *tapArea) CreateRenderer() fyne.WidgetRenderer {
	t.ring = canvas.NewRectangle(color.Transparent)
	t.ring.StrokeColor = theme.Color(theme.ColorNameFocus)
	t.ring.StrokeWidth = 1
	t.ring.CornerRadius = 4
	t.ring.Hide()
	return &tapRenderer{t: t, objs: []fyne.CanvasObject{t.content, t.ring}}
}

type tapRenderer struct {
	t    *tapArea
	objs []fyne.CanvasObject
}

func (r *tapRenderer) Layout(s fyne.Size) {
	for _, o := range r.objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(s)
	}
}
func (r *tapRenderer) MinSize() fyne.Size { return r.t.content.MinSize() }
func (r *tapRenderer) Refresh() {
	r.t.ring.Hidden = !r.t.focused
	r.t.ring.Refresh()
	r.t.content.Refresh()
}
func (r *tapRenderer) Objects() []fyne.CanvasObject { return r.objs }
func (r *tapRenderer) Destroy()                     {}

// Tapped runs the area's action.
func (t *tapArea) Tapped(*fyne.PointEvent) {
	t.u.tips.hide(t)
	t.onTap()
}

// Cursor is part of desktop.Cursorable.
func (t *tapArea) Cursor() desktop.Cursor { return desktop.PointerCursor }

// MouseIn is part of desktop.Hoverable.
func (t *tapArea) MouseIn(e *desktop.MouseEvent) { t.u.tips.want(t, t.tip(), e.AbsolutePosition) }

// MouseMoved is part of desktop.Hoverable.
func (t *tapArea) MouseMoved(e *desktop.MouseEvent) { t.u.tips.want(t, t.tip(), e.AbsolutePosition) }

// MouseOut is part of desktop.Hoverable.
func (t *tapArea) MouseOut() { t.u.tips.hide(t) }

// FocusGained is part of fyne.Focusable: Tab reaches the area, Enter or
// Space runs it.
func (t *tapArea) FocusGained() {
	t.focused = true
	t.Refresh()
}

// FocusLost is part of fyne.Focusable.
func (t *tapArea) FocusLost() {
	t.focused = false
	t.Refresh()
}

// TypedRune is part of fyne.Focusable.
func (t *tapArea) TypedRune(rune) {}

// TypedKey runs the area on Enter or Space.
func (t *tapArea) TypedKey(e *fyne.KeyEvent) {
	switch e.Name {
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace:
		t.onTap()
	default:
		t.u.typedKey(e)
	}
}
