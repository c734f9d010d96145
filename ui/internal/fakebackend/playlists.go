package fakebackend

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/furudesk/furudesk/app"
)

// fakeList is a playlist of the fake: ids in order.
type fakeList struct {
	id, name string
	ids      []string
}

// playlists is the fake's playlist model: much simpler than the app's, the
// same behaviour for a window.
type playlists struct {
	lists []*fakeList
	next  int
	liked []string // newest first
	// Imported is the report ImportPlaylist returns.
	imported app.ImportReport
}

func (b *Backend) list(id string) (*fakeList, error) {
	for _, l := range b.pl.lists {
		if l.id == id {
			return l, nil
		}
	}
	return nil, fmt.Errorf("there is no playlist with id %s", id)
}

// AddPlaylist makes a playlist of ids (tracks of the fake or unknown ids,
// shown as unavailable) and returns its id.
func (b *Backend) AddPlaylist(name string, ids []string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pl.next++
	l := &fakeList{id: fmt.Sprintf("dev-desk:%d", b.pl.next), name: name, ids: slices.Clone(ids)}
	b.pl.lists = append(b.pl.lists, l)
	b.changedLocked()
	return l.id
}

// SetImportReport sets what ImportPlaylist reports.
func (b *Backend) SetImportReport(r app.ImportReport) {
	b.mu.Lock()
	b.pl.imported = r
	b.mu.Unlock()
}

func (b *Backend) changedLocked() {
	b.st.PlaylistsVersion++
	if b.st.Track != nil {
		b.st.TrackLiked = slices.Contains(b.pl.liked, b.st.Track.ContentID)
	}
	b.publishLocked()
}

func (b *Backend) Playlists() ([]app.PlaylistSummary, error) {
	if err := b.record("Playlists()"); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := []app.PlaylistSummary{
		{ID: app.ListLiked, Name: "Liked", Kind: app.KindLiked, Tracks: len(b.pl.liked)},
		{ID: app.ListMostPlayed, Name: "Most played", Kind: app.KindSmart},
		{ID: app.ListRecentlyPlayed, Name: "Recently played", Kind: app.KindSmart},
		{ID: app.ListRecentlyAdded, Name: "Recently added", Kind: app.KindSmart, Tracks: min(len(b.tracks), app.SmartListLength)},
	}
	var mine []app.PlaylistSummary
	for _, l := range b.pl.lists {
		s := app.PlaylistSummary{ID: l.id, Name: l.name, Kind: app.KindPlaylist, Tracks: len(l.ids)}
		for _, id := range l.ids {
			s.DurationMS += b.item(id).DurationMS
		}
		mine = append(mine, s)
	}
	slices.SortFunc(mine, func(x, y app.PlaylistSummary) int {
		return strings.Compare(strings.ToLower(x.Name), strings.ToLower(y.Name))
	})
	return append(out, mine...), nil
}

func (b *Backend) entry(id string) app.PlaylistEntry {
	it := b.item(id)
	e := app.PlaylistEntry{ContentID: id, Title: it.Title, Artists: it.Artists, Album: it.Album, DurationMS: it.DurationMS,
		Liked: slices.Contains(b.pl.liked, id)}
	if t, ok := b.track(id); ok {
		e.Available, e.Playable, e.Path = true, true, t.Path
	}
	return e
}

func (b *Backend) Playlist(id string) (app.PlaylistView, error) {
	if err := b.record("Playlist(%s)", id); err != nil {
		return app.PlaylistView{}, err
	}
	return b.view(id)
}

func (b *Backend) view(id string) (app.PlaylistView, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v := app.PlaylistView{PlaylistSummary: app.PlaylistSummary{ID: id, Kind: app.KindSmart}}
	var ids []string
	switch id {
	case app.ListLiked:
		v.Name, v.Kind, ids = "Liked", app.KindLiked, b.pl.liked
	case app.ListMostPlayed:
		v.Name = "Most played"
		for cid := range b.plays {
			ids = append(ids, cid)
		}
		slices.SortFunc(ids, func(x, y string) int { return int(b.plays[y].Plays) - int(b.plays[x].Plays) })
	case app.ListRecentlyPlayed:
		v.Name = "Recently played"
	case app.ListRecentlyAdded:
		v.Name = "Recently added"
		for _, t := range b.tracks[:min(len(b.tracks), app.SmartListLength)] {
			ids = append(ids, t.ContentID)
		}
	default:
		l, err := b.list(id)
		if err != nil {
			return app.PlaylistView{}, err
		}
		v.Name, v.Kind, ids = l.name, app.KindPlaylist, l.ids
	}
	v.Entries = make([]app.PlaylistEntry, 0, len(ids))
	for i, cid := range ids {
		e := b.entry(cid)
		if v.Kind == app.KindPlaylist {
			e.EntryID = fmt.Sprintf("%s/%d", id, i)
		}
		v.Entries = append(v.Entries, e)
		v.DurationMS += e.DurationMS
	}
	v.Tracks = len(v.Entries)
	return v, nil
}

func (b *Backend) CreatePlaylist(name string) (app.PlaylistSummary, error) {
	if err := b.record("CreatePlaylist(%s)", name); err != nil {
		return app.PlaylistSummary{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return app.PlaylistSummary{}, errors.New("a playlist needs a name")
	}
	id := b.AddPlaylist(name, nil)
	return app.PlaylistSummary{ID: id, Name: name, Kind: app.KindPlaylist}, nil
}

func (b *Backend) RenamePlaylist(id, name string) error {
	if err := b.record("RenamePlaylist(%s,%s)", id, name); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	l, err := b.list(id)
	if err != nil {
		return err
	}
	l.name = strings.TrimSpace(name)
	b.changedLocked()
	return nil
}

func (b *Backend) DeletePlaylist(id string) error {
	if err := b.record("DeletePlaylist(%s)", id); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pl.lists = slices.DeleteFunc(b.pl.lists, func(l *fakeList) bool { return l.id == id })
	b.changedLocked()
	return nil
}

func (b *Backend) AddToPlaylist(id string, ids []string, at int) error {
	if err := b.record("AddToPlaylist(%s,%d,%s,%d)", id, len(ids), first(ids), at); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if id == app.ListLiked {
		for _, cid := range ids {
			if !slices.Contains(b.pl.liked, cid) {
				b.pl.liked = append([]string{cid}, b.pl.liked...)
			}
		}
		b.changedLocked()
		return nil
	}
	l, err := b.list(id)
	if err != nil {
		return err
	}
	if at < 0 || at > len(l.ids) {
		at = len(l.ids)
	}
	l.ids = slices.Insert(l.ids, at, ids...)
	b.changedLocked()
	return nil
}

func (b *Backend) RemoveFromPlaylist(id string, indexes []int) error {
	if err := b.record("RemoveFromPlaylist(%s,%v)", id, indexes); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	ids := &b.pl.liked
	if id != app.ListLiked {
		l, err := b.list(id)
		if err != nil {
			return err
		}
		ids = &l.ids
	}
	gone := map[int]bool{}
	for _, i := range indexes {
		gone[i] = true
	}
	var keep []string
	for i, cid := range *ids {
		if !gone[i] {
			keep = append(keep, cid)
		}
	}
	*ids = keep
	b.changedLocked()
	return nil
}

func (b *Backend) MoveInPlaylist(id string, from, to int) error {
	if err := b.record("MoveInPlaylist(%s,%d,%d)", id, from, to); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	l, err := b.list(id)
	if err != nil {
		return err
	}
	if from < 0 || from >= len(l.ids) || to < 0 || to >= len(l.ids) {
		return fmt.Errorf("there is no track %d in “%s”", max(from, to), l.name)
	}
	cid := l.ids[from]
	l.ids = slices.Insert(slices.Delete(l.ids, from, from+1), to, cid)
	b.changedLocked()
	return nil
}

func (b *Backend) PlayPlaylist(id string, start int, appendToQueue bool) error {
	if err := b.record("PlayPlaylist(%s,%d,%v)", id, start, appendToQueue); err != nil {
		return err
	}
	v, err := b.view(id)
	if err != nil {
		return err
	}
	var ids []string
	for _, e := range v.Entries {
		ids = append(ids, e.ContentID)
	}
	b.Update(func(st *app.Status) {
		if !appendToQueue {
			st.Queue = nil
		}
		for _, id := range ids[start:] {
			st.Queue = append(st.Queue, b.item(id))
		}
		st.QueueLen = len(st.Queue)
		if !appendToQueue || st.Track == nil {
			b.setIndexLocked(0)
			st.Playing = st.Track != nil
		}
	})
	return nil
}

func (b *Backend) SetLiked(id string, liked bool) error {
	if err := b.record("SetLiked(%s,%v)", id, liked); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pl.liked = slices.DeleteFunc(b.pl.liked, func(x string) bool { return x == id })
	if liked {
		b.pl.liked = append([]string{id}, b.pl.liked...)
	}
	b.changedLocked()
	return nil
}

func (b *Backend) LikedIDs() (map[string]bool, error) {
	if err := b.record("LikedIDs()"); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]bool{}
	for _, id := range b.pl.liked {
		out[id] = true
	}
	return out, nil
}

func (b *Backend) ImportPlaylist(file string) (app.ImportReport, error) {
	if err := b.record("ImportPlaylist(%s)", file); err != nil {
		return app.ImportReport{}, err
	}
	b.mu.Lock()
	rep := b.pl.imported
	b.mu.Unlock()
	if rep.Imported > 0 {
		rep.Playlist.ID = b.AddPlaylist(rep.Playlist.Name, nil)
	}
	return rep, nil
}

func (b *Backend) ExportPlaylist(id, file string) (app.ExportReport, error) {
	if err := b.record("ExportPlaylist(%s,%s)", id, file); err != nil {
		return app.ExportReport{}, err
	}
	v, err := b.view(id)
	if err != nil {
		return app.ExportReport{}, err
	}
	return app.ExportReport{Path: file, Written: len(v.Entries)}, nil
}
