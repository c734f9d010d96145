//go:build darwin

package main

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"fyne.io/fyne/v2"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/internal/framegov"
	"github.com/furudesk/furudesk/mpris"
	"github.com/furudesk/furudesk/nowplaying"
)

// startMediaKeys shows a in macOS's Now Playing (the media keys, Control
// Center's and the menu bar's now-playing widget, the lock screen) through
// MPRemoteCommandCenter and MPNowPlayingInfoCenter. They belong to the
// main thread, which Fyne's event loop owns: every call on them is queued
// through framegov.Do (fyne.Do), so without a window (w nil: headless)
// there is no loop to queue on and no media keys. It says in the log
// which path it took and is never fatal. Call it on the Fyne goroutine
// once the window exists, and stop before the app closes.
func startMediaKeys(a *app.App, dataDir string, w fyne.Window, log *slog.Logger) (stop func()) {
	opts := nowplaying.Options{Logger: log}
	if w != nil {
		opts.Main = framegov.Do
		// The artwork: the covers mpris writes, by file:// URL.
		opts.ArtURL = mpris.NewCoverCache(filepath.Join(dataDir, "mpris-covers"), a.Cover, log).ArtURL
	}
	s, err := nowplaying.Start(a, opts)
	if err != nil {
		log.Info(fmt.Sprintf("media keys: none (%v)", err))
		return func() {}
	}
	log.Info("media keys: macOS Now Playing (MPRemoteCommandCenter, MPNowPlayingInfoCenter)")
	return func() {
		if err := s.Close(); err != nil {
			log.Debug("media keys: close", "err", err)
		}
	}
}
