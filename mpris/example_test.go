package mpris_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/mpris"
)

// How cmd/furudesk wires the server: after the app started, before the
// window runs; Close (or the context) before the app closes.
func ExampleServe() {
	var (
		a       *app.App // the started app
		dataDir string   // the app's data dir
		log     = slog.Default()
		raise   = func() {} // e.g. fyne.Do(func() { w.Show(); w.RequestFocus() })
		quit    = func() {} // e.g. fyne.Do(fyneApp.Quit)
	)
	if a == nil {
		return // the example is compiled, not run
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
		// macOS, Windows: no session bus.
	case err != nil:
		log.Warn("media keys and desktop widgets will not see furudesk", "err", err)
	default:
		defer srv.Close()
	}
}
