package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/ui/internal/fakebackend"
)

// defaultWindow is the size the window opens at (ui.go).
var defaultWindow = fyne.NewSize(1180, 760)

// fitsWindow fails t when the window's content asks for more room than
// the window opens with on any page.
func fitsWindow(t *testing.T, h *harness, what string) {
	t.Helper()
	for _, page := range append(append([]string{}, pageOrder...), PageNowPlaying) {
		h.u.showPage(page)
		if min := h.u.win.Content().MinSize(); min.Width > defaultWindow.Width || min.Height > defaultWindow.Height {
			t.Errorf("%s, %s: the window needs %v, more than the %v it opens with", what, page, min, defaultWindow)
		}
	}
}

// TestEveryPageFitsTheWindow: no page asks for more room than the window
// opens with, so that showing one never grows the window past the screen:
// an empty Liked list's hint, wrapped a letter a line, once made it 2,059
// pixels tall and pushed the player bar off the bottom of the screen, and
// a long search that matched nothing made it 4,000 pixels wide.
func TestEveryPageFitsTheWindow(t *testing.T) {
	long := strings.Repeat("nothing is called like this ", 20)
	for _, n := range []int{0, 40} {
		h := newHarness(t, n)
		fitsWindow(t, h, "a new window")
		h.u.setQuery(long)
		fitsWindow(t, h, "a search that matches nothing")
	}
}

// TestLongNamesFitTheWindow: a collector's long titles (a classical
// album, a track named after its whole libretto line) are cut short, not
// given the width they ask for, wherever they show: lists, the album
// page, the player bar, now playing.
func TestLongNamesFitTheWindow(t *testing.T) {
	ts := fakebackend.MakeTracks(40)
	long := strings.Repeat("Symphony No. 9 in D minor, Op. 125 ", 8)
	for i := range ts {
		ts[i].Title = long + ts[i].Title
		ts[i].Album = long + ts[i].Album
		ts[i].AlbumArtist = long
		ts[i].Artists = []string{long + ts[i].Artists[0]}
	}
	h := newHarnessWith(t, ts)
	h.playing()
	h.u.showPage(PageAlbums)
	h.u.albums.openAlbum(h.u.cat.albums[0])
	fitsWindow(t, h, "long names, an album open, playing")
	h.u.setQuery("Symphony")
	fitsWindow(t, h, "long names found by a search")

	h.remote()
	h.apply(func(st *app.Status) {
		st.Devices = slices.Clone(st.Devices)
		for i := range st.Devices {
			// as long as a device name may be (storage.MaxNameBytes)
			st.Devices[i].Name = (st.Devices[i].Name + " " + long)[:250]
		}
		st.DeviceName, st.OwnerName = st.Devices[0].Name, st.Devices[1].Name
	})
	fitsWindow(t, h, "long device names, playing on another device")
}
