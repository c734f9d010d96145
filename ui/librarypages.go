package ui

import (
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// emptyLibrary is the first-run invitation shown instead of an empty list:
// add a music folder, or try the demo tracks.
func (u *UI) emptyLibrary() fyne.CanvasObject {
	icon := widget.NewIcon(theme.MediaMusicIcon())
	title := widget.NewLabelWithStyle("Your library is empty", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	text := newSubtleWithStyle("Add a folder with your music, or try a few demo tracks\nto see how furudesk works.", fyne.TextAlignCenter, fyne.TextStyle{})
	add := u.openingDialog(widget.NewButtonWithIcon("Add a music folder", theme.FolderOpenIcon(), u.pickFolder))
	add.Importance = widget.HighImportance
	demo := widget.NewButtonWithIcon("Try demo tracks", theme.MediaPlayIcon(), u.tryDemo)
	return container.NewCenter(container.NewVBox(
		container.NewCenter(container.New(fixedSize{fyne.NewSize(72, 72)}, icon)),
		title, text, container.NewCenter(container.NewHBox(add, demo))))
}

// pickFolder asks for a music folder and adds it to the library.
func (u *UI) pickFolder() {
	d := dialog.NewFolderOpen(func(uri fyne.ListableURI, err error) {
		if err != nil {
			u.showError("Could not open the folder picker: " + userError(err))
			return
		}
		if uri == nil {
			return
		}
		u.addFolder(uri.Path())
	}, u.win)
	d.Resize(fyne.NewSize(760, 520))
	u.showDialog(d, nil)
}

func (u *UI) addFolder(path string) {
	u.runThen(func() error { return u.b.AddFolder(path) }, func(err error) {
		if err != nil {
			u.showError("Could not add " + path + ": " + userError(err))
			return
		}
		u.notices.info("Added " + path + ". Scanning it for music…")
	})
}

// tryDemo makes the demo tracks and plays them once they are in the
// library.
func (u *UI) tryDemo() {
	done := u.notices.working("Making the demo tracks…")
	u.demoPlay = true
	u.runThen(u.b.GenerateDemo, func(err error) {
		done()
		if err != nil {
			u.demoPlay = false
			u.showError("Could not make the demo tracks: " + userError(err))
			return
		}
		u.playDemo()
	})
}

// playDemo plays the library once the demo tracks asked for are in it
// (the scan adds them after GenerateDemo returned).
func (u *UI) playDemo() {
	if !u.demoPlay || u.cat == nil || len(u.cat.tracks) == 0 || u.st.Scan.Running {
		return
	}
	u.demoPlay = false
	u.playTracks(u.cat.tracks, 0)
}

// maxQueryShown is how much of a query the no-match sentence repeats.
const maxQueryShown = 80

// tracksPage is every track, or the search results while there is a query.
type tracksPage struct {
	u       *UI
	list    *trackList
	groups  *fyne.Container // while searching: the artists and albums that match, then "Tracks"
	empty   fyne.CanvasObject
	noMatch *subtle
	loading fyne.CanvasObject
	view    *fyne.Container
}

func newTracksPage(u *UI) *tracksPage {
	p := &tracksPage{u: u, list: u.libraryList("tracks"), empty: u.emptyLibrary()}
	p.noMatch = newSubtleWithStyle("", fyne.TextAlignCenter, fyne.TextStyle{})
	p.noMatch.Wrapping = fyne.TextWrapWord
	p.loading = container.NewCenter(widget.NewLabel("Loading your library…"))
	p.groups = container.NewVBox()
	p.groups.Hide()
	p.view = container.NewStack(container.NewBorder(p.groups, nil, nil, nil, p.list.view), p.empty,
		container.New(centredText{hintWidth}, p.noMatch), p.loading)
	p.refresh()
	return p
}

func (p *tracksPage) refresh() {
	u := p.u
	p.groups.Hide()
	p.empty.Hide()
	p.noMatch.Hide()
	p.loading.Hide()
	switch {
	case u.cat == nil:
		p.list.set(nil)
		p.loading.Show()
	case len(u.cat.tracks) == 0 && u.st.Scan.Running:
		p.list.set(nil)
		p.noMatch.SetText("Looking for music in your folders…\nTracks appear here as they are found.")
		p.noMatch.Show()
	case len(u.cat.tracks) == 0:
		p.list.set(nil)
		p.empty.Show()
	case u.query != "":
		res := u.cat.search(u.query, searchLimit)
		p.list.set(res)
		p.showGroups(u.cat.searchGroups(u.query, searchGroupMax))
		if len(res) == 0 && !p.groups.Visible() {
			p.noMatch.SetText("No tracks match “" + shorten(strings.TrimSpace(u.query), maxQueryShown) + "”.")
			p.noMatch.Show()
		}
	default:
		p.list.set(u.cat.tracks)
	}
}

// searchGroupMax is how many artists and albums a search shows above its
// tracks.
const searchGroupMax = 8

// showGroups shows the artists and albums a search found above its
// tracks, each a button to its page; nothing when it found none.
func (p *tracksPage) showGroups(artists []*artistEntry, albums []*albumEntry) {
	u := p.u
	p.groups.RemoveAll()
	if len(artists) == 0 && len(albums) == 0 {
		p.groups.Hide()
		return
	}
	row := func(title string, items []fyne.CanvasObject) {
		head := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		p.groups.Add(container.NewBorder(nil, nil, container.New(fixedWidth{90}, head), nil,
			container.NewHScroll(container.NewHBox(items...))))
	}
	if len(artists) > 0 {
		var items []fyne.CanvasObject
		for _, a := range artists {
			b := widget.NewButtonWithIcon(shorten(a.name, maxNameOnButton), iconArtists, func() { u.goToArtist(a.name) })
			b.Importance = widget.LowImportance
			items = append(items, b)
		}
		row("Artists", items)
	}
	if len(albums) > 0 {
		var items []fyne.CanvasObject
		for _, a := range albums {
			b := widget.NewButtonWithIcon(shorten(a.title+" — "+a.artist, maxNameOnButton+16), iconAlbum, func() {
				u.clearSearch()
				u.showPage(PageAlbums)
				u.albums.openAlbum(a)
			})
			b.Importance = widget.LowImportance
			items = append(items, b)
		}
		row("Albums", items)
	}
	n := len(p.list.tracks)
	tracks := widget.NewLabelWithStyle("Tracks", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	count := newSubtle(plural(n, "track", "tracks"))
	if n == 0 {
		count.SetText("No track matches.")
	}
	p.groups.Add(container.NewHBox(container.New(fixedWidth{90}, tracks), count))
	p.groups.Add(widget.NewSeparator())
	p.groups.Show()
}

// libraryList is a list of the library's tracks: double-click or Enter
// plays the list from that track (several selected: those tracks), the
// menu offers the bulk actions. view keys its sort and columns.
func (u *UI) libraryList(view string) *trackList {
	var tl *trackList
	tl = newTrackList(u, listConfig{view: view, allowed: libraryColumns, defaults: libraryDefault, sortable: true}, listHooks{
		activate: func(rows []int) { u.playRows(tl, rows) },
		menu:     func(rows []int) *fyne.Menu { return u.trackMenu(tl.tracks, rows) },
	})
	return tl
}

// playRows plays what the user picked in a list: from that track on when
// one row is picked, else just the picked tracks.
func (u *UI) playRows(tl *trackList, rows []int) {
	if len(rows) == 1 {
		u.playTracks(tl.tracks, rows[0])
		return
	}
	u.playTracks(tl.tracksOf(rows), 0)
}

// artistsPage lists artists on the left and the chosen artist's tracks on
// the right, album by album (oldest first, each under its title), with
// Play, Shuffle and Add to queue for all of them.
type artistsPage struct {
	u        *UI
	selected string // the chosen artist's name, kept when the catalog is read again
	artists  []*artistEntry
	list     *widget.List
	tracks   *trackList
	name     *widget.Label
	info     *subtle
	empty    fyne.CanvasObject
	view     *fyne.Container
}

func newArtistsPage(u *UI) *artistsPage {
	p := &artistsPage{u: u, tracks: u.libraryList("artist"), empty: u.emptyLibrary()}
	p.tracks.hooks.group = albumHeading
	p.list = widget.NewList(
		func() int { return len(p.artists) },
		func() fyne.CanvasObject {
			name := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			name.Truncation = fyne.TextTruncateEllipsis
			info := newSubtle("")
			info.SizeName = theme.SizeNameCaptionText
			return container.NewBorder(nil, nil, container.NewPadded(widget.NewIcon(iconArtists)), nil,
				container.New(layout.NewCustomPaddedVBoxLayout(-12), name, info))
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			a := p.artists[id]
			box := o.(*fyne.Container).Objects[0].(*fyne.Container)
			box.Objects[0].(*widget.Label).SetText(a.name)
			box.Objects[1].(*subtle).SetText(plural(a.albums, "album", "albums") + " · " + plural(len(a.tracks), "track", "tracks"))
		})
	p.list.HideSeparators = true
	p.list.OnSelected = func(id widget.ListItemID) {
		if id < len(p.artists) {
			p.show(p.artists[id])
		}
	}
	p.name = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.name.SizeName = theme.SizeNameSubHeadingText
	p.name.Truncation = fyne.TextTruncateEllipsis
	p.info = newSubtle("")
	play := widget.NewButtonWithIcon("Play", theme.MediaPlayIcon(), func() { u.playTracks(p.tracks.base, 0) })
	play.Importance = widget.HighImportance
	shuffle := widget.NewButtonWithIcon("Shuffle", iconShuffle, func() { u.shuffleTracks(p.tracks.base) })
	queue := widget.NewButtonWithIcon("Add to queue", theme.ContentAddIcon(), func() { u.enqueue(p.tracks.base, false) })
	head := container.NewBorder(nil, nil, nil, container.NewCenter(container.NewHBox(play, shuffle, queue)),
		container.New(layout.NewCustomPaddedVBoxLayout(-10), p.name, p.info))
	right := container.NewBorder(container.NewVBox(container.NewPadded(head), widget.NewSeparator()), nil, nil, nil, p.tracks.view)
	split := container.NewHSplit(p.list, right)
	split.Offset = 0.3
	p.view = container.NewStack(split, p.empty)
	p.empty.Hide()
	return p
}

// setCatalog shows c's artists, the one chosen before still chosen (a
// scan reads the catalog again every few seconds).
func (p *artistsPage) setCatalog(c *catalog) {
	p.artists = c.artists
	keep := 0
	for i, a := range p.artists {
		if p.selected != "" && a.name == p.selected {
			keep = i
			break
		}
	}
	p.list.UnselectAll()
	p.list.Refresh()
	p.show(nil)
	if len(p.artists) > 0 {
		p.list.Select(keep)
	}
	if len(c.tracks) == 0 {
		p.empty.Show()
	} else {
		p.empty.Hide()
	}
}

// show lists a's tracks album by album (nil: none).
func (p *artistsPage) show(a *artistEntry) {
	if a == nil {
		p.name.SetText("")
		p.info.SetText("")
		p.tracks.set(nil)
		return
	}
	p.selected = a.name
	p.name.SetText(a.name)
	p.info.SetText(plural(a.albums, "album", "albums") + " · " + plural(len(a.tracks), "track", "tracks"))
	p.tracks.set(byAlbum(a.tracks))
}

// byAlbum orders an artist's tracks album by album, the oldest first
// (albums of one year by title), each album in library order.
func byAlbum(ts []*track) []*track {
	type album struct {
		year  int32
		title string
	}
	first := map[string]album{}
	for _, t := range ts {
		k := albumHeading(t)
		a, ok := first[k]
		if !ok || t.Year > a.year {
			first[k] = album{year: max(a.year, t.Year), title: strings.ToLower(t.Album)}
		}
	}
	out := slices.Clone(ts)
	slices.SortStableFunc(out, func(x, y *track) int {
		ax, ay := first[albumHeading(x)], first[albumHeading(y)]
		if ax.year != ay.year {
			return int(ax.year - ay.year)
		}
		if c := strings.Compare(ax.title, ay.title); c != 0 {
			return c
		}
		return strings.Compare(albumHeading(x), albumHeading(y))
	})
	return out
}

// albumHeading is the heading of a track's album on an artist's page.
func albumHeading(t *track) string {
	h := orUnknown(t.Album, "album")
	if t.Year > 0 {
		h += " · " + itoa(int(t.Year))
	}
	return h
}

// albumsPage is the grid of album covers; tapping one opens its tracks.
type albumsPage struct {
	u      *UI
	albums []*albumEntry
	grid   *widget.GridWrap
	gridV  fyne.CanvasObject
	empty  fyne.CanvasObject
	open   *albumEntry
	tracks *trackList

	detail          fyne.CanvasObject
	dCover          *canvas.Image
	dCoverV         coverView
	dTitle, dArtist *widget.Label
	dInfo           *subtle
	order           *widget.Select // the grid's order
	orderBy         string
	view            *fyne.Container
}

// albumOrders are the grid's orders as the user picks them.
var albumOrders = []struct{ key, label string }{
	{albumByArtist, "Artist"}, {albumByTitle, "Title"}, {albumByYear, "Year (newest first)"}, {albumByAdded, "Recently added"},
}

const albumCardSize = 164

func newAlbumsPage(u *UI) *albumsPage {
	p := &albumsPage{u: u, tracks: u.libraryList("album"), empty: u.emptyLibrary()}
	p.grid = widget.NewGridWrap(
		func() int { return len(p.albums) },
		func() fyne.CanvasObject { return newAlbumCard(p) },
		func(id widget.GridWrapItemID, o fyne.CanvasObject) { o.(*albumCard).bind(id) })
	// The keyboard: Tab to the grid, the arrows, Space opens an album.
	p.grid.OnSelected = func(id widget.GridWrapItemID) {
		p.grid.UnselectAll()
		if id >= 0 && id < len(p.albums) {
			p.openAlbum(p.albums[id])
		}
	}

	p.dCover = canvas.NewImageFromImage(nil)
	p.dCover.FillMode = canvas.ImageFillContain
	p.dCover.CornerRadius = 6
	ph := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	ph.CornerRadius = 6
	coverBox := container.New(fixedSize{fyne.NewSize(140, 140)}, ph, container.NewCenter(container.New(fixedSize{fyne.NewSize(56, 56)}, widget.NewIcon(theme.NewDisabledResource(iconAlbum)))), p.dCover)
	p.dTitle = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.dTitle.SizeName = theme.SizeNameHeadingText
	p.dTitle.Truncation = fyne.TextTruncateEllipsis
	p.dArtist = widget.NewLabel("")
	p.dArtist.Truncation = fyne.TextTruncateEllipsis
	p.dInfo = newSubtle("")
	play := widget.NewButtonWithIcon("Play", theme.MediaPlayIcon(), func() {
		if p.open != nil {
			u.playTracks(p.open.tracks, 0)
		}
	})
	play.Importance = widget.HighImportance
	queue := widget.NewButtonWithIcon("Add to queue", theme.ContentAddIcon(), func() {
		if p.open != nil {
			u.enqueue(p.open.tracks, false)
		}
	})
	back := widget.NewButtonWithIcon("All albums", theme.NavigateBackIcon(), p.closeAlbum)
	back.Importance = widget.LowImportance
	info := container.NewVBox(layout.NewSpacer(), p.dTitle, p.dArtist, p.dInfo, container.NewHBox(play, queue), layout.NewSpacer())
	head := container.NewBorder(container.NewHBox(back), nil, coverBox, nil, info)
	p.detail = container.NewBorder(container.NewVBox(head, widget.NewSeparator()), nil, nil, nil, p.tracks.view)
	p.detail.Hide()
	var labels []string
	for _, o := range albumOrders {
		labels = append(labels, o.label)
	}
	p.orderBy = albumByArtist
	p.order = widget.NewSelect(labels, func(label string) {
		for _, o := range albumOrders {
			if o.label == label && o.key != p.orderBy {
				p.orderBy = o.key
				u.setSetting("albums.sort", o.key)
				p.sortGrid()
			}
		}
	})
	for _, o := range albumOrders {
		if o.key == u.setting("albums.sort") {
			p.orderBy = o.key
		}
	}
	for _, o := range albumOrders {
		if o.key == p.orderBy {
			p.order.Selected = o.label
		}
	}
	sortLabel := newSubtle("Sort by")
	p.gridV = container.NewBorder(container.NewHBox(layout.NewSpacer(), sortLabel, p.order), nil, nil, nil, p.grid)
	p.view = container.NewStack(p.gridV, p.detail, p.empty)
	p.empty.Hide()
	return p
}

// setCatalog shows c's albums; an album open stays open when c still has
// it (a scan reads the catalog again every few seconds).
func (p *albumsPage) setCatalog(c *catalog) {
	// Sorted as chosen, where the grid was scrolled to: a scan reads the
	// catalog again every few seconds.
	p.albums = slices.Clone(c.albums)
	sortAlbums(p.albums, p.orderBy)
	p.grid.Refresh()
	if o := p.open; o != nil {
		var again *albumEntry
		for _, a := range c.albums {
			if a.title == o.title && a.artist == o.artist {
				again = a
				break
			}
		}
		if again != nil {
			p.openAlbum(again)
		} else {
			p.closeAlbum()
		}
	}
	if len(c.tracks) == 0 {
		p.empty.Show()
	} else {
		p.empty.Hide()
	}
}

// sortGrid orders the grid as chosen.
func (p *albumsPage) sortGrid() {
	sortAlbums(p.albums, p.orderBy)
	p.grid.Refresh()
	p.grid.ScrollToTop()
}

func (p *albumsPage) openAlbum(a *albumEntry) {
	p.open = a
	p.dTitle.SetText(a.title)
	p.dArtist.SetText(a.artist)
	var total time.Duration
	for _, t := range a.tracks {
		total += t.Duration
	}
	info := plural(len(a.tracks), "track", "tracks") + " · " + formatDuration(total)
	if a.year > 0 {
		info = itoa(a.year) + " · " + info
	}
	p.dInfo.SetText(info)
	p.dCoverV.img = p.dCover
	p.dCoverV.show(p.u.covers, a.coverID)
	p.tracks.set(a.tracks)
	p.gridV.Hide()
	p.detail.Show()
	p.u.refreshHeader()
}

func (p *albumsPage) closeAlbum() {
	p.open = nil
	p.detail.Hide()
	p.gridV.Show()
	p.u.refreshHeader()
}

// albumCard is one album of the grid: cover, title, artist.
type albumCard struct {
	widget.BaseWidget
	p      *albumsPage
	id     int
	album  *albumEntry
	cover  *canvas.Image
	coverV coverView
	title  *widget.Label
	artist *subtle
	hover  *canvas.Rectangle
}

func newAlbumCard(p *albumsPage) *albumCard {
	c := &albumCard{p: p, id: -1}
	c.cover = canvas.NewImageFromImage(nil)
	c.cover.FillMode = canvas.ImageFillContain
	c.cover.ScaleMode = canvas.ImageScaleSmooth
	c.cover.CornerRadius = 6
	c.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	c.title.Truncation = fyne.TextTruncateEllipsis
	c.artist = newSubtle("")
	c.artist.Truncation = fyne.TextTruncateEllipsis
	c.ExtendBaseWidget(c)
	keep(p.u, c, func(c *albumCard) Control { return Control{Kind: "card", Text: c.title.Text, Secondary: "menu"} })
	return c
}

func (c *albumCard) CreateRenderer() fyne.WidgetRenderer {
	ph := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	ph.CornerRadius = 6
	icon := container.NewCenter(container.New(fixedSize{fyne.NewSize(56, 56)}, widget.NewIcon(theme.NewDisabledResource(iconAlbum))))
	art := container.New(fixedSize{fyne.NewSize(albumCardSize, albumCardSize)}, ph, icon, c.cover)
	c.hover = canvas.NewRectangle(theme.Color(theme.ColorNameHover))
	c.hover.CornerRadius = 6
	c.hover.Hide()
	return widget.NewSimpleRenderer(container.NewStack(c.hover, container.New(layout.NewCustomPaddedVBoxLayout(-8), art, c.title, c.artist)))
}

// MouseIn highlights the card and names the album in full.
func (c *albumCard) MouseIn(e *desktop.MouseEvent) {
	if c.hover != nil {
		c.hover.Show()
	}
	c.MouseMoved(e)
}

// MouseMoved is part of desktop.Hoverable.
func (c *albumCard) MouseMoved(e *desktop.MouseEvent) {
	if c.album != nil {
		c.p.u.tips.want(c, c.album.title+" — "+c.album.artist, e.AbsolutePosition)
	}
}

// MouseOut is part of desktop.Hoverable.
func (c *albumCard) MouseOut() {
	if c.hover != nil {
		c.hover.Hide()
	}
	c.p.u.tips.hide(c)
}

func (c *albumCard) bind(id int) {
	c.id = id
	if id < 0 || id >= len(c.p.albums) {
		return
	}
	a := c.p.albums[id]
	if c.album == a {
		return
	}
	c.album = a
	c.title.SetText(a.title)
	c.artist.SetText(a.artist)
	c.coverV.img = c.cover
	c.coverV.show(c.p.u.covers, a.coverID)
}

// Tapped opens the album.
func (c *albumCard) Tapped(*fyne.PointEvent) {
	if c.album != nil {
		c.p.openAlbum(c.album)
	}
}

// DoubleTapped plays the album.
func (c *albumCard) DoubleTapped(*fyne.PointEvent) {
	if c.album != nil {
		c.p.u.playTracks(c.album.tracks, 0)
	}
}

// TappedSecondary offers play, play next and add to queue for the album.
func (c *albumCard) TappedSecondary(e *fyne.PointEvent) {
	if c.album == nil {
		return
	}
	a := c.album
	m := c.p.u.groupMenu(a.tracks)
	c.p.u.popUpMenu(m, e.AbsolutePosition)
}
