package library

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"
)

// FileState is what the index remembers about a file to decide whether a
// rescan must read it again.
type FileState struct {
	Size      int64
	ModTime   time.Time
	ContentID string
	Cover     string // Track.Cover, so a cover.jpg added later is noticed
}

// Unchanged reports whether a file with this size and modification time
// needs no new analysis.
func (s FileState) Unchanged(size int64, mod time.Time) bool {
	return s.Size == size && s.ModTime.Equal(mod)
}

// StateOf returns the FileState of an indexed track.
func StateOf(t Track) FileState {
	return FileState{Size: t.Size, ModTime: t.ModTime, ContentID: t.ContentID, Cover: t.Cover}
}

// Index is what the scanner and the watcher need from persistence. The app
// adapts storage to it; MemIndex is an in-memory implementation.
//
// Calls come from one goroutine at a time per Scan or Watcher, but a Scan and
// a Watcher may run concurrently, so implementations must be safe for
// concurrent use. Each method is a unit: Put and Delete either apply fully or
// return an error.
type Index interface {
	// Known returns the state of every indexed file, keyed by absolute
	// path. Once ctx is done it gives up with ctx's error (reading
	// 100,000 states takes a while; a quit must not wait for it).
	Known(ctx context.Context) (map[string]FileState, error)
	// Put inserts or replaces tracks, keyed by Track.Path.
	Put(tracks []Track) error
	// Delete removes the given paths; unknown paths are ignored.
	Delete(paths []string) error
	// Move re-keys the entry at oldPath to newPath, keeping its identity
	// (and anything the store attached to it). A missing oldPath is not an
	// error; the caller follows up with Put for newPath.
	Move(oldPath, newPath string) error
}

// MemIndex is an Index held in memory, with the reference search semantics
// (Normalize, QueryTerms, Matches). It is safe for concurrent use. The zero
// value is not usable: call NewMemIndex.
type MemIndex struct {
	mu     sync.RWMutex
	tracks map[string]*memEntry
	order  []*memEntry // catalog order, rebuilt lazily after a change
}

type memEntry struct {
	track  Track
	search string
	key    sortKey
}

// sortKey holds the normalized fields of the catalog order, computed once
// per Put so sorting a large result does not normalize repeatedly.
type sortKey struct{ artist, album, title string }

func keyOf(t Track) sortKey {
	return sortKey{Normalize(sortArtist(t)), Normalize(t.Album), Normalize(t.Title)}
}

func lessKeyed(a Track, ka sortKey, b Track, kb sortKey) bool {
	if ka.artist != kb.artist {
		return ka.artist < kb.artist
	}
	if ka.album != kb.album {
		return ka.album < kb.album
	}
	if a.DiscNo != b.DiscNo {
		return a.DiscNo < b.DiscNo
	}
	if a.TrackNo != b.TrackNo {
		return a.TrackNo < b.TrackNo
	}
	if ka.title != kb.title {
		return ka.title < kb.title
	}
	return a.Path < b.Path
}

// NewMemIndex returns an empty MemIndex.
func NewMemIndex() *MemIndex {
	return &MemIndex{tracks: make(map[string]*memEntry)}
}

var _ Index = (*MemIndex)(nil)

// Known implements Index.
func (m *MemIndex) Known(ctx context.Context) (map[string]FileState, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[string]FileState, len(m.tracks))
	for p, e := range m.tracks {
		out[p] = StateOf(e.track)
	}
	return out, nil
}

// Put implements Index.
func (m *MemIndex) Put(tracks []Track) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range tracks {
		m.tracks[t.Path] = &memEntry{track: t, search: SearchText(t), key: keyOf(t)}
	}
	m.order = nil
	return nil
}

// Delete implements Index.
func (m *MemIndex) Delete(paths []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range paths {
		delete(m.tracks, p)
	}
	m.order = nil
	return nil
}

// Move implements Index.
func (m *MemIndex) Move(oldPath, newPath string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.tracks[oldPath]
	if !ok {
		return nil
	}
	delete(m.tracks, oldPath)
	moved := *e
	moved.track.Path = newPath
	m.tracks[newPath] = &moved
	m.order = nil
	return nil
}

// Len returns the number of tracks.
func (m *MemIndex) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.tracks)
}

// Get returns the track at path.
func (m *MemIndex) Get(path string) (Track, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, ok := m.tracks[path]
	if !ok {
		return Track{}, false
	}
	return e.track, true
}

// sorted returns the entries in catalog order, rebuilding the cached order
// after a change. The caller must not hold m.mu.
func (m *MemIndex) sorted() []*memEntry {
	m.mu.RLock()
	order := m.order
	m.mu.RUnlock()
	if order != nil {
		return order
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.order == nil {
		order := make([]*memEntry, 0, len(m.tracks))
		for _, e := range m.tracks {
			order = append(order, e)
		}
		sort.Slice(order, func(i, j int) bool {
			return lessKeyed(order[i].track, order[i].key, order[j].track, order[j].key)
		})
		m.order = order
	}
	return m.order
}

// Tracks returns every track in catalog order (see Less).
func (m *MemIndex) Tracks() []Track {
	order := m.sorted()
	out := make([]Track, len(order))
	for i, e := range order {
		out[i] = e.track
	}
	return out
}

// Search returns at most limit tracks matching query (see QueryTerms and
// Matches): tracks whose search text starts with the query first, then the
// other matches, each group in catalog order. An empty query returns the
// first tracks in catalog order. limit <= 0 means no limit. One pass over
// the cached catalog order, no sorting per query.
func (m *MemIndex) Search(query string, limit int) []Track {
	terms := QueryTerms(query)
	whole := strings.Join(terms, " ")
	order := m.sorted()
	if limit <= 0 {
		limit = len(order)
	}
	var first, rest []Track
	for _, e := range order {
		if !Matches(e.search, terms) {
			continue
		}
		if whole != "" && strings.HasPrefix(e.search, whole) {
			if len(first) < limit {
				first = append(first, e.track)
			}
		} else if len(rest) < limit-len(first) {
			rest = append(rest, e.track)
		}
	}
	out := append(first, rest...)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Less is the catalog order: album artist (or first artist), album, disc,
// track number, title, path, all compared on normalized text.
func Less(a, b Track) bool {
	return lessKeyed(a, keyOf(a), b, keyOf(b))
}

func sortArtist(t Track) string {
	if t.AlbumArtist != "" {
		return t.AlbumArtist
	}
	if len(t.Artists) > 0 {
		return t.Artists[0]
	}
	return ""
}
