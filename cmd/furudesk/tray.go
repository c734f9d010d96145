package main

import (
	"fmt"
	"log/slog"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/internal/framegov"
)

// maxTrayDevices bounds the "Play on…" submenu; a group larger than this
// lists its first devices (the window's Devices page shows them all).
const maxTrayDevices = 20

// maxTrayLabel bounds the length of the current track's menu label.
const maxTrayLabel = 80

// trayBackend is what the tray menu drives: a subset of *app.App.
type trayBackend interface {
	Status() app.Status
	Subscribe() (<-chan app.Status, func())
	TogglePlay() error
	Next() error
	Prev() error
	Transfer(to engine.DeviceID) error
}

var _ trayBackend = (*app.App)(nil)

// trayActions are what the menu items do besides transport calls.
type trayActions struct {
	show func() // show and focus the window
	quit func() // end furudesk
}

// trayMenu is the system tray menu for st: the current track (a disabled
// item), play/pause, next, previous, "Play on…" with the group's devices
// (the owner checked, devices the app would refuse, d.Selectable false,
// disabled), show window and quit.
// b is called on the Fyne goroutine; failures are logged.
func trayMenu(st app.Status, b trayBackend, act trayActions, log *slog.Logger) *fyne.Menu {
	run := func(what string, f func() error) func() {
		return func() {
			// Transport calls wait for the actor (bounded); keep them off
			// the UI goroutine.
			go func() {
				if err := f(); err != nil {
					log.Warn("tray: "+what, "err", err)
				}
			}()
		}
	}
	now := fyne.NewMenuItem(trayTrackLabel(st), nil)
	now.Disabled = true

	playLabel := "Play"
	if st.Playing {
		playLabel = "Pause"
	}
	play := fyne.NewMenuItem(playLabel, run("play/pause", b.TogglePlay))
	next := fyne.NewMenuItem("Next", run("next", b.Next))
	prev := fyne.NewMenuItem("Previous", run("previous", b.Prev))
	if st.Track == nil {
		play.Disabled, next.Disabled, prev.Disabled = true, true, true
	}

	var devs []*fyne.MenuItem
	for i, d := range st.Devices {
		if i == maxTrayDevices {
			break
		}
		it := fyne.NewMenuItem(trayDeviceLabel(d), nil)
		it.Checked = d.Owner || (st.Owner != "" && d.DeviceID == st.Owner)
		switch {
		case it.Checked:
			// Already playing there.
		case !d.Selectable:
			// The app refuses a transfer there (an offline peer).
			it.Disabled = true
		default:
			id := d.DeviceID
			it.Action = run("transfer to "+d.Name, func() error { return b.Transfer(id) })
		}
		devs = append(devs, it)
	}
	playOn := fyne.NewMenuItem("Play on…", nil)
	if len(devs) == 0 {
		playOn.Disabled = true
	} else {
		playOn.ChildMenu = fyne.NewMenu("", devs...)
	}

	show := fyne.NewMenuItem("Show window", act.show)
	quit := fyne.NewMenuItem("Quit", act.quit)
	quit.IsQuit = true
	return fyne.NewMenu("furudesk", now, fyne.NewMenuItemSeparator(), play, next, prev,
		fyne.NewMenuItemSeparator(), playOn, fyne.NewMenuItemSeparator(), show, quit)
}

// trayTrackLabel is "title — artist" of the current track, shortened to
// maxTrayLabel runes.
func trayTrackLabel(st app.Status) string {
	if st.Track == nil {
		return "Nothing playing"
	}
	s := st.Track.Title
	if s == "" {
		s = "Unknown title"
	}
	if len(st.Track.Artists) > 0 {
		s += " — " + strings.Join(st.Track.Artists, ", ")
	}
	if r := []rune(s); len(r) > maxTrayLabel {
		s = string(r[:maxTrayLabel-1]) + "…"
	}
	return s
}

func trayDeviceLabel(d app.DeviceStatus) string {
	name := d.Shown() // a hub playing in a browser names it
	if name == "" {
		name = string(d.DeviceID)
	}
	switch {
	case d.Self:
		return name + " (this device)"
	case !d.Online:
		return name + " (offline)"
	}
	return name
}

// trayKey is what the tray menu shows of st: the menu is rebuilt only when
// it changes, not on every position update.
func trayKey(st app.Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%t|%s|%s|", st.Playing, trayTrackLabel(st), st.Owner)
	for i, d := range st.Devices {
		if i == maxTrayDevices {
			break
		}
		fmt.Fprintf(&b, "%s,%s,%t,%t,%t,%t;", d.DeviceID, d.Shown(), d.Online, d.Owner, d.Self, d.Selectable)
	}
	return b.String()
}

// tray keeps the system tray menu in step with the app's status.
type tray struct {
	desk desktop.App
	b    trayBackend
	act  trayActions
	log  *slog.Logger
	key  string
	stop chan struct{}
}

// startTray shows the tray icon and menu and follows b's status until the
// returned stop is called. Call it on the Fyne goroutine (or before Run).
func startTray(desk desktop.App, icon fyne.Resource, b trayBackend, act trayActions, log *slog.Logger) (stop func()) {
	t := &tray{desk: desk, b: b, act: act, log: log, stop: make(chan struct{})}
	t.apply(b.Status())
	desk.SetSystemTrayIcon(icon)
	updates, cancel := b.Subscribe()
	// Only a status that changes the menu goes to the Fyne goroutine: the
	// position a playing device publishes does not wake the window's loop
	// for the tray.
	last := t.key
	go func() {
		for {
			select {
			case <-t.stop:
				return
			case st, ok := <-updates:
				if !ok {
					return
				}
				if k := trayKey(st); k != last {
					last = k
					framegov.Do(func() { t.apply(st) })
				}
			}
		}
	}()
	return func() {
		cancel()
		close(t.stop)
	}
}

// apply rebuilds the menu when what it shows changed. Fyne goroutine only.
func (t *tray) apply(st app.Status) {
	k := trayKey(st)
	if k == t.key {
		return
	}
	t.key = k
	t.desk.SetSystemTrayMenu(trayMenu(st, t.b, t.act, t.log))
}
