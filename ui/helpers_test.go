package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/ui/internal/fakebackend"
)

// fakeClock is the test's time: it moves only when the test says so.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

type harness struct {
	t     *testing.T
	u     *UI
	b     *fakebackend.Backend
	clock *fakeClock
}

// newHarness opens the window on a fake backend with n tracks. Backend calls
// run inline, so an intent has been sent when the tap returns.
func newHarness(t *testing.T, n int) *harness {
	t.Helper()
	return newHarnessWith(t, fakebackend.MakeTracks(n))
}

// newHarnessWith is newHarness over the tracks ts.
func newHarnessWith(t *testing.T, ts []library.Track) *harness {
	t.Helper()
	fa := test.NewTempApp(t)
	h := &harness{t: t, clock: &fakeClock{t: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)}}
	h.b = fakebackend.New(ts)
	// like the app, the fake publishes a status after every intent
	h.u = newUI(fa, h.b, Options{Now: h.clock.now}, func(f func()) {
		f()
		if h.u != nil {
			h.u.apply(h.b.Status())
		}
	})
	h.u.win.Resize(fyne.NewSize(860, 520))
	h.b.ResetCalls()
	t.Cleanup(func() { h.u.Close(); h.u.win.Close() })
	return h
}

// apply renders the fake's current status after changing it with f.
func (h *harness) apply(f func(*app.Status)) {
	h.b.Update(f)
	h.u.apply(h.b.Status())
}

// playing starts the first 10 tracks at index 3, 10 s in.
func (h *harness) playing() {
	ts, _ := h.b.Tracks()
	var ids []string
	for _, t := range ts[:10] {
		ids = append(ids, t.ContentID)
	}
	if err := h.b.PlayTracks(ids, 3); err != nil {
		h.t.Fatal(err)
	}
	h.apply(func(st *app.Status) { st.PositionMS = 10_000 })
	h.b.ResetCalls()
}

// remote makes "Living room" the owner of the output; "Laptop" is
// offline (not selectable).
func (h *harness) remote() {
	h.apply(func(st *app.Status) {
		st.Devices = []app.DeviceStatus{
			{DeviceID: "dev-desk", Name: "Desk", Online: true, Self: true, Selectable: true},
			{DeviceID: "dev-living", Name: "Living room", Online: true, Owner: true, Selectable: true},
			{DeviceID: "dev-laptop", Name: "Laptop"},
		}
		st.Owner, st.OwnerName, st.Rendering = "dev-living", "Living room", false
	})
}

// laptopOnline brings "Laptop" of remote online (selectable); like the
// app, a new Devices slice.
func (h *harness) laptopOnline() {
	h.apply(func(st *app.Status) {
		st.Devices = slices.Clone(st.Devices)
		st.Devices[2].Online, st.Devices[2].Selectable = true, true
	})
}

func (h *harness) wantCalls(want ...string) {
	h.t.Helper()
	got := h.b.Calls()
	if !slices.Equal(got, want) {
		h.t.Fatalf("intents sent:\n got %q\nwant %q", got, want)
	}
}

func (h *harness) wantNoCall(prefix string) {
	h.t.Helper()
	for _, c := range h.b.Calls() {
		if strings.HasPrefix(c, prefix) {
			h.t.Fatalf("unexpected intent %s (all: %q)", c, h.b.Calls())
		}
	}
}

// find returns the laid-out objects under root of type T that pass ok.
func find[T fyne.CanvasObject](root fyne.CanvasObject, ok func(T) bool) []T {
	var out []T
	for _, o := range test.LaidOutObjects(root) {
		if v, is := o.(T); is && o.Visible() && (ok == nil || ok(v)) {
			out = append(out, v)
		}
	}
	return out
}

// hasText reports whether a visible text under o reads s.
func hasText(o fyne.CanvasObject, s string) bool {
	return len(find(o, func(t *canvas.Text) bool { return t.Text == s })) > 0
}

// button finds the visible button labelled text under root.
func button(t *testing.T, root fyne.CanvasObject, text string) *widget.Button {
	t.Helper()
	bs := find(root, func(b *widget.Button) bool { return b.Text == text })
	if len(bs) == 0 {
		t.Fatalf("no visible button %q", text)
	}
	return bs[0]
}

// tapMenu taps the item labelled label of the pop-up menu on top of c.
func tapMenu(t *testing.T, c fyne.Canvas, label string) {
	t.Helper()
	if c.Overlays().Top() == nil {
		t.Fatal("no pop-up menu open")
	}
	menus := find[*widget.PopUpMenu](c.Overlays().Top(), nil)
	if len(menus) == 0 {
		t.Fatalf("no pop-up menu open (top overlay %T)", c.Overlays().Top())
	}
	top := menus[0]
	var labels []string
	for _, it := range top.Items {
		tap, ok := it.(fyne.Tappable)
		if !ok {
			continue
		}
		if hasText(it, label) {
			test.Tap(tap)
			return
		}
		for _, tx := range find[*canvas.Text](it, nil) {
			labels = append(labels, tx.Text)
		}
	}
	t.Fatalf("menu has no item %q (items: %q)", label, labels)
}

// trackRowAt returns the rendered row id of a track list (scrolled to).
func trackRowAt(t *testing.T, tl *trackList, id int) *trackRow {
	t.Helper()
	tl.list.ScrollTo(id)
	rows := find(tl.list, func(r *trackRow) bool { return r.id == id })
	if len(rows) == 0 {
		t.Fatalf("row %d is not rendered", id)
	}
	return rows[0]
}

// rowOf is the row of a list showing content id cid, -1 when none.
func rowOf(tl *trackList, cid string) int {
	for i, tr := range tl.tracks {
		if tr.ContentID == cid {
			return i
		}
	}
	return -1
}

type (
	widgetButton = widget.Button
	widgetLabel  = widget.Label
)

// labelsWith returns the visible labels (plain or subtle) under root whose
// text satisfies ok.
func labelsWith(root fyne.CanvasObject, ok func(string) bool) []string {
	var out []string
	for _, l := range find(root, func(l *widget.Label) bool { return ok(l.Text) }) {
		out = append(out, l.Text)
	}
	for _, l := range find(root, func(l *subtle) bool { return ok(l.Text) }) {
		out = append(out, l.Text)
	}
	return out
}
