//go:build !windows && !darwin

package main

import (
	"log/slog"

	"fyne.io/fyne/v2"

	"github.com/furudesk/furudesk/app"
)

// startMediaKeys: the media keys are MPRIS's here (startMPRIS), on Linux
// and the BSDs; Windows has smtc (mediakeys_windows.go) and macOS
// nowplaying (mediakeys_darwin.go).
func startMediaKeys(a *app.App, dataDir string, w fyne.Window, log *slog.Logger) (stop func()) {
	return func() {}
}
