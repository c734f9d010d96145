package main

import (
	"log/slog"
	"os"

	"github.com/furudesk/furudesk/internal/framegov"
	"github.com/furudesk/furudesk/ui"
)

// holdWhenIdle lets the window's loop sleep while the window is idle
// (internal/framegov), unless FURUDESK_FRAMEGOV=off (to compare). Call it
// on the Fyne goroutine once the loop runs; stop the returned Governor
// when the window closes (nil: the loop runs at Fyne's 60 Hz).
func holdWhenIdle(u *ui.UI, log *slog.Logger) *framegov.Governor {
	if os.Getenv("FURUDESK_FRAMEGOV") == "off" {
		log.Info("the window's loop runs at Fyne's rate", "reason", "FURUDESK_FRAMEGOV=off")
		return nil
	}
	w, err := framegov.NewWaiter()
	if err != nil {
		log.Info("the window's loop runs at Fyne's rate", "reason", err)
		return nil
	}
	g := framegov.Run(framegov.Options{Policy: framegov.DefaultPolicy, Waiter: w, Busy: u.Animating, Caret: u.Caret, Hidden: u.Hidden})
	framegov.Install(g)
	return g
}
