package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/internal/framegov"
)

// What the window keeps of the group's playlists for its menus and hearts:
// the lists (for "Add to playlist") and the liked tracks, loaded again
// whenever Status.PlaylistsVersion moves.

// playlistsChanged reloads the lists and likes when the status says they
// changed (on every device of the group: a status follows each change).
func (u *UI) playlistsChanged(st app.Status, first bool) {
	if !first && st.PlaylistsVersion == u.plVersion {
		return
	}
	u.plVersion = st.PlaylistsVersion
	if u.cat == nil {
		// At launch the library comes first: reading both at once
		// doubles the work (and the memory) before the window is usable.
		u.plAfterLibrary = true
		return
	}
	u.loadPlaylists()
}

func (u *UI) loadPlaylists() {
	if u.plLoading {
		u.plAgain = true
		return
	}
	u.plLoading = true
	u.spawn(func() {
		lists, err := u.b.Playlists()
		var liked map[string]bool
		var plays map[string]app.PlayStats
		if err == nil {
			liked, err = u.b.LikedIDs()
		}
		if err == nil {
			plays, err = u.b.PlayCounts()
		}
		framegov.Do(func() {
			u.plLoading = false
			if err == nil {
				u.lists, u.liked, u.plays = lists, liked, playStatsOf(plays)
				u.refreshLists()
				u.refreshHeader() // the Playlists page counts them
			}
			u.playlists.setLists(lists, err)
			if u.plAgain {
				u.plAgain = false
				u.loadPlaylists()
			}
		})
	})
}

// toggleLike likes a track that is not liked, and unlikes one that is.
// The heart changes at once; the next status confirms it.
func (u *UI) toggleLike(cid string) {
	if cid == "" {
		return
	}
	liked := !u.liked[cid]
	u.setLikedNow(cid, liked)
	what := "Could not like it"
	if !liked {
		what = "Could not unlike it"
	}
	u.run(what, func() error { return u.b.SetLiked(cid, liked) })
}

// setLikedNow shows a like before the app confirms it.
func (u *UI) setLikedNow(cid string, liked bool) {
	m := make(map[string]bool, len(u.liked)+1)
	for k, v := range u.liked {
		m[k] = v
	}
	m[cid] = liked
	u.liked = m
	u.refreshLists()
	if u.st.Track != nil && u.st.Track.ContentID == cid {
		u.st.TrackLiked = liked
		u.np.showLiked(u.st)
	}
}

// toggleLikeCurrent is the heart of the now-playing bar.
func (u *UI) toggleLikeCurrent() {
	if u.st.Track != nil {
		u.toggleLike(u.st.Track.ContentID)
	}
}

// likeItem is the Like or Unlike entry of a track's menu.
func (u *UI) likeItem(cid string) *fyne.MenuItem {
	if u.liked[cid] {
		return fyne.NewMenuItemWithIcon("Unlike", iconHeartOutline, func() { u.toggleLike(cid) })
	}
	return fyne.NewMenuItemWithIcon("Like", iconHeart, func() { u.toggleLike(cid) })
}

func contentIDs(ts []*track) []string {
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ContentID
	}
	return ids
}

// addToPlaylistItem is "Add to playlist" with its submenu: New playlist…,
// Liked, then every playlist of the group.
func (u *UI) addToPlaylistItem(ids []string) *fyne.MenuItem {
	items := []*fyne.MenuItem{
		fyne.NewMenuItemWithIcon("New playlist…", iconPlaylistAdd, func() {
			u.newPlaylistDialog(func(p app.PlaylistSummary) { u.addTo(p, ids) })
		}),
		fyne.NewMenuItemSeparator(),
	}
	for _, p := range u.lists {
		if p.Kind == app.KindSmart {
			continue
		}
		p := p
		icon := iconPlaylist
		if p.Kind == app.KindLiked {
			icon = iconHeart
		}
		items = append(items, fyne.NewMenuItemWithIcon(p.Name, icon, func() { u.addTo(p, ids) }))
	}
	it := fyne.NewMenuItemWithIcon("Add to playlist", iconPlaylistAdd, nil)
	it.ChildMenu = fyne.NewMenu("", items...)
	return it
}

// addTo appends tracks to a playlist and says so.
func (u *UI) addTo(p app.PlaylistSummary, ids []string) {
	if len(ids) == 0 {
		return
	}
	u.runThen(func() error { return u.b.AddToPlaylist(p.ID, ids, -1) }, func(err error) {
		if err != nil {
			u.showError("Could not add to “" + p.Name + "”: " + userError(err))
			return
		}
		u.notices.info(plural(len(ids), "track", "tracks") + " added to “" + p.Name + "”.")
	})
}

// newPlaylistDialog asks for a name and creates the playlist; then runs
// after it (adding the tracks it was made for), when not nil.
func (u *UI) newPlaylistDialog(then func(app.PlaylistSummary)) {
	name := u.newDialogEntry(false)
	name.SetPlaceHolder("My playlist")
	name.Validator = func(s string) error {
		if len([]rune(s)) > 200 {
			return errText("at most 200 characters")
		}
		return nil
	}
	d := dialog.NewForm("New playlist", "Create", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", name)}, func(ok bool) {
		if !ok {
			return
		}
		text := name.Text
		var made app.PlaylistSummary
		u.runThen(func() error {
			p, err := u.b.CreatePlaylist(text)
			made = p
			return err
		}, func(err error) {
			if err != nil {
				u.showError("Could not create the playlist: " + userError(err))
				return
			}
			u.playlists.want = made.ID
			if then != nil {
				then(made)
			} else {
				u.notices.info("Created “" + made.Name + "”.")
			}
		})
	}, u.win)
	d.Resize(fyne.NewSize(420, 160))
	u.showDialog(d, d.Submit)
	u.win.Canvas().Focus(name)
}

type errText string

func (e errText) Error() string { return string(e) }
