package main

import (
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/engine"
)

// fakeTray records the calls the tray menu makes.
type fakeTray struct {
	mu    sync.Mutex
	calls []string
	done  chan string
}

func newFakeTray() *fakeTray { return &fakeTray{done: make(chan string, 10)} }

func (f *fakeTray) rec(c string) error {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	f.done <- c
	return nil
}
func (f *fakeTray) Status() app.Status                     { return app.Status{} }
func (f *fakeTray) Subscribe() (<-chan app.Status, func()) { return make(chan app.Status), func() {} }
func (f *fakeTray) TogglePlay() error                      { return f.rec("toggle") }
func (f *fakeTray) Next() error                            { return f.rec("next") }
func (f *fakeTray) Prev() error                            { return f.rec("prev") }
func (f *fakeTray) Transfer(to engine.DeviceID) error      { return f.rec("transfer " + string(to)) }

func item(t *testing.T, m *fyne.Menu, label string) *fyne.MenuItem {
	t.Helper()
	for _, it := range m.Items {
		if it.Label == label {
			return it
		}
	}
	var got []string
	for _, it := range m.Items {
		got = append(got, it.Label)
	}
	t.Fatalf("no menu item %q in %q", label, got)
	return nil
}

func groupStatus() app.Status {
	return app.Status{
		Playing: true,
		Track:   &app.QueueItem{ContentID: "c1", Title: "Hoppípolla", Artists: []string{"Sigur Rós"}},
		Owner:   "B",
		Devices: []app.DeviceStatus{
			{DeviceID: "A", Name: "Laptop", Online: true, Self: true, Selectable: true},
			{DeviceID: "B", Name: "Living room", Online: true, Owner: true, Selectable: true},
			{DeviceID: "C", Name: "Attic", Online: false},
		},
	}
}

// The tray shows what plays and where, and its items drive the app: the
// user sees "title — artist", Pause while playing, and "Play on…" with the
// owner checked; a device click transfers playback there.
func TestTrayMenuShowsTrackAndDrivesTheApp(t *testing.T) {
	f := newFakeTray()
	shown, quit := false, false
	m := trayMenu(groupStatus(), f, trayActions{show: func() { shown = true }, quit: func() { quit = true }},
		slog.New(slog.NewTextHandler(io.Discard, nil)))

	cur := item(t, m, "Hoppípolla — Sigur Rós")
	if !cur.Disabled {
		t.Error("the current track item is clickable; want a disabled label")
	}
	item(t, m, "Pause").Action()
	if c := <-f.done; c != "toggle" {
		t.Errorf("Pause called %q", c)
	}
	item(t, m, "Next").Action()
	if c := <-f.done; c != "next" {
		t.Errorf("Next called %q", c)
	}
	item(t, m, "Previous").Action()
	if c := <-f.done; c != "prev" {
		t.Errorf("Previous called %q", c)
	}

	on := item(t, m, "Play on…")
	if on.ChildMenu == nil {
		t.Fatal("Play on… has no device submenu")
	}
	owner := item(t, on.ChildMenu, "Living room")
	if !owner.Checked {
		t.Error("the playing device is not marked")
	}
	if owner.Action != nil {
		t.Error("the playing device is clickable")
	}
	self := item(t, on.ChildMenu, "Laptop (this device)")
	if self.Checked || self.Disabled {
		t.Errorf("this device: checked %v disabled %v; want a plain clickable item", self.Checked, self.Disabled)
	}
	self.Action()
	if c := <-f.done; c != "transfer A" {
		t.Errorf("Play on Laptop called %q", c)
	}
	if off := item(t, on.ChildMenu, "Attic (offline)"); !off.Disabled {
		t.Error("an offline device can be picked")
	}

	item(t, m, "Show window").Action()
	q := item(t, m, "Quit")
	q.Action()
	if !shown || !quit || !q.IsQuit {
		t.Errorf("show %v quit %v IsQuit %v", shown, quit, q.IsQuit)
	}
	last := m.Items[len(m.Items)-1]
	if last != q {
		t.Errorf("the last item is %q; Fyne appends a second Quit unless Quit is last", last.Label)
	}
}

// With an empty queue the tray says so and offers no transport.
func TestTrayMenuNothingPlaying(t *testing.T) {
	m := trayMenu(app.Status{}, newFakeTray(), trayActions{}, slog.New(slog.DiscardHandler))
	item(t, m, "Nothing playing")
	for _, l := range []string{"Play", "Next", "Previous", "Play on…"} {
		if !item(t, m, l).Disabled {
			t.Errorf("%s is enabled with nothing to play", l)
		}
	}
}

// The menu is rebuilt when what it shows changes, not for position ticks.
func TestTrayKeyIgnoresPosition(t *testing.T) {
	a := groupStatus()
	b := groupStatus()
	b.PositionMS = 12345
	if trayKey(a) != trayKey(b) {
		t.Error("a position change rebuilds the tray menu")
	}
	b.Playing = false
	if trayKey(a) == trayKey(b) {
		t.Error("pausing does not update the tray menu")
	}
	c := groupStatus()
	c.Devices[2].Online = true
	if trayKey(a) == trayKey(c) {
		t.Error("a device coming online does not update the tray menu")
	}
	d := groupStatus()
	d.Devices[2].Selectable = true
	if trayKey(a) == trayKey(d) {
		t.Error("a device becoming selectable does not update the tray menu")
	}
}

// TestTrayPlayOnFollowsSelectable: the "Play on…" submenu offers exactly
// the devices the app accepts a transfer to (DeviceStatus.Selectable):
// a peer the app refuses is disabled even if it was last seen online, and
// a selectable one transfers when clicked.
func TestTrayPlayOnFollowsSelectable(t *testing.T) {
	st := groupStatus()
	st.Devices = append(st.Devices,
		app.DeviceStatus{DeviceID: "D", Name: "Kitchen", Online: true, Selectable: false},
		app.DeviceStatus{DeviceID: "E", Name: "Study", Online: true, Selectable: true})
	f := newFakeTray()
	m := trayMenu(st, f, trayActions{}, slog.New(slog.DiscardHandler))
	on := item(t, m, "Play on…").ChildMenu
	for _, l := range []string{"Attic (offline)", "Kitchen"} {
		if it := item(t, on, l); !it.Disabled || it.Action != nil {
			t.Errorf("%s: disabled %v, action %v; want a disabled item (the app refuses it)", l, it.Disabled, it.Action != nil)
		}
	}
	study := item(t, on, "Study")
	if study.Disabled || study.Action == nil {
		t.Fatalf("Study is selectable but disabled %v, action %v", study.Disabled, study.Action != nil)
	}
	study.Action()
	if c := <-f.done; c != "transfer E" {
		t.Errorf("Play on Study called %q", c)
	}
}

// Long titles are shortened so the menu stays usable.
func TestTrayTrackLabelBounded(t *testing.T) {
	st := app.Status{Track: &app.QueueItem{Title: strings.Repeat("ä", 500), Artists: []string{"x"}}}
	if n := len([]rune(trayTrackLabel(st))); n != maxTrayLabel {
		t.Errorf("label of %d runes; want %d", n, maxTrayLabel)
	}
}
