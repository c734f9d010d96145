// Command fynefloor shows a Fyne window with one label and nothing else:
// the CPU it uses idle is the floor under any Fyne window on the machine
// (Fyne's event loop polls 60 times a second), which the desktop benchmark
// reports next to furudesk's own figures.
package main

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

func main() {
	a := app.NewWithID("org.furudesk.fynefloor")
	w := a.NewWindow("fynefloor")
	w.SetContent(widget.NewLabel("Fyne's floor: a window that shows one label"))
	w.Resize(fyne.NewSize(1180, 760))
	w.ShowAndRun()
}
