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
	passive := flag.Bool("passive", false, "this device is an always-on server")
	unreadable := flag.Bool("unreadable", false, "the last scan could not read a file")
	flag.Parse()

	b := fakebackend.New(fakebackend.MakeTracks(*n))
	b.Update(func(st *app.Status) {
		st.Folders = []string{"/home/ana/Music", "/mnt/nas/music"}
		st.Devices = append(st.Devices,
			app.DeviceStatus{DeviceID: "dev-living", Name: "Living room", Online: true, Selectable: true},
			app.DeviceStatus{DeviceID: "dev-laptop", Name: "Laptop", Online: false})
		if *pairing {
			st.Pairing = []app.PairingRequest{{ID: "r1", DeviceID: "dev-kitchen", Name: "Kitchen", GroupConflict: true}}
		}
		st.Passive = *passive
		if *unreadable {
			st.Scan = app.ScanStatus{Found: 2001, Done: 2001, Errors: 1,
				Failed: []app.ScanFailure{{Path: "/home/ana/Music/broken.mp3", Reason: "not an audio file"}}}
			st.Notices = append(st.Notices, app.Notice{ID: 1, Level: "error",
				Text: "Library scanned: 2000 tracks (0 added, 0 removed). Could not read 1 file: broken.mp3 (not an audio file)"})
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
