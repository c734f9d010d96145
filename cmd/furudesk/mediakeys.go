package main

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/mpris"
)

// startMPRIS publishes a on the session bus as an MPRIS2 player, so media
// keys, desktop widgets and playerctl control it (Linux and the BSDs). It is
// never fatal: without a session bus, or when the bus refuses, furudesk
// runs without it. raise and quit may be nil (CanRaise/CanQuit false); they
// are called on D-Bus goroutines. Call stop before the app closes.
func startMPRIS(a *app.App, dataDir string, raise, quit func(), log *slog.Logger) (stop func()) {
	if !sessionBusKnown() {
		log.Debug("mpris: no session bus; media keys and desktop widgets will not see furudesk")
		return func() {}
	}
	covers := mpris.NewCoverCache(filepath.Join(dataDir, "mpris-covers"), a.Cover, log)
	srv, err := mpris.Serve(context.Background(), nil, a, mpris.Options{
		Raise:  raise,
		Quit:   quit,
		ArtURL: covers.ArtURL,
		Logger: log,
	})
	switch {
	case errors.Is(err, mpris.ErrUnsupported):
		return func() {}
	case err != nil:
		log.Warn("media keys and desktop widgets will not see furudesk", "err", err)
		return func() {}
	}
	log.Debug("mpris: serving org.mpris.MediaPlayer2.furudesk")
	return func() {
		if err := srv.Close(); err != nil {
			log.Debug("mpris: close", "err", err)
		}
	}
}
