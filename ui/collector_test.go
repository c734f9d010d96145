package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/ui/internal/fakebackend"
)

// The behaviours a collector expects of the window all day: selection,
// sorting, the queue, the now-playing view, notices, the keyboard, and
// what the window remembers. Each drives the window through the Backend
// interface (the fake), as a user would.

// key sends a key to what has the keyboard: the focused widget, else the
// window.
func (h *harness) key(name fyne.KeyName) {
	c := h.u.win.Canvas()
	if f := c.Focused(); f != nil {
		f.TypedKey(&fyne.KeyEvent{Name: name})
		return
	}
	c.OnTypedKey()(&fyne.KeyEvent{Name: name})
}

// shortcut sends a shortcut (Ctrl+A, Alt+↓) to what has the keyboard.
func (h *harness) shortcut(s fyne.Shortcut) {
	c := h.u.win.Canvas()
	if f, ok := c.Focused().(fyne.Shortcutable); ok {
		f.TypedShortcut(s)
		return
	}
	c.(fyne.Shortcutable).TypedShortcut(s)
}

// shift holds (true) or releases a Shift key on the focused list.
func (h *harness) shift(down bool) {
	k, ok := h.u.win.Canvas().Focused().(desktop.Keyable)
	if !ok {
		h.t.Fatal("nothing that takes Shift has the keyboard")
	}
	if down {
		k.KeyDown(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	} else {
		k.KeyUp(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	}
}

func selected(tl *trackList) []int { return tl.rows() }

// The arrows move the selection, Shift extends it, Ctrl+A takes all,
// Enter plays the selection, and the menu key offers the bulk actions.
func TestKeyboardSelectionAndBulkActions(t *testing.T) {
	h := newHarness(t, 30)
	h.u.showPage(PageTracks)
	tl := h.u.tracks.list
	h.key(fyne.KeyDown) // nothing focused: the page's list takes it
	if h.u.win.Canvas().Focused() != tl.list || !slices.Equal(selected(tl), []int{0}) {
		t.Fatalf("↓ with nothing focused: focus %T, selection %v", h.u.win.Canvas().Focused(), selected(tl))
	}
	h.key(fyne.KeyDown)
	h.shift(true)
	h.key(fyne.KeyDown)
	h.key(fyne.KeyDown)
	h.shift(false)
	if !slices.Equal(selected(tl), []int{1, 2, 3}) {
		t.Fatalf("↓, Shift+↓↓: selection %v, want rows 1 to 3", selected(tl))
	}
	h.key(fyne.KeyReturn)
	h.wantCalls(fmt.Sprintf("PlayTracks(3,%s,0)", tl.tracks[1].ContentID))

	h.b.ResetCalls()
	h.key(fyne.KeyEnd)
	h.shift(true)
	h.key(fyne.KeyPageUp)
	h.shift(false)
	if n := len(selected(tl)); n < 3 || selected(tl)[n-1] != 29 {
		t.Fatalf("End, Shift+Page Up: selection %v", selected(tl))
	}
	h.shortcut(&fyne.ShortcutSelectAll{})
	if len(selected(tl)) != 30 {
		t.Fatalf("Ctrl+A selected %d of 30", len(selected(tl)))
	}
	h.key(desktop.KeyMenu)
	tapMenu(t, h.u.win.Canvas(), "Add to queue")
	h.wantCalls(fmt.Sprintf("Enqueue(30,%s,false)", tl.tracks[0].ContentID))
	// Escape drops the selection.
	h.key(fyne.KeyEscape)
	if len(selected(tl)) != 0 {
		t.Fatalf("Escape kept the selection %v", selected(tl))
	}
}

// collated is a library whose artists need the locale's collation: an
// accented initial sorts with its letter, "The" is left out, and case
// does not split names.
func collated() []library.Track {
	mk := func(i int, artist, title string, year int) library.Track {
		return library.Track{ContentID: fmt.Sprintf("b3:%064d", i), Path: fmt.Sprintf("/m/%d.flac", i), Format: "flac",
			Title: title, Artists: []string{artist}, Album: title + " LP", Year: year, TrackNo: 1, Duration: time.Duration(100+i) * time.Second}
	}
	return []library.Track{
		mk(1, "Zoë Keating", "Escape Artist", 2010),
		mk(2, "Ólafur Arnalds", "Near Light", 2013),
		mk(3, "The Beatles", "Help", 1965),
		mk(4, "Émilie Simon", "Desert", 2003),
		mk(5, "Björk", "Joga", 1997),
		mk(6, "abba", "Gold", 1992),
		mk(7, "Eels", "Novocaine", 1996),
		mk(8, "Oasis", "Wonderwall", 1995),
		mk(9, "Portishead", "Roads", 1994),
	}
}

func artistsOf(ts []*track) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Artists[0])
	}
	return strings.Join(out, ", ")
}

// A click on a column's title sorts by it (by the locale's collation, not
// byte order), a second click the other way round; the sort is
// remembered for the next launch.
func TestSortByColumnWithCollation(t *testing.T) {
	t.Setenv("LC_ALL", "en_US.UTF-8")
	fa := test.NewTempApp(t)
	prefs := &memPrefs{}
	b := fakebackend.New(collated())
	open := func() *UI {
		u := newUI(fa, b, Options{Prefs: prefs}, func(f func()) { f() })
		u.win.Resize(fyne.NewSize(1000, 600))
		t.Cleanup(func() { u.Close(); u.win.Close() })
		return u
	}
	u := open()
	u.showPage(PageTracks)
	tl := u.tracks.list
	want := "abba, The Beatles, Björk, Eels, Émilie Simon, Oasis, Ólafur Arnalds, Portishead, Zoë Keating"
	if got := artistsOf(tl.tracks); got != want {
		t.Fatalf("library order:\n got %s\nwant %s", got, want)
	}
	test.Tap(tl.hdr[colYear]) // not shown: nothing happens
	test.Tap(tl.hdr[colTitle])
	if got := tl.tracks[0].Title + "," + tl.tracks[len(tl.tracks)-1].Title; got != "Desert,Wonderwall" {
		t.Fatalf("by title: first and last %s", got)
	}
	test.Tap(tl.hdr[colArtist])
	test.Tap(tl.hdr[colArtist])
	if got := artistsOf(tl.tracks); got != "Zoë Keating, Portishead, Ólafur Arnalds, Oasis, Émilie Simon, Eels, Björk, The Beatles, abba" {
		t.Fatalf("artist, reversed: %s", got)
	}
	if !tl.hdr[colArtist].arrow.Visible() || tl.hdr[colTitle].arrow.Visible() {
		t.Fatal("the sorted column is not marked")
	}
	// The Artists page groups and sorts the same way.
	var names []string
	for _, a := range u.cat.artists {
		names = append(names, a.name)
	}
	if got := strings.Join(names, ", "); got != want {
		t.Fatalf("artists page: %s", got)
	}

	again := open()
	if got := artistsOf(again.tracks.list.tracks); got != artistsOf(tl.tracks) {
		t.Fatalf("after a restart: %s, want the sort kept", got)
	}
	// Each kind of list keeps its own: the album view is not sorted.
	if again.albums.tracks.sort.ok {
		t.Fatalf("the album view took the tracks' sort %v", again.albums.tracks.sort)
	}
}

// The header's menu chooses the columns; a column shown is remembered,
// and the year, genre, date added and play count show.
func TestChooseColumns(t *testing.T) {
	h := newHarness(t, 20)
	ts, _ := h.b.Tracks()
	h.b.SetPlays(map[string]app.PlayStats{ts[0].ContentID: {Plays: 7, LastMS: h.clock.now().UnixMilli()}})
	h.u.apply(h.b.Status())
	tl := h.u.tracks.list
	test.TapSecondary(tl.hdr[colTitle])
	tapMenu(t, h.u.win.Canvas(), "Year")
	test.TapSecondary(tl.hdr[colTitle])
	tapMenu(t, h.u.win.Canvas(), "Play count")
	if !tl.visible.has(colYear) || !tl.visible.has(colPlays) || !strings.Contains(h.u.setting("columns.tracks"), "year") {
		t.Fatalf("columns %s, setting %q", tl.visible, h.u.setting("columns.tracks"))
	}
	test.Tap(tl.hdr[colPlays]) // most played first
	r := trackRowAt(t, tl, 0)
	if tl.tracks[0].ContentID != ts[0].ContentID || r.cells[colPlays].text != "7" || r.cells[colYear].text != itoa(ts[0].Year) {
		t.Fatalf("most played first: %s with %q plays, year %q", tl.tracks[0].Title, r.cells[colPlays].text, r.cells[colYear].text)
	}
	// "#" is the track number in the library, not the row.
	if r.cells[colTrackNo].text != itoa(ts[0].TrackNo) {
		t.Fatalf("# shows %q, want track number %d", r.cells[colTrackNo].text, ts[0].TrackNo)
	}
	test.TapSecondary(tl.hdr[colTitle])
	tapMenu(t, h.u.win.Canvas(), "Play count")
	if tl.visible.has(colPlays) || tl.sort.ok {
		t.Fatal("hiding the sorted column keeps it or its sort")
	}
}

// The queue: a drag reorders it (in play order, as a control the owner
// applies), Alt+↓ moves the selection, Delete removes it with an undo,
// and Clear queue can be undone.
func TestQueueEditing(t *testing.T) {
	h := newHarness(t, 30)
	h.playing() // the first 10 tracks, the 4th playing
	h.u.showPage(PageQueue)
	q := h.u.queue
	before := h.b.Status().Queue
	r := trackRowAt(t, q.next, 0) // queue index 4
	step := r.Size().Height + 4
	r.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DY: step}})
	r.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DY: step}})
	if q.next.dropAt != 2 || !trackRowAt(t, q.next, 2).dropBelow.Visible() {
		t.Fatalf("drop mark at %d", q.next.dropAt)
	}
	r.DragEnd()
	h.wantCalls("MoveInQueue([4],6)")
	st := h.b.Status()
	if st.Queue[6].ContentID != before[4].ContentID || st.Queue[4].ContentID != before[5].ContentID || st.Track.ContentID != before[3].ContentID {
		t.Fatalf("after the drag: queue %v", st.Queue)
	}
	if got := q.next.tracks[2].ContentID; got != before[4].ContentID {
		t.Fatal("up next does not show the moved track where it was dropped")
	}

	h.b.ResetCalls()
	q.next.click(0, 0)
	q.next.focus()
	h.shortcut(&desktop.CustomShortcut{KeyName: fyne.KeyDown, Modifier: fyne.KeyModifierAlt})
	h.wantCalls("MoveInQueue([4],5)")
	if !slices.Equal(selected(q.next), []int{1}) {
		t.Fatalf("the selection did not follow the move: %v", selected(q.next))
	}

	h.b.ResetCalls()
	q.next.click(2, 0)
	q.next.click(3, fyne.KeyModifierShift)
	h.key(fyne.KeyDelete)
	h.wantCalls("RemoveQueueEntries([6 7])")
	if h.b.Status().QueueLen != 8 {
		t.Fatalf("queue of %d after removing 2 of 10", h.b.Status().QueueLen)
	}
	undo := find(h.u.notices.view, func(b *widget.Button) bool { return b.Text == "Undo" })
	if len(undo) != 1 || !strings.Contains(strings.Join(h.u.notices.texts(), "|"), "2 tracks removed from the queue.") {
		t.Fatalf("no undo offered: %q", h.u.notices.texts())
	}
	test.Tap(undo[0])
	h.wantCalls("RemoveQueueEntries([6 7])", "RestoreQueue(10,3)")
	if h.b.Status().QueueLen != 10 {
		t.Fatal("undo did not bring the tracks back")
	}

	h.b.ResetCalls()
	test.Tap(q.clear)
	test.Tap(find(h.u.notices.view, func(b *widget.Button) bool { return b.Text == "Undo" })[0])
	h.wantCalls("ClearQueue()", "RestoreQueue(10,3)")
	if st := h.b.Status(); st.QueueLen != 10 || st.Track == nil || st.Index != 3 {
		t.Fatalf("after undoing the clear: %+v", st)
	}
	// A stale edit (the queue changed on another device) is refused with
	// a sentence.
	h.b.ResetCalls()
	h.b.Fail["MoveInQueue"] = fmt.Errorf("app: the queue changed: %w", fakebackend.ErrQueueChanged)
	q.next.click(0, 0)
	q.next.moveBy(1)
	if !strings.Contains(strings.Join(h.u.notices.texts(), "|"), "Could not move it in the queue") {
		t.Fatalf("no error shown: %q", h.u.notices.texts())
	}
}

// The history lists what played before, in play order; "Play again next"
// moves a track after the current one.
func TestQueueHistory(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	h.u.showPage(PageQueue)
	q := h.u.queue
	q.tabs.Select(q.histTab)
	if len(q.history.tracks) != 3 || q.history.tracks[0].ContentID != h.b.Status().Queue[0].ContentID {
		t.Fatalf("history %d tracks", len(q.history.tracks))
	}
	moved := q.history.tracks[0].ContentID
	test.TapSecondary(trackRowAt(t, q.history, 0))
	tapMenu(t, h.u.win.Canvas(), "Play again next")
	h.wantCalls("MoveInQueue([0],3)")
	if st := h.b.Status(); st.Queue[st.Index+1].ContentID != moved || q.next.tracks[0].ContentID != moved {
		t.Fatalf("the track does not follow the current one: %v", st.Queue)
	}
}

// The bar's cover or title opens the now-playing view: the track, its
// artist and album as links, the device, up next; Escape goes back.
func TestNowPlayingView(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	h.u.showPage(PageAlbums)
	areas := find[*tapArea](h.u.np.view, nil)
	if len(areas) != 1 {
		t.Fatal("the bar has no cover and title to click")
	}
	test.Tap(areas[0])
	v := h.u.nowView
	st := h.b.Status()
	if h.u.page != PageNowPlaying || v.title.Text != st.Track.Title || v.album.Text != st.Track.Album {
		t.Fatalf("page %s, title %q, album %q", h.u.page, v.title.Text, v.album.Text)
	}
	if v.device.Text != "Playing on this device" || len(v.next.tracks) != 6 {
		t.Fatalf("device %q, up next %d", v.device.Text, len(v.next.tracks))
	}
	h.key(fyne.KeyEscape)
	if h.u.page != PageAlbums {
		t.Fatalf("Escape went to %s, want back to Albums", h.u.page)
	}
	h.u.openNowPlaying()
	links := find[*widget.Hyperlink](v.artists, nil)
	if len(links) != 1 || links[0].Text != st.Track.Artists[0] {
		t.Fatalf("artist links %v", links)
	}
	tapMiddle(links[0])
	if h.u.page != PageArtists || len(h.u.artists.tracks.tracks) == 0 || h.u.artists.tracks.tracks[0].Artists[0] != st.Track.Artists[0] {
		t.Fatalf("the artist link opened %s", h.u.page)
	}
	h.u.openNowPlaying()
	tapMiddle(v.album)
	if h.u.page != PageAlbums || h.u.albums.open == nil || h.u.albums.open.title != st.Track.Album {
		t.Fatalf("the album link does not open the album: page %s, size %v", h.u.page, v.album.Size())
	}
	h.remote()
	h.u.openNowPlaying()
	if v.device.Text != "Playing on Living room" {
		t.Fatalf("device line %q while Living room plays", v.device.Text)
	}
}

// tapMiddle taps a link in its middle, where its text is.
func tapMiddle(l *widget.Hyperlink) {
	test.TapAt(l, fyne.NewPos(min(20, l.Size().Width/2), l.Size().Height/2))
}

// Notices come as toasts over the content: the page does not move; a
// click dismisses one; problems stay in the problems list until
// withdrawn or cleared.
func TestToastsDoNotMoveThePage(t *testing.T) {
	h := newHarness(t, 30)
	d := fyne.CurrentApp().Driver()
	before := d.AbsolutePositionForObject(h.u.tracks.list.list)
	for i := range 3 {
		h.u.notices.info(fmt.Sprintf("Note %d.", i))
	}
	h.apply(func(st *app.Status) {
		st.Notices = []app.Notice{{ID: 5, Level: "error", Text: "No sound device is working: the device is busy"}}
	})
	if got := d.AbsolutePositionForObject(h.u.tracks.list.list); got != before {
		t.Fatalf("the list moved from %v to %v when notices came", before, got)
	}
	if n := len(h.u.notices.texts()); n != 4 {
		t.Fatalf("%d toasts, want 4", n)
	}
	toasts := find[*toast](h.u.notices.view, nil)
	test.Tap(toasts[0])
	if got := h.u.notices.texts(); len(got) != 3 || got[0] != "Note 1." {
		t.Fatalf("after a click on the first: %q", got)
	}
	// The error is a lasting problem: listed until withdrawn.
	if !h.u.notices.button.Visible() || h.u.notices.button.Text != "1" {
		t.Fatal("the problems button does not show the problem")
	}
	test.Tap(h.u.notices.button)
	if !hasText(h.u.win.Canvas().Overlays().Top(), "No sound device is working: the device is busy") {
		t.Fatal("the problems list does not name it")
	}
	h.u.notices.popup.Hide()
	h.apply(func(st *app.Status) { st.Notices = nil })
	if h.u.notices.button.Visible() || len(h.u.notices.problems) != 0 {
		t.Fatal("a withdrawn problem stays listed")
	}
}

// Escape leaves the search field (the keys go to the results), a second
// Escape clears it; the clear button too; a query of spaces is none.
func TestSearchKeys(t *testing.T) {
	h := newHarness(t, 300)
	c := h.u.win.Canvas()
	h.u.focusSearch()
	test.Type(h.u.search, "glass")
	n := len(h.u.tracks.list.tracks)
	h.key(fyne.KeyEscape)
	if c.Focused() != h.u.tracks.list.list || h.u.search.Text != "glass" {
		t.Fatalf("first Escape: focus %T, text %q", c.Focused(), h.u.search.Text)
	}
	h.key(fyne.KeySpace) // plays, not typed into the field
	if h.u.search.Text != "glass" || len(h.b.Calls()) == 0 {
		t.Fatalf("Space after Escape: text %q, calls %q", h.u.search.Text, h.b.Calls())
	}
	h.key(fyne.KeyEscape)
	if h.u.search.Text != "" || len(h.u.tracks.list.tracks) != 300 {
		t.Fatalf("second Escape: text %q, %d tracks", h.u.search.Text, len(h.u.tracks.list.tracks))
	}
	test.Type(h.u.search, "glass")
	if len(h.u.tracks.list.tracks) != n || h.u.search.ActionItem != h.u.search.clear {
		t.Fatal("no clear button while there is text")
	}
	test.Tap(h.u.search.clear)
	if h.u.search.Text != "" {
		t.Fatal("the clear button does not clear")
	}
	test.Type(h.u.search, "   ")
	if len(h.u.tracks.list.tracks) != 300 || h.u.pageTitle.Text != PageTracks {
		t.Fatalf("a query of spaces: %d tracks, title %q", len(h.u.tracks.list.tracks), h.u.pageTitle.Text)
	}
}

// F1 and ? list the shortcuts.
func TestShortcutsList(t *testing.T) {
	h := newHarness(t, 3)
	h.key(fyne.KeyF1)
	d, ok := h.u.plDialog.(*dialog.CustomDialog)
	if !ok || !hasText(h.u.win.Canvas().Overlays().Top(), "Select every track of the list") {
		t.Fatalf("F1: dialog %T", h.u.plDialog)
	}
	d.Hide()
	h.u.plDialog = nil
	h.u.win.Canvas().OnTypedRune()('?')
	if h.u.plDialog == nil {
		t.Fatal("? shows no shortcuts")
	}
}

// The page shown last opens at the next launch.
func TestLastPageRemembered(t *testing.T) {
	fa := test.NewTempApp(t)
	prefs := &memPrefs{}
	b := fakebackend.New(fakebackend.MakeTracks(20))
	u := newUI(fa, b, Options{Prefs: prefs}, func(f func()) { f() })
	u.showPage(PageAlbums)
	u.Close()
	u.win.Close()
	u = newUI(fa, b, Options{Prefs: prefs}, func(f func()) { f() })
	t.Cleanup(func() { u.Close(); u.win.Close() })
	if u.page != PageAlbums {
		t.Fatalf("opened on %s, want Albums", u.page)
	}
}

// Play with nothing queued plays the list shown: the selection, or all
// of it.
func TestPlayWithEmptyQueuePlaysTheView(t *testing.T) {
	h := newHarness(t, 30)
	h.u.showPage(PageTracks)
	if h.u.np.play.Disabled() {
		t.Fatal("Play is disabled with a library and nothing queued")
	}
	test.Tap(h.u.np.play)
	h.wantCalls(fmt.Sprintf("PlayTracks(30,%s,0)", h.u.tracks.list.tracks[0].ContentID))
	h.apply(func(st *app.Status) { st.Queue, st.QueueLen, st.Track, st.Playing = nil, 0, nil, false })
	h.b.ResetCalls()
	h.u.tracks.list.click(4, 0)
	test.Tap(h.u.np.play)
	h.wantCalls(fmt.Sprintf("PlayTracks(30,%s,4)", h.u.tracks.list.tracks[0].ContentID))
}

// Covers belong to albums: an album whose track shares its recording
// with another album is shown with its own album's cover.
func TestAlbumCoversByAlbum(t *testing.T) {
	shared := "b3:" + strings.Repeat("5", 64)
	ts := []library.Track{
		{ContentID: shared, Path: "/m/a/1.flac", Title: "Song", Artists: []string{"Ann"}, Album: "Original", Cover: "embedded"},
		{ContentID: shared, Path: "/m/b/7.flac", Title: "Song", Artists: []string{"Ann"}, AlbumArtist: "Various", Album: "Best of", Cover: "embedded"},
		{ContentID: "b3:" + strings.Repeat("6", 64), Path: "/m/c/1.flac", Title: "Loose", Artists: []string{"Bo"}, Cover: "embedded"},
	}
	fa := test.NewTempApp(t)
	b := fakebackend.New(ts)
	u := newUI(fa, b, Options{}, func(f func()) { f() })
	u.win.Resize(fyne.NewSize(1000, 700))
	t.Cleanup(func() { u.Close(); u.win.Close() })
	u.showPage(PageAlbums)
	u.win.Canvas().Capture() // the grid binds its cards
	want := []string{library.AlbumID(ts[0]), library.AlbumID(ts[1])}
	for _, id := range want {
		if !slices.Contains(b.AlbumCoverCalls, id) {
			t.Fatalf("album covers asked for %q, want %q among them", b.AlbumCoverCalls, id)
		}
	}
	var keys []string
	for _, a := range u.cat.albums {
		keys = append(keys, a.coverID)
	}
	if !slices.Contains(keys, ts[2].ContentID) {
		t.Fatalf("a track without an album shows its own art: keys %q", keys)
	}
	// The bar shows the cover of the album the entry names.
	if k := u.cat.coverKey(shared, "Best of"); k != want[1] {
		t.Fatalf("cover key for the compilation's track %q, want %q", k, want[1])
	}
}

// The album grid sorts by artist, title, year or date added, remembered.
func TestAlbumGridSort(t *testing.T) {
	h := newHarness(t, 200)
	h.u.showPage(PageAlbums)
	p := h.u.albums
	p.order.SetSelected("Year (newest first)")
	for i := 1; i < len(p.albums); i++ {
		if p.albums[i].year > p.albums[i-1].year {
			t.Fatalf("album %d (%d) after %d", i, p.albums[i].year, p.albums[i-1].year)
		}
	}
	if h.u.setting("albums.sort") != albumByYear {
		t.Fatalf("setting %q", h.u.setting("albums.sort"))
	}
	p.order.SetSelected("Title")
	if p.albums[0].title > p.albums[len(p.albums)-1].title {
		t.Fatal("not by title")
	}
}

// Icon buttons say what they do; cut text shows in full.
func TestTooltips(t *testing.T) {
	h := newHarness(t, 30)
	var next *tipButton
	for _, b := range find[*tipButton](h.u.np.view, nil) {
		if b == h.u.np.next {
			next = b
		}
	}
	if next == nil {
		t.Fatal("the Next button has no tooltip")
	}
	next.MouseIn(&desktop.MouseEvent{})
	if h.u.tips.shown() != "Next (Ctrl+→)" {
		t.Fatalf("tooltip %q", h.u.tips.shown())
	}
	next.MouseOut()
	if h.u.tips.shown() != "" {
		t.Fatal("the tooltip stays after the mouse left")
	}
	// A title too long for its column.
	ts, _ := h.b.Tracks()
	ts[0].Title = strings.Repeat("A very long title ", 20)
	h.b.SetTracks(ts)
	h.u.apply(h.b.Status())
	tl := h.u.tracks.list
	r := trackRowAt(t, tl, rowOf(tl, ts[0].ContentID))
	title := r.cells[colTitle]
	r.MouseIn(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: title.Position().AddXY(5, 5)}})
	if h.u.tips.shown() != ts[0].Title {
		t.Fatalf("tooltip %q, want the whole title", h.u.tips.shown())
	}
	r.MouseOut()

	// Moved (scrolled) away under a mouse that did not: the tooltip's
	// owner is no longer where it was, and the tooltip goes at the next
	// check. A page change takes it away at once.
	next.MouseIn(&desktop.MouseEvent{})
	if h.u.tips.ownerMoved() {
		t.Fatal("the tooltip's button counts as moved before anything moved")
	}
	next.Move(next.Position().AddXY(0, 40))
	if !h.u.tips.ownerMoved() {
		t.Fatal("the button moved, the tooltip does not notice")
	}
	next.Move(next.Position().AddXY(0, -40))
	h.u.showPage(PageSettings)
	if h.u.tips.shown() != "" {
		t.Fatal("the tooltip stays after a page change")
	}
}

// Tab reaches every control: the sidebar, the search field, the column
// headers, the list, the bar's cover and title, its buttons and sliders.
func TestTabReachesEveryControl(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	c := h.u.win.Canvas()
	seen := map[fyne.Focusable]bool{}
	for range 200 {
		c.FocusNext()
		if f := c.Focused(); f != nil {
			seen[f] = true
		}
	}
	var heart, play *tipButton
	for _, b := range find[*tipButton](h.u.np.view, nil) {
		switch b {
		case h.u.np.heart:
			heart = b
		case h.u.np.play:
			play = b
		}
	}
	want := map[string]fyne.Focusable{
		"the sidebar": h.u.nav, "the search field": h.u.search, "the track list": h.u.tracks.list.list,
		"the title's header": h.u.tracks.list.hdr[colTitle], "the cover and title": find[*tapArea](h.u.np.view, nil)[0],
		"play": play, "the heart": heart, "the seek slider": h.u.np.seek, "the volume": h.u.np.volume,
	}
	for what, f := range want {
		if f == nil || !seen[f] {
			t.Errorf("Tab never reaches %s", what)
		}
	}
	if seen[h.u.tracks.list.hdr[colHeart]] {
		t.Error("Tab stops on a header that does not sort")
	}
}
