package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/ui/internal/fakebackend"
)

// The wheel over a text field of Settings scrolls the page (the field
// swallowed it), and the field still takes clicks and typing.
func TestWheelOverASettingsFieldScrollsThePage(t *testing.T) {
	h := newHarness(t, 3)
	h.u.win.Resize(fyne.NewSize(900, 500))
	h.u.showPage(PageSettings)
	p := h.u.settings
	page := p.scroll()
	page.ScrollToTop()
	c := h.u.win.Canvas()
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(p.name).AddXY(20, 10)
	test.Scroll(c, at, 0, -120)
	if page.Offset.Y <= 0 {
		t.Fatal("the wheel over the name field did not scroll the page")
	}
	// The layer over the field takes nothing but the wheel.
	var layer any = &wheelPass{}
	_, tappable := layer.(fyne.Tappable)
	_, focusable := layer.(fyne.Focusable)
	_, hoverable := layer.(desktop.Hoverable)
	_, cursor := layer.(desktop.Cursorable)
	if tappable || focusable || hoverable || cursor {
		t.Fatal("the wheel layer takes more than the wheel")
	}
	c.Focus(p.name)
	test.Type(p.name, "x")
	if p.name.Text == "" {
		t.Fatal("the name field no longer takes typing")
	}
}

// "Saved." goes when the page is left; a finished job takes its
// "Making…" toast away.
func TestConfirmationsAndWorkToastsGo(t *testing.T) {
	h := newHarness(t, 3)
	h.u.showPage(PageSettings)
	p := h.u.settings
	p.applyConfig()
	if !p.cfgMsg.Visible() || p.cfgMsg.Text != "Saved." {
		t.Fatalf("after Apply: %q visible=%v", p.cfgMsg.Text, p.cfgMsg.Visible())
	}
	h.u.showPage(PageTracks)
	h.u.showPage(PageSettings)
	if p.cfgMsg.Visible() {
		t.Fatal("Saved. stays after the page was left")
	}

	var pending []func()
	h.u.spawn = func(f func()) { pending = append(pending, f) }
	h.u.tryDemo()
	if got := h.u.notices.texts(); len(got) != 1 || got[0] != "Making the demo tracks…" {
		t.Fatalf("while the demo is made: %q", got)
	}
	for len(pending) > 0 {
		f := pending[0]
		pending = pending[1:]
		f()
	}
	for _, s := range h.u.notices.texts() {
		if s == "Making the demo tracks…" {
			t.Fatal("the Making toast stays after the demo tracks were made")
		}
	}
}

// An artist's page lists the tracks album by album, the oldest first, each
// album under its title, with Play and Shuffle for all of them; a column's
// sort mixes the albums and drops the headings.
func TestArtistPageGroupsByAlbum(t *testing.T) {
	ts := fakebackend.MakeTracks(30) // one artist, albums (0) to (2), years 1990-1992
	for i := range ts {
		ts[i].Year = 2000 - i/10 // the newest first in the library
	}
	h := newHarnessWith(t, ts)
	h.u.showPage(PageArtists)
	p := h.u.artists
	tl := p.tracks
	if len(tl.tracks) != 30 {
		t.Fatalf("%d tracks listed", len(tl.tracks))
	}
	var heads []string
	for r := range tl.tracks {
		if hd := tl.heading(r); hd != "" {
			heads = append(heads, fmt.Sprintf("%d:%s", r, hd))
		}
	}
	want := []string{"0:" + ts[20].Album + " · 1998", "10:" + ts[10].Album + " · 1999", "20:" + ts[0].Album + " · 2000"}
	if !slices.Equal(heads, want) {
		t.Fatalf("headings %q, want %q", heads, want)
	}
	row := trackRowAt(t, tl, 10)
	if !row.head.Visible() || row.head.Text != want[1][3:] || row.Size().Height <= tl.rowH {
		t.Fatalf("row 10: heading %q shown=%v height %v (a row is %v)", row.head.Text, row.head.Visible(), row.Size().Height, tl.rowH)
	}
	if p.info.Text != "3 albums · 30 tracks" {
		t.Fatalf("info %q", p.info.Text)
	}
	test.Tap(button(t, p.view, "Shuffle"))
	calls := h.b.Calls()
	if len(calls) != 2 || calls[0] != "SetShuffle(true)" || !strings.HasPrefix(calls[1], "PlayTracks(30,") {
		t.Fatalf("Shuffle made %q", calls)
	}
	h.b.ResetCalls()
	test.Tap(button(t, p.view, "Play"))
	h.wantCalls("PlayTracks(30," + ts[20].ContentID + ",0)")

	tl.setSort(sortSpec{ok: true, col: colTitle})
	if tl.heading(0) != "" || tl.heading(10) != "" {
		t.Fatal("headings stay while a column sorts the list")
	}
}

// A search shows the artists and albums that match above its tracks,
// with the same folding ("sigur ros" finds Sigur Rós); each opens its page.
func TestSearchGroupsArtistsAlbumsAndTracks(t *testing.T) {
	ts := fakebackend.MakeTracks(60)
	for i := 50; i < 60; i++ {
		ts[i].Artists, ts[i].Album = []string{"Sigur Rós"}, "Ágætis byrjun"
	}
	h := newHarnessWith(t, ts)
	h.u.setQuery("sigur ros")
	p := h.u.tracks
	if !p.groups.Visible() {
		t.Fatal("no groups for a query that matches an artist")
	}
	labels := func() []string {
		var out []string
		for _, b := range find(p.groups, func(*widgetButton) bool { return true }) {
			out = append(out, b.Text)
		}
		return out
	}
	if got := labels(); !slices.Equal(got, []string{"Sigur Rós", "Ágætis byrjun — Sigur Rós"}) {
		t.Fatalf("groups %q", got)
	}
	if len(p.list.tracks) != 10 || len(labelsWith(p.groups, func(s string) bool { return s == "10 tracks" })) != 1 {
		t.Fatalf("%d tracks listed under the groups", len(p.list.tracks))
	}
	test.Tap(button(t, p.groups, "Sigur Rós"))
	if h.u.page != PageArtists || h.u.artists.selected != "Sigur Rós" {
		t.Fatalf("the artist button went to %s / %q", h.u.page, h.u.artists.selected)
	}
	h.u.showPage(PageTracks)
	h.u.setQuery("agaetis")
	if got := labels(); !slices.Equal(got, []string{"Ágætis byrjun — Sigur Rós"}) {
		t.Fatalf("groups for an album's title %q", got)
	}
	h.u.setQuery("")
	if p.groups.Visible() {
		t.Fatal("groups stay without a query")
	}
}

// The speaker icon and M mute and give the volume back; Ctrl+↑/↓ turn it.
func TestMuteAndVolumeKeys(t *testing.T) {
	h := newHarness(t, 30)
	h.playing()
	h.apply(func(st *app.Status) { st.Volume = 70 })
	n := h.u.np
	test.Tap(n.volIcon)
	h.apply(func(st *app.Status) { st.Volume = 0 })
	if n.volIcon.tip != "Unmute (M)" {
		t.Fatalf("muted, the icon says %q", n.volIcon.tip)
	}
	h.u.typedRune('m')
	h.apply(func(st *app.Status) { st.Volume = 70 })
	c := h.u.win.Canvas().(interface{ TypedShortcut(fyne.Shortcut) })
	c.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyUp, Modifier: fyne.KeyModifierShortcutDefault})
	h.apply(func(st *app.Status) { st.Volume = 75 })
	c.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyDown, Modifier: fyne.KeyModifierShortcutDefault})
	h.wantCalls("SetVolume(0)", "SetVolume(70)", "SetVolume(75)", "SetVolume(70)")
}
