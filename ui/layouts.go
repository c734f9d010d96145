package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
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

// centredText holds a wrapping text in the middle of its area, as wide as
// the area allows up to maxWidth. container.NewCenter gives a wrapping
// label its minimum width, that of its widest letter, and so a line per
// letter: an empty playlist's hint asked for 2,000 pixels of height and
// the window grew past the bottom of the screen. Its own minimum size is
// none, so no text, however long, makes the window wider or taller.
type centredText struct{ maxWidth float32 }

// hintWidth is how wide a hint in the middle of a page grows at most.
const hintWidth = 460

func (c centredText) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		w := max(0, min(c.maxWidth, size.Width-2*theme.Padding()))
		o.Resize(fyne.NewSize(w, size.Height)) // a wrapping text's height follows its width
		h := min(o.MinSize().Height, size.Height)
		o.Resize(fyne.NewSize(w, h))
		o.Move(fyne.NewPos((size.Width-w)/2, (size.Height-h)/2))
	}
}

func (centredText) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.Size{} }

// textRow lays texts out left to right at their natural widths (a track's
// artist links, a device's name and badges). When they do not all fit,
// the truncating ones (an ellipsis) give up the room, the last first, so
// the first name stays whole the longest; what still does not fit is left
// out. Its minimum width is that of its texts that do not truncate, so
// long names never widen the window.
type textRow struct{}

func (textRow) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	widths := make([]float32, len(objs))
	over := -size.Width
	for i, o := range objs {
		if o.Visible() {
			widths[i] = naturalWidth(o)
			over += widths[i] + theme.Padding()
		}
	}
	over -= theme.Padding()
	for i := len(objs) - 1; i >= 0 && over > 0; i-- {
		if truncates(objs[i]) {
			cut := min(over, widths[i])
			widths[i] -= cut
			over -= cut
		}
	}
	x := float32(0)
	for i, o := range objs {
		w := max(0, min(widths[i], size.Width-x))
		o.Resize(fyne.NewSize(w, size.Height))
		o.Move(fyne.NewPos(x, 0))
		if w > 0 {
			x += w + theme.Padding()
		}
	}
}

func (textRow) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var min fyne.Size
	n := 0
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		m := o.MinSize()
		min.Height = max(min.Height, m.Height)
		if !truncates(o) {
			min.Width += m.Width
			n++
		}
	}
	min.Width += theme.Padding() * float32(max(0, n-1))
	return min
}

// truncates reports whether o is a text cut short with an ellipsis when
// narrower than its text.
func truncates(o fyne.CanvasObject) bool {
	_, _, _, ok := truncatingText(o)
	return ok
}

// naturalWidth is how wide o is with its whole text: a truncating text's
// minimum size is that of its ellipsis.
func naturalWidth(o fyne.CanvasObject) float32 {
	text, style, size, ok := truncatingText(o)
	if !ok {
		return o.MinSize().Width
	}
	// a pixel to spare: at exactly its width, rounding makes the text cut
	// itself short ("Desk" came out "De…")
	return fyne.MeasureText(text, theme.Size(size), style).Width + 2*theme.InnerPadding() + 1
}

// truncatingText is o's text, style and size when o is a label or link
// that truncates with an ellipsis (ok), what textRow measures.
func truncatingText(o fyne.CanvasObject) (text string, style fyne.TextStyle, size fyne.ThemeSizeName, ok bool) {
	var trunc fyne.TextTruncation
	switch t := o.(type) {
	case *widget.Hyperlink:
		text, style, size, trunc = t.Text, t.TextStyle, t.SizeName, t.Truncation
	case *widget.Label:
		text, style, size, trunc = t.Text, t.TextStyle, t.SizeName, t.Truncation
	case *subtle:
		text, style, size, trunc = t.Text, t.TextStyle, t.SizeName, t.Truncation
	default:
		return "", fyne.TextStyle{}, "", false
	}
	if size == "" {
		size = theme.SizeNameText
	}
	return text, style, size, trunc != fyne.TextTruncateOff
}

// fixedWidth gives its objects a fixed width and their own height (the
// labels of a column of rows).
type fixedWidth struct{ width float32 }

func (f fixedWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (f fixedWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(f.width, h)
}
