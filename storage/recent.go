package storage

import "github.com/furudesk/furudesk/library"

// MaxRecentlyAdded bounds RecentlyAdded.
const MaxRecentlyAdded = 10_000

// RecentlyAdded returns the tracks that entered the catalog most recently,
// newest first, at most limit (capped at MaxRecentlyAdded). A rescanned or
// moved file keeps the date it was first added.
func (s *Store) RecentlyAdded(limit int) ([]library.Track, error) {
	if limit <= 0 || limit > MaxRecentlyAdded {
		limit = MaxRecentlyAdded
	}
	return s.queryTracks(`SELECT `+trackColumns+` FROM tracks t ORDER BY t.added_at_ms DESC, t.id DESC LIMIT ?`, limit)
}
