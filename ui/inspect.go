package ui

import (
	"fmt"
	"weak"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// The window described for scripts and tests that drive it with a real
// mouse and keyboard (`furudesk ctl window`): which page is shown, the
// controls on screen and where they are, the pop-ups open and what has
// the keyboard. Fyne has no accessibility tree, so the window keeps a
// list of the controls worth naming as it makes them: weak references,
// so a row or a dialog's button that is gone is forgotten.

// Control is one control on screen, in window coordinates at Fyne's
// scale (multiply by FYNE_SCALE for the display's pixels).
type Control struct {
	// Kind is what it is: button, nav (a page of the sidebar), header (a
	// column's title), row (a track), card (an album), playlist (a list
	// on the Playlists page).
	Kind string `json:"kind"`
	Text string `json:"text,omitempty"`
	// Tip is what hovering it says.
	Tip string `json:"tip,omitempty"`
	// Opens is what a click opens: menu, dialog or popup; Secondary what a
	// right-click opens. Empty: nothing of the kind.
	Opens     string  `json:"opens,omitempty"`
	Secondary string  `json:"secondary,omitempty"`
	Disabled  bool    `json:"disabled,omitempty"`
	X         float32 `json:"x"`
	Y         float32 `json:"y"`
	W         float32 `json:"w"`
	H         float32 `json:"h"`
}

// Overlay is a pop-up on top of the page: a menu (with its items) or
// another pop-up (a dialog, the problems list).
type Overlay struct {
	Kind  string   `json:"kind"` // menu or popup
	Items []string `json:"items,omitempty"`
	X     float32  `json:"x"`
	Y     float32  `json:"y"`
	W     float32  `json:"w"`
	H     float32  `json:"h"`
}

// View is what Inspect reports.
type View struct {
	Page     string    `json:"page"`
	W        float32   `json:"w"`
	H        float32   `json:"h"`
	Controls []Control `json:"controls"`
	Overlays []Overlay `json:"overlays"`
	Dialogs  int       `json:"dialogs"`
	// Focused is what has the keyboard ("" no one): its type, and its text
	// or tip when it has one.
	Focused string `json:"focused,omitempty"`
	Tooltip string `json:"tooltip,omitempty"`
}

// probe describes one registered control; ok is false once it is gone.
type probe func() (o fyne.CanvasObject, c Control, ok bool)

// keep registers p for Inspect; describe says what it is. Only a weak
// reference is kept.
func keep[T any, PT interface {
	*T
	fyne.CanvasObject
}](u *UI, p PT, describe func(PT) Control) {
	w := weak.Make((*T)(p))
	u.probes = append(u.probes, func() (fyne.CanvasObject, Control, bool) {
		v := PT(w.Value())
		if v == nil {
			return nil, Control{}, false
		}
		return v, describe(v), true
	})
	// Forget the dead now and then, so the list stays as long as what
	// lives (rows come and go as lists scroll).
	if len(u.probes) >= 2*u.probesLive+64 {
		u.pruneProbes()
	}
}

func (u *UI) pruneProbes() {
	live := u.probes[:0]
	for _, p := range u.probes {
		if _, _, ok := p(); ok {
			live = append(live, p)
		}
	}
	clear(u.probes[len(live):])
	u.probes = live
	u.probesLive = len(live)
}

// opening marks b as opening kind (menu, dialog, popup) and returns it.
func (b *tipButton) opening(kind string) *tipButton {
	b.opens = kind
	return b
}

// openingDialog registers a plain button whose click opens a dialog.
func (u *UI) openingDialog(b *widget.Button) *widget.Button {
	keep(u, b, func(b *widget.Button) Control {
		return Control{Kind: "button", Text: b.Text, Opens: "dialog", Disabled: b.Disabled()}
	})
	return b
}

// Inspect describes the window now. Call it on the UI goroutine.
func (u *UI) Inspect() View {
	c := u.win.Canvas()
	v := View{Page: u.page, W: c.Size().Width, H: c.Size().Height, Dialogs: len(u.dialogs), Tooltip: u.tips.shown()}
	d := fyne.CurrentApp().Driver()
	u.pruneProbes()
	for _, p := range u.probes {
		o, ctl, ok := p()
		if !ok || !onCanvas(c, o) {
			continue
		}
		pos, size := d.AbsolutePositionForObject(o), o.Size()
		if pos.X+size.Width <= 0 || pos.Y+size.Height <= 0 || pos.X >= v.W || pos.Y >= v.H {
			continue
		}
		ctl.X, ctl.Y, ctl.W, ctl.H = pos.X, pos.Y, size.Width, size.Height
		v.Controls = append(v.Controls, ctl)
	}
	for _, o := range c.Overlays().List() {
		if !o.Visible() {
			continue
		}
		// Dialogs and the problems list are PopUps; a menu's overlay is a
		// container of Fyne's own around the last menu made.
		ov := Overlay{Kind: "popup", X: o.Position().X, Y: o.Position().Y, W: o.Size().Width, H: o.Size().Height}
		if p, ok := o.(*widget.PopUp); ok {
			ov.X, ov.Y, ov.W, ov.H = p.Content.Position().X, p.Content.Position().Y, p.Content.Size().Width, p.Content.Size().Height
		} else if pm := u.menu.pm; pm != nil && pm.Visible() {
			ov = Overlay{Kind: "menu", X: pm.Position().X, Y: pm.Position().Y, W: pm.Size().Width, H: pm.Size().Height}
			for _, it := range u.menu.m.Items {
				if !it.IsSeparator {
					ov.Items = append(ov.Items, it.Label)
				}
			}
		}
		v.Overlays = append(v.Overlays, ov)
	}
	switch f := c.Focused().(type) {
	case nil:
	case *tipButton:
		v.Focused = fmt.Sprintf("%T %s", f, f.tip)
	case *widget.Button:
		v.Focused = fmt.Sprintf("%T %s", f, f.Text)
	default:
		v.Focused = fmt.Sprintf("%T", f)
	}
	return v
}
