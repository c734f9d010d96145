package main

import (
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/godbus/dbus/v5"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/mpris"
	"github.com/furudesk/furudesk/notify"
)

// notifyPrefs are the track change notification switches of one data dir,
// in Fyne's preferences like close to tray: on by default, for this
// device's playback only unless asked.
type notifyPrefs struct {
	prefs      fyne.Preferences
	on, others string
}

func newNotifyPrefs(prefs fyne.Preferences, dataDir string) notifyPrefs {
	k := dataDirKey(dataDir)
	return notifyPrefs{prefs: prefs, on: "notify_tracks." + k, others: "notify_other_devices." + k}
}

func (p notifyPrefs) settings() notify.Settings {
	return notify.Settings{On: p.prefs.BoolWithFallback(p.on, true), OtherDevices: p.prefs.BoolWithFallback(p.others, false)}
}

// notifySwitches are the settings page's notification check boxes.
func notifySwitches(p notifyPrefs) fyne.CanvasObject {
	others := widget.NewCheck("Also when another device of the group plays", func(on bool) { p.prefs.SetBool(p.others, on) })
	others.SetChecked(p.settings().OtherDevices)
	tracks := widget.NewCheck("Show a notification when a new track starts", func(on bool) {
		p.prefs.SetBool(p.on, on)
		if on {
			others.Enable()
		} else {
			others.Disable()
		}
	})
	tracks.SetChecked(p.settings().On)
	if !tracks.Checked {
		others.Disable()
	}
	hint := widget.NewLabel("Not while this window is in front.")
	hint.Importance = widget.LowImportance
	return container.NewVBox(tracks, others, hint)
}

// startNotifications shows a desktop notification for each track that
// starts (package notify's rules) until stop is called. Without a session
// bus it does nothing; without a notification service it logs that once.
func startNotifications(a *app.App, dataDir string, p notifyPrefs, focused *atomic.Bool, log *slog.Logger) (stop func()) {
	if !sessionBusKnown() {
		return func() {}
	}
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err == nil {
		if err = conn.Auth(nil); err == nil {
			err = conn.Hello()
		}
		if err != nil {
			_ = conn.Close()
		}
	}
	if err != nil {
		log.Info("track change notifications are not shown", "err", err)
		return func() {}
	}
	covers := mpris.NewCoverCache(filepath.Join(dataDir, "notify-covers"), a.Cover, log)
	f := &notify.Follower{Settings: p.settings, Focused: focused.Load, Cover: covers.ArtURL,
		Show: notify.NewClient(conn).Show, Log: log}
	updates, cancel := a.Subscribe()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f.Run(updates, done)
	}()
	return func() {
		close(done)
		cancel()
		wg.Wait()
		_ = conn.Close()
	}
}
