package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// TestSecondaryTextIsReadable: secondary text keeps at least 4.5:1 against
// the window and sidebar backgrounds in the dark and the light theme, and
// is still softer than the foreground.
func TestSecondaryTextIsReadable(t *testing.T) {
	test.NewTempApp(t)
	th := theme.DefaultTheme()
	for _, v := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
		c := secondaryColor(th, v)
		fg := toNRGBA(th.Color(theme.ColorNameForeground, v))
		for _, bgName := range []fyne.ThemeColorName{theme.ColorNameBackground, theme.ColorNameHeaderBackground} {
			bg := toNRGBA(th.Color(bgName, v))
			if r := contrastRatio(toNRGBA(c), bg); r < 4.5 {
				t.Errorf("variant %d: secondary %v on %s has contrast %.2f, want >= 4.5", v, c, bgName, r)
			}
			if contrastRatio(toNRGBA(c), bg) >= contrastRatio(fg, bg) {
				t.Errorf("variant %d: secondary %v is not softer than the foreground %v", v, c, fg)
			}
		}
		t.Logf("variant %d: secondary %v, %.2f:1 on the background", v, c, contrastRatio(toNRGBA(c), toNRGBA(th.Color(theme.ColorNameBackground, v))))
	}
}
