package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// caretBlinkTimeout is how long a text field's caret blinks after the
// last edit, caret move or focus change; then it stays lit, as GTK's does
// (gtk-cursor-blink-timeout), and the window's loop is held as when
// nothing is focused. While it blinks the loop runs about ten frames a
// second (framegov's HoldBlinking), not Fyne's 60 (issue 37).
const caretBlinkTimeout = 10 * time.Second

// Animating tells whether the window animates on Fyne's frames, so that
// its loop must not be held (internal/framegov): the scan's bar of unknown
// length runs. Fyne goroutine only.
func (u *UI) Animating() bool {
	return u.scanBar != nil && u.scanBar.inf.Running() && u.scanBar.inf.Visible() && u.scanBar.view.Visible()
}

// Blinking tells whether a text field's caret blinks: the field has the
// keyboard focus and was edited, its caret moved or it was focused less
// than caretBlinkTimeout ago. A field whose caret rests is asked to keep
// it lit instead. Fyne goroutine only.
func (u *UI) Blinking() bool {
	e := textField(u.win.Canvas().Focused())
	if e == nil {
		u.caret = caretState{}
		return false
	}
	now := u.now()
	if s := (caretState{entry: e, text: e.Text, row: e.CursorRow, col: e.CursorColumn}); s != u.caret {
		u.caret, u.caretSince = s, now
	}
	if now.Sub(u.caretSince) < caretBlinkTimeout {
		return true
	}
	keepCaretLit(e)
	return false
}

// caretState is what, when it changes, makes the caret blink again: the
// focused field, its text and its caret.
type caretState struct {
	entry    *widget.Entry
	text     string
	row, col int
}

// keepCaretLit lights e's caret and keeps it lit through Fyne's frames for
// the next 300 ms: Fyne's caret animation shows the caret solid while it
// is interrupted by a key. A key with no name does nothing else (Entry
// ignores keys it does not know, after the interruption). Holds last at
// most 250 ms (framegov.DefaultPolicy) and this runs before each, so the
// caret stays lit while the loop is held and in the frames between.
func keepCaretLit(e *widget.Entry) {
	e.TypedKey(&fyne.KeyEvent{})
}

// textField returns the entry of o when o is a text field (one of ours
// embeds widget.Entry), or nil.
func textField(o fyne.Focusable) *widget.Entry {
	switch f := o.(type) {
	case *widget.Entry:
		return f
	case *searchEntry:
		return &f.Entry
	case *widget.SelectEntry:
		return &f.Entry
	}
	return nil
}

// Hidden tells whether the window is hidden (closed to the tray; see
// SetHidden). Fyne goroutine only.
func (u *UI) Hidden() bool { return u.hidden }
