package main

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// The window's size and place are kept per data dir, in one preference;
// a damaged or absurd value is no size and no place (the desktop places
// the window), never a window off every screen or 3 pixels wide.
func TestWindowStatePerDataDir(t *testing.T) {
	fa := test.NewTempApp(t)
	prefs := fa.Preferences()
	a := newWindowState(prefs, "/home/u/.local/share/furudesk")
	b := newWindowState(prefs, "/tmp/other")
	w := fa.NewWindow("furudesk")
	defer w.Close()
	w.Resize(fyne.NewSize(1000, 700))
	a.x, a.y, a.placed = 120, 80, true
	a.save(w)
	if size, ok := a.size(); !ok || size != fyne.NewSize(1000, 700) {
		t.Fatalf("size %v %v", size, ok)
	}
	if x, y, ok := a.pos(); !ok || x != 120 || y != 80 {
		t.Fatalf("place %d,%d %v", x, y, ok)
	}
	if _, ok := b.size(); ok {
		t.Fatal("another data dir has the size of the first")
	}
	again := newWindowState(prefs, "/home/u/.local/share/furudesk")
	if x, _, ok := again.pos(); !ok || x != 120 {
		t.Fatal("the place is lost when read again")
	}
	for _, bad := range []string{"", "1,2,3", "a,b,900,700", "1,2,30,700", "1,2,99999,700", "-,-,x,700", "1,2,900,700,5", "99999999,2,900,700"} {
		prefs.SetString(b.key, bad)
		_, sizeOK := b.size()
		_, _, posOK := b.pos()
		if sizeOK || posOK {
			t.Errorf("%q: size %v, place %v; want neither", bad, sizeOK, posOK)
		}
	}
	prefs.SetString(b.key, "-,-,900,700")
	if _, ok := b.size(); !ok {
		t.Error("a size without a place is lost")
	}
	if _, _, ok := b.pos(); ok {
		t.Error("no place read as one")
	}
}
