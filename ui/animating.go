package ui

// Animating tells whether the window animates on Fyne's frames, so that
// its loop must not be held (internal/framegov): the scan's bar of unknown
// length runs. Fyne goroutine only.
func (u *UI) Animating() bool {
	return u.scanBar != nil && u.scanBar.inf.Running() && u.scanBar.inf.Visible() && u.scanBar.view.Visible()
}

// Hidden tells whether the window is hidden (closed to the tray; see
// SetHidden). Fyne goroutine only.
func (u *UI) Hidden() bool { return u.hidden }
