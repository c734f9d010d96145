package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The keyboard. Anywhere but in a text field: Space plays or pauses,
// ←/→ seek 5 s, Ctrl+←/→ previous/next track, Ctrl+↑/↓ the volume, M
// mutes, Ctrl+F searches, Ctrl+,
// opens the settings, F1 or ? lists the shortcuts, Escape leaves the
// now-playing view or clears the search. In the search field Escape
// leaves it (a second Escape clears it) and ↓ goes to the results. The
// lists take their own keys (tracklist.go); Tab reaches every control.

// shortcuts is the list F1 shows: keys and what they do.
var shortcuts = [][2]string{
	{"Space", "Play or pause"},
	{"← / →", "Back or forward 5 seconds"},
	{"Ctrl+← / Ctrl+→", "Previous or next track"},
	{"Ctrl+↑ / Ctrl+↓", "Volume up or down"},
	{"M", "Mute or unmute"},
	{"Ctrl+F", "Search"},
	{"Escape", "Leave the search field; again: clear the search"},
	{"↑ / ↓, Page Up / Page Down, Home / End", "Move in a list (with Shift: select a range)"},
	{"Click, Ctrl+click, Shift+click", "Select a track, add one, select a range"},
	{"Ctrl+A", "Select every track of the list"},
	{"Enter or double-click", "Play the selection"},
	{"Delete", "Remove the selection (queue, playlist)"},
	{"Alt+↑ / Alt+↓, or drag", "Move the selection (queue, playlist)"},
	{"Menu key, Shift+F10 or right-click", "The selection's menu"},
	{"Click a column's title", "Sort by it; again: the other way round"},
	{"Right-click a column's title", "Choose the columns"},
	{"Ctrl+,", "Settings"},
	{"Tab / Shift+Tab", "Next or previous control"},
	{"F1 or ?", "This list"},
}

// setupKeys installs the window's keys.
func (u *UI) setupKeys() {
	c := u.win.Canvas()
	c.SetOnTypedKey(u.typedKey)
	c.SetOnTypedRune(u.typedRune)
	mod := fyne.KeyModifierShortcutDefault
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyLeft, Modifier: mod}, func(fyne.Shortcut) { u.prev() })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyRight, Modifier: mod}, func(fyne.Shortcut) { u.next() })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyUp, Modifier: mod}, func(fyne.Shortcut) { u.np.nudgeVolume(volumeStep) })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyDown, Modifier: mod}, func(fyne.Shortcut) { u.np.nudgeVolume(-volumeStep) })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: mod}, func(fyne.Shortcut) { u.focusSearch() })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyComma, Modifier: mod}, func(fyne.Shortcut) { u.clearSearch(); u.showPage(PageSettings) })
	c.AddShortcut(&fyne.ShortcutSelectAll{}, func(fyne.Shortcut) {
		if tl := u.currentList(); tl != nil {
			tl.selectAll()
			tl.focus()
		}
	})
	for _, k := range []fyne.KeyName{fyne.KeyUp, fyne.KeyDown} {
		c.AddShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierAlt}, func(s fyne.Shortcut) {
			if tl := u.currentList(); tl != nil {
				tl.shortcut(s)
			}
		})
	}
}

// typedKey handles a key nothing focused took. While a dialog is shown
// only Escape (close it) and Enter (its action) do something; while
// another pop-up is, only Escape (close it).
func (u *UI) typedKey(e *fyne.KeyEvent) {
	if u.dialogKey(e.Name) || u.topDialog() != nil {
		return
	}
	if top := u.win.Canvas().Overlays().Top(); top != nil {
		if e.Name == fyne.KeyEscape { // a pop-up without a dialog: the problems list
			top.Hide()
		}
		return
	}
	switch e.Name {
	case fyne.KeySpace:
		u.togglePlay()
	case fyne.KeyLeft:
		u.seekBy(-5 * time.Second)
	case fyne.KeyRight:
		u.seekBy(5 * time.Second)
	case fyne.KeyF1:
		u.showShortcuts()
	case fyne.KeyEscape:
		switch {
		case u.search.Text != "":
			u.clearSearch()
		case u.page == PageNowPlaying:
			u.closeNowPlaying()
		}
	case fyne.KeyUp, fyne.KeyDown, fyne.KeyPageUp, fyne.KeyPageDown, fyne.KeyHome, fyne.KeyEnd,
		fyne.KeyReturn, fyne.KeyEnter, fyne.KeyDelete:
		// The page's list takes the keys meant for it even when the
		// user has not clicked it yet.
		if tl := u.currentList(); tl != nil && u.win.Canvas().Focused() == nil {
			tl.focus()
			tl.typedKey(e)
		}
	}
}

// typedRune handles a character nothing focused took.
func (u *UI) typedRune(r rune) {
	if u.topDialog() != nil {
		return
	}
	switch r {
	case '?':
		u.showShortcuts()
	case 'm', 'M':
		u.np.toggleMute()
	}
}

// volumeStep is how much a volume key turns the volume.
const volumeStep = 5

// showShortcuts lists the keyboard shortcuts.
func (u *UI) showShortcuts() {
	form := container.New(twoColumns{})
	for _, s := range shortcuts {
		k := widget.NewLabelWithStyle(s[0], fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		form.Add(k)
		form.Add(widget.NewLabel(s[1]))
	}
	d := dialog.NewCustom("Keyboard shortcuts", "Close", container.NewVScroll(form), u.win)
	d.Resize(fyne.NewSize(640, 560))
	u.showDialog(d, d.Hide)
}

// focusSearch puts the cursor in the search field, going to the tracks
// from a page without one.
func (u *UI) focusSearch() {
	if !searchable(u.page) {
		u.showPage(PageTracks)
	}
	u.win.Canvas().Focus(u.search)
}

// leaveSearch takes the keyboard from the search field to the list of
// the page (so Space plays again and the arrows move in the results).
func (u *UI) leaveSearch() {
	if tl := u.currentList(); tl != nil {
		tl.focus()
		return
	}
	u.win.Canvas().Unfocus()
}

// searchEntry is the search field: Escape leaves it, ↓ goes to the
// results, and a clear button empties it.
type searchEntry struct {
	widget.Entry
	u     *UI
	clear *tipButton
	icon  *widget.Icon
	rect  *canvas.Rectangle // Fyne's caret, blinked by UI.Caret
}

// CreateRenderer is Fyne's entry's, with its caret kept for UI.Caret.
func (e *searchEntry) CreateRenderer() fyne.WidgetRenderer {
	r := e.Entry.CreateRenderer()
	e.rect = fyneCaret(r)
	return r
}

func (e *searchEntry) caret() *canvas.Rectangle { return e.rect }

func newSearchEntry(u *UI) *searchEntry {
	e := &searchEntry{u: u}
	e.ExtendBaseWidget(e)
	e.SetPlaceHolder("Search title, artist, album  (Ctrl+F)")
	e.icon = widget.NewIcon(theme.SearchIcon())
	e.clear = u.newTipButton("", theme.ContentClearIcon(), "Clear the search (Escape twice)", func() {
		u.clearSearch()
		u.win.Canvas().Focus(e)
	})
	e.clear.Importance = widget.LowImportance
	e.ActionItem = e.icon
	e.OnChanged = u.setQuery
	return e
}

// showClear shows the clear button while there is text.
func (e *searchEntry) showClear(on bool) {
	want := fyne.CanvasObject(e.icon)
	if on {
		want = e.clear
	}
	if e.ActionItem != want {
		e.ActionItem = want
		e.Refresh()
	}
}

// TypedKey leaves the field on Escape and goes to the results on ↓.
func (e *searchEntry) TypedKey(k *fyne.KeyEvent) {
	switch k.Name {
	case fyne.KeyEscape:
		e.u.leaveSearch()
	case fyne.KeyDown:
		if tl := e.u.currentList(); tl != nil && len(tl.tracks) > 0 {
			tl.focus()
			tl.moveCursor(0)
			return
		}
		e.Entry.TypedKey(k)
	case fyne.KeyReturn, fyne.KeyEnter:
		if tl := e.u.currentList(); tl != nil && len(tl.tracks) > 0 {
			tl.focus()
			tl.moveCursor(0)
		}
	default:
		e.Entry.TypedKey(k)
	}
}

// twoColumns lays out pairs of objects as a two-column table: the first
// column as wide as its widest object.
type twoColumns struct{}

func (twoColumns) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	var w0 float32
	for i := 0; i < len(objs); i += 2 {
		w0 = max(w0, objs[i].MinSize().Width)
	}
	y := float32(0)
	for i := 0; i+1 < len(objs); i += 2 {
		h := max(objs[i].MinSize().Height, objs[i+1].MinSize().Height)
		objs[i].Move(fyne.NewPos(0, y))
		objs[i].Resize(fyne.NewSize(w0, h))
		objs[i+1].Move(fyne.NewPos(w0, y))
		objs[i+1].Resize(fyne.NewSize(max(size.Width-w0, 0), h))
		y += h
	}
}

func (twoColumns) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w0, w1, h float32
	for i := 0; i+1 < len(objs); i += 2 {
		w0 = max(w0, objs[i].MinSize().Width)
		w1 = max(w1, objs[i+1].MinSize().Width)
		h += max(objs[i].MinSize().Height, objs[i+1].MinSize().Height)
	}
	return fyne.NewSize(w0+w1, h)
}
