package ui

import (
	"image/color"
	"math"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
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

// headerCell is the header of one column: its name and, when the list is
// sorted by it, an arrow. A click sorts; a right-click chooses columns.
type headerCell struct {
	widget.BaseWidget
	tl      *trackList
	c       column
	label   *canvas.Text
	arrow   *widget.Icon
	focused bool
}

func newHeaderCell(tl *trackList, c column) *headerCell {
	d := colDefs[c]
	name := d.name
	if c != colPos && c != colTrackNo {
		name = upper(name)
	}
	h := &headerCell{tl: tl, c: c, label: canvas.NewText(name, themeColor(colorNameSecondary)), arrow: widget.NewIcon(theme.MenuDropDownIcon())}
	h.label.TextStyle.Bold = true
	h.label.TextSize = theme.CaptionTextSize()
	h.label.Alignment = d.align
	h.arrow.Hide()
	h.ExtendBaseWidget(h)
	keep(tl.u, h, func(h *headerCell) Control { return Control{Kind: "header", Text: h.label.Text, Secondary: "menu"} })
	return h
}

func (h *headerCell) setSorted(on, desc bool) {
	icon := theme.MenuDropUpIcon()
	if desc {
		icon = theme.MenuDropDownIcon()
	}
	if on {
		h.arrow.SetResource(icon)
		h.arrow.Show()
	} else {
		h.arrow.Hide()
	}
	h.Refresh()
}

func (h *headerCell) CreateRenderer() fyne.WidgetRenderer {
	return &headerRenderer{h: h}
}

type headerRenderer struct{ h *headerCell }

func (r *headerRenderer) Layout(size fyne.Size) {
	pad := theme.InnerPadding()
	const a = 14
	ls := r.h.label.MinSize()
	w := max(size.Width-2*pad, 0)
	if r.h.arrow.Visible() {
		w = max(w-a, 0)
	}
	x := pad
	if r.h.label.Alignment == fyne.TextAlignTrailing && r.h.arrow.Visible() {
		x += a
	}
	r.h.label.Move(fyne.NewPos(x, (size.Height-ls.Height)/2))
	r.h.label.Resize(fyne.NewSize(w, ls.Height))
	ax := pad + min(ls.Width, w)
	if r.h.label.Alignment == fyne.TextAlignTrailing {
		ax = pad
	}
	r.h.arrow.Move(fyne.NewPos(ax, (size.Height-a)/2))
	r.h.arrow.Resize(fyne.NewSize(a, a))
}

func (r *headerRenderer) MinSize() fyne.Size {
	pad := theme.InnerPadding()
	return fyne.NewSize(2*pad, r.h.label.MinSize().Height+pad)
}

func (r *headerRenderer) Refresh() {
	r.h.label.Color = themeColor(colorNameSecondary)
	if r.h.focused {
		r.h.label.Color = theme.Color(theme.ColorNamePrimary)
	}
	r.h.label.Refresh()
	r.Layout(r.h.Size())
}

func (r *headerRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.h.label, r.h.arrow}
}
func (r *headerRenderer) Destroy() {}

// Tapped sorts by the column.
func (h *headerCell) Tapped(*fyne.PointEvent) { h.tl.sortBy(h.c) }

// TappedSecondary chooses the columns.
func (h *headerCell) TappedSecondary(e *fyne.PointEvent) {
	h.tl.u.popUpMenu(h.tl.columnsMenu(), e.AbsolutePosition)
}

// FocusGained is part of fyne.Focusable: Tab reaches the headers, Enter
// or Space sorts by the column, the menu key chooses the columns.
func (h *headerCell) FocusGained() {
	h.focused = true
	h.label.Color = theme.Color(theme.ColorNamePrimary)
	h.label.Refresh()
}

// FocusLost is part of fyne.Focusable.
func (h *headerCell) FocusLost() {
	h.focused = false
	h.Refresh()
}

// TypedRune is part of fyne.Focusable.
func (h *headerCell) TypedRune(rune) {}

// Disabled is part of fyne.Disableable: Tab skips the headers of a list
// that does not sort by them.
func (h *headerCell) Disabled() bool { return !h.tl.sortable || !colDefs[h.c].sortable }

// Enable and Disable are part of fyne.Disableable; a header is enabled
// by what its list allows.
func (h *headerCell) Enable()  {}
func (h *headerCell) Disable() {}

// TypedKey sorts on Enter or Space and opens the column chooser on the
// menu key.
func (h *headerCell) TypedKey(e *fyne.KeyEvent) {
	switch e.Name {
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace:
		h.tl.sortBy(h.c)
	case desktop.KeyMenu:
		h.tl.u.popUpMenuAt(h.tl.columnsMenu(), h)
	default:
		h.tl.u.typedKey(e)
	}
}

// Cursor is part of desktop.Cursorable: a sortable column's header is a
// link.
func (h *headerCell) Cursor() desktop.Cursor {
	if h.tl.sortable && colDefs[h.c].sortable {
		return desktop.PointerCursor
	}
	return desktop.DefaultCursor
}

// trackRow is one row of a trackList.
type trackRow struct {
	widget.BaseWidget
	tl                   *trackList
	id                   int
	cells                [numColumns]*cell
	icon                 *widget.Icon
	heart                *heartCell
	bg, focus, hover     *canvas.Rectangle
	dropAbove, dropBelow *canvas.Rectangle
	head                 *widget.Label    // the group heading above the row, hidden when none
	body                 *fyne.Container  // the row under the heading
	mods                 fyne.KeyModifier // of the mouse button press being handled
	// box lays the cells out for the columns laid, laid out again when the
	// list's visible columns changed.
	box  *fyne.Container
	laid colSet
}

func newTrackRow(tl *trackList) *trackRow {
	r := &trackRow{tl: tl, id: -1}
	for c := range numColumns {
		r.cells[c] = newCell(colDefs[c].align, theme.ColorNameForeground)
	}
	r.icon = widget.NewIcon(theme.NewPrimaryThemedResource(theme.MediaPlayIcon()))
	r.icon.Hide()
	r.heart = newHeartCell(func() {
		if r.id >= 0 && r.id < len(r.tl.tracks) {
			r.tl.u.toggleLike(r.tl.tracks[r.id].ContentID)
		}
	})
	r.bg = canvas.NewRectangle(theme.Color(theme.ColorNameSelection))
	r.bg.CornerRadius = 4
	r.bg.Hide()
	r.hover = canvas.NewRectangle(theme.Color(theme.ColorNameHover))
	r.hover.CornerRadius = 4
	r.hover.Hide()
	r.focus = canvas.NewRectangle(color0)
	r.focus.StrokeColor = theme.Color(theme.ColorNameFocus)
	r.focus.StrokeWidth = 1
	r.focus.CornerRadius = 4
	r.focus.Hide()
	line := func() *canvas.Rectangle {
		x := canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))
		x.Hide()
		return x
	}
	r.dropAbove, r.dropBelow = line(), line()
	r.head = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.head.Truncation = fyne.TextTruncateEllipsis
	r.head.Hide()
	r.ExtendBaseWidget(r)
	keep(tl.u, r, func(r *trackRow) Control {
		ctl := Control{Kind: "row", Text: r.cells[colTitle].text}
		if r.tl.hooks.menu != nil {
			ctl.Secondary = "menu"
		}
		return ctl
	})
	if tl.rowH == 0 {
		tl.rowH = r.MinSize().Height
	}
	return r
}

func (r *trackRow) CreateRenderer() fyne.WidgetRenderer {
	objs := make([]fyne.CanvasObject, numColumns)
	for c := range numColumns {
		switch c {
		case colPos, colTrackNo:
			objs[c] = container.NewStack(r.cells[c], container.NewCenter(r.icon))
		case colHeart:
			objs[c] = r.heart
		default:
			objs[c] = r.cells[c]
		}
	}
	cells := container.New(colLayout{visible: &r.tl.visible}, objs...)
	r.box, r.laid = cells, r.tl.visible
	r.body = container.NewStack(r.hover, r.bg, r.focus, cells,
		container.New(dropLines{}, r.dropAbove, r.dropBelow))
	return widget.NewSimpleRenderer(container.New(headedRow{r.head}, r.head, r.body))
}

func (r *trackRow) bind(id int) {
	r.id = id
	tl := r.tl
	if id < 0 || id >= len(tl.tracks) {
		return
	}
	if h := tl.heading(id); h != "" || r.head.Visible() {
		r.head.SetText(h)
		r.head.Hidden = h == ""
		if r.body != nil {
			headedRow{r.head}.Layout([]fyne.CanvasObject{r.head, r.body}, r.Size())
		}
	}
	t := tl.tracks[id]
	if r.box != nil && r.laid != tl.visible {
		r.laid = tl.visible
		r.box.Refresh() // lays the cells out for the columns shown now
	}
	cur := tl.isCurrent(id)
	missing := tl.hooks.missing != nil && tl.hooks.missing(id)
	place, remote := tl.u.place(t)
	offline := remote && !place.Playable && !missing
	fg, low := theme.ColorNameForeground, colorNameSecondary
	if missing || offline {
		fg, low = theme.ColorNameDisabled, theme.ColorNameDisabled
	}
	ps := tl.u.plays[t.ContentID]
	now := tl.u.now()
	num := colTrackNo
	if tl.visible.has(colPos) {
		num = colPos
	}
	for c := range numColumns {
		if !tl.visible.has(c) || c == colHeart {
			continue
		}
		text := cellText(c, t, id, ps, now)
		color := fg
		switch c {
		case colTitle:
			switch {
			case missing:
				text += " (on no device online)"
			case offline && !tl.visible.has(colWhere):
				text += " — " + place.Where
			}
			if cur {
				color = theme.ColorNamePrimary
			}
		case colPos, colTrackNo, colTime, colYear, colDisc, colAdded, colPlays, colLast:
			color = low
		case colWhere:
			text, color = place.Where, low
		}
		if c == colPos && tl.perm != nil {
			text = itoa(tl.baseIndex(id) + 1)
		}
		r.cells[c].set(text, c == colTitle && cur, color)
	}
	if cur != r.icon.Visible() || (cur && r.cells[num].Visible()) {
		if cur {
			r.cells[num].Hide()
			r.icon.Show()
		} else {
			r.icon.Hide()
			r.cells[num].Show()
		}
	}
	if !cur && !r.cells[num].Visible() {
		r.cells[num].Show()
	}
	r.heart.set(tl.u.liked[t.ContentID])
	sel := tl.sel[id]
	if sel != r.bg.Visible() {
		r.bg.Hidden = !sel
		r.bg.Refresh()
	}
	foc := tl.focused && tl.cursor == id
	if foc != r.focus.Visible() {
		r.focus.Hidden = !foc
		r.focus.Refresh()
	}
	dragging := tl.dragRows != nil && tl.dropAt == id
	above := dragging && id < tl.dragRows[0]
	below := dragging && id > tl.dragRows[0]
	if above == r.dropAbove.Hidden || below == r.dropBelow.Hidden {
		r.dropAbove.Hidden, r.dropBelow.Hidden = !above, !below
		r.dropAbove.Refresh()
		r.dropBelow.Refresh()
	}
}

// MouseDown notes the modifier keys of a click for Tapped.
func (r *trackRow) MouseDown(e *desktop.MouseEvent) { r.mods = e.Modifier }

// MouseIn highlights the row and shows the text of a cell cut short
// under the mouse in full.
func (r *trackRow) MouseIn(e *desktop.MouseEvent) {
	r.hover.Show()
	r.MouseMoved(e)
}

// MouseMoved is part of desktop.Hoverable.
func (r *trackRow) MouseMoved(e *desktop.MouseEvent) {
	r.tl.u.tips.want(r, r.cutTextAt(e.Position), e.AbsolutePosition)
}

// MouseOut is part of desktop.Hoverable.
func (r *trackRow) MouseOut() {
	r.hover.Hide()
	r.tl.u.tips.hide(r)
}

// cutTextAt is the full text of the cell at pos (in the row) when it is
// shown cut with an ellipsis, else "".
func (r *trackRow) cutTextAt(pos fyne.Position) string {
	for c, cl := range r.cells {
		if !r.tl.visible.has(column(c)) || !cl.Visible() {
			continue
		}
		p := cl.Position()
		if column(c) == colPos || column(c) == colTrackNo {
			continue
		}
		if pos.X >= p.X && pos.X < p.X+cl.Size().Width && cl.cut() {
			return cl.text
		}
	}
	return ""
}

// MouseUp is part of desktop.Mouseable.
func (r *trackRow) MouseUp(*desktop.MouseEvent) {}

// Tapped selects the row (Ctrl and Shift extend the selection) and gives
// the list the keyboard.
func (r *trackRow) Tapped(*fyne.PointEvent) {
	if r.id >= 0 && r.id < len(r.tl.tracks) {
		r.tl.click(r.id, r.mods)
		r.mods = 0
		r.tl.focus()
	}
}

// DoubleTapped plays from this row.
func (r *trackRow) DoubleTapped(*fyne.PointEvent) {
	if r.id >= 0 && r.id < len(r.tl.tracks) && r.tl.hooks.activate != nil {
		r.tl.click(r.id, 0)
		r.tl.hooks.activate([]int{r.id})
	}
}

// TappedSecondary opens the context menu of the selection, or of this row.
func (r *trackRow) TappedSecondary(e *fyne.PointEvent) {
	if r.id < 0 || r.id >= len(r.tl.tracks) || r.tl.hooks.menu == nil {
		return
	}
	m := r.tl.hooks.menu(r.tl.menuRows(r.id))
	r.tl.u.popUpMenu(m, e.AbsolutePosition)
}

// Dragged moves the drop mark while rows of a list that allows moving
// are dragged: the selection when this row is in it, else this row.
func (r *trackRow) Dragged(e *fyne.DragEvent) {
	tl := r.tl
	if r.id < 0 || r.id >= len(tl.tracks) || !tl.movable() {
		return
	}
	if tl.dragRows == nil {
		if !tl.sel[r.id] {
			tl.click(r.id, 0)
		}
		tl.dragRows, tl.dragDY = tl.rows(), 0
		tl.dropAt, tl.dragStart = r.id, r.id
	}
	tl.dragDY += e.Dragged.DY
	step := tl.rowH + theme.Padding()
	if step <= 0 {
		return
	}
	to := tl.dragStart + int(math.Round(float64(tl.dragDY/step)))
	to = max(0, min(to, len(tl.tracks)-1))
	if to != tl.dropAt {
		tl.dropAt = to
		tl.list.Refresh()
	}
}

// DragEnd moves the dragged rows to where they were dropped.
func (r *trackRow) DragEnd() {
	tl := r.tl
	rows, at := tl.dragRows, tl.dropAt
	tl.dragRows, tl.dropAt, tl.dragDY = nil, -1, 0
	tl.list.Refresh()
	if rows == nil || at < 0 || at == tl.dragStart && len(rows) == 1 {
		return
	}
	to := dropPlace(rows, at)
	if to == rows[0] && rows[len(rows)-1]-rows[0] == len(rows)-1 {
		return // a block dropped where it is
	}
	tl.hooks.move(rows, to)
	clear(tl.sel)
	for i := range rows {
		tl.sel[to+i] = true
	}
	tl.cursor, tl.anchor = to, to
}

// heartCell is the heart of a row: filled in the accent colour for a liked
// track, a faint outline otherwise; tapping it likes or unlikes.
type heartCell struct {
	widget.BaseWidget
	icon  *widget.Icon
	liked bool
	onTap func()
}

func newHeartCell(onTap func()) *heartCell {
	h := &heartCell{icon: widget.NewIcon(theme.NewDisabledResource(iconHeartOutline)), onTap: onTap}
	h.ExtendBaseWidget(h)
	return h
}

func (h *heartCell) set(liked bool) {
	if liked == h.liked {
		return
	}
	h.liked = liked
	if liked {
		h.icon.SetResource(iconLiked)
	} else {
		h.icon.SetResource(theme.NewDisabledResource(iconHeartOutline))
	}
}

func (h *heartCell) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewCenter(container.New(fixedSize{fyne.NewSize(18, 18)}, h.icon)))
}

// Tapped likes or unlikes the track.
func (h *heartCell) Tapped(*fyne.PointEvent) { h.onTap() }

func (h *heartCell) MinSize() fyne.Size { return fyne.NewSize(24, 24) }

// dropLines lays out the two drop marks of a row: a thin line along its
// top edge and one along its bottom edge.
type dropLines struct{}

func (dropLines) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(size.Width, 2))
	objs[1].Move(fyne.NewPos(0, size.Height-2))
	objs[1].Resize(fyne.NewSize(size.Width, 2))
}

func (dropLines) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(0, 0) }

var color0 = color.Transparent

func upper(s string) string { return strings.ToUpper(s) }

// headedRow lays out a row under its group heading (when shown).
type headedRow struct{ head *widget.Label }

func (l headedRow) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	top := float32(0)
	if l.head.Visible() {
		top = groupHeadingHeight()
		objs[0].Move(fyne.NewPos(0, theme.Padding()))
		objs[0].Resize(fyne.NewSize(size.Width, top-theme.Padding()))
	}
	objs[1].Move(fyne.NewPos(0, top))
	objs[1].Resize(fyne.NewSize(size.Width, size.Height-top))
}

func (l headedRow) MinSize(objs []fyne.CanvasObject) fyne.Size {
	s := objs[1].MinSize()
	if l.head.Visible() {
		s.Height += groupHeadingHeight()
	}
	return s
}
