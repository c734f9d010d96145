// Command preview opens the furudesk window on a fake backend full of
// tracks, for looking at the UI without the rest of the app:
//
//	go run ./ui/internal/preview -tracks 10000 -page Albums -remote
package main

import (
	"flag"
	"time"

	fyneapp "fyne.io/fyne/v2/app"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/ui"
	"github.com/furudesk/furudesk/ui/internal/fakebackend"
)

func main() {
	n := flag.Int("tracks", 2000, "number of fake tracks")
	page := flag.String("page", ui.PageTracks, "page to open")
	remote := flag.Bool("remote", false, "another device owns the output")
	playing := flag.Bool("playing", true, "start with something playing")
	pairing := flag.Bool("pairing", false, "show a pending pairing request")
	scanning := flag.Bool("scanning", false, "show a scan in progress")
	flag.Parse()

	b := fakebackend.New(fakebackend.MakeTracks(*n))
	b.Update(func(st *app.Status) {
		st.Folders = []string{"/home/ana/Music", "/mnt/nas/music"}
		st.Devices = append(st.Devices,
			app.DeviceStatus{DeviceID: "dev-living", Name: "Living room", Online: true},
			app.DeviceStatus{DeviceID: "dev-laptop", Name: "Laptop", Online: false})
		if *pairing {
			st.Pairing = []app.PairingRequest{{ID: "r1", DeviceID: "dev-kitchen", Name: "Kitchen", GroupConflict: true}}
		}
		if *scanning {
			st.Scan = app.ScanStatus{Running: true, Done: 1200, Found: 3400}
		}
	})
	if *n > 0 && *playing {
		ts, _ := b.Tracks()
		ids := []string{}
		for _, t := range ts[:min(len(ts), 30)] {
			ids = append(ids, t.ContentID)
		}
		_ = b.PlayTracks(ids, 3)
		b.Update(func(st *app.Status) { st.PositionMS = 83_000 })
	}
	if *remote {
		_ = b.Transfer("dev-living")
	}
	fa := fyneapp.NewWithID("org.furudesk.preview")
	u := ui.New(fa, b, ui.Options{})
	u.ShowPage(*page)
	go func() {
		time.Sleep(time.Second)
		b.Update(func(st *app.Status) {})
	}()
	u.Run()
}
