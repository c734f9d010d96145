package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// The blink is lit for caretLit, dark for caretDark, again and again for
// caretBlinkTimeout, then lit for good; next is when that changes.
func TestCaretPhaseIsAHardBlinkThatRests(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		at   time.Duration
		lit  bool
		next time.Duration
	}{
		{0, true, caretLit},
		{caretLit - ms, true, ms},
		{caretLit, false, caretDark},
		{caretLit + caretDark - ms, false, ms},
		{caretLit + caretDark, true, caretLit},
		// the last spell, lit or dark, ends with the blink
		{caretBlinkTimeout - ms, (caretBlinkTimeout-ms)%(caretLit+caretDark) < caretLit, ms},
		{caretBlinkTimeout, true, 0},
		{time.Hour, true, 0},
		{-time.Second, true, caretLit}, // a clock that went back: the blink begins again
	} {
		lit, next := caretPhase(c.at)
		if lit != c.lit || next != c.next {
			t.Errorf("caretPhase(%v) = %v, %v; want %v, %v", c.at, lit, next, c.lit, c.next)
		}
	}
}

// The search field's caret goes on and off as caretPhase says, from the
// focus, an edit or a caret move, and Caret asks to be called when it
// changes (or within caretRelight); unfocused, it asks nothing.
func TestTheSearchCaretBlinksHardThenRests(t *testing.T) {
	h := newHarness(t, 20)
	c := h.u.win.Canvas()
	if d := h.u.Caret(); d != 0 || h.u.Animating() {
		t.Fatalf("nothing focused, nothing running: Caret() = %v, Animating() = %v", d, h.u.Animating())
	}
	c.Focus(h.u.search)
	rect := h.u.search.caret()
	if rect == nil {
		t.Fatal("the search field's caret was not found among Fyne's entry objects")
	}
	steps := []struct {
		what    string
		do      func()
		advance time.Duration
		lit     bool
		want    time.Duration
	}{
		{"just focused", nil, 0, true, caretRelight},
		{"lit, the change due in 50 ms", nil, caretLit - 50*time.Millisecond, true, 50 * time.Millisecond},
		{"dark", nil, 50 * time.Millisecond, false, caretRelight},
		{"dark, lit in 100 ms", nil, caretDark - 100*time.Millisecond, false, 100 * time.Millisecond},
		{"a letter typed while dark", func() { h.u.search.TypedRune('a') }, 0, true, caretRelight},
		{"dark after the letter", nil, caretLit, false, caretRelight},
		{"caret moved left", func() { h.u.search.TypedKey(&fyne.KeyEvent{Name: fyne.KeyLeft}) }, 0, true, caretRelight},
		{"10 s after the move", nil, caretBlinkTimeout, true, caretRelight},
		{"resting, 1 min later", nil, time.Minute, true, caretRelight},
	}
	for _, s := range steps {
		if s.do != nil {
			s.do()
		}
		h.clock.advance(s.advance)
		if got := h.u.Caret(); got != s.want {
			t.Fatalf("%s: Caret() = %v, want %v", s.what, got, s.want)
		}
		if rect.Visible() != s.lit {
			t.Fatalf("%s: caret shown = %v, want %v", s.what, rect.Visible(), s.lit)
		}
		if h.u.Animating() {
			t.Fatalf("%s: a caret keeps the loop at full rate", s.what)
		}
	}
	if h.u.search.Text != "a" || h.u.search.CursorColumn != 0 {
		t.Fatalf("blinking the caret changed the field: %q, caret at %d", h.u.search.Text, h.u.search.CursorColumn)
	}
	c.Unfocus()
	if d := h.u.Caret(); d != 0 {
		t.Fatalf("focus left the field: Caret() = %v", d)
	}
	c.Focus(h.u.search)
	if d := h.u.Caret(); d != caretRelight || !rect.Visible() {
		t.Fatalf("focused again: Caret() = %v, shown %v; want a lit caret", d, rect.Visible())
	}
}

// A field whose caret is not ours keeps Fyne's fade, sampled while it
// blinks, then held lit.
func TestAPlainEntrysCaretIsSampledThenRests(t *testing.T) {
	h := newHarness(t, 20)
	e := widget.NewEntry()
	w := test.NewTempWindow(t, e)
	main := h.u.win
	h.u.win = w
	defer func() { h.u.win = main }()
	w.Canvas().Focus(e)
	if d := h.u.Caret(); d != caretFadeSample {
		t.Fatalf("a plain entry just focused: Caret() = %v, want %v", d, caretFadeSample)
	}
	h.clock.advance(caretBlinkTimeout)
	if d := h.u.Caret(); d != caretRelight {
		t.Fatalf("a plain entry 10 s after the focus: Caret() = %v, want %v", d, caretRelight)
	}
}

// fyneCaret finds the caret of Fyne's entry as this Fyne makes it: the
// rectangle the entry shows while focused and hides otherwise.
func TestFyneCaretIsTheEntrysCaret(t *testing.T) {
	e := widget.NewEntry()
	w := test.NewTempWindow(t, e)
	rect := fyneCaret(test.TempWidgetRenderer(t, e))
	if rect == nil {
		t.Fatal("no caret among the objects of Fyne's entry: Fyne changed how it makes one")
	}
	if rect.Visible() {
		t.Fatal("the caret of an entry without the focus is shown")
	}
	w.Canvas().Focus(e)
	if !rect.Visible() {
		t.Fatal("the rectangle found is not the caret: focusing the entry did not show it")
	}
	var _ *canvas.Rectangle = rect
}
