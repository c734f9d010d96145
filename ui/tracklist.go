package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// trackList is a virtualized list of tracks under a column header: only
// the visible rows exist, so 100,000 tracks cost what a screenful does.
// Every list of the window is one (the library's, a playlist's, the
// queue's), so they all behave alike:
//
//   - Click selects a row, Ctrl-click adds one, Shift-click a range;
//     ↑/↓, Page Up/Down, Home/End move the selection (with Shift they
//     extend it); Ctrl+A selects all.
//   - Double-click or Enter plays (listHooks.activate); right-click, the
//     menu key or Shift+F10 opens the selection's menu.
//   - Where the list allows it: Delete removes the selection; dragging or
//     Alt+↑/↓ moves it (not while the list is sorted by a column).
//   - A click on a column's header sorts by it, a second click the other
//     way round; a right-click chooses the columns. Both are remembered
//     per list (view) in the settings.
type trackList struct {
	u     *UI
	key   string // the settings key of this kind of list: "tracks", "album", ...
	hooks listHooks

	allowed, visible colSet
	sort             sortSpec
	sortable         bool

	base   []*track // in the list's own order
	tracks []*track // as shown: base, sorted
	perm   []int32  // shown row -> index in base

	list   *keyList
	header *fyne.Container
	hdr    [numColumns]*headerCell
	view   fyne.CanvasObject

	current string // content id of the playing track, marked

	sel     map[int]bool // selected rows (shown order)
	anchor  int          // where a Shift range starts
	cursor  int          // the row the keyboard is on
	focused bool
	shift   bool // a Shift key is down (the keyboard's ranges)

	dragRows  []int // rows being dragged, nil: none
	dragStart int   // the row the drag started on
	dropAt    int   // the row they would land on
	dragDY    float32
	rowH      float32 // a row's height, for pages and drags
	// chosen: the user chose the columns. The Where column still comes
	// with the tracks of other devices (autoWhere: it came so, and goes
	// with them) unless the user took it away (whereOff).
	chosen, autoWhere, whereOff bool
	tall                        map[int]bool // rows made taller for a group heading
}

// listHooks are what a list does with its rows (shown order).
type listHooks struct {
	activate func(rows []int)            // double-click, Enter
	menu     func(rows []int) *fyne.Menu // right-click
	remove   func(rows []int)            // Delete; nil: rows are not removed here
	move     func(rows []int, to int)    // to: place of the first among the rows that stay; nil: not movable
	current  func(row int) bool          // the playing row; nil: by content id
	missing  func(row int) bool          // a track no device online has, greyed
	// group names the group of a track (its album on an artist's page):
	// while the list shows its own order, the first row of each group
	// carries the group's heading. nil: no groups.
	group func(t *track) string
}

// listConfig sets a list up: the settings key, the columns it may show
// and shows by default, whether headers sort it.
type listConfig struct {
	view              string
	allowed, defaults colSet
	sortable          bool
}

func newTrackList(u *UI, cfg listConfig, hooks listHooks) *trackList {
	tl := &trackList{u: u, key: cfg.view, hooks: hooks, allowed: cfg.allowed, visible: cfg.defaults,
		sortable: cfg.sortable, sel: map[int]bool{}, dropAt: -1}
	if v, ok := parseColSet(u.setting("columns."+cfg.view), cfg.allowed); ok {
		tl.visible, tl.chosen = v, true
	}
	tl.whereOff = u.setting("columns."+cfg.view+".where") == "off"
	u.trackLists = append(u.trackLists, tl)
	if cfg.sortable {
		tl.sort = parseSortSpec(u.setting("sort." + cfg.view))
		if !tl.visible.has(tl.sort.col) {
			tl.sort = sortSpec{}
		}
	}
	tl.list = newKeyList(tl)
	cells := make([]fyne.CanvasObject, numColumns)
	for c := range numColumns {
		tl.hdr[c] = newHeaderCell(tl, c)
		cells[c] = tl.hdr[c]
	}
	tl.header = container.New(colLayout{visible: &tl.visible}, cells...)
	tl.view = container.NewBorder(container.NewVBox(tl.header, widget.NewSeparator()), nil, nil, nil, tl.list)
	tl.showSort()
	return tl
}

// The standard lists: the library's, and those of a playlist and the
// queue (their position instead of the track number).
var (
	libraryColumns = colsOf(colTrackNo, colTitle, colArtist, colAlbum, colYear, colGenre, colDisc, colAdded, colPlays, colLast, colWhere, colHeart, colTime)
	libraryDefault = colsOf(colTrackNo, colTitle, colArtist, colAlbum, colHeart, colTime)
	listColumns    = colsOf(colPos, colTitle, colArtist, colAlbum, colYear, colGenre, colTrackNo, colDisc, colAdded, colPlays, colLast, colWhere, colHeart, colTime)
	listDefault    = colsOf(colPos, colTitle, colArtist, colAlbum, colHeart, colTime)
)

// set shows tracks in their own order, sorted as the list is (the slice
// is kept, not copied: callers hand over slices they no longer change).
// The selection is cleared unless keep (the same list, changed).
func (tl *trackList) set(tracks []*track) { tl.setKeep(tracks, false) }

func (tl *trackList) setKeep(tracks []*track, keep bool) {
	tl.base = tracks
	tl.resort()
	if !keep {
		clear(tl.sel)
		tl.cursor, tl.anchor = 0, 0
		tl.list.scrollToTop()
	} else {
		for r := range tl.sel {
			if r >= len(tl.tracks) {
				delete(tl.sel, r)
			}
		}
		tl.cursor = min(tl.cursor, max(len(tl.tracks)-1, 0))
	}
	tl.list.Refresh()
}

// resort orders the shown rows by the list's sort.
func (tl *trackList) resort() {
	defer tl.groupHeights()
	if !tl.sort.ok {
		tl.tracks = tl.base
		tl.perm = nil
		return
	}
	tl.perm = tl.u.sortKeys().sortRows(tl.base, tl.sort)
	tl.tracks = make([]*track, len(tl.perm))
	for i, p := range tl.perm {
		tl.tracks[i] = tl.base[p]
	}
}

// heading is the group heading row r carries ("" for none): groups show
// only in the list's own order, a column's sort mixes them.
func (tl *trackList) heading(r int) string {
	g := tl.hooks.group
	if g == nil || tl.sort.ok || r < 0 || r >= len(tl.tracks) {
		return ""
	}
	h := g(tl.tracks[r])
	if r > 0 && g(tl.tracks[r-1]) == h {
		return ""
	}
	return h
}

// groupHeights makes the rows that carry a heading taller by it, and the
// rows that no longer do their own height again.
func (tl *trackList) groupHeights() {
	if tl.hooks.group == nil || tl.list == nil {
		return
	}
	if tl.rowH == 0 {
		newTrackRow(tl) // measures a row
	}
	if tl.tall == nil {
		tl.tall = map[int]bool{}
	}
	for r := range tl.tall {
		if r >= len(tl.tracks) || tl.heading(r) == "" {
			tl.list.SetItemHeight(r, tl.rowH)
			delete(tl.tall, r)
		}
	}
	for r := range tl.tracks {
		if tl.heading(r) != "" && !tl.tall[r] {
			tl.list.SetItemHeight(r, tl.rowH+groupHeadingHeight())
			tl.tall[r] = true
		}
	}
}

// groupHeadingHeight is the room a group heading takes above its row.
func groupHeadingHeight() float32 {
	return fyne.MeasureText("Ag", theme.TextSize(), fyne.TextStyle{Bold: true}).Height + 3*theme.Padding()
}

// baseIndex is the index in the list's own order of shown row r.
func (tl *trackList) baseIndex(r int) int {
	if tl.perm == nil {
		return r
	}
	return int(tl.perm[r])
}

// sortBy sorts by column c (the other way round when it is already),
// keeping the selected tracks selected.
func (tl *trackList) sortBy(c column) {
	if !tl.sortable || !colDefs[c].sortable {
		return
	}
	tl.setSort(tl.sort.next(c))
}

func (tl *trackList) setSort(s sortSpec) {
	selected := map[*track]bool{}
	for r := range tl.sel {
		selected[tl.tracks[r]] = true
	}
	tl.sort = s
	tl.u.setSetting("sort."+tl.key, s.String())
	tl.resort()
	clear(tl.sel)
	first := -1
	for r, t := range tl.tracks {
		if selected[t] {
			tl.sel[r] = true
			if first < 0 {
				first = r
			}
		}
	}
	tl.showSort()
	tl.list.Refresh()
	if first >= 0 {
		tl.cursor, tl.anchor = first, first
		tl.list.ScrollTo(first)
	} else {
		tl.list.scrollToTop()
	}
}

// showSort marks the sorted column's header.
func (tl *trackList) showSort() {
	for c, h := range tl.hdr {
		h.setSorted(tl.sort.ok && tl.sort.col == column(c), tl.sort.desc)
	}
}

// sorted reports whether a column sorts the list (then it is not moved
// by hand).
func (tl *trackList) sorted() bool { return tl.sort.ok }

// setVisible shows or hides column c and remembers it.
func (tl *trackList) setVisible(c column, on bool) {
	if c == colTitle || !tl.allowed.has(c) {
		return
	}
	tl.visible, tl.chosen = tl.visible.with(c, on), true
	tl.u.setSetting("columns."+tl.key, tl.visible.String())
	if c == colWhere {
		tl.autoWhere, tl.whereOff = false, !on
		off := ""
		if !on {
			off = "off"
		}
		tl.u.setSetting("columns."+tl.key+".where", off)
	}
	if !on && tl.sort.ok && tl.sort.col == c {
		tl.setSort(sortSpec{})
	}
	tl.header.Refresh()
	tl.list.Refresh()
}

// showGroupColumn shows the Where column in every list while the library
// has tracks of other devices, so that they never look like this device's,
// and hides it when it has none. Columns the user chose get it too, unless
// the user took it away; a Where the user chose stays.
func (u *UI) showGroupColumn() {
	want := len(u.places) > 0
	for _, tl := range u.trackLists {
		if !tl.allowed.has(colWhere) || tl.visible.has(colWhere) == want {
			continue
		}
		switch {
		case want && tl.whereOff:
			continue
		case want:
			tl.autoWhere = tl.chosen
		case tl.chosen && !tl.autoWhere:
			continue // the user's own Where
		default:
			tl.autoWhere = false
		}
		tl.visible = tl.visible.with(colWhere, want)
		tl.header.Refresh()
		tl.list.Refresh()
	}
}

// columnsMenu is the header's menu: every column this list may show,
// checked when shown, and back to the list's own order.
func (tl *trackList) columnsMenu() *fyne.Menu {
	var items []*fyne.MenuItem
	for c := range numColumns {
		if !tl.allowed.has(c) || c == colTitle || c == colPos {
			continue
		}
		it := fyne.NewMenuItem(c.chooserName(), func() { tl.setVisible(c, !tl.visible.has(c)) })
		it.Checked = tl.visible.has(c)
		items = append(items, it)
	}
	if tl.sortable {
		def := fyne.NewMenuItem("Unsorted (the list's own order)", func() { tl.setSort(sortSpec{}) })
		def.Disabled = !tl.sort.ok
		items = append(items, fyne.NewMenuItemSeparator(), def)
	}
	return fyne.NewMenu("", items...)
}

// setCurrent marks the playing track; it redraws only when that changed.
func (tl *trackList) setCurrent(contentID string) {
	if tl.current == contentID {
		return
	}
	tl.current = contentID
	tl.list.Refresh()
}

func (tl *trackList) isCurrent(r int) bool {
	if tl.hooks.current != nil {
		return tl.hooks.current(r)
	}
	return tl.current != "" && tl.tracks[r].ContentID == tl.current
}

// click selects row r: alone, or added to (Ctrl) or extended to (Shift)
// the selection.
func (tl *trackList) click(r int, mods fyne.KeyModifier) {
	switch {
	case mods&fyne.KeyModifierShortcutDefault != 0:
		if tl.sel[r] {
			delete(tl.sel, r)
		} else {
			tl.sel[r] = true
		}
		tl.anchor = r
	case mods&fyne.KeyModifierShift != 0 && len(tl.sel) > 0:
		tl.selectRange(tl.anchor, r)
	default:
		clear(tl.sel)
		tl.sel[r] = true
		tl.anchor = r
	}
	tl.cursor = r
	tl.list.Refresh()
}

func (tl *trackList) selectRange(a, b int) {
	clear(tl.sel)
	for i := min(a, b); i <= max(a, b); i++ {
		tl.sel[i] = true
	}
}

// selectAll selects every row.
func (tl *trackList) selectAll() {
	for r := range tl.tracks {
		tl.sel[r] = true
	}
	tl.list.Refresh()
}

// rows is the selection, in shown order.
func (tl *trackList) rows() []int {
	out := make([]int, 0, len(tl.sel))
	for r := range tl.sel {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// selection is what a menu opened on row r acts on: the selection when r
// is part of it, else r alone (which becomes the selection).
func (tl *trackList) selection(r int) []*track {
	return tl.tracksOf(tl.menuRows(r))
}

func (tl *trackList) menuRows(r int) []int {
	if !tl.sel[r] {
		tl.click(r, 0)
	}
	return tl.rows()
}

func (tl *trackList) tracksOf(rows []int) []*track {
	out := make([]*track, len(rows))
	for i, r := range rows {
		out[i] = tl.tracks[r]
	}
	return out
}

// focus gives the keyboard to the list.
func (tl *trackList) focus() { tl.u.win.Canvas().Focus(tl.list) }

// moveCursor moves the keyboard's row by d (clamped), selecting it, or
// extending the selection with Shift.
func (tl *trackList) moveCursor(to int) {
	if len(tl.tracks) == 0 {
		return
	}
	to = max(0, min(to, len(tl.tracks)-1))
	if len(tl.sel) == 0 && !tl.shift {
		to = max(0, min(tl.cursor, len(tl.tracks)-1)) // the first key shows where the keyboard is
	}
	tl.cursor = to
	if tl.shift {
		tl.selectRange(tl.anchor, to)
	} else {
		clear(tl.sel)
		tl.sel[to] = true
		tl.anchor = to
	}
	tl.list.ScrollTo(to)
	tl.list.Refresh()
}

// page is how many rows a screen of the list holds.
func (tl *trackList) page() int {
	if tl.rowH <= 0 {
		return 10
	}
	return max(1, int(tl.list.Size().Height/(tl.rowH+theme.Padding()))-1)
}

func (tl *trackList) typedKey(e *fyne.KeyEvent) {
	switch e.Name {
	case fyne.KeyDown:
		tl.moveCursor(tl.cursor + 1)
	case fyne.KeyUp:
		tl.moveCursor(tl.cursor - 1)
	case fyne.KeyPageDown:
		tl.moveCursor(tl.cursor + tl.page())
	case fyne.KeyPageUp:
		tl.moveCursor(tl.cursor - tl.page())
	case fyne.KeyHome:
		tl.moveCursor(0)
	case fyne.KeyEnd:
		tl.moveCursor(len(tl.tracks) - 1)
	case fyne.KeyReturn, fyne.KeyEnter:
		if rows := tl.rows(); len(rows) > 0 && tl.hooks.activate != nil {
			tl.hooks.activate(rows)
		}
	case fyne.KeyDelete, fyne.KeyBackspace:
		if rows := tl.rows(); len(rows) > 0 && tl.hooks.remove != nil {
			tl.hooks.remove(rows)
		}
	case desktop.KeyMenu:
		tl.menuAtCursor()
	case fyne.KeyF10:
		if tl.shift {
			tl.menuAtCursor()
		}
	case fyne.KeyEscape:
		if len(tl.sel) > 0 {
			clear(tl.sel)
			tl.list.Refresh()
			return
		}
		tl.u.typedKey(e)
	default:
		tl.u.typedKey(e) // Space, ←/→ and the like work everywhere
	}
}

// shortcut handles Ctrl+A and Alt+↑/↓ on the list; others go to the
// window.
func (tl *trackList) shortcut(s fyne.Shortcut) {
	switch s := s.(type) {
	case *fyne.ShortcutSelectAll:
		tl.selectAll()
		return
	case *desktop.CustomShortcut:
		if s.Modifier == fyne.KeyModifierAlt && (s.KeyName == fyne.KeyUp || s.KeyName == fyne.KeyDown) {
			d := 1
			if s.KeyName == fyne.KeyUp {
				d = -1
			}
			tl.moveBy(d)
			return
		}
	}
	tl.u.win.Canvas().(interface{ TypedShortcut(fyne.Shortcut) }).TypedShortcut(s)
}

// movable reports whether rows can be moved by hand now.
func (tl *trackList) movable() bool { return tl.hooks.move != nil && !tl.sorted() }

// moveBy moves the selection one row up (d < 0) or down.
func (tl *trackList) moveBy(d int) {
	rows := tl.rows()
	if !tl.movable() || len(rows) == 0 {
		return
	}
	// to: the place of the first selected row among the rows that stay.
	to := rows[0] + d
	if to < 0 || to+len(rows) > len(tl.tracks) {
		return
	}
	tl.hooks.move(rows, to)
	// The selection moves along (the list is redrawn when the move is
	// confirmed by the next status or list).
	clear(tl.sel)
	for i := range rows {
		tl.sel[to+i] = true
	}
	tl.cursor, tl.anchor = to, to
	tl.list.ScrollTo(to)
}

// menuAtCursor opens the selection's menu at the keyboard's row.
func (tl *trackList) menuAtCursor() {
	if tl.hooks.menu == nil || len(tl.tracks) == 0 {
		return
	}
	r := max(0, min(tl.cursor, len(tl.tracks)-1))
	m := tl.hooks.menu(tl.menuRows(r))
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(tl.list)
	pos = pos.AddXY(40, float32(r)*(tl.rowH+theme.Padding())-tl.list.GetScrollOffset()+tl.rowH)
	tl.u.popUpMenu(m, pos)
}

// dropPlace is where rows dropped on row at land: the place of the first
// of them among the rows that stay.
func dropPlace(rows []int, at int) int {
	moving := map[int]bool{}
	for _, r := range rows {
		moving[r] = true
	}
	down := at > rows[0]
	n := 0
	for r := 0; r < at || (down && r == at); r++ {
		if !moving[r] {
			n++
		}
	}
	return n
}

// keyList is the list widget of a trackList: it takes the keyboard
// (arrows, Page Up/Down, Home/End, Enter, Delete, Ctrl+A, Alt+↑/↓) for
// the trackList, which draws the keyboard's row itself.
type keyList struct {
	widget.List
	tl       *trackList
	rendered bool
}

// CreateRenderer is part of fyne.Widget.
func (l *keyList) CreateRenderer() fyne.WidgetRenderer {
	l.rendered = true
	return l.List.CreateRenderer()
}

// scrollToTop scrolls to the first row (once the list is on screen).
func (l *keyList) scrollToTop() {
	if l.rendered {
		l.ScrollToTop()
	}
}

func newKeyList(tl *trackList) *keyList {
	l := &keyList{tl: tl}
	l.Length = func() int { return len(tl.tracks) }
	l.CreateItem = func() fyne.CanvasObject { return newTrackRow(tl) }
	l.UpdateItem = func(id widget.ListItemID, o fyne.CanvasObject) { o.(*trackRow).bind(id) }
	l.HideSeparators = true
	l.ExtendBaseWidget(l)
	return l
}

// FocusGained is part of fyne.Focusable.
func (l *keyList) FocusGained() {
	l.tl.focused = true
	l.Refresh()
}

// FocusLost is part of fyne.Focusable.
func (l *keyList) FocusLost() {
	l.tl.focused, l.tl.shift = false, false
	l.Refresh()
}

// TypedKey is part of fyne.Focusable.
func (l *keyList) TypedKey(e *fyne.KeyEvent) { l.tl.typedKey(e) }

// TypedRune is part of fyne.Focusable: "?" shows the keyboard shortcuts.
func (l *keyList) TypedRune(r rune) { l.tl.u.typedRune(r) }

// TypedShortcut is part of fyne.Shortcutable.
func (l *keyList) TypedShortcut(s fyne.Shortcut) { l.tl.shortcut(s) }

// KeyDown notes the Shift keys for keyboard ranges.
func (l *keyList) KeyDown(e *fyne.KeyEvent) {
	if e.Name == desktop.KeyShiftLeft || e.Name == desktop.KeyShiftRight {
		l.tl.shift = true
	}
}

// KeyUp is part of desktop.Keyable.
func (l *keyList) KeyUp(e *fyne.KeyEvent) {
	if e.Name == desktop.KeyShiftLeft || e.Name == desktop.KeyShiftRight {
		l.tl.shift = false
	}
}
