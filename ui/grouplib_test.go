package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/grouplib"
	"github.com/furudesk/furudesk/portmap"
)

// groupPlaces makes tracks 1 to 3 of the harness's library tracks other
// devices have: one on an online device, one saved here, one on a device
// that is not online.
func groupPlaces(h *harness) map[string]app.Place {
	ts, _ := h.b.Tracks()
	p := map[string]app.Place{
		ts[1].ContentID: {Holders: nil, Playable: true, Where: "On Laptop"},
		ts[2].ContentID: {Playable: true, Cached: true, Where: "On Laptop (saved here)"},
		ts[3].ContentID: {Where: "On Living room and Laptop (not online)"},
	}
	h.b.SetPlaces(p)
	h.u.apply(h.b.Status())
	return p
}

// The library shows where each track of another device is and greys out
// the ones no online device has; the Where column comes with the first
// track of another device and goes with the last.
func TestLibrarySaysWhereTracksAre(t *testing.T) {
	h := newHarness(t, 12)
	tl := h.u.tracks.list
	if tl.visible.has(colWhere) {
		t.Fatal("a Where column with no other device's tracks")
	}
	groupPlaces(h)
	if !tl.visible.has(colWhere) || !h.u.albums.tracks.visible.has(colWhere) {
		t.Fatal("no Where column with tracks of other devices")
	}
	test.AssertRendersToImage(t, "tracks_group.png", h.u.win.Canvas())

	where := map[string]string{}
	dim := map[string]bool{}
	for r := range tl.tracks {
		row := newTrackRow(tl)
		row.bind(r)
		where[tl.tracks[r].ContentID] = row.cells[colWhere].text
		dim[tl.tracks[r].ContentID] = row.cells[colTitle].color != theme.ColorNameForeground
	}
	ts, _ := h.b.Tracks()
	if where[ts[0].ContentID] != "This device" || where[ts[1].ContentID] != "On Laptop" || !strings.Contains(where[ts[3].ContentID], "not online") {
		t.Fatalf("where: %q", where)
	}
	if dim[ts[0].ContentID] || dim[ts[1].ContentID] || dim[ts[2].ContentID] || !dim[ts[3].ContentID] {
		t.Fatalf("greyed: %v, want only the track no online device has", dim)
	}

	// Sorted by Where: this device's, saved here, online elsewhere, not
	// online.
	test.Tap(tl.hdr[colWhere])
	n := len(tl.tracks)
	if tl.tracks[n-1].ContentID != ts[3].ContentID || tl.tracks[n-2].ContentID != ts[1].ContentID || tl.tracks[n-3].ContentID != ts[2].ContentID {
		t.Fatalf("by where, the last three: %s %s %s", tl.tracks[n-3].Title, tl.tracks[n-2].Title, tl.tracks[n-1].Title)
	}

	h.b.SetPlaces(nil)
	h.u.apply(h.b.Status())
	if tl.visible.has(colWhere) {
		t.Fatal("the Where column stayed with no track of another device left")
	}
}

// A list whose columns the user chose gets the Where column too when
// tracks of other devices come (they must not look like this device's), and
// loses it when they go; once the user takes it away it stays away, and a
// track no online device has then says where it is in its title.
func TestChosenColumnsGetWhereUntilTheUserRemovesIt(t *testing.T) {
	h := newHarness(t, 12)
	tl := h.u.tracks.list
	tl.setVisible(colYear, true)
	places := groupPlaces(h)
	if !tl.visible.has(colWhere) || !tl.visible.has(colYear) {
		t.Fatalf("chosen columns with other devices' tracks: %s, want Year and Where", tl.visible)
	}
	h.b.SetPlaces(nil)
	h.u.apply(h.b.Status())
	if tl.visible.has(colWhere) {
		t.Fatal("the Where that came with other devices' tracks stayed after they went")
	}
	groupPlaces(h)
	tl.setVisible(colWhere, false)
	h.b.SetPlaces(nil)
	h.u.apply(h.b.Status())
	groupPlaces(h)
	if tl.visible.has(colWhere) {
		t.Fatal("the Where column came back after the user removed it")
	}
	// The next start remembers it.
	again := newTrackList(h.u, listConfig{view: tl.key, allowed: libraryColumns, defaults: tl.visible}, listHooks{})
	h.u.showGroupColumn()
	if again.visible.has(colWhere) {
		t.Fatal("the removed Where column came back on the next start")
	}
	ts, _ := h.b.Tracks()
	for r, tr := range tl.tracks {
		if tr.ContentID != ts[3].ContentID {
			continue
		}
		row := newTrackRow(tl)
		row.bind(r)
		if got := row.cells[colTitle].text; !strings.HasSuffix(got, " — "+places[ts[3].ContentID].Where) {
			t.Fatalf("title %q, want where it is", got)
		}
		return
	}
	t.Fatal("track 3 not listed")
}

// The settings show what the cache of other devices' tracks holds, set
// its size and the upload limit, refuse a size that is not a number, and
// clear it.
func TestSettingsOfTheGroupLibrary(t *testing.T) {
	h := newHarness(t, 5)
	h.b.SetCache(app.CacheStatus{CacheUsage: grouplib.CacheUsage{Limit: 2 << 30, Bytes: 120 << 20, Tracks: 14}, LimitMB: 2048})
	h.u.showPage(PageSettings)
	c := h.u.settings.sharing
	if got := c.usage.Text; got != "120 MB in 14 tracks saved here, of 2.0 GB." {
		t.Fatalf("usage %q", got)
	}
	if c.limit.Text != "2048" || c.upload.Text != "0" {
		t.Fatalf("form: %q MB, %q KB/s", c.limit.Text, c.upload.Text)
	}
	c.limit.SetText("lots")
	c.apply()
	if !c.msg.Visible() || !strings.Contains(c.msg.Text, "number of megabytes") {
		t.Fatalf("message %q", c.msg.Text)
	}
	h.wantNoCall("SetCacheLimit")
	h.b.ResetCalls()
	c.limit.SetText("512")
	c.upload.SetText("800")
	c.apply()
	h.wantCalls("SetCacheLimit(512)", "SetUploadLimit(800)")
	if c.msg.Text != "Applied." || !strings.HasSuffix(c.usage.Text, "of 512 MB.") {
		t.Fatalf("after apply: %q, %q", c.msg.Text, c.usage.Text)
	}
	c.limit.SetText("10")
	c.apply()
	if !strings.Contains(c.msg.Text, "at least 64 MB") {
		t.Fatalf("a limit too small: %q", c.msg.Text)
	}
	c.clear()
	if got := c.usage.Text; !strings.HasPrefix(got, "No tracks of other devices are saved here") {
		t.Fatalf("after clearing: %q", got)
	}
}

// Settings › Carry other devices' traffic shows the device's state and
// applies a change at once.
func TestSettingsCarryOthersTraffic(t *testing.T) {
	h := newHarness(t, 5)
	if err := h.b.SetCarry(true); err != nil {
		t.Fatal(err)
	}
	h.b.ResetCalls()
	h.u.showPage(PageSettings)
	c := h.u.settings.sharing
	if !c.carry.Checked {
		t.Fatal("the box is not shown as carrying")
	}
	h.wantNoCall("SetCarry")
	test.Tap(c.carry)
	h.wantCalls("SetCarry(false)")
	if h.b.Carry() || c.msg.Text != "This device no longer carries other devices' traffic." {
		t.Fatalf("after unticking: carry %v, message %q", h.b.Carry(), c.msg.Text)
	}
}

// Settings › Reach from outside: opening a port on the router applies at
// once and says what the router answered; a forwarded address is
// applied, a wrong one refused with a sentence; the address members see
// is offered while nothing is forwarded.
func TestSettingsReachFromOutside(t *testing.T) {
	h := newHarness(t, 5)
	h.apply(func(st *app.Status) { st.Reach = &app.ReachStatus{Observed: []string{"203.0.113.7:7400"}} })
	h.u.showPage(PageSettings)
	c := h.u.settings.outside
	if c.portmap.Checked || !c.seen.Visible() || !strings.Contains(c.seen.Text, "203.0.113.7:7400") {
		t.Fatalf("at first: checked %v, seen %v %q", c.portmap.Checked, c.seen.Visible(), c.seen.Text)
	}
	test.Tap(c.portmap)
	h.wantCalls("SetPortMap(true)")
	if c.mapped.Text != "Asking the router…" {
		t.Fatalf("after ticking: %q", c.mapped.Text)
	}
	h.apply(func(st *app.Status) {
		st.Reach = &app.ReachStatus{Observed: st.Reach.Observed, PortMap: portmap.Status{On: true, Answer: "no mapping: NAT-PMP: connection refused; UPnP-IGD: no internet gateway answered on the LAN"}}
	})
	if !strings.HasPrefix(c.mapped.Text, "The router did not open a port (NAT-PMP: connection refused") {
		t.Fatalf("a refusal: %q", c.mapped.Text)
	}
	h.apply(func(st *app.Status) {
		st.Reach = &app.ReachStatus{Observed: st.Reach.Observed, PortMap: portmap.Status{On: true, Method: "UPnP-IGD", External: "11.0.0.20:7400"}}
	})
	if c.mapped.Text != "Opened by UPnP-IGD: other networks reach this device at 11.0.0.20:7400." || c.seen.Visible() {
		t.Fatalf("mapped: %q, seen shown %v", c.mapped.Text, c.seen.Visible())
	}

	h.b.ResetCalls()
	test.Type(c.public, "home.example.net")
	c.applyPublic()
	h.wantCalls("SetPublicAddrs(home.example.net)")
	if c.msg.Importance != widget.DangerImportance || !strings.Contains(c.msg.Text, "host:port") {
		t.Fatalf("an address without a port: %q", c.msg.Text)
	}
	c.public.SetText("home.example.net:7400, 198.51.100.2:7400")
	c.applyPublic()
	if got := h.b.Status().Reach.Public; !slices.Equal(got, []string{"home.example.net:7400", "198.51.100.2:7400"}) {
		t.Fatalf("public addresses %q", got)
	}
	if c.msg.Importance == widget.DangerImportance || c.public.Text != "home.example.net:7400 198.51.100.2:7400" {
		t.Fatalf("after apply: %q, field %q", c.msg.Text, c.public.Text)
	}
}
