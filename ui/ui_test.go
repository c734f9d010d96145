package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/ui/internal/fakebackend"
)

func TestNowPlayingShowsTheTrackAndExtrapolatesThePosition(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	np := h.u.np
	tr := h.b.Status().Track
	if np.title.Text != tr.Title || !strings.HasPrefix(np.sub.Text, tr.Artists[0]+" — "+tr.Album) {
		t.Fatalf("bar shows %q / %q, want the track %q by %v", np.title.Text, np.sub.Text, tr.Title, tr.Artists)
	}
	if np.play.Icon != theme.MediaPauseIcon() {
		t.Fatal("playing, but the button does not offer pause")
	}
	if np.elapsed.Text != "0:10" || np.total.Text != formatDuration(msDuration(tr.DurationMS)) {
		t.Fatalf("times %s / %s", np.elapsed.Text, np.total.Text)
	}

	h.clock.advance(2500 * time.Millisecond)
	h.u.tick()
	if np.elapsed.Text != "0:12" || np.seek.Value != 12.5 {
		t.Fatalf("after 2.5 s playing: elapsed %s, slider %v; want 0:12, 12.5", np.elapsed.Text, np.seek.Value)
	}

	h.apply(func(st *app.Status) { st.Playing = false; st.PositionMS = 12_500 })
	h.clock.advance(10 * time.Second)
	h.u.tick()
	if np.elapsed.Text != "0:12" || np.play.Icon != theme.MediaPlayIcon() {
		t.Fatalf("paused: elapsed %s (want 0:12 still), icon %v", np.elapsed.Text, np.play.Icon.Name())
	}
}

func TestPositionTickerRunsOnlyWhilePlaying(t *testing.T) {
	h := newHarness(t, 30)
	var stopped int
	h.u.ticking = true
	h.u.loop = func(<-chan struct{}, time.Duration) {}

	h.apply(func(*app.Status) {}) // idle: nothing playing
	if h.u.tickStop != nil {
		t.Fatal("ticker runs while nothing plays")
	}
	h.playing()
	if h.u.tickStop == nil {
		t.Fatal("no ticker while playing")
	}
	stop := h.u.tickStop
	h.apply(func(st *app.Status) { st.Playing = false })
	select {
	case <-stop:
		stopped++
	default:
	}
	if h.u.tickStop != nil || stopped != 1 {
		t.Fatal("ticker still running while paused")
	}
}

func TestTransportButtonsSendIntents(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	np := h.u.np
	test.Tap(np.play)
	test.Tap(np.next)
	test.Tap(np.prev)
	test.Tap(np.shuffle)
	test.Tap(np.repeat) // off → all
	test.Tap(np.repeat) // all → one
	test.Tap(np.repeat) // one → off
	h.wantCalls("TogglePlay()", "Next()", "Prev()", "SetShuffle(true)", "SetRepeat(all)", "SetRepeat(one)", "SetRepeat(off)")
	if np.repeat.Icon != iconRepeat {
		t.Fatal("repeat off should show the plain repeat icon")
	}
	h.apply(func(st *app.Status) { st.Repeat = "one" })
	if np.repeat.Icon != iconRepeatOne {
		t.Fatal("repeat one should show the repeat-one icon")
	}
}

func TestSeekSliderSeeks(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	s := h.u.np.seek
	s.SetValue(60) // what a drag ends with: OnChanged then OnChangeEnded
	h.wantCalls("Seek(1m0s)")
	if h.u.np.elapsed.Text != "1:00" {
		t.Fatalf("elapsed %s after seeking to 1:00", h.u.np.elapsed.Text)
	}
}

func TestVolumeRequestsAreMergedWhileOneIsInFlight(t *testing.T) {
	h := newHarness(t, 30)
	var pending []func()
	h.u.spawn = func(f func()) { pending = append(pending, f) }
	h.u.np.volume.SetValue(10)
	h.u.np.volume.SetValue(20)
	h.u.np.volume.SetValue(30)
	for len(pending) > 0 {
		f := pending[0]
		pending = pending[1:]
		f()
	}
	h.wantCalls("SetVolume(10)", "SetVolume(30)")
}

func TestDoubleClickPlaysAndContextMenuQueues(t *testing.T) {
	h := newHarness(t, 30)
	h.u.showPage(PageTracks)
	tl := h.u.tracks.list
	test.DoubleTap(trackRowAt(t, tl, 2))
	h.wantCalls("PlayTracks(30," + tl.tracks[0].ContentID + ",2)")

	h.b.ResetCalls()
	row := trackRowAt(t, tl, 5)
	test.TapSecondary(row)
	tapMenu(t, h.u.win.Canvas(), "Play next")
	test.TapSecondary(row)
	tapMenu(t, h.u.win.Canvas(), "Add to queue")
	id := tl.tracks[5].ContentID
	h.wantCalls("Enqueue(1,"+id+",true)", "Enqueue(1,"+id+",false)")
	if got := h.u.notices.texts(); len(got) != 2 || !strings.HasSuffix(got[1], "added to the queue.") {
		t.Fatalf("notices %q", got)
	}
}

func TestPlayingTrackIsMarkedInTheList(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	cur := slices.IndexFunc(h.u.tracks.list.tracks, func(tr *track) bool { return tr.ContentID == h.b.Status().Track.ContentID })
	r := trackRowAt(t, h.u.tracks.list, cur)
	if !r.icon.Visible() || !r.cells[colTitle].bold {
		t.Fatal("the playing track is not marked")
	}
	if r := trackRowAt(t, h.u.tracks.list, cur+1); r.icon.Visible() || r.cells[colTitle].bold {
		t.Fatal("a track that is not playing is marked")
	}
}

func TestSearchFiltersWhileTyping(t *testing.T) {
	h := newHarness(t, 300)
	h.u.showPage(PageSettings)
	test.Type(h.u.search, "glass")
	if h.u.page != PageTracks {
		t.Fatalf("typing a search stays on %s", h.u.page)
	}
	got := h.u.tracks.list.tracks
	if len(got) == 0 || len(got) == 300 {
		t.Fatalf("%d results for glass", len(got))
	}
	for _, tr := range got {
		if !strings.Contains(strings.ToLower(tr.Title+tr.Album+strings.Join(tr.Artists, "")), "glass") {
			t.Fatalf("result %q does not match", tr.Title)
		}
	}
	if h.u.pageTitle.Text != "Search" || !strings.Contains(h.u.pageSub.Text, "“glass”") {
		t.Fatalf("header %q %q", h.u.pageTitle.Text, h.u.pageSub.Text)
	}
	test.Type(h.u.search, "zzz")
	if len(h.u.tracks.list.tracks) != 0 || !h.u.tracks.noMatch.Visible() {
		t.Fatal("no-match message missing")
	}
}

func TestBannerWhileAnotherDeviceOwnsTheOutput(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	if h.u.banner.view.Visible() {
		t.Fatal("banner shown while this device plays")
	}
	h.remote()
	if !h.u.banner.view.Visible() || h.u.banner.label.Text != "Playing on Living room" {
		t.Fatalf("banner visible=%v text=%q", h.u.banner.view.Visible(), h.u.banner.label.Text)
	}
	if h.u.np.device.Text != "Living room" {
		t.Fatalf("device button says %q", h.u.np.device.Text)
	}
	// the controls still send the same intents; the app routes them
	test.Tap(h.u.np.play)
	test.Tap(button(t, h.u.banner.view, "Play here"))
	h.wantCalls("TogglePlay()", "Transfer(dev-desk)")
}

func TestPickingADeviceTransfers(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	h.remote()
	test.Tap(h.u.np.device)
	tapMenu(t, h.u.win.Canvas(), "Desk (this device)")
	h.wantCalls("Transfer(dev-desk)")

	h.remote()
	h.b.ResetCalls()
	h.u.showPage(PageDevices)
	test.Tap(button(t, h.u.devices.view, "Play here"))
	h.wantCalls("Transfer(dev-desk)")
}

// TestOnlySelectableDevicesCanBePicked: a device the app refuses (not
// Selectable: an offline peer) is shown but cannot be picked, neither in
// the now-playing bar's device menu nor on the Devices page; once it is
// selectable again it can.
func TestOnlySelectableDevicesCanBePicked(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	h.remote()
	disabled := func() map[string]bool {
		out := map[string]bool{}
		for _, it := range h.u.deviceMenu().Items {
			if it.Action != nil || it.Checked {
				out[it.Label] = it.Disabled
			}
		}
		return out
	}
	if got := disabled(); !got["Laptop — offline"] || got["Desk (this device)"] {
		t.Fatalf("device menu disabled flags %v; want Laptop disabled, Desk enabled", got)
	}
	test.Tap(h.u.np.device)
	tapMenu(t, h.u.win.Canvas(), "Laptop — offline")
	h.wantNoCall("Transfer")

	h.u.showPage(PageDevices)
	here := find(h.u.devices.view, func(b *widgetButton) bool { return b.Text == "Play on Laptop" })
	if len(here) != 1 || !here[0].Disabled() {
		t.Fatalf("Laptop's Play on Laptop: %d buttons, want 1 disabled", len(here))
	}
	test.Tap(here[0])
	h.wantNoCall("Transfer")
	if b := button(t, h.u.devices.view, "Play here"); b.Disabled() {
		t.Fatal("this device's Play here is disabled")
	}

	// Laptop comes back online: both places offer it again.
	h.laptopOnline()
	if got := disabled(); got["Laptop"] {
		t.Fatalf("device menu disabled flags %v; want Laptop enabled", got)
	}
	here = find(h.u.devices.view, func(b *widgetButton) bool { return b.Text == "Play on Laptop" })
	if len(here) != 1 || here[0].Disabled() {
		t.Fatal("Play on Laptop is still disabled once it is online")
	}
	test.Tap(here[0])
	h.wantCalls("Transfer(dev-laptop)")
}

// TestTransferFailureIsShown: a device that went offline after the window
// offered it is refused by the app; the window shows the app's sentence
// and does not announce a move that did not happen.
func TestTransferFailureIsShown(t *testing.T) {
	h := newHarness(t, 30)
	h.remote()
	h.laptopOnline()
	h.b.Fail["Transfer"] = fakebackend.Offline("Laptop")
	h.u.showPage(PageDevices)
	buttons := find(h.u.devices.view, func(b *widgetButton) bool { return b.Text == "Play on Laptop" })
	if len(buttons) != 1 {
		t.Fatalf("%d Play on Laptop buttons, want 1", len(buttons))
	}
	before := len(h.u.notices.texts())
	test.AssertNotificationSent(t, nil, func() { test.Tap(buttons[0]) })
	got := h.u.notices.texts()[before:]
	if len(got) != 1 || got[0] != "Could not move playback to Laptop: Laptop is offline." {
		t.Fatalf("notices after the failed transfer %q, want only the app's sentence", got)
	}
	if h.u.st.Owner != "dev-living" || h.u.banner.label.Text != "Living room has the output" {
		t.Fatalf("after a refused transfer: owner %s, banner %q", h.u.st.Owner, h.u.banner.label.Text)
	}
}

// Devices speak plainly: "Play here" is this device's one name, another
// row's button names its device, a box without a window is no laptop, and
// an owner that does not answer is not shown as "Paused on" it.
func TestDeviceWording(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	h.remote()
	h.apply(func(st *app.Status) {
		st.Devices = slices.Clone(st.Devices)
		st.Devices[1].Box = true
	})
	h.u.showPage(PageDevices)
	var texts []string
	for _, b := range find(h.u.devices.view, func(*widgetButton) bool { return true }) {
		texts = append(texts, b.Text)
	}
	if !slices.Contains(texts, "Play here") || !slices.Contains(texts, "Play on Laptop") || slices.Contains(texts, "Play on this device") {
		t.Fatalf("Devices page buttons %q", texts)
	}
	icons := find(h.u.devices.view, func(i *widget.Icon) bool { return i.Resource == iconSpeaker })
	if len(icons) != 1 {
		t.Fatalf("%d speaker icons on the Devices page, want 1 (the box)", len(icons))
	}
	h.apply(func(st *app.Status) {
		st.Devices = slices.Clone(st.Devices)
		st.Devices[1].Online, st.Playing = false, false
	})
	if got := h.u.banner.label.Text; got != "Living room is out of reach" || h.u.banner.hint.Text != bannerHintUnreachable {
		t.Fatalf("banner %q / %q for an owner that does not answer", got, h.u.banner.hint.Text)
	}
}

func TestOwnerChangesAreAnnounced(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	test.AssertNotificationSent(t, &fyne.Notification{Title: "furudesk", Content: "Playback moved to Living room."}, h.remote)
	test.AssertNotificationSent(t, &fyne.Notification{Title: "furudesk", Content: "Playback moved to this device."}, func() {
		h.apply(func(st *app.Status) { st.Owner, st.OwnerName = "dev-desk", "Desk" })
	})
	got := h.u.notices.texts()
	if len(got) != 2 || got[0] != "Playback moved to Living room." || got[1] != "Playback moved to this device." {
		t.Fatalf("in-app notices %q", got)
	}
}

func TestAppNoticesAreShownOnce(t *testing.T) {
	h := newHarness(t, 3)
	n := []app.Notice{{ID: 1, Level: "error", Text: "Could not play x.mp3: not an audio file"}}
	h.apply(func(st *app.Status) { st.Notices = n })
	h.apply(func(st *app.Status) { st.Notices = append(n, app.Notice{ID: 2, Level: "info", Text: "Scan finished"}) })
	h.apply(func(st *app.Status) { st.Volume = 3 })
	got := h.u.notices.texts()
	if len(got) != 2 || got[0] != n[0].Text || got[1] != "Scan finished" {
		t.Fatalf("notices %q", got)
	}
}

func TestKeyboardShortcuts(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	c := h.u.win.Canvas()
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeySpace})
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyRight})
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyLeft})
	sc := c.(fyne.Shortcutable)
	mod := fyne.KeyModifierShortcutDefault
	sc.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyRight, Modifier: mod})
	sc.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyLeft, Modifier: mod})
	h.wantCalls("TogglePlay()", "Seek(15s)", "Seek(10s)", "Next()", "Prev()")

	sc.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyComma, Modifier: mod})
	if h.u.page != PageSettings {
		t.Fatalf("ctrl+, opened %s", h.u.page)
	}
	sc.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: mod})
	if c.Focused() != h.u.search {
		t.Fatal("ctrl+F does not focus the search field")
	}
}

func TestEmptyLibraryOffersFolderAndDemo(t *testing.T) {
	h := newHarness(t, 0)
	if !h.u.tracks.empty.Visible() {
		t.Fatal("no first-run invitation on an empty library")
	}
	test.Tap(button(t, h.u.tracks.view, "Try demo tracks"))
	// The demo bumped the library version; once they are listed, the
	// demo tracks play.
	h.wantCalls("GenerateDemo()", "Tracks()", "PlayTracks(24,"+h.u.cat.tracks[0].ContentID+",0)")
	if h.u.tracks.empty.Visible() || len(h.u.tracks.list.tracks) != 24 {
		t.Fatalf("after the demo: empty=%v, %d tracks", h.u.tracks.empty.Visible(), len(h.u.tracks.list.tracks))
	}
	if st := h.b.Status(); !st.Playing || st.QueueLen != 24 {
		t.Fatalf("the demo tracks do not play: %+v", st)
	}
}

func TestScanProgress(t *testing.T) {
	h := newHarness(t, 0)
	h.apply(func(st *app.Status) { st.Scan = app.ScanStatus{Running: true, Done: 30, Found: 120} })
	s := h.u.scanBar
	if !s.view.Visible() || s.bar.Value != 30 || s.bar.Max != 120 || s.label.Text != "Scanning your music… 30 of 120" {
		t.Fatalf("scan view: visible=%v %v/%v %q", s.view.Visible(), s.bar.Value, s.bar.Max, s.label.Text)
	}
	if h.u.tracks.empty.Visible() {
		t.Fatal("first-run invitation shown while the first scan runs")
	}
	h.apply(func(st *app.Status) { st.Scan = app.ScanStatus{Errors: 2} })
	if s.label.Text != "2 files could not be read." || s.details.Visible() {
		t.Fatalf("after scan: %q, details button %v", s.label.Text, s.details.Visible())
	}
}

// TestScanFailuresAreNamed: after a scan that skipped files, the sidebar
// names them (a few, shortened) and Details lists each with why and
// where.
func TestScanFailuresAreNamed(t *testing.T) {
	h := newHarness(t, 3)
	s := h.u.scanBar
	h.apply(func(st *app.Status) {
		st.Scan = app.ScanStatus{Errors: 1, Failed: []app.ScanFailure{{Path: "/music/a.mp3", Reason: "not an audio file"}}}
	})
	if want := "Could not read a.mp3: not an audio file."; s.label.Text != want {
		t.Fatalf("one failure: %q, want %q", s.label.Text, want)
	}

	long := strings.Repeat("very long name ", 20) + ".ogg"
	failed := []app.ScanFailure{
		{Path: "/music/a.mp3", Reason: "not an audio file"},
		{Path: "/music/b.flac", Reason: "permission denied"},
		{Path: "/music/" + long, Reason: "unsupported format"},
	}
	h.apply(func(st *app.Status) { st.Scan = app.ScanStatus{Errors: 4, Failed: failed} })
	if want := "Could not read 4 files: a.mp3, b.flac and 2 more."; s.label.Text != want {
		t.Fatalf("several failures: %q, want %q", s.label.Text, want)
	}
	h.apply(func(st *app.Status) {
		st.Scan = app.ScanStatus{Errors: 2, Failed: []app.ScanFailure{failed[2], failed[0]}}
	})
	if n := len([]rune(s.label.Text)); n > 100 || !strings.Contains(s.label.Text, "…, a.mp3.") {
		t.Fatalf("a long name is not shortened: %q (%d runes)", s.label.Text, n)
	}

	h.apply(func(st *app.Status) { st.Scan = app.ScanStatus{Errors: 4, Failed: failed} })
	if !s.details.Visible() {
		t.Fatal("no Details button")
	}
	test.Tap(s.details)
	top := h.u.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Details opened nothing")
	}
	for _, want := range []string{"a.mp3", "Not an audio file.", "/music/a.mp3", "b.flac", "Permission denied.", "Unsupported format.", "…and 1 more file."} {
		if len(labelsWith(top, func(s string) bool { return s == want })) == 0 {
			t.Errorf("details dialog lacks %q", want)
		}
	}

	h.apply(func(st *app.Status) { st.Scan = app.ScanStatus{Running: true} })
	if s.details.Visible() {
		t.Fatal("Details shown while a new scan runs")
	}
}

// TestBannerSaysWhatTheOwnerDoes: the banner says "Playing on" only while
// the other device plays; paused, or holding the output with nothing to
// play, it says so, and Play here still works.
func TestBannerSaysWhatTheOwnerDoes(t *testing.T) {
	h := newHarness(t, 30)
	h.remote()
	if got := h.u.banner.label.Text; got != "Living room has the output" {
		t.Fatalf("nothing loaded: banner %q", got)
	}
	h.playing()
	if got := h.u.banner.label.Text; got != "Playing on Living room" {
		t.Fatalf("playing: banner %q", got)
	}
	h.apply(func(st *app.Status) { st.Playing = false })
	if got := h.u.banner.label.Text; got != "Paused on Living room" {
		t.Fatalf("paused: banner %q", got)
	}
	test.Tap(h.u.np.play)
	test.Tap(button(t, h.u.banner.view, "Play here"))
	h.wantCalls("TogglePlay()", "Transfer(dev-desk)")
}

// TestBackendErrorsAreUserMessages: errors from the app are shown as
// app.UserMessage sentences, without package prefixes or Go internals.
func TestBackendErrorsAreUserMessages(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	h.b.Fail["Next"] = fmt.Errorf("app: next: %w", devicesync.ErrPairDenied)
	test.Tap(h.u.np.next)
	h.b.Fail["Seek"] = fmt.Errorf("app: seek: engine: %w", errors.New("storage: disk full"))
	h.u.seekTo(time.Second)
	got := h.u.notices.texts()
	want := []string{
		"Could not skip to the next track: The other device refused the pairing request.",
		"Could not seek: Seek: disk full.",
	}
	if len(got) < 2 || !slices.Equal(got[len(got)-2:], want) {
		t.Fatalf("notices %q, want them to end with %q", got, want)
	}
	if strings.Contains(strings.Join(got, "|"), "app:") || strings.Contains(strings.Join(got, "|"), "devicesync:") {
		t.Fatalf("a package prefix reached the user: %q", got)
	}
}

// The queue page shows what plays now, up next and the history in play
// order; a double-click jumps, the menu removes, Clear empties it.
func TestQueuePage(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	h.u.showPage(PageQueue)
	q := h.u.queue
	if len(q.next.tracks) != 6 || len(q.history.tracks) != 3 || q.nowTitle.Text != h.b.Status().Track.Title {
		t.Fatalf("up next %d, history %d, now %q", len(q.next.tracks), len(q.history.tracks), q.nowTitle.Text)
	}
	if q.nextTab.Text != "Up next (6)" || q.histTab.Text != "History (3)" {
		t.Fatalf("tabs %q %q", q.nextTab.Text, q.histTab.Text)
	}
	if h.u.pageSub.Text != "10 tracks" {
		t.Fatalf("queue header %q", h.u.pageSub.Text)
	}
	row := trackRowAt(t, q.next, 1) // queue index 5
	if row.cells[colPos].text != "2" {
		t.Fatalf("up next's second row is numbered %q", row.cells[colPos].text)
	}
	test.DoubleTap(row)
	h.wantCalls("JumpTo(5)")
	h.b.ResetCalls()
	row = trackRowAt(t, q.next, 1) // queue index 7 now
	test.TapSecondary(row)
	tapMenu(t, h.u.win.Canvas(), "Remove from queue")
	test.Tap(h.u.queue.clear)
	h.wantCalls("RemoveQueueEntries([7])", "ClearQueue()")
	if !h.u.queue.empty.Visible() {
		t.Fatal("cleared queue does not say it is empty")
	}
}

func TestPairingRequests(t *testing.T) {
	h := newHarness(t, 3)
	h.apply(func(st *app.Status) {
		st.Pairing = []app.PairingRequest{
			{ID: "r1", DeviceID: "dev-k", Name: "Kitchen"},
			{ID: "r2", DeviceID: "dev-o", Name: "Office", GroupConflict: true},
		}
	})
	v := h.u.devices.requests
	accept := find(v, func(b *widgetButton) bool { return b.Text == "Accept" })
	deny := find(v, func(b *widgetButton) bool { return b.Text == "Deny" })
	if len(accept) != 1 || len(deny) != 2 {
		t.Fatalf("%d Accept and %d Deny buttons", len(accept), len(deny))
	}
	test.Tap(accept[0])
	test.Tap(button(t, v, "Join their group"))
	test.Tap(button(t, v, "Keep my group"))
	test.Tap(deny[1])
	h.wantCalls("Accept(r1,false)", "Accept(r2,true)", "Accept(r2,false)", "Deny(r2)")
}

// A request shows the requester's key fingerprint, and the Join dialog
// shows this device's own, the one the other device will show: the user
// tells a real device from a look-alike of the same name.
func TestPairingShowsFingerprints(t *testing.T) {
	h := newHarness(t, 3)
	h.apply(func(st *app.Status) {
		st.Fingerprint = "1111-2222-3333-4444"
		st.Pairing = []app.PairingRequest{{ID: "r1", DeviceID: "dev-k", Name: "Kitchen", Fingerprint: "3f9a-1c07-b2e4-5d18"}}
	})
	if len(find(h.u.devices.requests, func(l *widgetLabel) bool { return strings.Contains(l.Text, "3f9a-1c07-b2e4-5d18") })) != 1 {
		t.Fatal("the request does not show the requester's fingerprint")
	}
	h.u.showPage(PageDevices)
	test.Tap(button(t, h.u.devices.view, "Join another device's group"))
	top := h.u.win.Canvas().Overlays().Top()
	if top == nil || len(labelsWith(top, func(s string) bool { return strings.Contains(s, "1111-2222-3333-4444") })) != 1 {
		t.Fatal("the Join dialog does not show this device's fingerprint")
	}
}

func TestInviteShowsCodeCopyAndExpiry(t *testing.T) {
	h := newHarness(t, 3)
	h.clock.t = time.Date(2025, 1, 1, 12, 0, 30, 0, time.UTC)
	h.u.showPage(PageDevices)
	test.Tap(button(t, h.u.devices.view, "Add a device"))
	top := h.u.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no invite dialog")
	}
	inv, _ := h.b.Invite()
	if len(find(top, func(l *widgetLabel) bool { return l.Text == inv.Code })) != 1 {
		t.Fatal("the invite code is not shown")
	}
	if len(labelsWith(top, func(s string) bool { return strings.Contains(s, "(in 9 minutes)") })) != 1 {
		t.Fatal("the expiry is not shown")
	}
	test.Tap(button(t, top, "Copy code"))
	if got := h.u.fa.Clipboard().Content(); got != inv.Code {
		t.Fatalf("clipboard %q", got)
	}
}

func TestJoinPairsWithThePastedCode(t *testing.T) {
	h := newHarness(t, 3)
	h.u.showPage(PageDevices)
	test.Tap(button(t, h.u.devices.view, "Join another device's group"))
	top := h.u.win.Canvas().Overlays().Top()
	test.Tap(button(t, top, "Join"))
	h.wantNoCall("Pair")
	if len(find(top, func(l *widgetLabel) bool { return l.Text == "Paste a code first." })) != 1 {
		t.Fatal("empty code accepted silently")
	}
	h.b.Fail["Pair"] = errors.New("the invite has expired")
	entry := find[*dialogEntry](top, nil)[0]
	test.Type(entry, " frid://i/abc ")
	test.Tap(button(t, top, "Join"))
	if len(find(top, func(l *widgetLabel) bool { return l.Text == "Could not join: The invite has expired." })) != 1 {
		t.Fatal("pairing error not shown in the dialog")
	}
	h.wantCalls("Pair(frid://i/abc)")
}

func TestRevokeAsksFirst(t *testing.T) {
	h := newHarness(t, 3)
	h.remote()
	h.u.showPage(PageDevices)
	test.Tap(find(h.u.devices.view, func(b *widgetButton) bool { return b.Text == "Remove" })[1])
	h.wantNoCall("Revoke")
	top := h.u.win.Canvas().Overlays().Top()
	test.Tap(button(t, top, "Yes"))
	h.wantCalls("Revoke(dev-laptop)")
}

func TestInvalidPlaybackSettingsKeepTheOldValues(t *testing.T) {
	h := newHarness(t, 3)
	p := h.u.settings
	h.u.showPage(PageSettings)
	old := h.b.Status().Config
	for _, tc := range []struct{ discovery, timeout, msg string }{
		{"3000", "0", "Playing-device timeout must be between 1 and 86400000 milliseconds (one day), not 0. Nothing was changed."},
		{"90000", "120000", "Startup wait must be at most 60000 milliseconds (one minute), not 90000. Nothing was changed."},
		{"soon", "120000", "Startup wait must be a whole number of milliseconds, not “soon”. Nothing was changed."},
	} {
		p.discovery.SetText(tc.discovery)
		p.timeout.SetText(tc.timeout)
		test.Tap(button(t, p.view, "Apply"))
		if !p.cfgMsg.Visible() || p.cfgMsg.Text != tc.msg {
			t.Fatalf("message %q, want %q", p.cfgMsg.Text, tc.msg)
		}
		h.wantNoCall("SetPlaybackConfig")
		if h.b.Status().Config != old {
			t.Fatal("config changed")
		}
	}

	// the app's own validation is shown the same way
	bad := engine.DefaultConfig()
	bad.OwnerTimeoutMS = 0
	h.b.Fail["SetPlaybackConfig"] = bad.Validate()
	p.discovery.SetText("1000")
	test.Tap(button(t, p.view, "Apply"))
	if want := "Playing-device timeout must be a whole number of milliseconds between 1 and 86400000. Nothing was changed."; p.cfgMsg.Text != want || h.b.Status().Config != old {
		t.Fatalf("backend refusal: %q", p.cfgMsg.Text)
	}

	delete(h.b.Fail, "SetPlaybackConfig")
	h.b.ResetCalls()
	test.Tap(p.failover)
	test.Tap(button(t, p.view, "Apply"))
	want := engine.DefaultConfig()
	want.AutomaticFailover, want.DiscoveryMS = false, 1000
	if h.b.Status().Config != want || p.cfgMsg.Text != "Saved." {
		t.Fatalf("config %+v, message %q", h.b.Status().Config, p.cfgMsg.Text)
	}
	h.u.apply(h.b.Status())
	test.Tap(button(t, p.view, "Reset to defaults"))
	if h.b.Status().Config != engine.DefaultConfig() || p.timeout.Text != "120000" || !p.failover.Checked {
		t.Fatalf("reset: %+v", h.b.Status().Config)
	}
}

func TestSettingsFoldersNameAndPassive(t *testing.T) {
	h := newHarness(t, 3)
	h.apply(func(st *app.Status) { st.Folders = []string{"/music/a", "/music/b"} })
	p := h.u.settings
	h.u.showPage(PageSettings)
	rm := find(p.folders, func(b *widgetButton) bool { return b.Text == "Remove" })
	if len(rm) != 2 {
		t.Fatalf("%d folder rows", len(rm))
	}
	test.Tap(rm[1])
	test.Tap(p.rescan)
	p.name.SetText("Study")
	test.Tap(button(t, p.view, "Rename"))
	test.Tap(p.passive)
	h.wantCalls("RemoveFolder(/music/b)", "Rescan()", "SetDeviceName(Study)", "SetPassive(true)")

	h.b.Fail["SetPassive"] = errors.New("the store is read-only")
	test.Tap(p.passive)
	if !p.passive.Checked || p.passMsg.Text != "Could not change it: The store is read-only." {
		t.Fatalf("failed passive switch: checked=%v %q", p.passive.Checked, p.passMsg.Text)
	}
}

func TestSettingsReplayGain(t *testing.T) {
	h := newHarness(t, 3)
	h.apply(func(st *app.Status) { st.ReplayGain = library.GainAuto })
	p := h.u.settings
	h.u.showPage(PageSettings)
	if p.gain.Selected != "Auto: album gain while an album plays in order" {
		t.Fatalf("shown %q for auto", p.gain.Selected)
	}
	h.b.ResetCalls()
	p.gain.SetSelected("Album gain")
	h.wantCalls("SetReplayGain(album)")
	h.apply(func(st *app.Status) { st.ReplayGain = library.GainTrack }) // another front end changed it
	if p.gain.Selected != "Track gain" {
		t.Fatalf("shown %q after the status said track", p.gain.Selected)
	}
	h.b.ResetCalls()
	h.b.Fail["SetReplayGain"] = errors.New("the store is read-only")
	p.gain.SetSelected("Off")
	h.wantCalls("SetReplayGain(off)")
	if p.gain.Selected != "Track gain" || p.gainMsg.Text != "Could not change it: The store is read-only." {
		t.Fatalf("failed change: shown %q, %q", p.gain.Selected, p.gainMsg.Text)
	}
}

func TestLongTextIsCutWithAnEllipsis(t *testing.T) {
	test.NewTempApp(t)
	c := newCell(fyne.TextAlignLeading, theme.ColorNameForeground)
	w := test.NewTempWindow(t, c)
	c.set("A very long title that cannot possibly fit into a narrow column", false, theme.ColorNameForeground)
	w.Resize(fyne.NewSize(120, 40))
	c.Resize(fyne.NewSize(120, 40))
	test.TempWidgetRenderer(t, c).Layout(fyne.NewSize(120, 40))
	if !strings.HasSuffix(c.t.Text, "…") || fyne.MeasureText(c.t.Text, theme.TextSize(), fyne.TextStyle{}).Width > c.width {
		t.Fatalf("cut to %q (width %v)", c.t.Text, c.width)
	}
	c.set("Short", false, theme.ColorNameForeground)
	if c.t.Text != "Short" {
		t.Fatalf("short text shown as %q", c.t.Text)
	}
}

// TestWithdrawnAppNoticeGoes: when the app withdraws a notice (the sound
// device works again), the window stops showing it; the user's other
// notices stay.
func TestWithdrawnAppNoticeGoes(t *testing.T) {
	h := newHarness(t, 3)
	failed := app.Notice{ID: 1, Level: "error", Text: "No sound device is working: the device is not taking any sound"}
	other := app.Notice{ID: 2, Level: "error", Text: "Could not play x.mp3: not an audio file"}
	h.apply(func(st *app.Status) { st.Notices = []app.Notice{failed, other} })
	if got := h.u.notices.texts(); len(got) != 2 {
		t.Fatalf("notices %q", got)
	}
	h.apply(func(st *app.Status) {
		st.Notices = []app.Notice{other, {ID: 3, Level: "info", Text: "Audio output is working again"}}
	})
	got := h.u.notices.texts()
	if len(got) != 2 || got[0] != other.Text || got[1] != "Audio output is working again" {
		t.Fatalf("notices %q, want the failure gone and the rest kept", got)
	}
}

// TestOwnerBadgeSaysWhatTheOwnerDoes: the owner's badge on the Devices
// page says "Playing" only while it plays; paused it says "Paused", with
// nothing loaded "Owner".
func TestOwnerBadgeSaysWhatTheOwnerDoes(t *testing.T) {
	h := newHarness(t, 20)
	h.u.showPage(PageDevices)
	badges := func() []string {
		var out []string
		for _, l := range find(h.u.devices.view, func(l *widget.Label) bool { return l.SizeName == theme.SizeNameCaptionText }) {
			out = append(out, l.Text)
		}
		return out
	}
	if got := badges(); strings.Join(got, ",") != "This device,Owner" {
		t.Fatalf("nothing loaded: badges %q, want This device, Owner", got)
	}
	h.playing()
	if got := badges(); strings.Join(got, ",") != "This device,Playing" {
		t.Fatalf("playing: badges %q", got)
	}
	h.apply(func(st *app.Status) { st.Playing = false })
	if got := badges(); strings.Join(got, ",") != "This device,Paused" {
		t.Fatalf("paused: badges %q", got)
	}
	h.remote()
	if got := badges(); strings.Join(got, ",") != "This device,Paused" {
		t.Fatalf("another device owns the output, paused: badges %q", got)
	}
	h.apply(func(st *app.Status) { st.Playing = true })
	if got := badges(); strings.Join(got, ",") != "This device,Playing" {
		t.Fatalf("another device plays: badges %q", got)
	}
}

// TestSearchOnlyOnLibraryPages: the search field is shown on the pages it
// searches from, not on Devices or Settings; Ctrl+F there goes to the
// tracks.
func TestSearchOnlyOnLibraryPages(t *testing.T) {
	h := newHarness(t, 3)
	for _, p := range pageOrder {
		h.u.showPage(p)
		if want := p != PageDevices && p != PageSettings; h.u.searchBox.Visible() != want {
			t.Errorf("page %s: search shown %v, want %v", p, h.u.searchBox.Visible(), want)
		}
	}
	h.u.showPage(PageSettings)
	h.u.focusSearch()
	if h.u.page != PageTracks || !h.u.searchBox.Visible() {
		t.Fatalf("Ctrl+F on Settings: page %s", h.u.page)
	}
}

// TestPassiveDeviceHasAlwaysOnBadge: this device, set passive, shows the
// "Always on" badge on the Devices page (the app does not say which peers
// are passive).
func TestPassiveDeviceHasAlwaysOnBadge(t *testing.T) {
	h := newHarness(t, 3)
	h.u.showPage(PageDevices)
	has := func() bool {
		return len(find(h.u.devices.view, func(l *widget.Label) bool { return l.Text == badgeAlwaysOn })) > 0
	}
	if has() {
		t.Fatal("badge shown on an active device")
	}
	h.apply(func(st *app.Status) { st.Passive = true })
	if !has() {
		t.Fatal("no Always on badge on the passive device")
	}
}

func TestMillisecondsInWords(t *testing.T) {
	for ms, want := range map[uint64]string{3000: "3 seconds", 120000: "2 minutes", 1500: "1500 milliseconds", 0: "0 milliseconds", 3_600_000: "1 hour"} {
		if got := msInWords(ms); got != want {
			t.Errorf("msInWords(%d) = %q, want %q", ms, got, want)
		}
	}
}

// An offline device says why this one cannot reach it.
func TestOfflineDeviceSaysWhy(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	h.remote()
	h.apply(func(st *app.Status) {
		st.Devices = slices.Clone(st.Devices)
		st.Devices[1].Online, st.Devices[1].Unreachable = false, "no direct route and no member carries it"
	})
	h.u.showPage(PageDevices)
	if got := find(h.u.devices.view, func(l *subtle) bool { return l.Text == "Offline: no direct route and no member carries it" }); len(got) != 1 {
		t.Fatalf("%d labels say why the device is offline", len(got))
	}
}

// A device reached through another member says through which.
func TestDeviceReachedThroughAMember(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	h.remote()
	h.apply(func(st *app.Status) {
		st.Devices = slices.Clone(st.Devices)
		st.Devices[1].Via, st.Devices[1].ViaName = "dev-box", "Cellar box"
	})
	h.u.showPage(PageDevices)
	if got := find(h.u.devices.view, func(l *subtle) bool { return l.Text == "Online through Cellar box" }); len(got) != 1 {
		t.Fatalf("%d labels say the device is online through Cellar box", len(got))
	}
}

// TestAHubsBrowserIsNamed: a web hub playing in a browser is listed by
// the browser's name, by way of the hub, in the device menu and on the
// Devices page; picking it transfers to the hub.
func TestAHubsBrowserIsNamed(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	h.remote()
	h.apply(func(st *app.Status) {
		st.Devices = append(slices.Clone(st.Devices), app.DeviceStatus{DeviceID: "dev-hub", Name: "Hub", Online: true, Selectable: true, Output: "Android · Chrome"})
	})
	test.Tap(h.u.np.device)
	tapMenu(t, h.u.win.Canvas(), "Android · Chrome (via Hub)")
	h.wantCalls("Transfer(dev-hub)")
	h.u.showPage(PageDevices)
	if len(find(h.u.devices.view, func(l *widget.Label) bool { return l.Text == "Android · Chrome (via Hub)" })) != 1 {
		t.Fatal("the Devices page does not name the hub's browser")
	}
}
