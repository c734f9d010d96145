package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"github.com/furudesk/furudesk/internal/framegov"
)

// windowState is what the window of one data dir keeps between launches
// in Fyne's preferences: its size and place on the screen, and (through
// viewPrefs) the page shown and how the lists are sorted.
type windowState struct {
	prefs fyne.Preferences
	key   string
	// The window's place as last seen (follow), on the Fyne goroutine.
	x, y   int
	placed bool
	// saved is called after each save (logging); pending is a save
	// waiting for the window to stop moving.
	saved   func()
	pending *time.Timer
}

// saveDelay is how long the window must stay put before its place is
// saved: a drag is one save, not hundreds.
const saveDelay = 300 * time.Millisecond

func newWindowState(prefs fyne.Preferences, dataDir string) *windowState {
	return &windowState{prefs: prefs, key: "window." + dataDirKey(dataDir)}
}

// follow notes the window's place and size now and whenever they change,
// and saves them once the window stays put for saveDelay: however
// furudesk ends (the window, the tray, SIGTERM, a crash) its window opens
// where it was. Call it on the Fyne goroutine once the window shows.
func (s *windowState) follow(w fyne.Window) {
	if x, y, ok := windowPos(w); ok {
		s.x, s.y, s.placed = x, y, true
	}
	followWindow(w, func(x, y int) {
		s.x, s.y, s.placed = x, y, true
		s.saveSoon(w)
	}, func() { s.saveSoon(w) })
}

// saveSoon saves the window's state once it did not change for saveDelay.
func (s *windowState) saveSoon(w fyne.Window) {
	if s.pending != nil {
		s.pending.Stop()
	}
	s.pending = time.AfterFunc(saveDelay, func() { framegov.Do(func() { s.save(w) }) })
}

// Bounds of a remembered window size: smaller is unusable, larger is a
// damaged setting.
const (
	minWindowW, minWindowH = 640, 420
	maxWindowSide          = 16384
)

// geometry is the saved form: one preference, "x,y,w,h" ("-,-,w,h" when
// the place is not known), so a save is one write of Fyne's preferences
// file, never half of one.
type geometry struct {
	x, y, w, h int
	placed     bool
}

func (g geometry) String() string {
	if !g.placed {
		return fmt.Sprintf("-,-,%d,%d", g.w, g.h)
	}
	return fmt.Sprintf("%d,%d,%d,%d", g.x, g.y, g.w, g.h)
}

// parseGeometry reads String's form; false for anything else, and for a
// size no window can have.
func parseGeometry(v string) (geometry, bool) {
	var g geometry
	f := strings.Split(v, ",")
	if len(f) != 4 {
		return g, false
	}
	var err error
	if g.w, err = strconv.Atoi(f[2]); err != nil {
		return g, false
	}
	if g.h, err = strconv.Atoi(f[3]); err != nil {
		return g, false
	}
	if g.w < minWindowW || g.h < minWindowH || g.w > maxWindowSide || g.h > maxWindowSide {
		return g, false
	}
	if f[0] == "-" && f[1] == "-" {
		return g, true
	}
	x, errx := strconv.Atoi(f[0])
	y, erry := strconv.Atoi(f[1])
	if errx != nil || erry != nil || x < -maxWindowSide || x > maxWindowSide || y < -maxWindowSide || y > maxWindowSide {
		return g, false
	}
	g.x, g.y, g.placed = x, y, true
	return g, true
}

func (s *windowState) load() (geometry, bool) { return parseGeometry(s.prefs.String(s.key)) }

// size is the remembered size of the window's content, false when none
// (or not a size a window can have).
func (s *windowState) size() (fyne.Size, bool) {
	g, ok := s.load()
	if !ok {
		return fyne.Size{}, false
	}
	return fyne.NewSize(float32(g.w), float32(g.h)), true
}

// pos is the remembered place of the window's content on the screen.
func (s *windowState) pos() (x, y int, ok bool) {
	g, ok := s.load()
	if !ok || !g.placed {
		return 0, 0, false
	}
	return g.x, g.y, true
}

// restoreSize gives the window its remembered size; call it before the
// window shows.
func (s *windowState) restoreSize(w fyne.Window) {
	if size, ok := s.size(); ok {
		w.Resize(size)
	}
}

// restorePlace puts the shown window where it was, when that place is
// on a screen now. It runs on the Fyne goroutine.
func (s *windowState) restorePlace(w fyne.Window) error {
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

// save remembers the window's size and its place as last seen.
func (s *windowState) save(w fyne.Window) {
	size := w.Canvas().Size()
	g := geometry{x: s.x, y: s.y, w: int(size.Width), h: int(size.Height), placed: s.placed}
	if g.w < minWindowW || g.h < minWindowH {
		return // a window being minimized or torn down
	}
	s.prefs.SetString(s.key, g.String())
	if s.saved != nil {
		s.saved()
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
