package ui

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/internal/framegov"
	"github.com/furudesk/furudesk/internal/memrelease"
	"github.com/furudesk/furudesk/library"
)

// Options tune a window; the zero value is what the player uses.
type Options struct {
	// Title is the window title; empty means "furudesk".
	Title string
	// Icon is the window and notification icon; nil means none.
	Icon fyne.Resource
	// Now is the clock used to extrapolate the playing position between
	// status updates; nil means time.Now.
	Now func() time.Time
	// Tick is how often the position is redrawn while playing and the
	// window shows (nothing is redrawn while paused or hidden); zero means
	// once a second, when the elapsed time turns to the next second. It
	// is kept within 250 ms..1 s.
	Tick time.Duration
	// Desktop is shown on the settings page in a "Desktop" card: switches
	// the front end owns, such as closing to the system tray; nil shows none.
	Desktop fyne.CanvasObject
	// Web is the web player the settings turn on and off, with its
	// pairing codes and browsers ("Phones and browsers"); nil shows no
	// card.
	Web WebPlayer
	// Listed, when set, is told on the UI goroutine how many tracks the
	// window lists each time it has read the catalog (the front end logs
	// it; the desktop benchmark reads it).
	Listed func(tracks int)
	// Prefs keep the page shown last, each list's sort and columns and the
	// album grid's order between launches; nil keeps them for this window.
	Prefs Prefs
	// Shown, when not nil, is called once on the UI goroutine when the
	// window first lists the library (tracks: how many), so a front end
	// can tell how long launching took.
	Shown func(tracks int)
}

// Page names of the sidebar, in its order.
const (
	PageArtists   = "Artists"
	PageAlbums    = "Albums"
	PageTracks    = "Tracks"
	PagePlaylists = "Playlists"
	PageQueue     = "Queue"
	PageDevices   = "Devices"
	PageSettings  = "Settings"
	// PageNowPlaying is the now-playing view: opened from the bar's cover
	// or title, not listed in the sidebar.
	PageNowPlaying = "Now playing"
)

var pageOrder = []string{PageArtists, PageAlbums, PageTracks, PagePlaylists, PageQueue, PageDevices, PageSettings}

func pageIcon(name string) fyne.Resource {
	switch name {
	case PageArtists:
		return iconArtists
	case PageAlbums:
		return iconAlbum
	case PageTracks:
		return iconTracks
	case PagePlaylists:
		return iconPlaylist
	case PageQueue:
		return iconQueue
	case PageDevices:
		return iconDevices
	default:
		return theme.SettingsIcon()
	}
}

// searchLimit bounds the results of one search.
const searchLimit = 5000

// UI is the furudesk main window bound to one Backend. Its methods must be
// called on the Fyne UI goroutine (or before the app runs).
type UI struct {
	fa   fyne.App
	b    Backend
	win  fyne.Window
	opts Options
	now  func() time.Time

	// spawn runs a blocking backend call off the UI goroutine (tests run it
	// inline); results come back through fyne.Do.
	spawn func(func())
	// ticking starts the position redraw ticker (tests drive tick by hand).
	ticking bool
	// loop is the ticker goroutine's body (tickLoop; tests replace it):
	// the first tick after first, then one every Tick.
	loop func(stop <-chan struct{}, first time.Duration)
	// hidden is true while the window is hidden (closed to the tray):
	// the position is not redrawn.
	hidden bool
	feed   *statusFeed
	// caret is the focused text field's state, unchanged since
	// caretSince (Caret: its caret blinks, then rests).
	caret      caretState
	caretSince time.Time

	st     app.Status
	stAt   time.Time
	have   bool
	seenID uint64 // newest Notice id already shown

	cat        *catalog
	libVersion uint64
	places     map[string]app.Place // tracks of other devices: where, playable now
	trackLists []*trackList         // every track list, for the Where column
	placesVer  uint64
	// loads counts the catalog reads under way (two at most: one begun
	// while a scan ran and the one begun when it ended); loadGen numbers
	// the reads begun and shownGen is the read on screen (an older read
	// ending later is dropped). loadAgain asks for one more read once
	// they end.
	loads     int
	loadGen   atomic.Uint64
	shownGen  uint64
	scanRead  bool // the newest read began while a scan ran
	loadAgain bool
	freed     bool // memory was given back after a read
	// While a scan runs the catalog is read again at most every
	// scanReloadGap, or four times as long as the last read took;
	// loadedAt is when the last read started, loadTook how long it took,
	// reload the timer of a read held back.
	loadedAt time.Time
	loadTook time.Duration
	reload   *time.Timer
	query    string

	page      string
	back      string // the page the now-playing view was opened from
	nav       *navList
	pageTitle *widget.Label
	pageSub   *subtle
	search    *searchEntry
	searchBox *fyne.Container // the search field's place, shown on library pages only
	body      *fyne.Container
	top       *fyne.Container // banner and header: relaid out when they change
	main      *fyne.Container // top above the page
	bar       fyne.CanvasObject
	pages     map[string]fyne.CanvasObject
	prefs     Prefs
	plays     map[string]playStats // play counts of the group, by content id
	demoPlay  bool                 // play the demo tracks once they are in the library

	banner     *banner
	notices    *noticeBar
	np         *nowPlaying
	tracks     *tracksPage
	artists    *artistsPage
	albums     *albumsPage
	queue      *queuePage
	nowView    *nowPlayingView
	playlists  *playlistsPage
	devices    *devicesPage
	settings   *settingsPage
	scanBar    *scanView
	covers     *coverCache
	tips       *tipLayer
	confirmed  []*widget.Label // success messages shown (confirm)
	confirmGen int             // the newest confirmation: an older one's timer leaves it

	// The group's lists for the menus and the liked tracks for the
	// hearts (playlistmenu.go), and the Status.PlaylistsVersion they are of.
	lists     []app.PlaylistSummary
	liked     map[string]bool
	plVersion uint64
	plLoading bool
	plAgain   bool
	// plAfterLibrary: the lists are read once the library is shown.
	plAfterLibrary bool
	plDialog       dialog.Dialog  // the last dialog shown (tests)
	dialogs        []*shownDialog // the dialogs on screen, oldest first (popup.go)
	// probes describe the controls on screen for Inspect (inspect.go);
	// probesLive is how many were alive when last pruned.
	probes     []probe
	probesLive int
	menu       shownMenu // the last pop-up menu shown (popup.go)

	tickStop chan struct{}
	done     chan struct{}
	cancel   func()
}

// New builds the window for b on fyneApp and shows b's current status. Call
// Run to show it, or Window to embed it elsewhere.
func New(fyneApp fyne.App, b Backend, opts Options) *UI {
	u := newUI(fyneApp, b, opts, func(f func()) { go f() })
	u.ticking = true
	u.subscribe()
	return u
}

func newUI(fa fyne.App, b Backend, opts Options, spawn func(func())) *UI {
	if opts.Title == "" {
		opts.Title = "furudesk"
	}
	if opts.Tick == 0 {
		opts.Tick = time.Second
	}
	opts.Tick = min(max(opts.Tick, 250*time.Millisecond), time.Second)
	u := &UI{fa: fa, b: b, opts: opts, now: opts.Now, spawn: spawn, done: make(chan struct{}), prefs: opts.Prefs}
	if u.now == nil {
		u.now = time.Now
	}
	if u.prefs == nil {
		u.prefs = &memPrefs{}
	}
	u.loop = u.tickLoop
	u.feed = &statusFeed{do: u.do, apply: u.apply}
	u.covers = newCoverCache(b, spawn, coverCacheBytes)
	useAppTheme(fa)
	u.win = fa.NewWindow(opts.Title)
	if opts.Icon != nil {
		u.win.SetIcon(opts.Icon)
	}
	u.build()
	u.setupKeys()
	u.setupDrop()
	u.apply(b.Status())
	return u
}

// Window is the main window.
func (u *UI) Window() fyne.Window { return u.win }

// Run shows the window and runs the Fyne event loop until the window is
// closed; then it stops listening to the backend.
func (u *UI) Run() {
	u.win.ShowAndRun()
	u.Close()
}

// Close stops the status subscription and the position ticker. It does not
// close the window.
func (u *UI) Close() {
	select {
	case <-u.done:
		return
	default:
	}
	close(u.done)
	if u.cancel != nil {
		u.cancel()
	}
	if u.reload != nil {
		u.reload.Stop()
	}
	u.stopTicker()
}

func (u *UI) subscribe() {
	updates, cancel := u.b.Subscribe()
	u.cancel = cancel
	go func() {
		for {
			select {
			case <-u.done:
				return
			case st, ok := <-updates:
				if !ok {
					return
				}
				u.feed.put(st)
			}
		}
	}()
}

func (u *UI) build() {
	u.tips = newTipLayer(u)
	u.banner = newBanner(u)
	u.notices = newNoticeBar(u)
	u.np = newNowPlaying(u)
	u.tracks = newTracksPage(u)
	u.artists = newArtistsPage(u)
	u.albums = newAlbumsPage(u)
	u.queue = newQueuePage(u)
	u.nowView = newNowPlayingView(u)
	u.playlists = newPlaylistsPage(u)
	u.devices = newDevicesPage(u)
	u.settings = newSettingsPage(u)
	u.scanBar = newScanView(u)
	u.pages = map[string]fyne.CanvasObject{
		PageArtists: u.artists.view, PageAlbums: u.albums.view, PageTracks: u.tracks.view,
		PageQueue: u.queue.view, PageDevices: u.devices.view, PageSettings: u.settings.view,
		PagePlaylists: u.playlists.view, PageNowPlaying: u.nowView.view,
	}

	u.nav = newNavList(u)

	logo := widget.NewRichTextFromMarkdown("## furudesk")
	side := container.NewBorder(
		container.NewPadded(logo), u.scanBar.view, nil, nil, u.nav)
	sideBg := canvas.NewRectangle(theme.Color(theme.ColorNameHeaderBackground))
	sideWrap := container.NewStack(sideBg, container.New(fixedSize{fyne.NewSize(190, 0)}), side)

	u.search = newSearchEntry(u)
	u.pageTitle = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	u.pageTitle.SizeName = theme.SizeNameSubHeadingText
	u.pageSub = newSubtle("")
	// a long album title or query is cut short rather than widening the
	// window past the screen
	u.pageSub.Truncation = fyne.TextTruncateEllipsis
	u.searchBox = container.New(fixedSize{fyne.NewSize(320, u.search.MinSize().Height)}, u.search)
	// the header keeps the search field's height where it is hidden, so
	// the pages do not jump
	header := container.NewBorder(nil, nil, nil, container.NewHBox(u.notices.button, u.searchBox),
		container.NewStack(container.New(fixedSize{fyne.NewSize(0, u.search.MinSize().Height)}),
			container.NewBorder(nil, nil, u.pageTitle, nil, u.pageSub)))

	u.body = container.NewStack()
	u.top = container.NewVBox(u.banner.view, container.NewPadded(header))
	u.main = container.NewBorder(u.top,
		nil, nil, nil, container.NewPadded(u.body))

	u.bar = container.NewVBox(widget.NewSeparator(), u.np.view)
	content := container.NewBorder(nil, u.bar, container.NewHBox(sideWrap, widget.NewSeparator()), nil, u.main)
	// The toasts lie over the content: nothing moves when one comes.
	u.win.SetContent(container.NewStack(content, u.notices.view, u.tips.view))
	u.win.Resize(fyne.NewSize(1180, 760))
	start := u.setting("page")
	if _, ok := u.pages[start]; !ok || start == PageNowPlaying {
		start = PageTracks
	}
	u.showPage(start)
}

// ShowPage switches to one of the sidebar's pages (PageTracks, ...).
func (u *UI) ShowPage(name string) {
	if _, ok := u.pages[name]; ok {
		u.showPage(name)
	}
}

// showPage switches the main area to one of the sidebar's pages (or the
// now-playing view), and remembers it for the next launch.
func (u *UI) showPage(name string) {
	if u.page == name {
		return
	}
	u.tips.hide(nil) // its owner leaves the window
	u.unconfirm()
	if name == PageNowPlaying && u.page != PageNowPlaying {
		u.back = u.page
	}
	u.page = name
	u.setSetting("page", name)
	if name == PageNowPlaying {
		u.nav.UnselectAll()
	}
	for i, p := range pageOrder {
		if p == name {
			u.nav.Select(i)
		}
	}
	u.body.Objects = []fyne.CanvasObject{u.pages[name]}
	u.body.Refresh()
	defer u.dropKeyboard()
	if searchable(name) != u.searchBox.Visible() {
		u.searchBox.Hidden = !searchable(name)
		u.relayoutTop()
	}
	u.refreshHeader()
	if name == PageSettings {
		u.settings.sharing.update(u.st)
		if w := u.settings.web; w != nil {
			w.read = false // the browsers listed as they are now
			w.update()
		}
	}
}

// searchable reports whether page shows the search field: the library
// pages and the queue (where one looks for something to add), not Devices
// or Settings, which it does not search.
func searchable(page string) bool {
	return page != PageDevices && page != PageSettings && page != PageNowPlaying
}

// refreshHeader sets the page title and its count line.
func (u *UI) refreshHeader() {
	title, sub := u.page, ""
	n := 0
	if u.cat != nil {
		n = len(u.cat.tracks)
	}
	switch u.page {
	case PageTracks:
		if q := strings.TrimSpace(u.query); q != "" {
			title = "Search"
			sub = fmt.Sprintf("%s for “%s”", plural(len(u.tracks.list.tracks), "track", "tracks"), q)
		} else {
			sub = plural(n, "track", "tracks")
		}
	case PageAlbums:
		if u.cat != nil {
			sub = plural(len(u.cat.albums), "album", "albums")
		}
		if u.albums.open != nil {
			title, sub = "Albums", "› "+u.albums.open.title
		}
	case PageArtists:
		if u.cat != nil {
			sub = plural(len(u.cat.artists), "artist", "artists")
		}
	case PagePlaylists:
		n := 0
		for _, l := range u.lists {
			if l.Kind == app.KindPlaylist {
				n++
			}
		}
		sub = plural(n, "playlist", "playlists")
	case PageQueue:
		sub = plural(u.st.QueueLen, "track", "tracks")
	case PageNowPlaying:
		if u.st.Track != nil && u.st.Owner != "" && u.st.Owner != u.st.DeviceID {
			sub = "on " + ownerName(u.st)
		}
	case PageDevices:
		sub = plural(len(u.st.Devices), "device", "devices")
	}
	setText(u.pageTitle, title)
	setText(&u.pageSub.Label, sub)
}

// setQuery filters the track list while the user types; a query of only
// spaces is no query.
func (u *UI) setQuery(q string) {
	was := strings.TrimSpace(u.query)
	u.query = q
	if strings.TrimSpace(q) != "" && u.page != PageTracks {
		u.showPage(PageTracks)
	}
	if strings.TrimSpace(q) != was {
		u.tracks.refresh()
	}
	u.search.showClear(q != "")
	u.refreshHeader()
}

// apply renders a new status. A status equal to the one shown changes
// nothing (not even the anchor of the extrapolated position); views
// compare with what they show and redraw only what changed.
func (u *UI) apply(st app.Status) {
	if u.have && reflect.DeepEqual(st, u.st) {
		return
	}
	prev, first := u.st, !u.have
	u.st, u.stAt, u.have = st, u.now(), true

	u.np.update(st, first)
	u.banner.update(st)
	u.queue.update(st, prev, first)
	u.nowView.update(st, prev, first)
	u.devices.update(st, prev, first)
	u.settings.update(st, prev, first)
	u.scanBar.update(st.Scan)
	if st.Scan.Running != prev.Scan.Running && u.cat != nil && len(u.cat.tracks) == 0 {
		u.tracks.refresh()
	}
	u.ownerChange(prev, st, first)
	u.showNotices(st.Notices)

	cur := ""
	if st.Track != nil {
		cur = st.Track.ContentID
	}
	for _, l := range u.libraryLists() {
		l.setCurrent(cur)
	}
	u.playlists.setCurrent(cur)
	u.playlistsChanged(st, first) // playlistmenu.go

	if first || st.LibraryVersion != u.libVersion {
		u.libVersion, u.placesVer = st.LibraryVersion, st.PlacesVersion
		u.libraryChanged()
	} else if st.PlacesVersion != u.placesVer {
		u.placesVer = st.PlacesVersion
		u.loadPlaces()
	}
	if u.page == PageQueue || u.page == PageDevices || u.page == PagePlaylists {
		u.refreshHeader()
	}
	u.updateTicker()
}

// position is the playing position now: the last status's position plus
// the time since it arrived while playing, never past the track's end.
func (u *UI) position() time.Duration {
	pos := time.Duration(u.st.PositionMS) * time.Millisecond
	if u.st.Playing {
		pos += u.now().Sub(u.stAt)
	}
	if u.st.Track != nil && u.st.Track.DurationMS > 0 {
		pos = min(pos, time.Duration(u.st.Track.DurationMS)*time.Millisecond)
	}
	return max(pos, 0)
}

// updateTicker runs the position ticker only while playing and shown, so
// an idle, paused or hidden window does no work at all. It starts it
// again after each status, in step with the new position: the elapsed
// time turns on the tick.
func (u *UI) updateTicker() {
	u.stopTicker()
	if !u.ticking || !u.st.Playing || u.st.Track == nil || u.hidden {
		return
	}
	first := u.opts.Tick
	if u.opts.Tick == time.Second {
		first = time.Second - u.position()%time.Second + 5*time.Millisecond
	}
	u.tickStop = make(chan struct{})
	go u.loop(u.tickStop, first)
}

// tickLoop redraws the position after first, then every Tick, until stop
// is closed.
func (u *UI) tickLoop(stop <-chan struct{}, first time.Duration) {
	t := time.NewTimer(first)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			u.do(u.tick)
			t.Reset(u.opts.Tick)
		}
	}
}

// SetHidden tells the window it was hidden (closed to the tray) or shown
// again: hidden, it does not redraw the position.
func (u *UI) SetHidden(hidden bool) {
	if u.hidden == hidden {
		return
	}
	u.hidden = hidden
	if !hidden {
		u.tick()
	}
	u.updateTicker()
}

func (u *UI) stopTicker() {
	if u.tickStop != nil {
		close(u.tickStop)
		u.tickStop = nil
	}
}

// tick redraws the extrapolated position.
func (u *UI) tick() { u.np.showPosition() }

// scanReloadGap is the least time between two reads of the catalog while
// a scan runs (its tracks appear in batches), and scanReloadShare the
// least time between two reads as a multiple of the last read's: while
// scanning, the window spends at most about a ninth of its time reading
// the catalog again (a read of 100,000 tracks takes a second of CPU or
// more, and the scan wants the machine; issue 37).
const (
	scanReloadGap   = 2 * time.Second
	scanReloadShare = 8
)

// scanReloadWait is how long, while a scan runs, the next read of the
// catalog waits: the last read took took and began since ago.
func scanReloadWait(took, since time.Duration) time.Duration {
	return max(scanReloadGap, scanReloadShare*took) - since
}

// libraryChanged reads the catalog again: at once, or while a scan runs
// after scanReloadWait, and never beside a read under way (it follows
// it, as scanReloadWait says), so a large scan's window does not spend
// its time re-reading. The first tracks of an empty list and the read
// after the scan are never held back.
func (u *UI) libraryChanged() {
	if u.reload != nil {
		u.reload.Stop()
		u.reload = nil
	}
	if !u.st.Scan.Running || u.cat == nil || len(u.cat.tracks) == 0 {
		u.loadLibrary() // an empty list shows the first tracks at once
		return
	}
	if u.loads > 0 {
		u.loadAgain = true // libraryChanged again once it is over
		return
	}
	wait := scanReloadWait(u.loadTook, time.Since(u.loadedAt))
	if wait <= 0 {
		u.loadLibrary()
		return
	}
	u.reload = time.AfterFunc(wait, func() {
		u.do(func() {
			u.reload = nil
			u.loadLibrary()
		})
	})
}

// loadLibrary reads the catalog off the UI goroutine and shows it. A read
// asked for while one is under way follows it, except the read when a
// scan ended: it begins at once, beside a read begun while scanning (that
// one lacks the last batches; it is dropped if it ends later), so the
// list is complete one read after the scan, not two.
func (u *UI) loadLibrary() {
	if u.loads > 1 || u.loads == 1 && (u.st.Scan.Running || !u.scanRead) {
		u.loadAgain = true
		return
	}
	u.loads++
	u.scanRead = u.st.Scan.Running
	u.loadedAt = time.Now()
	gen := u.loadGen.Add(1)
	u.spawn(func() {
		t0 := time.Now()
		var b catalogBuilder
		err := u.b.EachTrack(func(t library.Track) error {
			if u.loadGen.Load() != gen {
				return errStaleRead
			}
			b.add(&t)
			return nil
		})
		var cat *catalog
		var places map[string]app.Place
		// A newer read began meanwhile: this one would not be shown, and
		// it stopped there (its tracks are garbage at once).
		stale := u.loadGen.Load() != gen
		if err == nil && !stale {
			cat = b.build()
			places, err = u.b.Places()
		}
		took := time.Since(t0)
		u.do(func() {
			u.loads--
			if !stale {
				u.loadTook = took
			}
			switch {
			case stale || gen < u.shownGen:
				// a newer read is on screen or on its way
			case err != nil:
				u.showError("Could not read your library: " + userError(err))
			default:
				u.shownGen = gen
				u.places = places
				u.setCatalog(cat)
			}
			if u.loadAgain && u.loads == 0 {
				u.loadAgain = false
				u.libraryChanged() // while scanning, after scanReloadWait
			} else if u.loads == 0 && (!u.st.Scan.Running || !u.freed) {
				// Reading a large catalog made garbage several times its
				// size; the Go runtime would keep that memory for a while.
				// While a scan runs the catalog is read again and again:
				// only after the first read.
				u.freed = true
				u.spawn(memrelease.FreeOSMemory)
			}
		})
	})
}

// errStaleRead stops a read of the catalog that a newer one replaced.
var errStaleRead = errors.New("ui: a newer read of the catalog began")

// loadPlaces reads again where the tracks of other devices are, after
// a device came or went or the cache changed, and redraws the lists.
func (u *UI) loadPlaces() {
	u.spawn(func() {
		places, err := u.b.Places()
		u.do(func() {
			if err != nil {
				u.showError("Could not read where the tracks of your other devices are: " + userError(err))
				return
			}
			u.places = places
			u.showGroupColumn()
			u.refreshLists()
		})
	})
}

// place says where a track of the catalog is: on this device (a file
// here) or on others, and whether it plays now.
func (u *UI) place(t *track) (p app.Place, remote bool) {
	if p, ok := u.places[t.ContentID]; ok {
		return p, true
	}
	return app.Place{Local: true, Playable: true, Where: "This device"}, false
}

func (u *UI) setCatalog(c *catalog) {
	u.cat = c
	if f := u.opts.Shown; f != nil {
		u.opts.Shown = nil
		defer f(len(c.tracks))
	}
	u.showGroupColumn()
	u.tracks.refresh()
	u.artists.setCatalog(c)
	u.albums.setCatalog(c)
	u.queue.render()
	u.nowView.render()
	u.refreshHeader()
	if u.opts.Listed != nil {
		u.opts.Listed(len(c.tracks))
	}
	u.np.update(u.st, false)
	u.playDemo()
	if u.plAfterLibrary {
		u.plAfterLibrary = false
		u.loadPlaylists()
	}
}

// libraryLists are the lists of the library's pages.
func (u *UI) libraryLists() []*trackList {
	return []*trackList{u.tracks.list, u.artists.tracks, u.albums.tracks}
}

// refreshLists redraws every list (likes or play counts changed).
func (u *UI) refreshLists() {
	for _, l := range u.libraryLists() {
		l.list.Refresh()
	}
	u.playlists.entries.tl.list.Refresh()
	u.queue.refreshLists()
	u.nowView.next.list.Refresh()
}

// run calls a backend intent off the UI goroutine; a failure is shown with
// what the user was trying to do.
func (u *UI) run(what string, f func() error) {
	u.runThen(f, func(err error) {
		if err != nil {
			u.showError(what + ": " + userError(err))
		}
	})
}

// do runs f on the UI goroutine (fyne.Do) unless the window was closed
// meanwhile: once Fyne's loop ended, fyne.Do runs f at once on the
// caller's goroutine, and the window's work (a catalog of 100,000 tracks
// shown, a status applied) would then race with the quit and slow it.
func (u *UI) do(f func()) {
	framegov.Do(func() {
		select {
		case <-u.done:
		default:
			f()
		}
	})
}

// runThen calls f off the UI goroutine and then done with its error on the
// UI goroutine.
func (u *UI) runThen(f func() error, done func(error)) {
	u.spawn(func() {
		err := f()
		u.do(func() { done(err) })
	})
}

func (u *UI) clearSearch() {
	if u.search.Text != "" {
		u.search.SetText("")
	}
}

// currentList is the list of the page shown, nil when it has none.
func (u *UI) currentList() *trackList {
	switch u.page {
	case PageTracks:
		return u.tracks.list
	case PageArtists:
		return u.artists.tracks
	case PageAlbums:
		if u.albums.open != nil {
			return u.albums.tracks
		}
	case PagePlaylists:
		return u.playlists.entries.tl
	case PageQueue:
		return u.queue.next
	case PageNowPlaying:
		return u.nowView.next
	}
	return nil
}

// relayoutTop lays out the banner and header again after one of them
// appeared, went away or changed height.
func (u *UI) relayoutTop() {
	if u.main != nil {
		u.top.Refresh()
		u.main.Refresh()
	}
}

// showError tells the user that something they asked for failed.
func (u *UI) showError(msg string) { u.notices.add("error", msg) }

// ownerChange tells the user when playback moved away from or to this
// device: an in-app notice and a desktop notification.
func (u *UI) ownerChange(prev, st app.Status, first bool) {
	if first || prev.Owner == st.Owner || st.Owner == "" || prev.Owner == "" {
		return
	}
	var msg string
	switch {
	case st.Owner == st.DeviceID:
		msg = "Playback moved to this device."
	case prev.Owner == st.DeviceID:
		msg = "Playback moved to " + ownerName(st) + "."
	default:
		msg = "Now playing on " + ownerName(st) + "."
	}
	u.notices.add("info", msg)
	u.fa.SendNotification(fyne.NewNotification("furudesk", msg))
}

// ownerName names the device that owns the output.
func ownerName(st app.Status) string {
	if st.OwnerName != "" {
		return st.OwnerName
	}
	for _, d := range st.Devices {
		if d.DeviceID == st.Owner && d.Name != "" {
			return d.Name
		}
	}
	return "another device"
}

// showNotices shows each of the app's notices once, and takes away those
// the app withdrew. A text already on screen (in the strip or the banner)
// is not shown a second time, and a scan summary is information: the
// files it could not read are named in the sidebar.
func (u *UI) showNotices(ns []app.Notice) {
	listed := make([]uint64, 0, len(ns))
	for _, n := range ns {
		listed = append(listed, n.ID)
	}
	u.notices.withdraw(listed)
	for _, n := range ns {
		if n.ID <= u.seenID {
			continue
		}
		u.seenID = n.ID
		level, text := scanNoticeText(n.Level, n.Text)
		if u.banner.view.Visible() && noticeKey(text) == noticeKey(u.banner.label.Text) {
			continue
		}
		u.notices.addApp(n.ID, level, text)
	}
}

// scanSummaryPrefix starts the app's notice after a scan, and
// scanSummaryFailed the part of it naming the files it could not read.
const (
	scanSummaryPrefix  = "Library scanned:"
	scanSummaryFailed  = ". Could not read "
	scanSummaryMissing = ". Missing: " // music folders gone: stays a problem
)

// scanNoticeText is how the notice strip shows an app notice: the summary
// of a scan is information without the files it could not read (the
// sidebar's scan view names them, with details), as those are no failure
// of anything the user just did and would otherwise greet every launch in
// red. Other notices are shown as they are.
func scanNoticeText(level, text string) (string, string) {
	if !strings.HasPrefix(text, scanSummaryPrefix) {
		return level, text
	}
	if i := strings.Index(text, scanSummaryFailed); i >= 0 {
		text = text[:i]
	}
	if !strings.Contains(text, scanSummaryMissing) {
		level = "info"
	}
	return level, strings.TrimSuffix(text, ".") + "."
}

// togglePlay plays or pauses; with nothing to play it plays the list
// shown (its selection, or all of it), as one expects of Play.
func (u *UI) togglePlay() {
	if u.st.Track == nil && u.st.QueueLen == 0 {
		if tl := u.currentList(); tl != nil && len(tl.tracks) > 0 && tl != u.queue.next {
			if rows := tl.rows(); len(rows) > 1 {
				u.playTracks(tl.tracksOf(rows), 0)
			} else if len(rows) == 1 {
				u.playTracks(tl.tracks, rows[0])
			} else {
				u.playTracks(tl.tracks, 0)
			}
		}
		return
	}
	u.run("Could not play or pause", u.b.TogglePlay)
}

func (u *UI) next() { u.run("Could not skip to the next track", u.b.Next) }
func (u *UI) prev() { u.run("Could not go back", u.b.Prev) }

func (u *UI) seekBy(d time.Duration) {
	if u.st.Track == nil {
		return
	}
	u.seekTo(u.position() + d)
}

// seekTo seeks and shows the new position at once; the next status
// confirms it.
func (u *UI) seekTo(pos time.Duration) {
	if u.st.Track == nil {
		return
	}
	pos = max(pos, 0)
	if d := time.Duration(u.st.Track.DurationMS) * time.Millisecond; d > 0 {
		pos = min(pos, d)
	}
	u.st.PositionMS, u.stAt = pos.Milliseconds(), u.now()
	u.np.showPosition()
	u.run("Could not seek", func() error { return u.b.Seek(pos) })
}
