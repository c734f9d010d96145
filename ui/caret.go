package ui

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// A focused text field's caret blinks hard on and off, as GTK's, Qt's and
// Windows' do: lit for caretLit, dark for caretDark (GTK's default blink
// of 1.2 s, two thirds lit), for caretBlinkTimeout after the field was
// focused, edited or its caret moved; then it stays lit (GTK's
// gtk-cursor-blink-timeout). Fyne's entry fades its caret in
// and out instead, redrawing on every frame of each fade, and a frame
// redraws the whole window: 5-6 % of a core under Xvfb with 100,000
// tracks (issue 37). The window's loop (internal/framegov) calls Caret
// before and after each hold and ends the hold when the caret changes:
// the blink costs one frame per change.
const (
	caretLit          = 800 * time.Millisecond
	caretDark         = 400 * time.Millisecond
	caretBlinkTimeout = 10 * time.Second
	// caretRelight is how often Fyne's fade is interrupted so it stays
	// lit (it resumes 300 ms after an interruption, Fyne's
	// cursorInterruptTime).
	caretRelight = 250 * time.Millisecond
	// caretFadeSample is how often a field whose caret is not ours to
	// blink (not one of our entries) samples Fyne's fade while it blinks.
	caretFadeSample = 100 * time.Millisecond
)

// caretPhase is the blink d after it began: whether the caret is lit,
// and how long until that changes (0: never, it rests lit).
func caretPhase(d time.Duration) (lit bool, next time.Duration) {
	d = max(d, 0)
	if d >= caretBlinkTimeout {
		return true, 0
	}
	in := d % (caretLit + caretDark)
	if in < caretLit {
		lit, next = true, caretLit-in
	} else {
		next = caretLit + caretDark - in
	}
	return lit, min(next, caretBlinkTimeout-d)
}

// Caret shows the focused text field's caret as it is now, lit or dark,
// and returns how soon it must be called again (framegov.Options.Caret):
// when the caret changes, or within caretRelight to keep Fyne's fade
// from resuming. 0: no field has the focus. Fyne goroutine only.
func (u *UI) Caret() time.Duration {
	f := u.win.Canvas().Focused()
	e := textField(f)
	if e == nil {
		u.caret = caretState{}
		return 0
	}
	now := u.now()
	if s := (caretState{entry: e, text: e.Text, row: e.CursorRow, col: e.CursorColumn}); s != u.caret {
		u.caret, u.caretSince = s, now
	}
	lit, next := caretPhase(now.Sub(u.caretSince))
	c, ours := f.(caretOwner)
	rect := (*canvas.Rectangle)(nil)
	if ours {
		rect = c.caret()
	}
	if rect == nil {
		// Fyne's own fade: sampled while it blinks, then held lit.
		if next > 0 {
			return caretFadeSample
		}
		keepCaretLit(e)
		return caretRelight
	}
	keepCaretLit(e)
	if rect.Visible() != lit {
		if lit {
			rect.Show()
		} else {
			rect.Hide()
		}
		rect.Refresh()
	}
	if next == 0 || next > caretRelight {
		next = caretRelight
	}
	return next
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
// ignores keys it does not know, after the interruption). Caret calls it
// at least every caretRelight.
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

// caretOwner is a text field of ours whose caret Caret blinks.
type caretOwner interface {
	// caret is the field's caret, nil before it is drawn.
	caret() *canvas.Rectangle
}

// fyneCaret finds the caret among the objects of r, the renderer
// widget.Entry made: in Fyne 2.7 they are the box, the border and the
// entry's content, or a scroll holding it, whose objects are the
// placeholder, the text and the caret, the one rectangle. The content
// makes its objects anew for each renderer but shares the caret, so a
// renderer made here finds the one drawn. Nil when Fyne's entry is no
// longer made so (ui tests check it is).
func fyneCaret(r fyne.WidgetRenderer) *canvas.Rectangle {
	for _, o := range r.Objects() {
		if s, ok := o.(*container.Scroll); ok {
			o = s.Content
		}
		w, ok := o.(fyne.Widget)
		if !ok || fmt.Sprintf("%T", w) != "*widget.entryContent" {
			continue
		}
		for _, c := range w.CreateRenderer().Objects() {
			if rect, ok := c.(*canvas.Rectangle); ok {
				return rect
			}
		}
	}
	return nil
}
