package ui

import (
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// cell is one line of text in a list row, cut with an ellipsis when it
// does not fit. It does the few measurements a row needs (widget.Label's
// truncation measures every prefix, which made scrolling 10,000 tracks
// stutter).
type cell struct {
	widget.BaseWidget
	text  string
	align fyne.TextAlign
	bold  bool
	color fyne.ThemeColorName
	t     *canvas.Text
	width float32
}

func newCell(align fyne.TextAlign, color fyne.ThemeColorName) *cell {
	c := &cell{align: align, color: color, t: canvas.NewText("", themeColor(color))}
	c.t.Alignment = align
	c.ExtendBaseWidget(c)
	return c
}

// set shows s in the given weight and colour; it redraws only on change.
func (c *cell) set(s string, bold bool, color fyne.ThemeColorName) {
	if s == c.text && bold == c.bold && color == c.color {
		return
	}
	c.text, c.bold, c.color = s, bold, color
	c.fit()
	c.t.Color = themeColor(color)
	c.t.TextStyle.Bold = bold
	c.t.Refresh()
}

// fit cuts the text to the cell's width: one measurement when it fits, a
// proportional guess and a few corrections when it does not.
func (c *cell) fit() {
	style := fyne.TextStyle{Bold: c.bold}
	size := theme.TextSize()
	if c.width <= 0 {
		c.t.Text = c.text
		return
	}
	full := fyne.MeasureText(c.text, size, style).Width
	if full <= c.width {
		c.t.Text = c.text
		return
	}
	n := utf8.RuneCountInString(c.text)
	runes := []rune(c.text)
	keep := int(float32(n) * c.width / full)
	for keep > 0 {
		s := string(runes[:keep]) + "…"
		if fyne.MeasureText(s, size, style).Width <= c.width {
			c.t.Text = s
			return
		}
		keep--
	}
	c.t.Text = ""
}

// cut reports whether the text is shown cut short.
func (c *cell) cut() bool { return c.t.Text != c.text }

func (c *cell) CreateRenderer() fyne.WidgetRenderer { return &cellRenderer{c: c} }

type cellRenderer struct{ c *cell }

func (r *cellRenderer) Layout(size fyne.Size) {
	pad := theme.InnerPadding()
	w := max(size.Width-2*pad, 0)
	if w != r.c.width {
		r.c.width = w
		r.c.fit()
	}
	h := r.c.t.MinSize().Height
	r.c.t.Move(fyne.NewPos(pad, (size.Height-h)/2))
	r.c.t.Resize(fyne.NewSize(w, h))
}

func (r *cellRenderer) MinSize() fyne.Size {
	pad := theme.InnerPadding()
	h := fyne.MeasureText("Ag", theme.TextSize(), fyne.TextStyle{}).Height
	return fyne.NewSize(2*pad, h+2*pad)
}

func (r *cellRenderer) Refresh() {
	r.c.t.Color = themeColor(r.c.color)
	r.c.t.TextSize = theme.TextSize()
	r.c.t.Refresh()
}

func (r *cellRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.c.t} }
func (r *cellRenderer) Destroy()                     {}
