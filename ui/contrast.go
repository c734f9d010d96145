package ui

import (
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Secondary text ("2 albums · 4 tracks", the artist under an album, the
// durations of a track list) is the theme's foreground at reduced
// emphasis: blended towards the background, but never below
// secondaryMinContrast against the backgrounds it is shown on. Fyne's own
// low-importance colour (ColorNameDisabled) is about 1.5:1 in both
// variants, too faint to read.
const (
	secondaryEmphasis    = 0.62 // share of the foreground kept, at most
	secondaryMinContrast = 4.8  // WCAG asks 4.5:1 for small text; a margin for hover tints
)

// colorNameSecondary is the colour of secondary text drawn by cells
// (themeColor resolves it; the Fyne theme does not know it).
const colorNameSecondary fyne.ThemeColorName = "furudesk-secondary"

// themeColor is the current theme's colour of name, knowing
// colorNameSecondary too.
func themeColor(name fyne.ThemeColorName) color.Color {
	if name == colorNameSecondary {
		return secondaryColor(fyne.CurrentApp().Settings().Theme(), currentVariant())
	}
	return theme.Color(name)
}

func currentVariant() fyne.ThemeVariant {
	return fyne.CurrentApp().Settings().ThemeVariant()
}

// secondaryColor is the colour of secondary text in th's variant v: the
// foreground blended towards the background as far as secondaryEmphasis
// allows while it keeps secondaryMinContrast against the window and
// sidebar backgrounds (more foreground where the theme's own foreground
// is already soft, as in Fyne's light theme).
func secondaryColor(th fyne.Theme, v fyne.ThemeVariant) color.Color {
	fg := toNRGBA(th.Color(theme.ColorNameForeground, v))
	bgs := []color.NRGBA{
		toNRGBA(th.Color(theme.ColorNameBackground, v)),
		toNRGBA(th.Color(theme.ColorNameHeaderBackground, v)),
	}
	for k := secondaryEmphasis; k < 1; k += 0.02 {
		c := blend(fg, bgs[0], k)
		ok := true
		for _, bg := range bgs {
			if contrastRatio(c, bg) < secondaryMinContrast {
				ok = false
				break
			}
		}
		if ok {
			return c
		}
	}
	return fg
}

// blend is k of fg over 1-k of bg.
func blend(fg, bg color.NRGBA, k float64) color.NRGBA {
	mix := func(a, b uint8) uint8 { return uint8(math.Round(float64(a)*k + float64(b)*(1-k))) }
	return color.NRGBA{R: mix(fg.R, bg.R), G: mix(fg.G, bg.G), B: mix(fg.B, bg.B), A: 0xff}
}

func toNRGBA(c color.Color) color.NRGBA {
	return color.NRGBAModel.Convert(c).(color.NRGBA)
}

// contrastRatio is the WCAG 2 contrast ratio of two opaque colours,
// 1 (none) to 21 (black on white).
func contrastRatio(a, b color.NRGBA) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func luminance(c color.NRGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// subtle is a Label drawn in the secondary text colour ("2 albums · 4
// tracks", the artist under an album, hints): a Label of LowImportance
// whose text takes colorNameSecondary instead of Fyne's faint
// ColorNameDisabled. It is not a container.ThemeOverride: every override
// is a theme scope of its own, for which Fyne loads and keeps the fonts
// again (about 10 MB each time, and a new scope at every refresh of the
// override), which made the window's memory grow without bound.
type subtle struct{ widget.Label }

func newSubtle(text string) *subtle {
	return newSubtleWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{})
}

func newSubtleWithStyle(text string, align fyne.TextAlign, style fyne.TextStyle) *subtle {
	l := &subtle{}
	l.Text, l.Alignment, l.TextStyle, l.Importance = text, align, style, widget.LowImportance
	l.ExtendBaseWidget(l)
	return l
}

// CreateRenderer is the Label's, recolouring its text on every refresh
// (the Label sets the colour of its importance first).
func (l *subtle) CreateRenderer() fyne.WidgetRenderer {
	r := l.Label.CreateRenderer()
	sr := &subtleRenderer{WidgetRenderer: r}
	for _, o := range r.Objects() {
		if rt, ok := o.(*widget.RichText); ok {
			sr.rt = rt
		}
	}
	sr.recolour()
	return sr
}

type subtleRenderer struct {
	fyne.WidgetRenderer
	rt *widget.RichText
}

func (r *subtleRenderer) recolour() {
	if r.rt == nil {
		return
	}
	for _, seg := range r.rt.Segments {
		if t, ok := seg.(*widget.TextSegment); ok {
			t.Style.ColorName = colorNameSecondary
		}
	}
}

func (r *subtleRenderer) Refresh() {
	r.recolour()
	r.WidgetRenderer.Refresh()
}

// appTheme is the window's theme: Fyne's, knowing colorNameSecondary too
// (subtle labels and cells draw secondary text in it).
type appTheme struct{ base fyne.Theme }

func (t appTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if n == colorNameSecondary {
		return secondaryColor(t.base, v)
	}
	return t.base.Color(n, v)
}

func (t appTheme) Font(s fyne.TextStyle) fyne.Resource     { return t.base.Font(s) }
func (t appTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return t.base.Icon(n) }
func (t appTheme) Size(n fyne.ThemeSizeName) float32       { return t.base.Size(n) }

// useAppTheme makes appTheme the theme of fa, over the one it has.
func useAppTheme(fa fyne.App) {
	if _, ok := fa.Settings().Theme().(appTheme); !ok {
		fa.Settings().SetTheme(appTheme{base: fa.Settings().Theme()})
	}
}
