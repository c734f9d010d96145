package playlists

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Errors of the Plan functions. Each comes as an *Error whose text is a
// sentence for the user naming the problem; test the kind with errors.Is.
var (
	ErrName     = errors.New("playlists: invalid name")
	ErrNotFound = errors.New("playlists: no such playlist")
	ErrIndex    = errors.New("playlists: index out of range")
	ErrLimit    = errors.New("playlists: limit reached")
	ErrTrack    = errors.New("playlists: invalid track")
)

// Error is a refused edit: Text says why, Err is one of the errors above.
type Error struct {
	Err  error
	Text string
}

func (e *Error) Error() string { return e.Text }
func (e *Error) Unwrap() error { return e.Err }

func errorf(kind error, format string, args ...any) error {
	return &Error{Err: kind, Text: fmt.Sprintf(format, args...)}
}

// CheckName returns name without surrounding spaces, or an error saying
// why it cannot name a playlist.
func CheckName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch n := utf8.RuneCountInString(name); {
	case !utf8.ValidString(name):
		return "", errorf(ErrName, "a playlist name must be valid text")
	case n == 0:
		return "", errorf(ErrName, "a playlist needs a name")
	case n > MaxNameRunes:
		return "", errorf(ErrName, "a playlist name has at most %d characters; this one has %d", MaxNameRunes, n)
	case !printable(name):
		return "", errorf(ErrName, "a playlist name cannot contain line breaks or other control characters")
	}
	return name, nil
}

// livePlaylist returns playlist id, or an error naming why it cannot be
// edited.
func (s *State) livePlaylist(id string) (*Playlist, error) {
	if p, ok := s.Playlist(id); ok {
		return p, nil
	}
	if s.Deleted(id) {
		return nil, errorf(ErrNotFound, "playlist %s was deleted", id)
	}
	return nil, errorf(ErrNotFound, "there is no playlist with id %s", id)
}

// PlanCreate returns the op creating a playlist named name. Its id will be
// the id of that op.
func (s *State) PlanCreate(name string) (Edit, error) {
	name, err := CheckName(name)
	if err != nil {
		return Edit{}, err
	}
	if s.live >= MaxPlaylists {
		return Edit{}, errorf(ErrLimit, "there are already %d playlists, the most a group keeps: delete some first", s.live)
	}
	return mustEdit(KindPlaylistCreated, createdBody{Name: name}), nil
}

// PlanRename returns the op renaming playlist id; none when the name is
// the same.
func (s *State) PlanRename(id, name string) ([]Edit, error) {
	name, err := CheckName(name)
	if err != nil {
		return nil, err
	}
	p, err := s.livePlaylist(id)
	if err != nil {
		return nil, err
	}
	if p.Name == name {
		return nil, nil
	}
	return []Edit{mustEdit(KindPlaylistRenamed, renamedBody{Playlist: id, Name: name})}, nil
}

// PlanDelete returns the op deleting playlist id.
func (s *State) PlanDelete(id string) (Edit, error) {
	if _, err := s.livePlaylist(id); err != nil {
		return Edit{}, err
	}
	return mustEdit(KindPlaylistDeleted, deletedBody{Playlist: id}), nil
}

// PlanAdd returns the ops inserting tracks into playlist id so that the
// first lands at index at (-1: at the end), in the order given.
func (s *State) PlanAdd(id string, at int, tracks []Track) ([]Edit, error) {
	p, err := s.livePlaylist(id)
	if err != nil {
		return nil, err
	}
	n := len(p.Entries)
	if at == -1 {
		at = n
	}
	switch {
	case len(tracks) == 0:
		return nil, errorf(ErrTrack, "no tracks to add")
	case at < 0 || at > n:
		return nil, errorf(ErrIndex, "position %d is out of range: “%s” has %s, so a position from 0 to %d", at, p.Name, tracksText(n), n)
	case n+len(tracks) > MaxEntries:
		return nil, errorf(ErrLimit, "“%s” has %s; %s more would pass the limit of %d tracks in a playlist", p.Name, tracksText(n), tracksText(len(tracks)), MaxEntries)
	}
	clean := make([]Track, len(tracks))
	for i, t := range tracks {
		clean[i] = cleanTrack(t)
		if !validTrack(clean[i]) {
			return nil, errorf(ErrTrack, "track %d of those to add has no valid content id (%q)", i+1, t.ContentID)
		}
	}
	keys, rekey, err := placeKeys(p.Entries, at, len(tracks))
	if err != nil {
		return nil, err
	}
	edits := moveEdits(id, rekey)
	var batch []addedEntry
	size := 0
	for i, t := range clean {
		e := addedEntry{Pos: keys[i], Track: t}
		b, _ := json.Marshal(e)
		if len(batch) > 0 && (len(batch) == MaxItemsPerOp || size+len(b) > MaxEditBytes) {
			edits = append(edits, mustEdit(KindTrackAdded, addedBody{Playlist: id, Entries: batch}))
			batch, size = nil, 0
		}
		batch = append(batch, e)
		size += len(b) + 1
	}
	return append(edits, mustEdit(KindTrackAdded, addedBody{Playlist: id, Entries: batch})), nil
}

// PlanRemove returns the ops removing the entries at indexes of playlist
// id.
func (s *State) PlanRemove(id string, indexes []int) ([]Edit, error) {
	p, err := s.livePlaylist(id)
	if err != nil {
		return nil, err
	}
	if len(indexes) == 0 {
		return nil, errorf(ErrIndex, "no track to remove was given")
	}
	var ids []string
	seen := map[int]bool{}
	for _, i := range indexes {
		if i < 0 || i >= len(p.Entries) {
			return nil, errorf(ErrIndex, "there is no track %d in “%s”: it has %s, numbered from 0 to %d", i, p.Name, tracksText(len(p.Entries)), len(p.Entries)-1)
		}
		if !seen[i] {
			seen[i] = true
			ids = append(ids, p.Entries[i].ID)
		}
	}
	var edits []Edit
	for len(ids) > 0 {
		k := min(len(ids), MaxItemsPerOp)
		edits = append(edits, mustEdit(KindTrackRemoved, removedBody{Playlist: id, Entries: ids[:k]}))
		ids = ids[k:]
	}
	return edits, nil
}

// PlanMove returns the ops moving the entry at index from of playlist id
// so that it ends up at index to; none when from == to.
func (s *State) PlanMove(id string, from, to int) ([]Edit, error) {
	p, err := s.livePlaylist(id)
	if err != nil {
		return nil, err
	}
	n := len(p.Entries)
	for _, i := range []int{from, to} {
		if i < 0 || i >= n {
			return nil, errorf(ErrIndex, "there is no track %d in “%s”: it has %s, numbered from 0 to %d", i, p.Name, tracksText(n), n-1)
		}
	}
	if from == to {
		return nil, nil
	}
	rest := slices.Delete(slices.Clone(p.Entries), from, from+1)
	keys, rekey, err := placeKeys(rest, to, 1)
	if err != nil {
		return nil, err
	}
	return moveEdits(id, append([]move{{Entry: p.Entries[from].ID, Pos: keys[0]}}, rekey...)), nil
}

// PlanLike returns the op liking or unliking t; none when it already is.
func (s *State) PlanLike(t Track, liked bool) ([]Edit, error) {
	t = cleanTrack(t)
	if !validTrack(t) {
		return nil, errorf(ErrTrack, "this track has no valid content id (%q)", t.ContentID)
	}
	if r := s.likes[t.ContentID]; (r != nil && r.liked == liked) || (r == nil && !liked) {
		return nil, nil
	}
	return []Edit{mustEdit(KindLikeSet, likeBody{Track: t, Liked: liked})}, nil
}

// PlanListen returns the op recording one more play of t by device origin
// (this device).
func (s *State) PlanListen(origin string, t Track) (Edit, error) {
	t = cleanTrack(t)
	if !validTrack(t) {
		return Edit{}, errorf(ErrTrack, "this track has no valid content id (%q)", t.ContentID)
	}
	return mustEdit(KindListenRecorded, listenBody{Track: t, Plays: s.OwnPlays(origin, t.ContentID) + 1}), nil
}

func moveEdits(id string, moves []move) []Edit {
	var edits []Edit
	for len(moves) > 0 {
		k := min(len(moves), MaxItemsPerOp)
		edits = append(edits, mustEdit(KindTrackMoved, movedBody{Playlist: id, Moves: moves[:k]}))
		moves = moves[k:]
	}
	return edits
}

// placeKeys returns n keys for new entries at index at of entries (in
// order), and the moves that make room: none usually; the entries sharing
// the key before the gap (concurrent inserts at one spot get equal keys)
// when there is no key between them; every entry when the keys ran out.
func placeKeys(entries []Entry, at, n int) ([]string, []move, error) {
	lo, hi := "", ""
	if at > 0 {
		lo = entries[at-1].Pos
	}
	j := at
	for j < len(entries) && lo != "" && entries[j].Pos <= lo {
		j++ // entries tied with lo: renumbered after the new ones
	}
	if j < len(entries) {
		hi = entries[j].Pos
	}
	keys, err := KeysBetween(lo, hi, n+j-at)
	if err == nil {
		var rekey []move
		for i, e := range entries[at:j] {
			rekey = append(rekey, move{Entry: e.ID, Pos: keys[n+i]})
		}
		return keys[:n], rekey, nil
	}
	if !errors.Is(err, errKeySpace) {
		return nil, nil, err
	}
	// No room left between these neighbours: renumber the whole playlist.
	all, err := KeysBetween("", "", len(entries)+n)
	if err != nil {
		return nil, nil, err
	}
	var rekey []move
	for i, e := range entries {
		k := all[i]
		if i >= at {
			k = all[i+n]
		}
		rekey = append(rekey, move{Entry: e.ID, Pos: k})
	}
	return all[at : at+n], rekey, nil
}

func tracksText(n int) string {
	if n == 1 {
		return "1 track"
	}
	return fmt.Sprintf("%d tracks", n)
}
