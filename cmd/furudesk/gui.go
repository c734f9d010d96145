package main

import (
	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/assets"
	"github.com/furudesk/furudesk/ui"
)

// appID is the reverse-DNS id of FyneApp.toml; Fyne keys preferences by it.
const appID = "org.furudesk.furudesk"

// The window drives the app only through ui.Backend.
var _ ui.Backend = (*app.App)(nil)

// runGUI shows the window for the running app until it is closed.
func runGUI(a *app.App, _ options) error {
	fa := fyneapp.NewWithID(appID)
	icon := fyne.NewStaticResource("icon.png", assets.Icon)
	fa.SetIcon(icon)
	u := ui.New(fa, a, ui.Options{Title: "furudesk", Icon: icon})
	u.Run()
	return nil
}
