package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// Menus and dialogs. Every pop-up of the window goes through here.
//
// Menus are shown on the window's canvas, never one looked up with
// Fyne's CanvasForObject: that walks the canvas for the object, and a
// widget embedded in one of ours (the Button inside a tipButton) is not
// on it, so the lookup gives nil and NewPopUpMenu panics (it did, for
// the device button and a playlist's "…"). Positions are taken from the
// widget that is on the canvas for the same reason: the embedded one's
// is (0, 0), the window's top left.
//
// Dialogs give the keyboard back when they close (to what had it, or to
// no one, so Space and F1 work again), close on Escape, and submit on
// Enter where they have an action.

// popUpMenu shows m at pos, absolute in the window.
func (u *UI) popUpMenu(m *fyne.Menu, pos fyne.Position) {
	u.newPopUpMenu(m).ShowAtPosition(pos)
}

// newPopUpMenu makes the pop-up of m on the window, remembered as the
// last menu shown (Inspect names its items).
func (u *UI) newPopUpMenu(m *fyne.Menu) *widget.PopUpMenu {
	pm := widget.NewPopUpMenu(m, u.win.Canvas())
	u.menu = shownMenu{pm, m}
	return pm
}

// shownMenu is the last pop-up menu made and its menu.
type shownMenu struct {
	pm *widget.PopUpMenu
	m  *fyne.Menu
}

// popUpMenuAt shows m beside obj: under it, or over it when the window
// has no room below (the player bar's device button).
func (u *UI) popUpMenuAt(m *fyne.Menu, obj fyne.CanvasObject) {
	c := u.win.Canvas()
	pm := u.newPopUpMenu(m)
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(obj)
	size := pm.MinSize()
	below := pos.Y + obj.Size().Height
	if below+size.Height > c.Size().Height && pos.Y-size.Height >= 0 {
		pm.ShowAtPosition(fyne.NewPos(pos.X, pos.Y-size.Height))
		return
	}
	pm.ShowAtPosition(fyne.NewPos(pos.X, below))
}

// shownDialog is a dialog on screen and what Enter does in it.
type shownDialog struct {
	d      dialog.Dialog
	submit func() // nil: Enter does nothing
}

// showDialog shows d. Escape closes it; Enter runs submit (nil: none).
// Keys reach the dialog through the window's handlers (typedKey) while
// nothing in it has the focus, and through a dialogEntry while one of its
// fields has. When it closes the keyboard goes back to what had it
// (Fyne keeps that), unless that is no longer shown (dropKeyboard).
func (u *UI) showDialog(d dialog.Dialog, submit func()) {
	sd := &shownDialog{d: d, submit: submit}
	u.dialogs = append(u.dialogs, sd)
	u.plDialog = d
	d.SetOnClosed(func() {
		if i := slices.Index(u.dialogs, sd); i >= 0 {
			u.dialogs = slices.Delete(u.dialogs, i, i+1)
		}
		u.dropKeyboard()
	})
	d.Show()
}

// dropKeyboard takes the keyboard from a widget no longer shown (a field
// of a page left, a row scrolled away), which would swallow every key.
func (u *UI) dropKeyboard() {
	c := u.win.Canvas()
	if len(c.Overlays().List()) > 0 {
		return // a pop-up is up: it has the keyboard
	}
	if o, ok := c.Focused().(fyne.CanvasObject); ok && !onCanvas(c, o) {
		c.Unfocus()
	}
}

// onCanvas reports whether o is shown on the window. Fyne finds the
// position only of what it walks when drawing, and gives anything else
// the position of nowhere (what a fresh object never shown gets: 0, 0
// less the window's insets).
func onCanvas(c fyne.Canvas, o fyne.CanvasObject) bool {
	if !o.Visible() || o.Size().IsZero() {
		return false
	}
	d := fyne.CurrentApp().Driver()
	return d.AbsolutePositionForObject(o) != d.AbsolutePositionForObject(nowhere)
}

// nowhere is never shown (onCanvas).
var nowhere = canvas.NewRectangle(nil)

// topDialog is the newest dialog shown, nil when none.
func (u *UI) topDialog() *shownDialog {
	if len(u.dialogs) == 0 {
		return nil
	}
	return u.dialogs[len(u.dialogs)-1]
}

// dialogKey handles Escape and Enter for the top dialog; false when no
// dialog is shown or the key is another.
func (u *UI) dialogKey(name fyne.KeyName) bool {
	top := u.topDialog()
	if top == nil {
		return false
	}
	switch name {
	case fyne.KeyEscape:
		top.d.Dismiss()
	case fyne.KeyReturn, fyne.KeyEnter:
		if top.submit != nil {
			top.submit()
		}
	default:
		return false
	}
	return true
}

// dialogEntry is a text field of a dialog: Escape closes the dialog and
// Enter submits it, also when the field is multi-line (an invite code
// has no line breaks).
type dialogEntry struct {
	widget.Entry
	u *UI
}

func (u *UI) newDialogEntry(multiLine bool) *dialogEntry {
	e := &dialogEntry{u: u}
	e.MultiLine = multiLine
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey is part of fyne.Focusable.
func (e *dialogEntry) TypedKey(k *fyne.KeyEvent) {
	switch k.Name {
	case fyne.KeyEscape, fyne.KeyReturn, fyne.KeyEnter:
		if e.u.dialogKey(k.Name) {
			return
		}
	}
	e.Entry.TypedKey(k)
}
