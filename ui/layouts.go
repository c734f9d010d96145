package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// barLayout lays out the now-playing bar: the track on the left and the
// device/volume controls on the right get equal widths, so the transport
// stays centred in the window.
type barLayout struct{}

func (barLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	side := min(max(size.Width*0.28, 220), 360)
	if size.Width < 3*220 {
		side = size.Width / 3
	}
	pad := theme.Padding()
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(side-pad, size.Height))
	objs[1].Move(fyne.NewPos(side, 0))
	objs[1].Resize(fyne.NewSize(size.Width-2*side, size.Height))
	objs[2].Move(fyne.NewPos(size.Width-side+pad, 0))
	objs[2].Resize(fyne.NewSize(side-pad, size.Height))
}

func (barLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var h float32
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(660, h)
}

// fixedSize is a layout that reports a fixed minimum size and stretches
// its objects over its area (cover art, spacers).
type fixedSize struct{ size fyne.Size }

func (f fixedSize) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (f fixedSize) MinSize([]fyne.CanvasObject) fyne.Size { return f.size }
