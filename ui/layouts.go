package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// columnsLayout places cells side by side: a cell with a fixed width keeps
// it, the others share the rest by weight. Every row of a track list uses
// the same layout, so the columns line up with the header.
type columnsLayout struct {
	fixed  []float32 // > 0: width in points
	weight []float32 // used when fixed is 0
}

func (l *columnsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	var fixedSum, weightSum float32
	for i := range objs {
		if l.fixed[i] > 0 {
			fixedSum += l.fixed[i]
		} else {
			weightSum += l.weight[i]
		}
	}
	free := size.Width - fixedSum - pad*float32(len(objs)-1)
	if free < 0 {
		free = 0
	}
	x := float32(0)
	for i, o := range objs {
		w := l.fixed[i]
		if w == 0 && weightSum > 0 {
			w = free * l.weight[i] / weightSum
		}
		h := o.MinSize().Height
		o.Move(fyne.NewPos(x, (size.Height-h)/2))
		o.Resize(fyne.NewSize(w, h))
		x += w + pad
	}
}

func (l *columnsLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w, h float32
	for i, o := range objs {
		m := o.MinSize()
		if l.fixed[i] > 0 {
			w += l.fixed[i]
		} else {
			w += 40
		}
		h = max(h, m.Height)
	}
	return fyne.NewSize(w+theme.Padding()*float32(len(objs)-1), h)
}

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
