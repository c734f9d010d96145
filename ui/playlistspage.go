package ui

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/internal/framegov"
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

	entries     *playlistList
	title       *widget.Label
	info        *subtle
	play, queue *widget.Button
	more        *tipButton
	hint        *subtle // an empty list, or none chosen
	detail      *fyne.Container
	view        fyne.CanvasObject
	current     string // content id of the playing track
	shown       string // the list shown last (its selection is kept while it changes)
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
	newList := u.openingDialog(widget.NewButtonWithIcon("New playlist", iconPlaylistAdd, func() { u.newPlaylistDialog(nil) }))
	imp := u.openingDialog(widget.NewButtonWithIcon("Import a playlist file…", theme.DownloadIcon(), p.importDialog))
	imp.Importance = widget.LowImportance
	left := container.NewBorder(container.NewPadded(newList), container.NewPadded(imp), nil, nil, p.nav)

	p.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.title.SizeName = theme.SizeNameHeadingText
	p.title.Truncation = fyne.TextTruncateEllipsis
	p.info = newSubtle("")
	p.play = widget.NewButtonWithIcon("Play", theme.MediaPlayIcon(), func() { p.playOpen(0, false) })
	p.play.Importance = widget.HighImportance
	p.queue = widget.NewButtonWithIcon("Add to queue", theme.ContentAddIcon(), func() { p.playOpen(0, true) })
	more := u.newTipButton("", theme.MoreHorizontalIcon(), "Rename, delete, export", p.showMore).opening("menu")
	p.more = more
	p.more.Importance = widget.LowImportance
	head := container.NewVBox(p.title, p.info, container.NewHBox(p.play, p.queue, more))
	p.entries = newPlaylistList(p)
	p.hint = newSubtleWithStyle("", fyne.TextAlignCenter, fyne.TextStyle{})
	p.hint.Wrapping = fyne.TextWrapWord
	p.detail = container.NewBorder(container.NewVBox(container.NewPadded(head), widget.NewSeparator()), nil, nil, nil,
		container.NewStack(p.entries.view, container.New(centredText{hintWidth}, p.hint)))
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
		framegov.Do(func() {
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
		p.entries.set(nil, false)
		for _, b := range []fyne.Disableable{p.play, p.queue, p.more} {
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
	p.entries.set(v, v.ID == p.shown)
	p.shown = v.ID
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
		if !e.Playable {
			missing++
		}
	}
	if missing > 0 {
		info += fmt.Sprintf(" · %d on no device online", missing)
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
	p.u.popUpMenuAt(fyne.NewMenu("", p.listMenu(p.open.PlaylistSummary)...), p.more)
}

// setCurrent marks the playing track in the open list.
func (p *playlistsPage) setCurrent(cid string) {
	if cid != p.current {
		p.current = cid
		p.entries.setCurrent(cid)
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
	name := p.u.newDialogEntry(false)
	name.SetText(old)
	d := dialog.NewForm("Rename playlist", "Rename", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", name)}, func(ok bool) {
		if ok && name.Text != old {
			text := name.Text
			p.u.run("Could not rename “"+old+"”", func() error { return p.u.b.RenamePlaylist(id, text) })
		}
	}, p.u.win)
	d.Resize(fyne.NewSize(420, 160))
	p.u.showDialog(d, d.Submit)
	p.u.win.Canvas().Focus(name)
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
	p.u.showDialog(d, d.Confirm)
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
	p.u.showDialog(d, nil)
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
	p.u.showDialog(d, d.Hide)
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
	p.u.showDialog(d, nil)
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
	count *subtle
}

func newListNavRow(p *playlistsPage) *listNavRow {
	r := &listNavRow{p: p, id: -1, icon: widget.NewIcon(iconPlaylist)}
	r.name = widget.NewLabel("")
	r.name.Truncation = fyne.TextTruncateEllipsis
	r.count = newSubtle("")
	r.count.SizeName = theme.SizeNameCaptionText
	r.ExtendBaseWidget(r)
	keep(p.u, r, func(r *listNavRow) Control { return Control{Kind: "playlist", Text: r.name.Text, Secondary: "menu"} })
	return r
}

func (r *listNavRow) CreateRenderer() fyne.WidgetRenderer {
	r.count.Alignment = fyne.TextAlignTrailing
	count := container.New(fixedSize{fyne.NewSize(34, 0)}, r.count)
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
	r.p.u.popUpMenu(fyne.NewMenu("", items...), e.AbsolutePosition)
}

// playlistList is the open list's tracks: a trackList whose rows are the
// list's entries (a track this device lacks greyed). In a playlist the
// selection is dragged to move it (Alt+↑/↓ too) and Delete removes it,
// also from Liked; the smart lists are read only.
type playlistList struct {
	p       *playlistsPage
	items   []app.PlaylistEntry
	lists   map[string]*trackList // by view: "playlist", "history", "recent"
	tl      *trackList            // the one shown
	view    *fyne.Container
	current string // content id of the playing track
}

func newPlaylistList(p *playlistsPage) *playlistList {
	l := &playlistList{p: p, lists: map[string]*trackList{}}
	defaults := map[string]colSet{
		"playlist": listDefault,
		"history":  colsOf(colPos, colTitle, colArtist, colPlays, colLast, colHeart, colTime),
		"recent":   colsOf(colPos, colTitle, colArtist, colAlbum, colAdded, colHeart, colTime),
	}
	l.view = container.NewStack()
	for _, view := range []string{"playlist", "history", "recent"} {
		var tl *trackList
		tl = newTrackList(p.u, listConfig{view: view, allowed: listColumns, defaults: defaults[view], sortable: true}, listHooks{
			activate: func(rows []int) { l.activate(tl, rows) },
			menu:     func(rows []int) *fyne.Menu { return l.menu(tl, rows) },
			remove:   func(rows []int) { l.remove(tl, rows) },
			move:     func(rows []int, to int) { l.move(tl, rows, to) },
			missing:  func(row int) bool { return !l.items[tl.baseIndex(row)].Playable },
		})
		tl.view.Hide()
		l.lists[view] = tl
		l.view.Add(tl.view)
	}
	l.tl = l.lists["playlist"]
	l.tl.view.Show()
	return l
}

// viewOf is the kind of list a playlist is shown as.
func viewOf(v *app.PlaylistView) string {
	switch {
	case v == nil:
		return "playlist"
	case v.ID == app.ListMostPlayed || v.ID == app.ListRecentlyPlayed:
		return "history"
	case v.ID == app.ListRecentlyAdded:
		return "recent"
	}
	return "playlist"
}

// set shows the open list's entries; keep says it is the same list,
// changed (its selection is kept).
func (l *playlistList) set(v *app.PlaylistView, keep bool) {
	tl := l.lists[viewOf(v)]
	if tl != l.tl {
		l.tl.view.Hide()
		l.tl.set(nil)
		l.tl = tl
		tl.view.Show()
		keep = false
	}
	l.items = nil
	if v != nil {
		l.items = v.Entries
	}
	tracks := make([]*track, len(l.items))
	for i, e := range l.items {
		tracks[i] = l.p.u.trackFor(e.ContentID, e.Title, e.Artists, e.Album, e.DurationMS)
	}
	tl.current = l.current
	tl.setKeep(tracks, keep)
}

// setCurrent marks the playing track.
func (l *playlistList) setCurrent(cid string) {
	l.current = cid
	l.tl.setCurrent(cid)
}

// editable: a playlist (and Liked, for removing).
func (l *playlistList) open() *app.PlaylistView { return l.p.open }

func (l *playlistList) activate(tl *trackList, rows []int) {
	if len(rows) != 1 {
		l.p.u.playTracks(tl.tracksOf(rows), 0)
		return
	}
	if tl.sorted() {
		l.p.u.playTracks(tl.tracks, rows[0]) // in the order shown
		return
	}
	l.p.playOpen(rows[0], false)
}

func (l *playlistList) baseIndexes(tl *trackList, rows []int) []int {
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = tl.baseIndex(r)
	}
	slices.Sort(out)
	return out
}

// remove removes the rows from the open playlist (or from Liked), with
// an undo.
func (l *playlistList) remove(tl *trackList, rows []int) {
	v := l.open()
	if v == nil || !(v.Editable() || v.Kind == app.KindLiked) || len(rows) == 0 {
		return
	}
	u, id, name := l.p.u, v.ID, v.Name
	idx := l.baseIndexes(tl, rows)
	if v.Kind == app.KindLiked {
		ids := make([]string, len(idx))
		for i, j := range idx {
			ids[i] = l.items[j].ContentID
		}
		u.runThen(func() error {
			for _, cid := range ids {
				if err := u.b.SetLiked(cid, false); err != nil {
					return err
				}
			}
			return nil
		}, func(err error) {
			if err != nil {
				u.showError("Could not remove it from Liked: " + userError(err))
				return
			}
			u.notices.undo(plural(len(ids), "track", "tracks")+" removed from Liked.", func() {
				u.run("Could not undo", func() error {
					for _, cid := range ids {
						if err := u.b.SetLiked(cid, true); err != nil {
							return err
						}
					}
					return nil
				})
			})
		})
		return
	}
	removed := make([]app.PlaylistEntry, len(idx))
	for i, j := range idx {
		removed[i] = l.items[j]
	}
	u.runThen(func() error { return u.b.RemoveFromPlaylist(id, idx) }, func(err error) {
		if err != nil {
			u.showError("Could not remove it from “" + name + "”: " + userError(err))
			return
		}
		u.notices.undo(plural(len(idx), "track", "tracks")+" removed from “"+name+"”.", func() {
			u.run("Could not undo", func() error {
				// Back where they were, the first first: each index
				// counts the ones put back before it.
				for i, j := range idx {
					if err := u.b.AddToPlaylist(id, []string{removed[i].ContentID}, j); err != nil {
						return err
					}
				}
				return nil
			})
		})
	})
}

// move moves rows of the open playlist so that the first lands at place
// to among the others: single moves of the playlist (blockMoves).
func (l *playlistList) move(tl *trackList, rows []int, to int) {
	v := l.open()
	if v == nil || !v.Editable() || tl.sorted() {
		return
	}
	u, id, name := l.p.u, v.ID, v.Name
	moves := blockMoves(len(l.items), l.baseIndexes(tl, rows), to)
	u.run("Could not move the tracks in “"+name+"”", func() error {
		for _, m := range moves {
			if err := u.b.MoveInPlaylist(id, m[0], m[1]); err != nil {
				return err
			}
		}
		return nil
	})
}

// blockMoves are the single moves (from, to: final index) of a list of n
// entries that bring the entries at indexes moved (ascending) together,
// in their order, with the first at place to among the others.
func blockMoves(n int, moved []int, to int) [][2]int {
	arr := make([]int, n)
	for i := range arr {
		arr[i] = i
	}
	isMoved := map[int]bool{}
	for _, m := range moved {
		isMoved[m] = true
	}
	var ops [][2]int
	for k, m := range moved {
		i := slices.Index(arr, m)
		rest := slices.Delete(slices.Clone(arr), i, i+1)
		j := 0
		if k == 0 {
			for seen := 0; j < len(rest) && seen < to; j++ {
				if !isMoved[rest[j]] {
					seen++
				}
			}
		} else {
			j = slices.Index(rest, moved[k-1]) + 1
		}
		if i != j {
			ops = append(ops, [2]int{i, j})
		}
		arr = slices.Insert(rest, j, m)
	}
	return ops
}

// menu is the menu of rows of the open list: play from here (or the
// tracks selected), play next, add to queue, add to a playlist, like;
// remove and move in a playlist.
func (l *playlistList) menu(tl *trackList, rows []int) *fyne.Menu {
	u, v := l.p.u, l.open()
	sel := tl.tracksOf(rows)
	ids := contentIDs(sel)
	play := fyne.NewMenuItemWithIcon("Play from here", theme.MediaPlayIcon(), func() { l.activate(tl, rows[:1]) })
	if len(rows) > 1 {
		play = fyne.NewMenuItemWithIcon("Play "+plural(len(rows), "track", "tracks"), theme.MediaPlayIcon(), func() { u.playTracks(sel, 0) })
	}
	items := []*fyne.MenuItem{
		play,
		fyne.NewMenuItemWithIcon("Play next", iconQueue, func() {
			u.run("Could not queue it to play next", func() error { return u.b.Enqueue(ids, true) })
		}),
		fyne.NewMenuItemWithIcon("Add to queue", theme.ContentAddIcon(), func() {
			u.run("Could not add to the queue", func() error { return u.b.Enqueue(ids, false) })
		}),
		u.addToPlaylistItem(ids),
	}
	if len(ids) == 1 {
		items = append(items, u.likeItem(ids[0]))
	}
	if v == nil {
		return fyne.NewMenu("", items...)
	}
	if v.Editable() || v.Kind == app.KindLiked {
		what := "Remove from playlist"
		if v.Kind == app.KindLiked {
			what = "Remove from Liked"
		}
		items = append(items, fyne.NewMenuItemSeparator(), fyne.NewMenuItemWithIcon(what, theme.ContentRemoveIcon(), func() { l.remove(tl, rows) }))
	}
	if v.Editable() && !tl.sorted() && len(rows) < len(l.items) {
		first, last := rows[0], rows[len(rows)-1]
		if first > 0 || last-first != len(rows)-1 {
			items = append(items, fyne.NewMenuItemWithIcon("Move to top", theme.MoveUpIcon(), func() { l.move(tl, rows, 0) }))
		}
		if last < len(l.items)-1 || last-first != len(rows)-1 {
			items = append(items, fyne.NewMenuItemWithIcon("Move to bottom", theme.MoveDownIcon(), func() { l.move(tl, rows, len(l.items)-len(rows)) }))
		}
	}
	return fyne.NewMenu("", items...)
}

// trackFor is the track a list shows for an entry of a playlist or the
// queue: the library's own (with its year, genre, date added) when this
// device has it on the album the entry names, else one made of what the
// entry says.
func (u *UI) trackFor(cid, title string, artists []string, album string, durMS int64) *track {
	if t, ok := u.cat.byContentID(cid); ok && t.Album == album && t.Title == title {
		return t
	}
	return &track{ContentID: cid, Title: title, Artists: artists, Album: album, Duration: msDuration(durMS), pos: -1}
}
