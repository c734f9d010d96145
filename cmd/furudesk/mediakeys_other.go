//go:build !windows

package main

import (
	"log/slog"

	"fyne.io/fyne/v2"

	"github.com/furudesk/furudesk/app"
)

// startMediaKeys: the media keys are MPRIS's here (startMPRIS) on Linux
// and the BSDs, and not yet had on macOS.
func startMediaKeys(a *app.App, dataDir string, w fyne.Window, log *slog.Logger) (stop func()) {
	return func() {}
}
