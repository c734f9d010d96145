package main

import (
	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/assets"
)

// appID is the reverse-DNS id of FyneApp.toml; Fyne keys preferences by it.
const appID = "org.furudesk.furudesk"

// runGUI shows the window for the running app until it is closed.
func runGUI(_ *app.App, opts options) error {
	a := fyneapp.NewWithID(appID)
	icon := fyne.NewStaticResource("icon.png", assets.Icon)
	a.SetIcon(icon)
	w := a.NewWindow("furudesk")
	w.SetIcon(icon)
	title := widget.NewLabelWithStyle("furudesk", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	body := widget.NewLabelWithStyle("Your music, one listening room.\nData: "+opts.dataDir, fyne.TextAlignCenter, fyne.TextStyle{})
	w.SetContent(container.NewCenter(container.NewVBox(widget.NewIcon(icon), title, body)))
	w.Resize(fyne.NewSize(1000, 680))
	w.ShowAndRun()
	return nil
}
