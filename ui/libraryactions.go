package ui

import (
	"math/rand/v2"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// What the library's lists do with tracks: play them, queue them, open
// their album or artist.

// playTracks replaces the queue with tracks and plays from index. Very long
// lists are cut to a window around the chosen track.
// shuffleTracks plays tracks shuffled, from a random one of them.
func (u *UI) shuffleTracks(tracks []*track) {
	if len(tracks) == 0 {
		return
	}
	ids := make([]string, 0, min(len(tracks), 5000))
	for _, t := range tracks[:min(len(tracks), 5000)] {
		ids = append(ids, t.ContentID)
	}
	start := rand.IntN(len(ids))
	u.run("Could not shuffle", func() error {
		if err := u.b.SetShuffle(true); err != nil {
			return err
		}
		return u.b.PlayTracks(ids, start)
	})
}

func (u *UI) playTracks(tracks []*track, index int) {
	const before, total = 500, 5000
	if len(tracks) == 0 {
		return
	}
	lo := 0
	if len(tracks) > total {
		lo = max(0, index-before)
	}
	hi := min(len(tracks), lo+total)
	ids := make([]string, 0, hi-lo)
	for _, t := range tracks[lo:hi] {
		ids = append(ids, t.ContentID)
	}
	u.run("Could not play", func() error { return u.b.PlayTracks(ids, index-lo) })
}

func (u *UI) enqueue(tracks []*track, next bool) {
	ids := make([]string, len(tracks))
	for i, t := range tracks {
		ids[i] = t.ContentID
	}
	what := "Could not add to the queue"
	if next {
		what = "Could not queue it to play next"
	}
	u.run(what, func() error { return u.b.Enqueue(ids, next) })
	n := plural(len(tracks), "track", "tracks")
	if len(tracks) == 1 {
		n = "“" + orUntitled(tracks[0].Title) + "”"
	}
	if next {
		u.notices.info(n + " will play next.")
	} else {
		u.notices.info(n + " added to the queue.")
	}
}

// trackMenu is the context menu of rows of a list of tracks (the
// selection): play (from this track on, or the tracks selected), play
// next, add to queue, add to playlist; for one track like it and go to
// its album or artist.
func (u *UI) trackMenu(list []*track, rows []int) *fyne.Menu {
	sel := make([]*track, len(rows))
	for i, r := range rows {
		sel[i] = list[r]
	}
	play := fyne.NewMenuItemWithIcon("Play", theme.MediaPlayIcon(), func() { u.playTracks(list, rows[0]) })
	if len(rows) > 1 {
		play = fyne.NewMenuItemWithIcon("Play "+plural(len(rows), "track", "tracks"), theme.MediaPlayIcon(), func() { u.playTracks(sel, 0) })
	}
	items := []*fyne.MenuItem{
		play,
		fyne.NewMenuItemWithIcon("Play next", iconQueue, func() { u.enqueue(sel, true) }),
		fyne.NewMenuItemWithIcon("Add to queue", theme.ContentAddIcon(), func() { u.enqueue(sel, false) }),
		u.addToPlaylistItem(contentIDs(sel)),
	}
	if len(sel) == 1 {
		items = append(items, u.likeItem(sel[0].ContentID))
	}
	if len(sel) == 1 && u.cat != nil {
		t := sel[0]
		items = append(items, fyne.NewMenuItemSeparator(),
			fyne.NewMenuItemWithIcon("Go to album", iconAlbum, func() { u.goToAlbum(t) }))
		if len(t.Artists) > 0 {
			items = append(items, fyne.NewMenuItemWithIcon("Go to artist", iconArtists, func() { u.goToArtist(t.Artists[0]) }))
		}
	}
	return fyne.NewMenu("", items...)
}

// groupMenu is the menu of a group of tracks (an album): play it, play it
// next, add it to the queue or a playlist.
func (u *UI) groupMenu(tracks []*track) *fyne.Menu {
	return fyne.NewMenu("",
		fyne.NewMenuItemWithIcon("Play", theme.MediaPlayIcon(), func() { u.playTracks(tracks, 0) }),
		fyne.NewMenuItemWithIcon("Play next", iconQueue, func() { u.enqueue(tracks, true) }),
		fyne.NewMenuItemWithIcon("Add to queue", theme.ContentAddIcon(), func() { u.enqueue(tracks, false) }),
		u.addToPlaylistItem(contentIDs(tracks)))
}

func (u *UI) goToAlbum(t *track) {
	if u.cat == nil {
		return
	}
	if a := u.cat.albumOf(t); a != nil {
		u.clearSearch()
		u.showPage(PageAlbums)
		u.albums.openAlbum(a)
	}
}

// goToAlbumNamed opens the album of the catalog with this title and one
// of these artists (the now-playing view's album link).
func (u *UI) goToAlbumNamed(title string, artists []string) bool {
	if u.cat == nil || title == "" {
		return false
	}
	for _, a := range u.cat.albums {
		if a.title != title {
			continue
		}
		for _, t := range a.tracks {
			for _, ar := range t.Artists {
				for _, want := range artists {
					if ar == want {
						u.clearSearch()
						u.showPage(PageAlbums)
						u.albums.openAlbum(a)
						return true
					}
				}
			}
		}
	}
	return false
}

func (u *UI) goToArtist(name string) {
	if u.cat == nil {
		return
	}
	for i, a := range u.cat.artists {
		if a.name == name {
			u.clearSearch()
			u.showPage(PageArtists)
			u.artists.list.Select(i)
			u.artists.list.ScrollTo(i)
			return
		}
	}
}
