package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// navList is the sidebar's list of pages. Fyne's List takes the keyboard
// when clicked and keeps it, eating Space, F1, Escape and the arrows the
// window means for the player. A page picked with the mouse gives the
// keyboard to the page (its list, or no one). Reached with Tab, ↑/↓ open
// the page above or below, Enter goes into the page, and every other key
// (Space included) reaches the window.
type navList struct {
	widget.List
	u *UI
	// byKey: the selection being made comes from ↑/↓ (the keyboard stays).
	byKey bool
}

func newNavList(u *UI) *navList {
	l := &navList{u: u}
	l.Length = func() int { return len(pageOrder) }
	l.CreateItem = func() fyne.CanvasObject {
		c := container.NewHBox(widget.NewIcon(theme.MediaMusicIcon()), widget.NewLabel("Settings"))
		keep(u, c, func(c *fyne.Container) Control { return Control{Kind: "nav", Text: c.Objects[1].(*widget.Label).Text} })
		return c
	}
	l.UpdateItem = func(id widget.ListItemID, o fyne.CanvasObject) {
		c := o.(*fyne.Container)
		c.Objects[0].(*widget.Icon).SetResource(pageIcon(pageOrder[id]))
		c.Objects[1].(*widget.Label).SetText(pageOrder[id])
	}
	l.HideSeparators = true
	l.OnSelected = func(id widget.ListItemID) {
		u.showPage(pageOrder[id])
		if !l.byKey && u.win.Canvas().Focused() == l {
			u.leaveNav()
		}
	}
	l.ExtendBaseWidget(l)
	return l
}

// leaveNav gives the keyboard to the page shown: its list, or no one.
func (u *UI) leaveNav() {
	if tl := u.currentList(); tl != nil {
		tl.focus()
		return
	}
	u.win.Canvas().Unfocus()
}

// TypedKey is part of fyne.Focusable: see navList.
func (l *navList) TypedKey(e *fyne.KeyEvent) {
	i := slices.Index(pageOrder, l.u.page)
	switch e.Name {
	case fyne.KeyUp, fyne.KeyDown:
		if e.Name == fyne.KeyUp && i > 0 {
			i--
		} else if e.Name == fyne.KeyDown && i < len(pageOrder)-1 {
			i++
		}
		l.List.TypedKey(e) // Fyne's highlight follows
		l.byKey = true
		l.Select(i)
		l.byKey = false
	case fyne.KeyReturn, fyne.KeyEnter:
		l.u.leaveNav()
	default:
		l.u.typedKey(e)
	}
}

// TypedRune is part of fyne.Focusable.
func (l *navList) TypedRune(r rune) { l.u.typedRune(r) }
