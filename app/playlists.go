package app

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/playlists"
)

// The lists every device shows besides the user's playlists. Their ids
// never clash with a playlist's ("origin:seq").
const (
	ListLiked          = "liked"
	ListMostPlayed     = "most-played"
	ListRecentlyPlayed = "recently-played"
	ListRecentlyAdded  = "recently-added"
)

// Kinds of PlaylistSummary.
const (
	KindPlaylist = "playlist"
	KindLiked    = "liked"
	KindSmart    = "smart"
)

// SmartListLength bounds the smart lists (most played, recently played,
// recently added).
const SmartListLength = 200

var smartNames = map[string]string{
	ListLiked: "Liked", ListMostPlayed: "Most played", ListRecentlyPlayed: "Recently played", ListRecentlyAdded: "Recently added",
}

// PlaylistSummary describes a playlist or one of the lists every device has.
type PlaylistSummary struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Kind       string `json:"kind"` // KindPlaylist, KindLiked or KindSmart
	Tracks     int    `json:"tracks"`
	DurationMS int64  `json:"duration_ms"`
}

// Editable reports whether tracks can be added, removed and moved.
func (s PlaylistSummary) Editable() bool { return s.Kind == KindPlaylist }

// PlaylistView is a list with its tracks in order.
type PlaylistView struct {
	PlaylistSummary
	Entries []PlaylistEntry `json:"entries"`
}

// PlaylistEntry is one track of a list. Available says this device has the
// file; Playable that it plays now, from that file or from another device
// of the group (Where says which); an entry no device holds keeps its
// title and stays listed.
type PlaylistEntry struct {
	EntryID      string   `json:"entry_id,omitempty"`
	ContentID    string   `json:"content_id"`
	Title        string   `json:"title"`
	Artists      []string `json:"artists,omitempty"`
	Album        string   `json:"album,omitempty"`
	DurationMS   int64    `json:"duration_ms"`
	Available    bool     `json:"available"`
	Playable     bool     `json:"playable"`
	Where        string   `json:"where,omitempty"`
	Path         string   `json:"path,omitempty"`
	Liked        bool     `json:"liked"`
	Plays        uint64   `json:"plays,omitempty"`
	LastPlayedMS int64    `json:"last_played_ms,omitempty"`
}

// Entry is the queue entry of a playlist entry.
func (e PlaylistEntry) Entry() Entry {
	return Entry{ContentID: e.ContentID, Title: e.Title, Artists: e.Artists, Album: e.Album, DurationMS: e.DurationMS}
}

func (a *App) coll() (*collection, error) {
	if a.collection == nil {
		return nil, ErrNoPlaylists
	}
	return a.collection, nil
}

// recentStore is the optional capability of a Store that dates tracks
// (*storage.Store); without it Recently added goes by file dates.
type recentStore interface {
	RecentlyAdded(limit int) ([]library.Track, error)
}

// Playlists lists Liked and the smart lists, then the group's playlists by
// name.
func (a *App) Playlists() ([]PlaylistSummary, error) {
	c, err := a.coll()
	if err != nil {
		return nil, err
	}
	n, err := a.store.TrackCount()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []PlaylistSummary{
		{ID: ListLiked, Name: smartNames[ListLiked], Kind: KindLiked, Tracks: len(c.st.Liked())},
		{ID: ListMostPlayed, Name: smartNames[ListMostPlayed], Kind: KindSmart, Tracks: min(len(c.st.History()), SmartListLength)},
		{ID: ListRecentlyPlayed, Name: smartNames[ListRecentlyPlayed], Kind: KindSmart, Tracks: min(len(c.st.History()), SmartListLength)},
		{ID: ListRecentlyAdded, Name: smartNames[ListRecentlyAdded], Kind: KindSmart, Tracks: min(n, SmartListLength)},
	}
	for _, s := range c.st.Playlists() {
		out = append(out, PlaylistSummary{ID: s.ID, Name: s.Name, Kind: KindPlaylist, Tracks: s.Entries, DurationMS: s.DurationMS})
	}
	return out, nil
}

// FindPlaylist finds a list by id, or by name (case-insensitive) when no
// id matches; an ambiguous name is refused.
func (a *App) FindPlaylist(idOrName string) (PlaylistSummary, error) {
	all, err := a.Playlists()
	if err != nil {
		return PlaylistSummary{}, err
	}
	var byName []PlaylistSummary
	for _, p := range all {
		if p.ID == idOrName {
			return p, nil
		}
		if strings.EqualFold(p.Name, strings.TrimSpace(idOrName)) {
			byName = append(byName, p)
		}
	}
	switch len(byName) {
	case 1:
		return byName[0], nil
	case 0:
		return PlaylistSummary{}, userErr(ErrNoPlaylist, "there is no playlist “%s” (see `playlists`)", idOrName)
	}
	return PlaylistSummary{}, userErr(ErrNoPlaylist, "%d playlists are called “%s”: give the id (see `playlists`)", len(byName), idOrName)
}

// Playlist returns a list with its tracks.
func (a *App) Playlist(id string) (PlaylistView, error) {
	c, err := a.coll()
	if err != nil {
		return PlaylistView{}, err
	}
	var recent []library.Track
	if id == ListRecentlyAdded {
		if recent, err = a.recentlyAdded(); err != nil {
			return PlaylistView{}, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v := PlaylistView{PlaylistSummary: PlaylistSummary{ID: id, Name: smartNames[id], Kind: KindSmart}}
	entry := func(eid string, t playlists.Track) PlaylistEntry {
		e := PlaylistEntry{EntryID: eid, ContentID: t.ContentID, Title: t.Title, Artists: t.Artists, Album: t.Album, DurationMS: t.DurationMS}
		e.Liked = c.st.IsLiked(t.ContentID)
		p := c.st.Plays(t.ContentID)
		e.Plays, e.LastPlayedMS = p.Plays, p.LastMS
		return e
	}
	switch id {
	case ListLiked:
		v.Kind = KindLiked
		for _, l := range c.st.Liked() {
			v.Entries = append(v.Entries, entry("", l.Track))
		}
	case ListMostPlayed, ListRecentlyPlayed:
		h := c.st.History()
		if id == ListMostPlayed {
			slices.SortStableFunc(h, func(x, y playlists.Played) int { return cmp.Compare(y.Plays, x.Plays) })
		}
		for _, p := range h[:min(len(h), SmartListLength)] {
			v.Entries = append(v.Entries, entry("", p.Track))
		}
	case ListRecentlyAdded:
		for _, t := range recent {
			v.Entries = append(v.Entries, entry("", trackRef(t)))
		}
	default:
		p, ok := c.st.Playlist(id)
		if !ok {
			if c.st.Deleted(id) {
				return PlaylistView{}, userErr(ErrNoPlaylist, "playlist %s was deleted", id)
			}
			return PlaylistView{}, userErr(ErrNoPlaylist, "there is no playlist with id %s", id)
		}
		v.Name, v.Kind = p.Name, KindPlaylist
		v.Entries = make([]PlaylistEntry, 0, len(p.Entries))
		for _, e := range p.Entries {
			v.Entries = append(v.Entries, entry(e.ID, e.Track))
		}
	}
	// Which entries this device has a file for: the list's tracks looked
	// up, not the whole catalog.
	ids := make([]string, len(v.Entries))
	for i, e := range v.Entries {
		ids[i] = e.ContentID
	}
	byID, err := a.store.TracksByContentIDs(ids)
	if err != nil {
		return PlaylistView{}, err
	}
	var names map[engine.DeviceID]string
	for i := range v.Entries {
		e := &v.Entries[i]
		lt, ok := byID[e.ContentID]
		switch {
		case ok:
			e.Available, e.Playable, e.Path = true, true, lt.Path
		case a.gl != nil:
			// Another device's track plays from there (or from the cache).
			if names == nil {
				names = a.deviceNames()
			}
			loc := a.gl.Locate(e.ContentID)
			p := Place{Holders: loc.Holders, Cached: loc.Cached, Playable: loc.Reachable()}
			e.Playable = p.Playable
			if len(p.Holders) > 0 || p.Cached {
				e.Where = where(p, a.tr.ID(), names)
			}
			if ge, found := a.gl.Entry(e.ContentID); found {
				lt, ok = ge.Track(), true
			}
		}
		if ok && e.Title == "" {
			e.Title, e.Artists, e.Album = lt.Title, lt.Artists, lt.Album
		}
		if ok && e.DurationMS == 0 {
			e.DurationMS = lt.Duration.Milliseconds()
		}
	}
	v.Tracks = len(v.Entries)
	for _, e := range v.Entries {
		v.DurationMS += e.DurationMS
	}
	return v, nil
}

func (a *App) recentlyAdded() ([]library.Track, error) {
	if rs, ok := a.catalog.(recentStore); ok {
		return rs.RecentlyAdded(SmartListLength)
	}
	ts, err := a.store.Tracks()
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(ts, func(x, y library.Track) int { return y.ModTime.Compare(x.ModTime) })
	return ts[:min(len(ts), SmartListLength)], nil
}

func trackRef(t library.Track) playlists.Track {
	return playlists.Track{ContentID: t.ContentID, Title: t.Title, Artists: t.Artists, Album: t.Album, DurationMS: t.Duration.Milliseconds()}
}

// refsLocked describes content ids for entries and likes: from this
// device's library, else from another device's catalog, else from the
// shared queue or what the group's playlists, likes and history say of
// them.
func (a *App) refsLocked(c *collection, ids []string) ([]playlists.Track, error) {
	st := a.Status()
	byID, err := a.store.TracksByContentIDs(ids)
	if err != nil {
		return nil, err
	}
	out := make([]playlists.Track, 0, len(ids))
	for _, id := range ids {
		if t, ok := byID[id]; ok {
			out = append(out, playlists.Track{ContentID: id, Title: t.Title, Artists: t.Artists, Album: t.Album, DurationMS: t.Duration.Milliseconds()})
			continue
		}
		if a.gl != nil {
			if e, ok := a.gl.Entry(id); ok { // another device of the group has it
				out = append(out, playlists.Track{ContentID: id, Title: e.Title, Artists: e.Artists, Album: e.Album, DurationMS: e.DurationMS})
				continue
			}
		}
		if t, ok := c.knownLocked(id, st.Queue); ok {
			out = append(out, t)
			continue
		}
		return nil, userErr(ErrNotInLibrary, "track %s is in no library of the group", id)
	}
	return out, nil
}

// knownLocked finds what the group knows of a track this device lacks.
func (c *collection) knownLocked(id string, queue []QueueItem) (playlists.Track, bool) {
	for _, it := range queue {
		if it.ContentID == id {
			return playlists.Track{ContentID: id, Title: it.Title, Artists: it.Artists, Album: it.Album, DurationMS: it.DurationMS}, true
		}
	}
	for _, l := range c.st.Liked() {
		if l.Track.ContentID == id {
			return l.Track, true
		}
	}
	if p := c.st.Plays(id); p.Plays > 0 {
		return p.Track, true
	}
	for _, s := range c.st.Playlists() {
		p, _ := c.st.Playlist(s.ID)
		for _, e := range p.Entries {
			if e.Track.ContentID == id {
				return e.Track, true
			}
		}
	}
	return playlists.Track{}, false
}

// edit plans and logs a change of the collection, then has the status
// published so every view learns of it.
func (a *App) edit(plan func(c *collection) ([]playlists.Edit, error)) error {
	c, err := a.coll()
	if err != nil {
		return err
	}
	c.mu.Lock()
	es, err := plan(c)
	if err == nil {
		_, err = c.appendLocked(es)
		c.publishLocked()
	}
	c.mu.Unlock()
	if err != nil {
		return planErr(err)
	}
	if len(es) > 0 {
		a.post(refreshIntent{})
	}
	return nil
}

func smartErr(id, what string) error {
	if id == ListLiked {
		return userErr(ErrSmartList, "Liked holds the tracks you like, newest first: %s", what)
	}
	return userErr(ErrSmartList, "%s is a smart list, made from what you play and add: it cannot be edited", smartNames[id])
}

// CreatePlaylist creates an empty playlist; its id is that of the op
// that created it.
func (a *App) CreatePlaylist(name string) (PlaylistSummary, error) {
	c, err := a.coll()
	if err != nil {
		return PlaylistSummary{}, err
	}
	c.mu.Lock()
	e, err := c.st.PlanCreate(name)
	var ops []devicesync.Op
	if err == nil {
		ops, err = c.appendLocked([]playlists.Edit{e})
	}
	var sum PlaylistSummary
	if err == nil {
		c.publishLocked()
		p, _ := c.st.Playlist(ops[0].ID)
		sum = PlaylistSummary{ID: p.ID, Name: p.Name, Kind: KindPlaylist}
	}
	c.mu.Unlock()
	if err != nil {
		return PlaylistSummary{}, planErr(err)
	}
	a.post(refreshIntent{})
	return sum, nil
}

// RenamePlaylist renames a playlist.
func (a *App) RenamePlaylist(id, name string) error {
	if _, smart := smartNames[id]; smart {
		return smartErr(id, "it cannot be renamed")
	}
	return a.edit(func(c *collection) ([]playlists.Edit, error) { return c.st.PlanRename(id, name) })
}

// DeletePlaylist deletes a playlist on every device of the group.
func (a *App) DeletePlaylist(id string) error {
	if _, smart := smartNames[id]; smart {
		return smartErr(id, "it cannot be deleted")
	}
	return a.edit(func(c *collection) ([]playlists.Edit, error) {
		e, err := c.st.PlanDelete(id)
		return []playlists.Edit{e}, err
	})
}

// AddToPlaylist inserts tracks (content ids) into a playlist so that the
// first lands at index at; -1 appends. Adding to Liked likes them.
func (a *App) AddToPlaylist(id string, contentIDs []string, at int) error {
	if len(contentIDs) == 0 {
		return userErr(ErrBadArgument, "no tracks to add")
	}
	if len(contentIDs) > playlists.MaxEntries {
		return userErr(ErrBadArgument, "at most %d tracks at once", playlists.MaxEntries)
	}
	switch id {
	case ListLiked:
		return a.edit(func(c *collection) ([]playlists.Edit, error) {
			refs, err := a.refsLocked(c, contentIDs)
			if err != nil {
				return nil, err
			}
			var es []playlists.Edit
			for _, t := range refs {
				e, err := c.st.PlanLike(t, true)
				if err != nil {
					return nil, err
				}
				es = append(es, e...)
			}
			return es, nil
		})
	case ListMostPlayed, ListRecentlyPlayed, ListRecentlyAdded:
		return smartErr(id, "")
	}
	return a.edit(func(c *collection) ([]playlists.Edit, error) {
		refs, err := a.refsLocked(c, contentIDs)
		if err != nil {
			return nil, err
		}
		return c.st.PlanAdd(id, at, refs)
	})
}

// RemoveFromPlaylist removes the tracks at indexes (from 0, as listed).
// Removing from Liked unlikes them.
func (a *App) RemoveFromPlaylist(id string, indexes []int) error {
	switch id {
	case ListLiked:
		return a.edit(func(c *collection) ([]playlists.Edit, error) {
			liked := c.st.Liked()
			var es []playlists.Edit
			for _, i := range indexes {
				if i < 0 || i >= len(liked) {
					return nil, userErr(ErrBadArgument, "there is no track %d in Liked: it has %d, numbered from 0", i, len(liked))
				}
			}
			for _, i := range indexes {
				e, err := c.st.PlanLike(liked[i].Track, false)
				if err != nil {
					return nil, err
				}
				es = append(es, e...)
			}
			return es, nil
		})
	case ListMostPlayed, ListRecentlyPlayed, ListRecentlyAdded:
		return smartErr(id, "")
	}
	return a.edit(func(c *collection) ([]playlists.Edit, error) { return c.st.PlanRemove(id, indexes) })
}

// MoveInPlaylist moves the track at index from so that it ends at index to.
func (a *App) MoveInPlaylist(id string, from, to int) error {
	if _, smart := smartNames[id]; smart {
		return smartErr(id, "it cannot be reordered")
	}
	return a.edit(func(c *collection) ([]playlists.Edit, error) { return c.st.PlanMove(id, from, to) })
}

// SetLiked likes or unlikes a track.
func (a *App) SetLiked(contentID string, liked bool) error {
	return a.edit(func(c *collection) ([]playlists.Edit, error) {
		refs, err := a.refsLocked(c, []string{contentID})
		if err != nil {
			return nil, err
		}
		return c.st.PlanLike(refs[0], liked)
	})
}

// LikedIDs returns the content ids of the liked tracks.
func (a *App) LikedIDs() (map[string]bool, error) {
	c, err := a.coll()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]bool{}
	for _, l := range c.st.Liked() {
		out[l.Track.ContentID] = true
	}
	return out, nil
}

// PlayStats is how often and when a track was played on the group's
// devices.
type PlayStats struct {
	Plays  uint64
	LastMS int64 // Unix milliseconds of the last play
}

// PlayCounts returns the play count and last play of every track played
// on any device of the group, by content id.
func (a *App) PlayCounts() (map[string]PlayStats, error) {
	c, err := a.coll()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.st.History()
	out := make(map[string]PlayStats, len(h))
	for _, p := range h {
		out[p.Track.ContentID] = PlayStats{Plays: p.Plays, LastMS: p.LastMS}
	}
	return out, nil
}

// History lists the played tracks, the most recently played first, with
// their play counts over the group; at most limit (0: all).
func (a *App) History(limit int) ([]PlaylistEntry, error) {
	v, err := a.Playlist(ListRecentlyPlayed)
	if err != nil {
		return nil, err
	}
	if limit > 0 && len(v.Entries) > limit {
		v.Entries = v.Entries[:limit]
	}
	return v.Entries, nil
}

// PlayPlaylist plays a list from the track at start, replacing the queue;
// with appendToQueue it adds the list to the queue instead. A list longer
// than the queue is played from start for MaxQueue tracks.
func (a *App) PlayPlaylist(id string, start int, appendToQueue bool) error {
	v, err := a.Playlist(id)
	if err != nil {
		return err
	}
	if len(v.Entries) == 0 {
		return userErr(ErrBadArgument, "%s is empty", quoteName(v.Name))
	}
	if start < 0 || start >= len(v.Entries) {
		return userErr(ErrBadArgument, "there is no track %d in %s: it has %d, numbered from 0", start, quoteName(v.Name), len(v.Entries))
	}
	es := make([]Entry, len(v.Entries))
	for i, e := range v.Entries {
		es[i] = e.Entry()
	}
	if appendToQueue {
		es = es[start:]
		if room := MaxQueue - a.Status().QueueLen; len(es) > room {
			return userErr(ErrBadArgument, "the queue has room for %d more tracks; %s has %d from there", max(room, 0), quoteName(v.Name), len(es))
		}
		return a.EnqueueEntries(es, false)
	}
	if len(es) > MaxQueue {
		lo := min(start, len(es)-MaxQueue)
		es, start = es[lo:lo+MaxQueue], start-lo
	}
	return a.PlayEntries(es, start)
}

func quoteName(name string) string { return fmt.Sprintf("“%s”", name) }
