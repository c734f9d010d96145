package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// Animating tells whether the window animates on Fyne's frames, so that
// its loop must not be held (internal/framegov): a text field has the
// keyboard focus (its caret blinks) or the scan's bar of unknown length
// runs. Fyne goroutine only.
func (u *UI) Animating() bool {
	if u.scanBar != nil && u.scanBar.inf.Running() && u.scanBar.inf.Visible() && u.scanBar.view.Visible() {
		return true
	}
	return isTextField(u.win.Canvas().Focused())
}

// isTextField tells whether o is a text entry (one of ours embeds
// widget.Entry).
func isTextField(o fyne.Focusable) bool {
	switch o.(type) {
	case *widget.Entry, *searchEntry, *widget.SelectEntry:
		return true
	}
	return false
}

// Hidden tells whether the window is hidden (closed to the tray; see
// SetHidden). Fyne goroutine only.
func (u *UI) Hidden() bool { return u.hidden }
