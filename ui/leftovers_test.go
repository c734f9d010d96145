package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

// The wheel over a text field of Settings scrolls the page (the field
// swallowed it), and the field still takes clicks and typing.
func TestWheelOverASettingsFieldScrollsThePage(t *testing.T) {
	h := newHarness(t, 3)
	h.u.win.Resize(fyne.NewSize(900, 500))
	h.u.showPage(PageSettings)
	p := h.u.settings
	page := p.scroll()
	page.ScrollToTop()
	c := h.u.win.Canvas()
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(p.name).AddXY(20, 10)
	test.Scroll(c, at, 0, -120)
	if page.Offset.Y <= 0 {
		t.Fatal("the wheel over the name field did not scroll the page")
	}
	// The layer over the field takes nothing but the wheel.
	var layer any = &wheelPass{}
	_, tappable := layer.(fyne.Tappable)
	_, focusable := layer.(fyne.Focusable)
	_, hoverable := layer.(desktop.Hoverable)
	_, cursor := layer.(desktop.Cursorable)
	if tappable || focusable || hoverable || cursor {
		t.Fatal("the wheel layer takes more than the wheel")
	}
	c.Focus(p.name)
	test.Type(p.name, "x")
	if p.name.Text == "" {
		t.Fatal("the name field no longer takes typing")
	}
}

// "Saved." goes when the page is left; a finished job takes its
// "Making…" toast away.
func TestConfirmationsAndWorkToastsGo(t *testing.T) {
	h := newHarness(t, 3)
	h.u.showPage(PageSettings)
	p := h.u.settings
	p.applyConfig()
	if !p.cfgMsg.Visible() || p.cfgMsg.Text != "Saved." {
		t.Fatalf("after Apply: %q visible=%v", p.cfgMsg.Text, p.cfgMsg.Visible())
	}
	h.u.showPage(PageTracks)
	h.u.showPage(PageSettings)
	if p.cfgMsg.Visible() {
		t.Fatal("Saved. stays after the page was left")
	}

	var pending []func()
	h.u.spawn = func(f func()) { pending = append(pending, f) }
	h.u.tryDemo()
	if got := h.u.notices.texts(); len(got) != 1 || got[0] != "Making the demo tracks…" {
		t.Fatalf("while the demo is made: %q", got)
	}
	for len(pending) > 0 {
		f := pending[0]
		pending = pending[1:]
		f()
	}
	for _, s := range h.u.notices.texts() {
		if s == "Making the demo tracks…" {
			t.Fatal("the Making toast stays after the demo tracks were made")
		}
	}
}
