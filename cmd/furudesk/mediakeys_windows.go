package main

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/mpris"
	"github.com/furudesk/furudesk/smtc"
)

// startMediaKeys shows a in the System Media Transport Controls of w (the
// media keys, the volume flyout's now-playing card, the lock screen) or,
// where SMTC cannot be had (no window: headless; Windows 7; Wine), takes
// the media keys as global hotkeys. It says in the log which path it took
// and is never fatal. Call it on the Fyne goroutine once the window
// exists (w nil: headless), and stop before the app closes.
func startMediaKeys(a *app.App, dataDir string, w fyne.Window, log *slog.Logger) (stop func()) {
	opts := smtc.Options{HWND: nativeHWND(w), Logger: log}
	if opts.HWND != 0 {
		// The thumbnail: the covers mpris writes, by file:/// URI.
		opts.ArtURL = mpris.NewCoverCache(filepath.Join(dataDir, "mpris-covers"), a.Cover, log).ArtURL
	}
	s, err := smtc.Start(a, opts)
	if err != nil {
		log.Info(fmt.Sprintf("media keys: none (%v)", err))
		return func() {}
	}
	switch s.Mode() {
	case smtc.ModeSMTC:
		log.Info("media keys: System Media Transport Controls")
	case smtc.ModeHotkeys:
		log.Info(fmt.Sprintf("media keys: SMTC unavailable (%v); using global hotkeys", s.Reason()))
	default:
		log.Info(fmt.Sprintf("media keys: none (%v)", s.Reason()))
	}
	return func() {
		if err := s.Close(); err != nil {
			log.Debug("media keys: close", "err", err)
		}
	}
}

// nativeHWND is w's window handle, 0 when w is nil or not a native
// window (yet).
func nativeHWND(w fyne.Window) (hwnd uintptr) {
	nw, ok := w.(driver.NativeWindow)
	if !ok {
		return 0
	}
	nw.RunNative(func(ctx any) {
		if wc, ok := ctx.(driver.WindowsWindowContext); ok {
			hwnd = wc.HWND
		}
	})
	return hwnd
}
