package main

import (
	"log/slog"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/assets"
	"github.com/furudesk/furudesk/internal/framegov"
	"github.com/furudesk/furudesk/internal/memrelease"
	"github.com/furudesk/furudesk/ui"
)

// processStart is when this process started (near enough: when its
// package variables were set), for the launch time the log reports.
var processStart = time.Now()

// The window's collector: its GOGC, how long after a burst of
// collections (the user browsing) without another before the heap's spare
// room goes back to the system, and how often it goes back while the
// browsing goes on. An idle window collects every half minute or less
// often (status, tray, keep-alive walks of the widget tree), a browsed
// one every second or few. A release costs a collection and the trim of
// the C heap: 9-29 ms of one core with 10,000 tracks.
const (
	windowGCPercent = 25
	// windowLaunchHold is how long, at the most, the window's launch holds
	// the rescan of the music folders back while it lists what the
	// database knows (app.Options.HoldLaunchScan): it starts once the list
	// is shown.
	windowLaunchHold = 10 * time.Second
	windowQuiet      = 10 * time.Second
	windowBusyFree   = 30 * time.Second
)

// appID is the reverse-DNS id of FyneApp.toml; Fyne keys preferences by it.
const appID = "org.furudesk.furudesk"

// The window drives the app only through ui.Backend.
var _ ui.Backend = (*app.App)(nil)

// runGUI shows the window for the running app until furudesk quits: the
// window is closed (or, with "close to tray" on, Quit is picked in the
// tray), MPRIS asks it to quit, or the app ends. Along the window it
// serves MPRIS, the system tray and the ctl raise command; none of them is
// fatal.
// launchHold is the window's hold of the launch's rescan; a headless
// device has no list to show first.
func launchHold(opts options) time.Duration {
	if opts.headless {
		return 0
	}
	return windowLaunchHold
}

func runGUI(a *app.App, wp *webPlayer, opts options) error {
	log := stderrLogger(opts)
	// The window holds the whole catalog (27 MB of Go objects with
	// 100,000 tracks, Fyne's fonts another 13) and makes garbage as the
	// user browses (covers, text): collect when the heap grew by a
	// quarter, not doubled, so the window's memory stays near what it
	// holds (the runtime keeps about a tenth above that goal for good).
	// A collection marks what is live, a few milliseconds for 10,000
	// tracks; an idle or playing window allocates next to nothing, so
	// this costs only while browsing. GOGC still decides when set.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(windowGCPercent)
	}
	// The software GL renderer's textures come and go while browsing:
	// each large one in a mapping of its own, given back when freed,
	// rather than in holes of the C heap (3-5 MB less at the highest
	// after 6 minutes of browsing 10,000 tracks).
	memrelease.KeepLargeBlocksApart()
	fa := fyneapp.NewWithID(appID)
	icon := fyne.NewStaticResource("icon.png", assets.Icon)
	fa.SetIcon(icon)

	desk, isDesk := fa.(desktop.App)
	// No tray icon when the desktop shows none: Fyne's tray would only log
	// failures to register it.
	hasTray := isDesk && trayHost()
	ctt := newCloseToTray(fa.Preferences(), opts.dataDir, hasTray)
	np := newNotifyPrefs(fa.Preferences(), opts.dataDir)
	u := ui.New(fa, a, ui.Options{Title: "furudesk", Icon: icon,
		Desktop: container.NewVBox(closeToTraySwitch(ctt, hasTray), notifySwitches(np)), Web: wp,
		Prefs:  newViewPrefs(fa.Preferences(), opts.dataDir),
		Listed: func(n int) { log.Debug("window lists the library", "tracks", n) },
		Shown: func(n int) {
			log.Info("library shown", "tracks", n, "since_start", time.Since(processStart).Round(time.Millisecond))
			a.LibraryShown() // the launch's rescan may start (launchHold)
			if opts.shown != nil {
				opts.shown() // and the group library's sync
			}
		}})
	w := u.Window()
	// Once the window was left alone for a while, what browsing freed
	// goes back to the system rather than stay kept for the next burst,
	// and a minute later the textures Fyne no longer draws (sweep).
	sw := newSweep(func() {
		framegov.Do(func() { w.Canvas().Refresh(w.Content()) })
	})
	defer sw.stop()
	release := memrelease.Watch(windowQuiet, sw.quiet)
	release.DuringBursts(windowBusyFree, func() {
		t0 := time.Now()
		memrelease.FreeOSMemory()
		log.Debug("memory given back while browsing", "took", time.Since(t0).Round(time.Microsecond))
	})
	defer release.Stop()

	// The window opens as large as, and where, it was last left: its size
	// and place are saved whenever it stays put after a change, so
	// however furudesk ends they are kept.
	ws := newWindowState(fa.Preferences(), opts.dataDir)
	ws.saved = func() {
		size, _ := ws.size()
		x, y, _ := ws.pos()
		log.Debug("window state saved", "x", x, "y", y, "w", size.Width, "h", size.Height)
	}
	ws.restoreSize(w)
	var gov *framegov.Governor
	defer func() { gov.Stop() }()
	stopMediaKeys := func() {}
	defer func() { stopMediaKeys() }()
	fa.Lifecycle().SetOnStarted(func() {
		gov = holdWhenIdle(u, log)
		// Windows' media controls belong to the window, and macOS's to
		// the main thread's loop, which both exist now.
		stopMediaKeys = startMediaKeys(a, opts.dataDir, w, log) // mediakeys_windows.go, mediakeys_darwin.go
		if err := ws.restorePlace(w); err != nil {
			log.Info("window placed by the desktop", "reason", err)
		} else if x, y, ok := ws.pos(); ok {
			log.Debug("window placed where it was", "x", x, "y", y)
		}
		ws.follow(w)
	})

	show := func() {
		w.Show()
		w.RequestFocus()
		u.SetHidden(false)
	}
	raise := func(by string) func() {
		return func() {
			framegov.Do(func() {
				show()
				log.Info("window raised", "by", by)
			})
		}
	}
	setWindow(&windowHooks{raise: raise("ctl"), view: func() (any, error) { return inspect(u) }})
	defer setWindow(nil)

	// Every quit of ours stops holding the loop first, so Fyne's loop
	// ends at once and no hold is queued while it shuts its queue.
	quit := func() {
		framegov.Release()
		fa.Quit()
	}
	stopMPRIS := startMPRIS(a, opts.dataDir, raise("mpris"), func() { framegov.Do(quit) }, log)
	defer stopMPRIS()
	// The window has the focus from the first focus event on: no track
	// change notification while the user looks at it.
	var focused atomic.Bool
	stopNotify := startNotifications(a, opts.dataDir, np, &focused, log) // notifications.go
	defer stopNotify()

	if hasTray {
		stopTray := startTray(desk, icon, a, trayActions{show: show, quit: quit}, log)
		defer stopTray()
		// A click on the tray icon shows the window. This sets a close
		// intercept of its own (hide), replaced by ours below.
		desk.SetSystemTrayWindow(w)
	}
	fa.Lifecycle().SetOnEnteredForeground(func() {
		focused.Store(true)
		if hasTray {
			// A click on the tray icon shows the window without telling
			// us; it gets the focus then, and the position is redrawn.
			u.SetHidden(false)
		}
	})
	fa.Lifecycle().SetOnExitedForeground(func() { focused.Store(false) })

	w.SetCloseIntercept(func() {
		// The tray must be there now (a tray host may have gone away since
		// the launch), or the hidden window could not come back.
		ws.save(w)
		if hasTray && ctt.on() && trayHost() {
			w.Hide()
			u.SetHidden(true)
			log.Info("window closed to the tray; furudesk keeps running")
			return
		}
		quit()
	})

	// The app ending by itself (a fatal storage error) ends the window too.
	ran := make(chan struct{})
	go func() {
		select {
		case <-a.Done():
			framegov.Do(quit)
		case <-ran:
		}
	}()
	u.Run()
	log.Debug("window closed")
	close(ran)
	return nil
}

// closeToTraySwitch is the settings page's "close to tray" check box.
func closeToTraySwitch(ctt closeToTray, hasTray bool) fyne.CanvasObject {
	check := widget.NewCheck("Keep playing in the tray when the window is closed", nil)
	hint := widget.NewLabel("When this is off, closing the window quits furudesk.")
	if hasTray {
		check.SetChecked(ctt.on())
		check.OnChanged = ctt.set
	} else {
		check.Disable()
		hint.SetText("This desktop shows no tray icons, so closing the window quits furudesk.")
	}
	hint.Importance = widget.LowImportance
	hint.Wrapping = fyne.TextWrapWord
	return container.NewVBox(check, hint)
}

// stderrLogger logs to stderr like the device does (-v: debug).
func stderrLogger(opts options) *slog.Logger {
	level := slog.LevelInfo
	if opts.verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}
