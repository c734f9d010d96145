package playlists

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// State is the merge of the ops applied so far: the group's playlists,
// likes and play counts. The zero value is not usable; call New.
type State struct {
	lists   map[string]*list
	likes   map[string]*likeReg
	listens map[string]map[string]*listenReg // content id → origin → register
	ops     map[string]opRef                 // ops applied and not forgotten
	live    int                              // live playlists
	version uint64
	ignored int
}

// opRef is what an applied op touched, for Obsolete.
type opRef struct {
	kind     string
	playlist string
	entries  []string // added, moved: entry ids
	track    string   // likes and listens: content id
	origin   string   // listens
}

type list struct {
	id      string
	created bool
	name    string
	nameAt  stamp
	deleted bool
	entries map[string]*entry
	live    int
	durMS   int64
	view    *Playlist // cached; nil after a change
}

func (l *list) isLive() bool { return l.created && !l.deleted }

type entry struct {
	track   Track
	trackBy string // the add op the track came from: the smallest id wins
	added   bool
	pos     string
	posAt   stamp
	removed bool
}

func (e *entry) isLive() bool { return e.added && !e.removed }

type likeReg struct {
	liked bool
	at    stamp
	track Track
}

type listenReg struct {
	plays uint64
	at    stamp
	track Track
}

// New returns an empty State.
func New() *State {
	return &State{lists: map[string]*list{}, likes: map[string]*likeReg{},
		listens: map[string]map[string]*listenReg{}, ops: map[string]opRef{}}
}

// Version changes whenever a view may have changed.
func (s *State) Version() uint64 { return s.version }

// Ignored counts ops of this package's kinds that were malformed or broke
// a limit and were ignored.
func (s *State) Ignored() int { return s.ignored }

// Apply merges ops. Ops already applied, ops of other kinds and malformed
// ops change nothing. It reports whether a view changed.
func (s *State) Apply(ops ...Op) bool {
	changed := false
	for _, o := range ops {
		if _, seen := s.ops[o.ID]; seen || !IsKind(o.Kind) {
			continue
		}
		ref, ch, ok := s.apply(o)
		if !ok {
			s.ignored++
			continue
		}
		s.ops[o.ID] = ref
		changed = changed || ch
	}
	if changed {
		s.version++
	}
	return changed
}

func (s *State) list(id string) *list {
	l := s.lists[id]
	if l == nil {
		l = &list{id: id, entries: map[string]*entry{}}
		s.lists[id] = l
	}
	return l
}

// setLive records a playlist turning live or not.
func (s *State) setLive(l *list, was bool) {
	switch now := l.isLive(); {
	case now && !was:
		s.live++
	case was && !now:
		s.live--
	}
}

func (s *State) apply(o Op) (opRef, bool, bool) {
	ref := opRef{kind: o.Kind}
	switch o.Kind {
	case KindPlaylistCreated:
		var b createdBody
		if !decode(o.Body, &b) || !validName(b.Name) || (b.ID != "" && !validID(b.ID)) || b.AtMS < 0 {
			return ref, false, false
		}
		id := cmp.Or(b.ID, o.ID)
		ref.playlist = id
		l := s.list(id)
		was := l.isLive()
		l.created = true
		s.setLive(l, was)
		named := l.setName(b.Name, stampOf(o, b.AtMS))
		return ref, named || l.isLive() != was, true
	case KindPlaylistRenamed:
		var b renamedBody
		if !decode(o.Body, &b) || !validName(b.Name) || !validID(b.Playlist) {
			return ref, false, false
		}
		ref.playlist = b.Playlist
		l := s.list(b.Playlist)
		return ref, l.setName(b.Name, stampOf(o, 0)) && l.isLive(), true
	case KindPlaylistDeleted:
		var b deletedBody
		if !decode(o.Body, &b) || !validID(b.Playlist) {
			return ref, false, false
		}
		ref.playlist = b.Playlist
		l := s.list(b.Playlist)
		if l.deleted {
			return ref, false, true
		}
		was := l.isLive()
		l.deleted = true
		l.entries, l.view, l.live, l.durMS = nil, nil, 0, 0 // nothing of it can matter again
		s.setLive(l, was)
		return ref, was, true
	case KindTrackAdded:
		var b addedBody
		if !decode(o.Body, &b) || !validID(b.Playlist) || len(b.Entries) == 0 || len(b.Entries) > MaxItemsPerOp {
			return ref, false, false
		}
		ids := make([]string, len(b.Entries))
		for i, e := range b.Entries {
			if !ValidKey(e.Pos) || !validTrack(e.Track) || e.AtMS < 0 || (e.ID != "" && !validID(e.ID)) {
				return ref, false, false
			}
			ids[i] = cmp.Or(e.ID, o.ID+"/"+strconv.Itoa(i))
		}
		if hasDuplicate(ids) {
			return ref, false, false
		}
		ref.playlist, ref.entries = b.Playlist, ids
		l := s.list(b.Playlist)
		if l.deleted {
			return ref, false, true
		}
		changed := false
		for i, e := range b.Entries {
			changed = l.add(ids[i], o.ID, e.Track, e.Pos, stampOf(o, e.AtMS)) || changed
		}
		return ref, changed && l.isLive(), true
	case KindTrackRemoved:
		var b removedBody
		if !decode(o.Body, &b) || !validID(b.Playlist) || len(b.Entries) == 0 || len(b.Entries) > MaxItemsPerOp {
			return ref, false, false
		}
		for _, id := range b.Entries {
			if !validID(id) {
				return ref, false, false
			}
		}
		ref.playlist = b.Playlist
		l := s.list(b.Playlist)
		if l.deleted {
			return ref, false, true
		}
		changed := false
		for _, id := range b.Entries {
			changed = l.remove(id) || changed
		}
		return ref, changed && l.isLive(), true
	case KindTrackMoved:
		var b movedBody
		if !decode(o.Body, &b) || !validID(b.Playlist) || len(b.Moves) == 0 || len(b.Moves) > MaxItemsPerOp {
			return ref, false, false
		}
		ids := make([]string, len(b.Moves))
		for i, m := range b.Moves {
			if !validID(m.Entry) || !ValidKey(m.Pos) {
				return ref, false, false
			}
			ids[i] = m.Entry
		}
		if hasDuplicate(ids) {
			return ref, false, false
		}
		ref.playlist, ref.entries = b.Playlist, ids
		l := s.list(b.Playlist)
		if l.deleted {
			return ref, false, true
		}
		changed := false
		st := stampOf(o, 0)
		for _, m := range b.Moves {
			changed = l.move(m.Entry, m.Pos, st) || changed
		}
		return ref, changed && l.isLive(), true
	case KindLikeSet:
		var b likeBody
		if !decode(o.Body, &b) || !validTrack(b.Track) || b.AtMS < 0 {
			return ref, false, false
		}
		ref.track = b.Track.ContentID
		st := stampOf(o, b.AtMS)
		r := s.likes[ref.track]
		if r != nil && !st.after(r.at) {
			return ref, false, true
		}
		// A winning op changes the view even with the same value: it
		// dates the like, which orders the Liked list.
		s.likes[ref.track] = &likeReg{liked: b.Liked, at: st, track: b.Track}
		return ref, true, true
	case KindListenRecorded:
		var b listenBody
		if !decode(o.Body, &b) || !validTrack(b.Track) || b.Plays == 0 || b.AtMS < 0 {
			return ref, false, false
		}
		ref.track, ref.origin = b.Track.ContentID, o.Origin
		byOrigin := s.listens[ref.track]
		if byOrigin == nil {
			byOrigin = map[string]*listenReg{}
			s.listens[ref.track] = byOrigin
		}
		st := stampOf(o, b.AtMS)
		r := byOrigin[o.Origin]
		if r != nil && (b.Plays < r.plays || (b.Plays == r.plays && !st.after(r.at))) {
			return ref, false, true
		}
		byOrigin[o.Origin] = &listenReg{plays: b.Plays, at: st, track: b.Track}
		return ref, true, true
	}
	return ref, false, false
}

func hasDuplicate(ids []string) bool {
	if len(ids) < 2 {
		return false
	}
	seen := make(map[string]struct{}, len(ids))
	for _, id := range ids {
		if _, ok := seen[id]; ok {
			return true
		}
		seen[id] = struct{}{}
	}
	return false
}

func sameTrack(a, b Track) bool {
	return a.ContentID == b.ContentID && a.Title == b.Title && a.Album == b.Album &&
		a.DurationMS == b.DurationMS && slices.Equal(a.Artists, b.Artists)
}

// setName offers a name dated st to the name register.
func (l *list) setName(name string, st stamp) bool {
	if l.nameAt.id != "" && !st.after(l.nameAt) {
		return false
	}
	changed := l.name != name
	l.name, l.nameAt = name, st
	if changed {
		l.view = nil
	}
	return changed
}

func (l *list) entry(id string) *entry {
	e := l.entries[id]
	if e == nil {
		e = &entry{}
		l.entries[id] = e
	}
	return e
}

// count adjusts the live count and duration around a change of e.
func (l *list) count(e *entry, wasLive bool, wasDur int64) {
	if wasLive {
		l.live--
		l.durMS -= wasDur
	}
	if e.isLive() {
		l.live++
		l.durMS += e.track.DurationMS
	}
}

func (l *list) add(id, opID string, t Track, pos string, st stamp) bool {
	e := l.entry(id)
	was, wasDur := e.isLive(), e.track.DurationMS
	changed := false
	if !e.added || opID < e.trackBy {
		changed = !e.added || !sameTrack(e.track, t)
		e.track, e.trackBy, e.added = t, opID, true
	}
	if e.posAt.id == "" || st.after(e.posAt) {
		changed = changed || e.pos != pos
		e.pos, e.posAt = pos, st
	}
	l.count(e, was, wasDur)
	if changed && e.isLive() {
		l.view = nil
	}
	return changed && e.isLive()
}

func (l *list) remove(id string) bool {
	e := l.entry(id)
	if e.removed {
		return false
	}
	was, wasDur := e.isLive(), e.track.DurationMS
	e.removed = true
	l.count(e, was, wasDur)
	if was {
		l.view = nil
	}
	return was
}

func (l *list) move(id, pos string, st stamp) bool {
	e := l.entry(id)
	if e.posAt.id != "" && !st.after(e.posAt) {
		return false
	}
	changed := e.pos != pos
	e.pos, e.posAt = pos, st
	if changed && e.isLive() {
		l.view = nil
		return true
	}
	return false
}

// Playlist is a playlist as shown: its entries in order. Values returned
// by State are shared and must not be modified.
type Playlist struct {
	ID         string
	Name       string
	Entries    []Entry
	DurationMS int64
}

// Entry is one entry of a playlist. The same track may be in a playlist
// several times, as different entries.
type Entry struct {
	ID    string
	Pos   string
	Track Track
}

// Summary describes a playlist without its entries.
type Summary struct {
	ID         string
	Name       string
	Entries    int
	DurationMS int64
}

// Live is the number of playlists (not deleted).
func (s *State) Live() int { return s.live }

// Playlists lists the playlists by name (case folded), then id.
func (s *State) Playlists() []Summary {
	out := make([]Summary, 0, s.live)
	for _, l := range s.lists {
		if l.isLive() {
			out = append(out, Summary{ID: l.id, Name: l.name, Entries: l.live, DurationMS: l.durMS})
		}
	}
	slices.SortFunc(out, func(a, b Summary) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// Playlist returns playlist id with its entries in order; false when there
// is no such playlist or it was deleted.
func (s *State) Playlist(id string) (*Playlist, bool) {
	l := s.lists[id]
	if l == nil || !l.isLive() {
		return nil, false
	}
	if l.view == nil {
		p := &Playlist{ID: l.id, Name: l.name, DurationMS: l.durMS, Entries: make([]Entry, 0, l.live)}
		for id, e := range l.entries {
			if e.isLive() {
				p.Entries = append(p.Entries, Entry{ID: id, Pos: e.pos, Track: e.track})
			}
		}
		slices.SortFunc(p.Entries, func(a, b Entry) int {
			return cmp.Or(strings.Compare(a.Pos, b.Pos), strings.Compare(a.ID, b.ID))
		})
		l.view = p
	}
	return l.view, true
}

// Deleted reports whether playlist id was deleted.
func (s *State) Deleted(id string) bool {
	l := s.lists[id]
	return l != nil && l.deleted
}

// Like is a liked track.
type Like struct {
	Track Track
	AtMS  int64 // when it was liked
}

// Liked lists the liked tracks, the most recently liked first.
func (s *State) Liked() []Like {
	var out []Like
	for _, r := range s.likes {
		if r.liked {
			out = append(out, Like{Track: r.track, AtMS: r.at.ms})
		}
	}
	slices.SortFunc(out, func(a, b Like) int {
		return cmp.Or(cmp.Compare(b.AtMS, a.AtMS), cmp.Compare(a.Track.ContentID, b.Track.ContentID))
	})
	return out
}

// IsLiked reports whether the track with content id cid is liked.
func (s *State) IsLiked(cid string) bool {
	r := s.likes[cid]
	return r != nil && r.liked
}

// Played is a track's listening history over the group.
type Played struct {
	Track  Track
	Plays  uint64
	LastMS int64 // when it was last played, Unix milliseconds
}

// History lists every played track, the most recently played first.
func (s *State) History() []Played {
	out := make([]Played, 0, len(s.listens))
	for cid := range s.listens {
		if p, ok := s.played(cid); ok {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b Played) int {
		return cmp.Or(cmp.Compare(b.LastMS, a.LastMS), cmp.Compare(a.Track.ContentID, b.Track.ContentID))
	})
	return out
}

// Plays returns the play count and last play of a track.
func (s *State) Plays(cid string) Played {
	p, _ := s.played(cid)
	return p
}

func (s *State) played(cid string) (Played, bool) {
	byOrigin := s.listens[cid]
	if len(byOrigin) == 0 {
		return Played{Track: Track{ContentID: cid}}, false
	}
	var p Played
	var newest stamp
	for _, r := range byOrigin {
		p.Plays += r.plays
		if newest.id == "" || r.at.after(newest) {
			newest, p.Track = r.at, r.track
		}
	}
	p.LastMS = newest.ms
	return p, true
}

// OwnPlays is the play count device origin recorded for a track.
func (s *State) OwnPlays(origin, cid string) uint64 {
	if r := s.listens[cid][origin]; r != nil {
		return r.plays
	}
	return 0
}
