package main

import (
	"fmt"

	"fyne.io/fyne/v2"
)

// windowState is what the window of one data dir keeps between launches
// in Fyne's preferences: its size and place on the screen, and (through
// viewPrefs) the page shown and how the lists are sorted.
type windowState struct {
	prefs fyne.Preferences
	key   string
}

func newWindowState(prefs fyne.Preferences, dataDir string) windowState {
	return windowState{prefs: prefs, key: "window." + dataDirKey(dataDir) + "."}
}

// Bounds of a remembered window size: smaller is unusable, larger is a
// damaged setting.
const (
	minWindowW, minWindowH = 640, 420
	maxWindowSide          = 16384
)

// size is the remembered size of the window's content, false when none
// (or not a size a window can have).
func (s windowState) size() (fyne.Size, bool) {
	w := s.prefs.Float(s.key + "w")
	h := s.prefs.Float(s.key + "h")
	if w < minWindowW || h < minWindowH || w > maxWindowSide || h > maxWindowSide {
		return fyne.Size{}, false
	}
	return fyne.NewSize(float32(w), float32(h)), true
}

// pos is the remembered place of the window's content on the screen.
func (s windowState) pos() (x, y int, ok bool) {
	if !s.prefs.Bool(s.key + "placed") {
		return 0, 0, false
	}
	return s.prefs.Int(s.key + "x"), s.prefs.Int(s.key + "y"), true
}

// restoreSize gives the window its remembered size; call it before the
// window shows.
func (s windowState) restoreSize(w fyne.Window) {
	if size, ok := s.size(); ok {
		w.Resize(size)
	}
}

// restorePlace puts the shown window where it was, when that place is
// on a screen now. It runs on the Fyne goroutine.
func (s windowState) restorePlace(w fyne.Window) error {
	x, y, ok := s.pos()
	if !ok {
		return nil
	}
	size, _ := s.size()
	if !onScreen(x, y, int(size.Width), int(size.Height)) {
		return fmt.Errorf("the window's place %d,%d is on no screen now", x, y)
	}
	return setWindowPos(w, x, y)
}

// save remembers the window's size and place; it runs on the Fyne
// goroutine while the window is shown.
func (s windowState) save(w fyne.Window) {
	size := w.Canvas().Size()
	if size.Width >= minWindowW && size.Height >= minWindowH {
		s.prefs.SetFloat(s.key+"w", float64(size.Width))
		s.prefs.SetFloat(s.key+"h", float64(size.Height))
	}
	if x, y, ok := windowPos(w); ok {
		s.prefs.SetInt(s.key+"x", x)
		s.prefs.SetInt(s.key+"y", y)
		s.prefs.SetBool(s.key+"placed", true)
	}
}

// viewPrefs are the window's view settings (ui.Prefs) of one data dir.
type viewPrefs struct {
	prefs  fyne.Preferences
	prefix string
}

func newViewPrefs(prefs fyne.Preferences, dataDir string) viewPrefs {
	return viewPrefs{prefs: prefs, prefix: "view." + dataDirKey(dataDir) + "."}
}

func (v viewPrefs) String(k string) string    { return v.prefs.String(v.prefix + k) }
func (v viewPrefs) SetString(k, value string) { v.prefs.SetString(v.prefix+k, value) }
