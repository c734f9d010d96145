// Command fynefloor shows a Fyne window with one label and nothing else:
// the CPU it uses idle is the floor under any Fyne window on the machine
// (Fyne's event loop polls 60 times a second), which the desktop benchmark
// reports next to furudesk's own figures. With -blink it also shows a
// caret-sized rectangle lit 800 ms and dark 400 ms, as furudesk's caret
// blinks: the floor of a Fyne window that redraws as often as a blinking
// caret makes it (each change redraws the whole window).
package main

import (
	"flag"
	"fmt"
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

func main() {
	blink := flag.Bool("blink", false, "blink a caret-sized rectangle as furudesk's caret blinks")
	labels := flag.Int("labels", 0, "more labels, in rows of five (furudesk's track list shows about 100 texts)")
	flag.Parse()
	a := app.NewWithID("org.furudesk.fynefloor")
	w := a.NewWindow("fynefloor")
	label := widget.NewLabel("Fyne's floor: a window that shows one label")
	caret := canvas.NewRectangle(color.Black)
	caret.SetMinSize(fyne.NewSize(2, 20))
	grid := container.NewGridWithColumns(5)
	for i := range *labels {
		grid.Add(widget.NewLabel(fmt.Sprintf("Label %d of the floor", i+1)))
	}
	w.SetContent(container.NewVBox(label, container.NewHBox(caret), grid))
	if !*blink {
		caret.Hide()
	} else {
		go func() {
			for {
				time.Sleep(800 * time.Millisecond)
				fyne.Do(caret.Hide)
				time.Sleep(400 * time.Millisecond)
				fyne.Do(caret.Show)
			}
		}()
	}
	w.Resize(fyne.NewSize(1180, 760))
	w.ShowAndRun()
}
