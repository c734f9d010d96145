package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Menus open beside what opened them, on the window; dialogs give the
// keyboard back, close on Escape and submit on Enter; the sidebar passes
// the window's keys on. (Issue 32: the device button and a playlist's
// "…" crashed the real window; after a dialog or a click on the sidebar
// the shortcuts stopped working.)

// topMenu is the pop-up menu on top of the window.
func topMenu(t *testing.T, h *harness) *widget.PopUpMenu {
	t.Helper()
	top := h.u.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no pop-up menu open")
	}
	m := find[*widget.PopUpMenu](top, nil)
	if len(m) == 0 {
		t.Fatalf("no pop-up menu on top, but %T", top)
	}
	return m[0]
}

// abs is where o is on the window.
func abs(o fyne.CanvasObject) fyne.Position {
	return fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
}

func TestDeviceMenuOpensAboveTheDeviceButton(t *testing.T) {
	h := newHarness(t, 30)
	h.u.win.Resize(fyne.NewSize(1100, 700))
	h.remote()
	test.Tap(h.u.np.device)
	m, at := topMenu(t, h), abs(h.u.np.device)
	if m.Position().X != at.X {
		t.Errorf("the device menu opens at x=%v, the button is at x=%v", m.Position().X, at.X)
	}
	if bottom := m.Position().Y + m.MinSize().Height; bottom > at.Y+1 || bottom < at.Y-1 {
		t.Errorf("the device menu ends at y=%v, the button starts at y=%v: the bar is at the bottom, it opens above", bottom, at.Y)
	}
	tapMenu(t, h.u.win.Canvas(), "Laptop — offline") // disabled: nothing happens
	h.wantNoCall("Transfer")
	tapMenu(t, h.u.win.Canvas(), "Desk (this device)")
	h.wantCalls("Transfer(dev-desk)")
}

func TestPlaylistMenuOpensUnderItsButton(t *testing.T) {
	h := newHarness(t, 30)
	h.withPlaylist(2)
	more := h.u.playlists.more
	test.Tap(more)
	m, at := topMenu(t, h), abs(more)
	if m.Position().X != at.X || m.Position().Y != at.Y+more.Size().Height {
		t.Errorf("the playlist's menu opens at %v, its button is at %v (height %v)", m.Position(), at, more.Size().Height)
	}
}

func TestProblemsListOpensUnderItsButton(t *testing.T) {
	h := newHarness(t, 3)
	h.u.notices.add("error", "No sound device is working")
	h.u.win.Resize(fyne.NewSize(900, 600)) // lay the shown button out
	b := h.u.notices.button
	test.Tap(b)
	list := h.u.notices.popup.Content
	at, got := abs(b), abs(list)
	near := func(a, b float32) bool { return a-b <= 2*theme.Padding() && b-a <= 2*theme.Padding() }
	if !near(got.Y, at.Y+b.Size().Height) || !near(got.X+list.Size().Width, at.X+b.Size().Width) {
		t.Errorf("the problems list is at %v (%v), its button at %v (%v): it should hang under the button, right-aligned",
			got, list.Size(), at, b.Size())
	}
}

func TestEscapeClosesTheShortcutsAndTheKeyboardComesBack(t *testing.T) {
	h := newHarness(t, 30)
	h.u.showPage(PageTracks)
	tl := h.u.tracks.list
	tl.focus()
	h.key(fyne.KeyF1)
	if h.u.topDialog() == nil {
		t.Fatal("F1 shows no shortcuts")
	}
	h.key(fyne.KeyEscape)
	if h.u.topDialog() != nil || h.u.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Escape does not close the shortcuts")
	}
	if h.u.win.Canvas().Focused() != tl.list {
		t.Fatalf("after the dialog the keyboard is with %T, not the list it was with", h.u.win.Canvas().Focused())
	}
}

func TestEnterSubmitsAndEscapeCancelsANameDialog(t *testing.T) {
	h := newHarness(t, 30)
	h.withPlaylist(2)
	h.u.newPlaylistDialog(nil)
	name := find[*dialogEntry](h.u.win.Canvas().Overlays().Top(), nil)[0]
	test.Type(name, "Evening")
	name.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.wantIntents("CreatePlaylist(Evening)")
	if h.u.topDialog() != nil {
		t.Fatal("the dialog stays after Enter")
	}

	h.b.ResetCalls()
	h.u.playlists.renameDialog()
	name = find[*dialogEntry](h.u.win.Canvas().Overlays().Top(), nil)[0]
	test.Type(name, " 2")
	name.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if h.u.topDialog() != nil || h.u.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Escape in the name field does not close the dialog")
	}
	h.wantIntents()
	if f := h.u.win.Canvas().Focused(); f != nil {
		t.Fatalf("after the dialog %T has the keyboard", f)
	}
	h.key(fyne.KeyF1)
	if h.u.topDialog() == nil {
		t.Fatal("F1 does nothing after a dialog was cancelled")
	}
}

// A click on the sidebar: Fyne's list takes the keyboard and selects.
func TestSidebarGivesTheKeyboardBack(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	for i, p := range pageOrder {
		if p == PageDevices {
			h.u.win.Canvas().Focus(h.u.nav)
			h.u.nav.Select(i)
		}
	}
	if h.u.page != PageDevices {
		t.Fatalf("page %q", h.u.page)
	}
	h.key(fyne.KeyF1)
	if h.u.topDialog() == nil {
		t.Fatalf("F1 after a click on the sidebar: no shortcuts (the keyboard is with %T)", h.u.win.Canvas().Focused())
	}
	h.key(fyne.KeyEscape)
	// Reached with Tab, ↑/↓ open the pages, Enter goes into one, and
	// the other keys still reach the window.
	h.u.win.Canvas().Focus(h.u.nav)
	h.key(fyne.KeyDown)
	if h.u.page != PageSettings || h.u.win.Canvas().Focused() != h.u.nav {
		t.Fatalf("↓ in the sidebar opened %q and left the keyboard with %T", h.u.page, h.u.win.Canvas().Focused())
	}
	h.key(fyne.KeySpace)
	h.wantCalls("TogglePlay()")
	h.key(fyne.KeyReturn)
	if f := h.u.win.Canvas().Focused(); f != nil {
		t.Fatalf("Enter left the keyboard with %T", f)
	}
}

// A field left behind on a page the user left would take every key.
func TestLeavingAPageTakesTheKeyboardFromItsField(t *testing.T) {
	h := newHarness(t, 30)
	h.u.showPage(PageTracks)
	h.u.focusSearch()
	if h.u.win.Canvas().Focused() != h.u.search {
		t.Fatal("the search field has not the keyboard")
	}
	h.u.showPage(PageDevices) // no search field there
	h.key(fyne.KeyF1)
	if h.u.topDialog() == nil {
		t.Fatalf("F1 on the Devices page after a search: the keyboard is with %T", h.u.win.Canvas().Focused())
	}
}
