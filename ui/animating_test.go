package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
)

// A focused text field's caret blinks (the loop runs some frames) for
// caretBlinkTimeout after the last edit, caret move or focus change, then
// rests lit without touching the field, and blinks again on the next key.
func TestCaretBlinksThenRests(t *testing.T) {
	h := newHarness(t, 20)
	c := h.u.win.Canvas()
	if h.u.Blinking() || h.u.Animating() {
		t.Fatal("nothing focused, nothing running: the window animates")
	}
	c.Focus(h.u.search)
	h.b.ResetCalls()
	steps := []struct {
		what    string
		do      func()
		advance time.Duration
		want    bool
	}{
		{"just focused", nil, 0, true},
		{"focused 9 s ago", nil, 9 * time.Second, true},
		{"focused 10 s ago", nil, time.Second, false},
		{"resting, 1 min later", nil, time.Minute, false},
		{"a letter typed", func() { h.u.search.TypedRune('a') }, 0, true},
		{"9.9 s after the letter", nil, 9900 * time.Millisecond, true},
		{"10 s after the letter", nil, 100 * time.Millisecond, false},
		{"caret moved left", func() { h.u.search.TypedKey(&fyne.KeyEvent{Name: fyne.KeyLeft}) }, 0, true},
		{"10 s after the move", nil, 10 * time.Second, false},
	}
	for _, s := range steps {
		if s.do != nil {
			s.do()
		}
		h.clock.advance(s.advance)
		if got := h.u.Blinking(); got != s.want {
			t.Fatalf("%s: Blinking() = %v, want %v", s.what, got, s.want)
		}
		if h.u.Animating() {
			t.Fatalf("%s: a caret keeps the loop at full rate", s.what)
		}
	}
	if h.u.search.Text != "a" || h.u.search.CursorColumn != 0 {
		t.Fatalf("resting the caret changed the field: %q, caret at %d", h.u.search.Text, h.u.search.CursorColumn)
	}
	c.Unfocus()
	if h.u.Blinking() {
		t.Fatal("focus left the field: the window still animates")
	}
	c.Focus(h.u.search)
	if !h.u.Blinking() {
		t.Fatal("focused again: the caret does not blink")
	}
}
