package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
)

// playlistsPage lists Liked, the smart lists and the group's playlists on
// the left, and the chosen one's tracks on the right: play it (instead of
// the queue, or after it), rename, delete, export; drag a track to move
// it; right-click a track for its menu.
type playlistsPage struct {
	u       *UI
	lists   []app.PlaylistSummary
	nav     *widget.List
	open    *app.PlaylistView // nil: none chosen
	opening string            // the list last asked for
	want    string            // the list to open once listed (one just made)

	entries           *entryList
	title, info       *widget.Label
	play, queue, more *widget.Button
	hint              *widget.Label // an empty list, or none chosen
	detail            *fyne.Container
	view              fyne.CanvasObject
	current           string // content id of the playing track
}

func newPlaylistsPage(u *UI) *playlistsPage {
	p := &playlistsPage{u: u}
	p.nav = widget.NewList(
		func() int { return len(p.lists) },
		func() fyne.CanvasObject { return newListNavRow(p) },
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*listNavRow).bind(id) })
	p.nav.HideSeparators = true
	p.nav.OnSelected = func(id widget.ListItemID) {
		if id < len(p.lists) && p.lists[id].ID != p.opening {
			p.openList(p.lists[id].ID)
		}
	}
	newList := widget.NewButtonWithIcon("New playlist", iconPlaylistAdd, func() { u.newPlaylistDialog(nil) })
	imp := widget.NewButtonWithIcon("Import a playlist file…", theme.DownloadIcon(), p.importDialog)
	imp.Importance = widget.LowImportance
	left := container.NewBorder(container.NewPadded(newList), container.NewPadded(imp), nil, nil, p.nav)

	p.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.title.SizeName = theme.SizeNameHeadingText
	p.title.Truncation = fyne.TextTruncateEllipsis
	p.info = widget.NewLabel("")
	p.play = widget.NewButtonWithIcon("Play", theme.MediaPlayIcon(), func() { p.playOpen(0, false) })
	p.play.Importance = widget.HighImportance
	p.queue = widget.NewButtonWithIcon("Add to queue", theme.ContentAddIcon(), func() { p.playOpen(0, true) })
	p.more = widget.NewButtonWithIcon("", theme.MoreHorizontalIcon(), p.showMore)
	p.more.Importance = widget.LowImportance
	head := container.NewVBox(p.title, secondary(p.info), container.NewHBox(p.play, p.queue, p.more))
	p.entries = newEntryList(p)
	p.hint = widget.NewLabelWithStyle("", fyne.TextAlignCenter, fyne.TextStyle{})
	p.hint.Wrapping = fyne.TextWrapWord
	p.detail = container.NewBorder(container.NewVBox(container.NewPadded(head), widget.NewSeparator()), nil, nil, nil,
		container.NewStack(p.entries.view, container.NewCenter(secondary(p.hint))))
	split := container.NewHSplit(left, p.detail)
	split.Offset = 0.3
	p.view = split
	p.render()
	return p
}

// setLists shows the lists after a change anywhere in the group, and the
// open one again as it is now.
func (p *playlistsPage) setLists(lists []app.PlaylistSummary, err error) {
	if err != nil {
		p.lists, p.open = nil, nil
		p.nav.Refresh()
		p.hint.SetText("Playlists are not available: " + userError(err))
		p.render()
		return
	}
	p.lists = lists
	p.nav.Refresh()
	listed := func(id string) bool {
		for _, l := range lists {
			if l.ID == id {
				return true
			}
		}
		return false
	}
	// The one just made, else the one open (unless deleted, here or on
	// another device), else the first playlist, else Liked.
	var id string
	switch {
	case p.want != "" && listed(p.want):
		id, p.want = p.want, ""
	case p.open != nil && listed(p.open.ID):
		id = p.open.ID
	default:
		for _, l := range lists {
			if l.Kind == app.KindPlaylist {
				id = l.ID
				break
			}
		}
		if id == "" && len(lists) > 0 {
			id = lists[0].ID
		}
	}
	if id == "" {
		p.open = nil
		p.render()
		return
	}
	p.openList(id)
}

// openList loads a list and shows it.
func (p *playlistsPage) openList(id string) {
	p.opening = id // selecting it in the column below must not load it again
	for i, l := range p.lists {
		if l.ID == id {
			p.nav.Select(i)
		}
	}
	p.u.spawn(func() {
		v, err := p.u.b.Playlist(id)
		fyne.Do(func() {
			if err != nil {
				p.u.showError("Could not open the list: " + userError(err))
				return
			}
			p.open = &v
			p.render()
		})
	})
}

func (p *playlistsPage) render() {
	v := p.open
	if v == nil {
		p.title.SetText("")
		p.info.SetText("")
		p.entries.set(nil, false, false)
		for _, b := range []*widget.Button{p.play, p.queue, p.more} {
			b.Disable()
		}
		if len(p.lists) > 0 {
			p.hint.SetText("Pick a playlist on the left.")
		}
		p.hint.Show()
		return
	}
	p.title.SetText(v.Name)
	p.info.SetText(listInfo(*v))
	p.entries.set(v.Entries, v.Editable() || v.Kind == app.KindLiked, v.ID == app.ListMostPlayed || v.ID == app.ListRecentlyPlayed)
	for _, b := range []*widget.Button{p.play, p.queue} {
		if len(v.Entries) == 0 {
			b.Disable()
		} else {
			b.Enable()
		}
	}
	p.more.Enable()
	switch {
	case len(v.Entries) > 0:
		p.hint.Hide()
		return
	case v.Kind == app.KindLiked:
		p.hint.SetText("Tracks you like appear here. Click the heart of a track, or right-click it and choose Like.")
	case v.Kind == app.KindSmart:
		p.hint.SetText("Nothing here yet: this list fills itself as you listen and add music.")
	default:
		p.hint.SetText("This playlist is empty. Right-click tracks, an album or the queue and choose Add to playlist.")
	}
	p.hint.Show()
}

// listInfo is the line under a list's name: "12 tracks · 48:10", and how
// many this device has no file for.
func listInfo(v app.PlaylistView) string {
	info := plural(len(v.Entries), "track", "tracks") + " · " + formatDuration(msDuration(v.DurationMS))
	missing := 0
	for _, e := range v.Entries {
		if !e.Available {
			missing++
		}
	}
	if missing > 0 {
		info += fmt.Sprintf(" · %d not on this device", missing)
	}
	switch v.ID {
	case app.ListMostPlayed:
		info += " · played most on all your devices"
	case app.ListRecentlyPlayed:
		info += " · played last on all your devices"
	case app.ListRecentlyAdded:
		info += " · added last to this device's library"
	}
	return info
}

// listMenu is the menu of a list: rename and delete for a playlist,
// export for any.
func (p *playlistsPage) listMenu(l app.PlaylistSummary) []*fyne.MenuItem {
	var items []*fyne.MenuItem
	if l.Editable() {
		items = append(items,
			fyne.NewMenuItemWithIcon("Rename…", theme.DocumentCreateIcon(), p.renameDialog),
			fyne.NewMenuItemWithIcon("Delete…", theme.DeleteIcon(), p.deleteDialog))
	}
	return append(items, fyne.NewMenuItemWithIcon("Export…", theme.UploadIcon(), p.exportDialog))
}

// showMore pops up the open list's menu under the … button.
func (p *playlistsPage) showMore() {
	if p.open == nil {
		return
	}
	c := fyne.CurrentApp().Driver().CanvasForObject(p.more)
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(p.more).AddXY(0, p.more.Size().Height)
	widget.ShowPopUpMenuAtPosition(fyne.NewMenu("", p.listMenu(p.open.PlaylistSummary)...), c, pos)
}

// setCurrent marks the playing track in the open list.
func (p *playlistsPage) setCurrent(cid string) {
	if cid != p.current {
		p.current = cid
		p.entries.list.Refresh()
	}
}

// playOpen plays the open list from index start, or adds it to the queue.
func (p *playlistsPage) playOpen(start int, appendQ bool) {
	if p.open == nil {
		return
	}
	id, name := p.open.ID, p.open.Name
	if appendQ {
		p.u.runThen(func() error { return p.u.b.PlayPlaylist(id, start, true) }, func(err error) {
			if err != nil {
				p.u.showError("Could not add “" + name + "” to the queue: " + userError(err))
				return
			}
			p.u.notices.info("“" + name + "” added to the queue.")
		})
		return
	}
	p.u.run("Could not play “"+name+"”", func() error { return p.u.b.PlayPlaylist(id, start, false) })
}

func (p *playlistsPage) renameDialog() {
	if p.open == nil || !p.open.Editable() {
		return
	}
	id, old := p.open.ID, p.open.Name
	name := widget.NewEntry()
	name.SetText(old)
	d := dialog.NewForm("Rename playlist", "Rename", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", name)}, func(ok bool) {
		if ok && name.Text != old {
			text := name.Text
			p.u.run("Could not rename “"+old+"”", func() error { return p.u.b.RenamePlaylist(id, text) })
		}
	}, p.u.win)
	d.Resize(fyne.NewSize(420, 160))
	p.u.plDialog = d
	d.Show()
}

func (p *playlistsPage) deleteDialog() {
	if p.open == nil || !p.open.Editable() {
		return
	}
	id, name := p.open.ID, p.open.Name
	d := dialog.NewConfirm("Delete playlist", "Delete “"+name+"” on every device of the group?", func(ok bool) {
		if ok {
			p.u.run("Could not delete “"+name+"”", func() error { return p.u.b.DeletePlaylist(id) })
		}
	}, p.u.win)
	p.u.plDialog = d
	d.Show()
}

func (p *playlistsPage) importDialog() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			p.u.showError("Could not open the file picker: " + userError(err))
			return
		}
		if r == nil {
			return
		}
		path := r.URI().Path()
		_ = r.Close()
		p.importFile(path)
	}, p.u.win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".m3u", ".m3u8"}))
	d.Resize(fyne.NewSize(760, 520))
	d.Show()
}

// importFile imports an M3U file and shows what came of it.
func (p *playlistsPage) importFile(path string) {
	var rep app.ImportReport
	p.u.runThen(func() error {
		r, err := p.u.b.ImportPlaylist(path)
		rep = r
		return err
	}, func(err error) {
		if err != nil && rep.Imported == 0 {
			p.u.showError("Could not import " + shorten(path, 80) + ": " + userError(err))
			if len(rep.Unmatched)+len(rep.Problems) == 0 {
				return
			}
		}
		if rep.Playlist.ID != "" {
			p.want = rep.Playlist.ID
		}
		p.showImportReport(rep)
	})
}

// importText sums an import up in sentences, naming the lines it could not
// use.
func importText(rep app.ImportReport) string {
	var b strings.Builder
	if rep.Imported > 0 {
		fmt.Fprintf(&b, "%s imported into “%s”", plural(rep.Imported, "track", "tracks"), rep.Playlist.Name)
		if rep.MatchedByTags > 0 {
			fmt.Fprintf(&b, " (%d found by title, artist and length)", rep.MatchedByTags)
		}
		b.WriteString(".\n")
	}
	if rep.NotFound > 0 {
		fmt.Fprintf(&b, "\n%s not in your library:\n", plural(rep.NotFound, "track is", "tracks are"))
		for _, l := range rep.Unmatched {
			fmt.Fprintf(&b, "  line %d: %s\n", l.Line, shorten(l.Text, 120))
		}
	}
	if len(rep.Problems) > 0 {
		fmt.Fprintf(&b, "\n%s could not be read:\n", plural(len(rep.Problems), "line", "lines"))
		for _, l := range rep.Problems {
			fmt.Fprintf(&b, "  %s\n", userSentence(shorten(l.Reason, 160)))
		}
	}
	return strings.TrimSpace(b.String())
}

func (p *playlistsPage) showImportReport(rep app.ImportReport) {
	if rep.NotFound == 0 && len(rep.Problems) == 0 {
		p.u.notices.info(importText(rep))
		return
	}
	text := widget.NewLabel(importText(rep))
	text.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("Playlist import", "Close", container.NewVScroll(text), p.u.win)
	d.Resize(fyne.NewSize(620, 420))
	p.u.plDialog = d
	d.Show()
}

func (p *playlistsPage) exportDialog() {
	if p.open == nil {
		return
	}
	id, name := p.open.ID, p.open.Name
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil {
			p.u.showError("Could not open the file picker: " + userError(err))
			return
		}
		if w == nil {
			return
		}
		path := w.URI().Path()
		_ = w.Close()
		p.exportTo(id, name, path)
	}, p.u.win)
	d.SetFileName(safeFileName(name) + ".m3u8")
	d.Resize(fyne.NewSize(760, 520))
	d.Show()
}

func (p *playlistsPage) exportTo(id, name, path string) {
	var rep app.ExportReport
	p.u.runThen(func() error {
		r, err := p.u.b.ExportPlaylist(id, path)
		rep = r
		return err
	}, func(err error) {
		if err != nil {
			p.u.showError("Could not export “" + name + "”: " + userError(err))
			return
		}
		msg := plural(rep.Written, "track", "tracks") + " of “" + name + "” written to " + shorten(rep.Path, 80) + "."
		if n := len(rep.Skipped); n > 0 {
			msg += " " + plural(n, "track has", "tracks have") + " no file on this device and were left out."
		}
		p.u.notices.info(msg)
	})
}

// safeFileName keeps a playlist name usable as a file name.
func safeFileName(s string) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>|`, r) || r < ' ' {
			return '_'
		}
		return r
	}, s)
	if s == "" {
		return "playlist"
	}
	return s
}

// listNavRow is one list of the left column.
type listNavRow struct {
	widget.BaseWidget
	p     *playlistsPage
	id    int
	icon  *widget.Icon
	name  *widget.Label
	count *widget.Label
}

func newListNavRow(p *playlistsPage) *listNavRow {
	r := &listNavRow{p: p, id: -1, icon: widget.NewIcon(iconPlaylist)}
	r.name = widget.NewLabel("")
	r.name.Truncation = fyne.TextTruncateEllipsis
	r.count = widget.NewLabel("")
	r.count.SizeName = theme.SizeNameCaptionText
	r.ExtendBaseWidget(r)
	return r
}

func (r *listNavRow) CreateRenderer() fyne.WidgetRenderer {
	r.count.Alignment = fyne.TextAlignTrailing
	count := container.New(fixedSize{fyne.NewSize(34, 0)}, secondary(r.count))
	return widget.NewSimpleRenderer(container.NewBorder(nil, nil, container.NewPadded(r.icon), count, r.name))
}

func (r *listNavRow) bind(id int) {
	r.id = id
	if id < 0 || id >= len(r.p.lists) {
		return
	}
	l := r.p.lists[id]
	r.icon.SetResource(listIcon(l))
	r.name.SetText(l.Name)
	r.count.SetText(itoa(l.Tracks))
}

func listIcon(l app.PlaylistSummary) fyne.Resource {
	switch l.ID {
	case app.ListLiked:
		return iconLiked
	case app.ListMostPlayed:
		return iconTrending
	case app.ListRecentlyPlayed:
		return iconHistory
	case app.ListRecentlyAdded:
		return iconNewTracks
	}
	return iconPlaylist
}

// Tapped opens the list.
func (r *listNavRow) Tapped(*fyne.PointEvent) {
	if r.id >= 0 {
		r.p.nav.Select(r.id)
	}
}

// TappedSecondary offers play, add to queue, rename, delete and export.
func (r *listNavRow) TappedSecondary(e *fyne.PointEvent) {
	if r.id < 0 || r.id >= len(r.p.lists) {
		return
	}
	p, l := r.p, r.p.lists[r.id]
	p.nav.Select(r.id)
	items := []*fyne.MenuItem{
		fyne.NewMenuItemWithIcon("Play", theme.MediaPlayIcon(), func() {
			p.u.run("Could not play “"+l.Name+"”", func() error { return p.u.b.PlayPlaylist(l.ID, 0, false) })
		}),
		fyne.NewMenuItemWithIcon("Add to queue", theme.ContentAddIcon(), func() {
			p.u.run("Could not add “"+l.Name+"” to the queue", func() error { return p.u.b.PlayPlaylist(l.ID, 0, true) })
		}),
	}
	items = append(items, fyne.NewMenuItemSeparator())
	items = append(items, p.listMenu(l)...)
	widget.ShowPopUpMenuAtPosition(fyne.NewMenu("", items...), fyne.CurrentApp().Driver().CanvasForObject(r), e.AbsolutePosition)
}

// entryList is the tracks of the open list; in a playlist, dragging a
// track moves it.
type entryList struct {
	p        *playlistsPage
	items    []app.PlaylistEntry
	editable bool // remove (and, in a playlist, move) allowed
	list     *widget.List
	layout   *columnsLayout
	view     fyne.CanvasObject
	sel      int // selected row, -1: none
	dragFrom int // the row being dragged, -1: none
	dropAt   int // where it would land
	plays    bool
	fourth   *widget.Label // the fourth column's header: ALBUM or PLAYED
}

func newEntryList(p *playlistsPage) *entryList {
	l := &entryList{p: p, layout: trackColumns(), sel: -1, dragFrom: -1, dropAt: -1}
	l.list = widget.NewList(
		func() int { return len(l.items) },
		func() fyne.CanvasObject { return newEntryRow(l) },
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*entryRow).bind(id) })
	l.list.HideSeparators = true
	head := columnHeader(l.layout)
	l.fourth = head.(*fyne.Container).Objects[3].(*container.ThemeOverride).Content.(*widget.Label)
	l.view = container.NewBorder(container.NewVBox(head, widget.NewSeparator()), nil, nil, nil, l.list)
	return l
}

// set shows items; plays puts the play count and last play where the
// album is (Most played, Recently played).
func (l *entryList) set(items []app.PlaylistEntry, editable, plays bool) {
	l.items, l.editable = items, editable
	if plays != l.plays {
		l.plays = plays
		l.fourth.SetText(map[bool]string{true: "PLAYED", false: "ALBUM"}[plays])
	}
	if l.sel >= len(items) {
		l.sel = -1
	}
	l.list.Refresh()
}

// entryRow is one track of the open list.
type entryRow struct {
	widget.BaseWidget
	l                             *entryList
	id                            int
	no, title, artist, album, dur *cell
	heart                         *heartCell
	bg, dropAbove, dropBelow      *canvas.Rectangle
	dragDY                        float32
}

func newEntryRow(l *entryList) *entryRow {
	r := &entryRow{l: l, id: -1}
	fg, low := theme.ColorNameForeground, colorNameSecondary
	r.no, r.dur = newCell(fyne.TextAlignTrailing, low), newCell(fyne.TextAlignTrailing, low)
	r.title, r.artist, r.album = newCell(fyne.TextAlignLeading, fg), newCell(fyne.TextAlignLeading, fg), newCell(fyne.TextAlignLeading, fg)
	r.heart = newHeartCell(func() {
		if r.id >= 0 && r.id < len(r.l.items) {
			r.l.p.u.toggleLike(r.l.items[r.id].ContentID)
		}
	})
	r.bg = canvas.NewRectangle(theme.Color(theme.ColorNameSelection))
	r.bg.CornerRadius = 4
	r.bg.Hide()
	line := func() *canvas.Rectangle {
		x := canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))
		x.Hide()
		return x
	}
	r.dropAbove, r.dropBelow = line(), line()
	r.ExtendBaseWidget(r)
	return r
}

func (r *entryRow) CreateRenderer() fyne.WidgetRenderer {
	cells := container.New(r.l.layout, r.no, r.title, r.artist, r.album, r.heart, r.dur)
	lines := container.New(dropLines{}, r.dropAbove, r.dropBelow)
	return widget.NewSimpleRenderer(container.NewStack(r.bg, cells, lines))
}

func (r *entryRow) bind(id int) {
	r.id = id
	if id < 0 || id >= len(r.l.items) {
		return
	}
	e := r.l.items[id]
	fg, low := theme.ColorNameForeground, colorNameSecondary
	if !e.Available {
		fg = theme.ColorNameDisabled
	}
	title := e.Title
	if title == "" {
		title = "Untitled"
	}
	if !e.Available {
		title += " (not on this device)"
	}
	playing := e.ContentID == r.l.p.current
	tc := fg
	if playing {
		tc = theme.ColorNamePrimary
	}
	r.no.set(itoa(id+1), false, low)
	r.title.set(title, playing, tc)
	r.artist.set(joinArtists(e.Artists), false, fg)
	if r.l.plays {
		r.album.set(playsText(e, r.l.p.u.now()), false, fg)
	} else {
		r.album.set(orUnknown(e.Album, "album"), false, fg)
	}
	r.dur.set(formatDuration(msDuration(e.DurationMS)), false, low)
	r.heart.set(r.l.p.u.likedNow(e))
	r.bg.Hidden = r.l.sel != id
	r.dropAbove.Hidden = !(r.l.dragFrom >= 0 && r.l.dropAt == id && id < r.l.dragFrom)
	r.dropBelow.Hidden = !(r.l.dragFrom >= 0 && r.l.dropAt == id && id > r.l.dragFrom)
	r.bg.Refresh()
	r.dropAbove.Refresh()
	r.dropBelow.Refresh()
}

// playsText is "12 plays, 3 days ago": how often and when a track was
// last played on any device of the group.
func playsText(e app.PlaylistEntry, now time.Time) string {
	if e.Plays == 0 {
		return "not played"
	}
	text := plural(int(e.Plays), "play", "plays")
	if e.LastPlayedMS > 0 {
		switch d := now.Sub(time.UnixMilli(e.LastPlayedMS)); {
		case d < time.Minute:
			text += ", just now"
		case d < time.Hour:
			text += ", " + plural(int(d/time.Minute), "minute", "minutes") + " ago"
		case d < 24*time.Hour:
			text += ", " + plural(int(d/time.Hour), "hour", "hours") + " ago"
		default:
			text += ", " + plural(int(d/(24*time.Hour)), "day", "days") + " ago"
		}
	}
	return text
}

// likedNow is a track's like as the window shows it: its own toggles
// first, then what the app listed.
func (u *UI) likedNow(e app.PlaylistEntry) bool {
	if v, ok := u.liked[e.ContentID]; ok {
		return v
	}
	return e.Liked
}

// Tapped selects the row.
func (r *entryRow) Tapped(*fyne.PointEvent) {
	if r.id >= 0 {
		r.l.sel = r.id
		r.l.list.Refresh()
	}
}

// DoubleTapped plays the list from this track.
func (r *entryRow) DoubleTapped(*fyne.PointEvent) {
	if r.id >= 0 {
		r.l.sel = r.id
		r.l.p.playOpen(r.id, false)
	}
}

// Dragged moves the drop mark while a track of a playlist is dragged.
func (r *entryRow) Dragged(e *fyne.DragEvent) {
	l := r.l
	if r.id < 0 || l.p.open == nil || !l.p.open.Editable() {
		return
	}
	if l.dragFrom < 0 {
		l.dragFrom, r.dragDY = r.id, 0
	}
	r.dragDY += e.Dragged.DY
	step := r.Size().Height + theme.Padding()
	if step <= 0 {
		return
	}
	to := l.dragFrom + int(math.Round(float64(r.dragDY/step)))
	to = max(0, min(to, len(l.items)-1))
	if to != l.dropAt {
		l.dropAt = to
		l.list.Refresh()
	}
}

// DragEnd moves the dragged track to where it was dropped.
func (r *entryRow) DragEnd() {
	l := r.l
	from, to := l.dragFrom, l.dropAt
	l.dragFrom, l.dropAt, r.dragDY = -1, -1, 0
	l.list.Refresh()
	if from < 0 || to < 0 || from == to || l.p.open == nil {
		return
	}
	id, name := l.p.open.ID, l.p.open.Name
	l.sel = to
	l.p.u.run("Could not move the track in “"+name+"”", func() error { return l.p.u.b.MoveInPlaylist(id, from, to) })
}

// TappedSecondary offers the track's menu.
func (r *entryRow) TappedSecondary(e *fyne.PointEvent) {
	if r.id < 0 || r.id >= len(r.l.items) || r.l.p.open == nil {
		return
	}
	l, i := r.l, r.id
	l.sel = i
	l.list.Refresh()
	u, v, it := l.p.u, l.p.open, l.items[i]
	items := []*fyne.MenuItem{
		fyne.NewMenuItemWithIcon("Play from here", theme.MediaPlayIcon(), func() { l.p.playOpen(i, false) }),
		fyne.NewMenuItemWithIcon("Play next", iconQueue, func() {
			u.run("Could not queue it to play next", func() error { return u.b.Enqueue([]string{it.ContentID}, true) })
		}),
		fyne.NewMenuItemWithIcon("Add to queue", theme.ContentAddIcon(), func() {
			u.run("Could not add to the queue", func() error { return u.b.Enqueue([]string{it.ContentID}, false) })
		}),
		u.addToPlaylistItem([]string{it.ContentID}),
		u.likeItem(it.ContentID),
	}
	if l.editable {
		id, name := v.ID, v.Name
		what := "Remove from playlist"
		if v.Kind == app.KindLiked {
			what = "Remove from Liked"
		}
		items = append(items, fyne.NewMenuItemSeparator(), fyne.NewMenuItemWithIcon(what, theme.ContentRemoveIcon(), func() {
			u.run("Could not remove it from “"+name+"”", func() error { return u.b.RemoveFromPlaylist(id, []int{i}) })
		}))
	}
	if v.Editable() && len(l.items) > 1 {
		id, name := v.ID, v.Name
		move := func(to int) func() {
			return func() {
				u.run("Could not move the track in “"+name+"”", func() error { return u.b.MoveInPlaylist(id, i, to) })
			}
		}
		if i > 0 {
			items = append(items, fyne.NewMenuItemWithIcon("Move to top", theme.MoveUpIcon(), move(0)))
		}
		if i < len(l.items)-1 {
			items = append(items, fyne.NewMenuItemWithIcon("Move to bottom", theme.MoveDownIcon(), move(len(l.items)-1)))
		}
	}
	widget.ShowPopUpMenuAtPosition(fyne.NewMenu("", items...), fyne.CurrentApp().Driver().CanvasForObject(r), e.AbsolutePosition)
}

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
