package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/furudesk/furudesk/internal/strpack"
	"github.com/furudesk/furudesk/library"
)

// Limits on catalog input.
const (
	MaxTracksPerBatch  = 50000
	MaxTagBytes        = 4096
	MaxArtistsPerTrack = 64
)

// FileStamp is what an incremental rescan compares: an unchanged size and
// modification time means the file need not be read again.
type FileStamp struct {
	Size    int64
	ModTime time.Time
}

// Same reports whether the file still has this stamp.
func (f FileStamp) Same(size int64, mod time.Time) bool {
	return f.Size == size && f.ModTime.Equal(mod)
}

// RejectedFile is a file the scanner looked at and could not use (not
// audio, unreadable tags...). It is remembered so an unchanged file is not
// read again on every rescan.
type RejectedFile struct {
	Path    string
	Size    int64
	ModTime time.Time
	Reason  string
}

// ScanState is the progress of the last scan of one library folder.
type ScanState struct {
	Folder     string
	StartedAt  time.Time
	FinishedAt time.Time // zero while running or after a crash mid-scan
	Complete   bool
	Files      int
	Error      string
}

// Album is derived from tracks: the tracks sharing album title and album
// artist (or first artist when there is no album artist).
type Album struct {
	Title  string
	Artist string
	Year   int
	Tracks int
	// Cover is a cover reference ("embedded" or a path) and CoverTrack the
	// path of the track it belongs to; both empty when no track has one.
	Cover      string
	CoverTrack string
}

// Artist is derived from the tracks' artist lists.
type Artist struct {
	Name   string
	Tracks int
}

func checkText(what, v string) error {
	if len(v) > MaxTagBytes {
		return fmt.Errorf("%w: %s is %d bytes, want at most %d", ErrInvalid, what, len(v), MaxTagBytes)
	}
	return nil
}

func checkPath(p string) error {
	if p == "" || len(p) > MaxPathBytes {
		return fmt.Errorf("%w: path %q: want 1..%d bytes", ErrInvalid, p, MaxPathBytes)
	}
	return nil
}

func validateTrack(t library.Track) error {
	if err := checkPath(t.Path); err != nil {
		return err
	}
	if len(t.ContentID) > MaxContentIDBytes {
		return fmt.Errorf("%w: %s: content id of %d bytes", ErrInvalid, t.Path, len(t.ContentID))
	}
	if len(t.Artists) > MaxArtistsPerTrack {
		return fmt.Errorf("%w: %s: %d artists, want at most %d", ErrInvalid, t.Path, len(t.Artists), MaxArtistsPerTrack)
	}
	for _, f := range []struct{ what, v string }{
		{"format", t.Format}, {"title", t.Title}, {"album", t.Album}, {"album artist", t.AlbumArtist},
		{"genre", t.Genre}, {"cover", t.Cover}, {"artists", strings.Join(t.Artists, ", ")},
	} {
		if err := checkText(t.Path+": "+f.what, f.v); err != nil {
			return err
		}
	}
	return nil
}

// PutTracks inserts or updates tracks by path in one transaction and
// forgets any rejected-file entry for those paths. A track's row id (and
// so its search entry) survives updates.
//
// The transaction commits without waiting for the disk (synchronous=NORMAL
// in WAL mode: all or nothing still, and durable with the next flushed
// commit): tracks are read from the music files, and a power cut loses at
// most the last batches, which the next scan reads again. A scan commits
// hundreds of batches, and waiting for the disk each time cost it a third
// of its database time.
func (s *Store) PutTracks(tracks []library.Track) error {
	if len(tracks) > MaxTracksPerBatch {
		return fmt.Errorf("%w: %d tracks in one batch, want at most %d", ErrInvalid, len(tracks), MaxTracksPerBatch)
	}
	for _, t := range tracks {
		if err := validateTrack(t); err != nil {
			return err
		}
	}
	if len(tracks) == 0 {
		return nil
	}
	return s.writeNoSync(func(tx *sql.Tx) error {
		// What the batch replaces: the search index is rewritten for new
		// tracks and for those whose search text changed.
		paths := make([]string, len(tracks))
		for i, t := range tracks {
			paths[i] = t.Path
		}
		old, err := searchTextsOf(tx, paths)
		if err != nil {
			return fmt.Errorf("storage: put tracks: %w", err)
		}
		up, err := tx.Prepare(`INSERT INTO tracks (path, content_id, size, mtime_ns, format, title, artists, artists_text,
	album, album_artist, sort_artist, track_no, disc_no, year, genre, duration_ns, cover, search_text,
	rg_track_gain, rg_track_peak, rg_album_gain, rg_album_peak, added_at_ms)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (path) DO UPDATE SET content_id = excluded.content_id, size = excluded.size, mtime_ns = excluded.mtime_ns,
	format = excluded.format, title = excluded.title, artists = excluded.artists, artists_text = excluded.artists_text,
	album = excluded.album, album_artist = excluded.album_artist, sort_artist = excluded.sort_artist,
	track_no = excluded.track_no, disc_no = excluded.disc_no, year = excluded.year, genre = excluded.genre,
	duration_ns = excluded.duration_ns, cover = excluded.cover, search_text = excluded.search_text,
	rg_track_gain = excluded.rg_track_gain, rg_track_peak = excluded.rg_track_peak,
	rg_album_gain = excluded.rg_album_gain, rg_album_peak = excluded.rg_album_peak
RETURNING id`)
		if err != nil {
			return fmt.Errorf("storage: put tracks: %w", err)
		}
		defer up.Close()
		delArtists, err := tx.Prepare(`DELETE FROM track_artists WHERE track_id = ?`)
		if err != nil {
			return fmt.Errorf("storage: put tracks: %w", err)
		}
		defer delArtists.Close()
		addArtist, err := tx.Prepare(`INSERT INTO track_artists (track_id, position, name) VALUES (?, ?, ?)`)
		if err != nil {
			return fmt.Errorf("storage: put tracks: %w", err)
		}
		defer addArtist.Close()
		// A file that is a track now is no longer rejected: one statement
		// for the batch (a scan writes 100,000 tracks).
		pj, err := json.Marshal(paths)
		if err != nil {
			return fmt.Errorf("storage: put tracks: %w", err)
		}
		if _, err := tx.Exec(`DELETE FROM rejected_files WHERE path IN (SELECT value FROM json_each(?))`, string(pj)); err != nil {
			return fmt.Errorf("storage: put tracks: %w", err)
		}
		// added_at_ms is set here rather than by the tracks_added_at
		// trigger (which runs only for a zero), saving an update per track.
		now := time.Now().UnixMilli()
		var stale, index []int64
		added := make(map[string]bool, len(tracks))
		for _, t := range tracks {
			artists := t.Artists
			if artists == nil {
				artists = []string{}
			}
			aj, err := json.Marshal(artists)
			if err != nil {
				return fmt.Errorf("storage: put track %s: %w", t.Path, err)
			}
			var id int64
			text := library.SearchText(t)
			tg, tp, ag, ap := gainColumns(t.Gain)
			if err := up.QueryRow(t.Path, t.ContentID, t.Size, t.ModTime.UnixNano(), t.Format, t.Title, string(aj),
				strings.Join(t.Artists, ", "), t.Album, t.AlbumArtist, t.AlbumArtistOrFirst(), t.TrackNo, t.DiscNo, t.Year,
				t.Genre, int64(t.Duration), t.Cover, text, tg, tp, ag, ap, now).Scan(&id); err != nil {
				return fmt.Errorf("storage: put track %s: %w", t.Path, err)
			}
			o, known := old[t.Path]
			switch {
			case !known:
				index = append(index, id)
			case o.text != text:
				stale = append(stale, id)
				index = append(index, id)
				old[t.Path] = indexed{id: id, text: text}
			}
			// A new row has no artists yet (a deleted track's went with
			// it: ON DELETE CASCADE), unless its path came earlier in
			// the batch.
			if known || added[t.Path] {
				if _, err := delArtists.Exec(id); err != nil {
					return fmt.Errorf("storage: put track %s: %w", t.Path, err)
				}
			}
			added[t.Path] = true
			for i, a := range t.Artists {
				if _, err := addArtist.Exec(id, i, a); err != nil {
					return fmt.Errorf("storage: put track %s: %w", t.Path, err)
				}
			}
		}
		if err := unindex(tx, stale); err != nil {
			return fmt.Errorf("storage: put tracks: %w", err)
		}
		if err := reindex(tx, index); err != nil {
			return fmt.Errorf("storage: put tracks: %w", err)
		}
		return nil
	})
}

// indexed is a track's row id and the search text the index has for it.
type indexed struct {
	id   int64
	text string
}

// searchTextsOf returns the tracks at paths that exist, by path.
func searchTextsOf(tx *sql.Tx, paths []string) (map[string]indexed, error) {
	pj, err := json.Marshal(paths)
	if err != nil {
		return nil, err
	}
	rows, err := tx.Query(`SELECT path, id, search_text FROM tracks WHERE path IN (SELECT value FROM json_each(?))`, string(pj))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]indexed)
	for rows.Next() {
		var p string
		var x indexed
		if err := rows.Scan(&p, &x.id, &x.text); err != nil {
			return nil, err
		}
		out[p] = x
	}
	return out, rows.Err()
}

// reindex adds the tracks ids to the search index, in one statement: FTS5
// flushes its pending terms at every statement that writes it, so a row at
// a time would make one index segment per track.
func reindex(tx *sql.Tx, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	ij, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	_, err = tx.Exec(`INSERT INTO tracks_fts (rowid, search_text)
SELECT id, search_text FROM tracks WHERE id IN (SELECT value FROM json_each(?))`, string(ij))
	return err
}

// unindex removes the tracks ids from the search index, in one statement.
func unindex(tx *sql.Tx, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	ij, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	_, err = tx.Exec(`DELETE FROM tracks_fts WHERE rowid IN (SELECT value FROM json_each(?))`, string(ij))
	return err
}

// unindexWhere removes from the search index the tracks that where (a
// condition on tracks, with args) selects, before they are deleted.
func unindexWhere(tx *sql.Tx, where string, args ...any) error {
	_, err := tx.Exec(`DELETE FROM tracks_fts WHERE rowid IN (SELECT id FROM tracks WHERE `+where+`)`, args...)
	return err
}

// DeleteTracks forgets the files at paths (tracks and rejected files) in
// one transaction. Unknown paths are ignored.
func (s *Store) DeleteTracks(paths []string) error {
	if len(paths) > MaxTracksPerBatch {
		return fmt.Errorf("%w: %d paths in one batch, want at most %d", ErrInvalid, len(paths), MaxTracksPerBatch)
	}
	if len(paths) == 0 {
		return nil
	}
	return s.write(func(tx *sql.Tx) error {
		pj, err := json.Marshal(paths)
		if err != nil {
			return fmt.Errorf("storage: delete tracks: %w", err)
		}
		if err := unindexWhere(tx, `path IN (SELECT value FROM json_each(?))`, string(pj)); err != nil {
			return fmt.Errorf("storage: delete tracks: %w", err)
		}
		for _, q := range []string{`DELETE FROM tracks WHERE path = ?`, `DELETE FROM rejected_files WHERE path = ?`} {
			st, err := tx.Prepare(q)
			if err != nil {
				return fmt.Errorf("storage: delete tracks: %w", err)
			}
			for _, p := range paths {
				if _, err := st.Exec(p); err != nil {
					_ = st.Close()
					return fmt.Errorf("storage: delete track %s: %w", p, err)
				}
			}
			if err := st.Close(); err != nil {
				return fmt.Errorf("storage: delete tracks: %w", err)
			}
		}
		return nil
	})
}

// DeleteTracksUnder forgets every file under folder (a removed library
// folder) and returns how many tracks went.
func (s *Store) DeleteTracksUnder(folder string) (int64, error) {
	if err := checkPath(folder); err != nil {
		return 0, err
	}
	prefix := strings.TrimRight(folder, `/\`)
	var n int64
	err := s.write(func(tx *sql.Tx) error {
		// substr comparison, not LIKE: paths may hold % and _.
		const under = `path = ? OR ((substr(path, 1, length(?) + 1) = ? || '/') OR (substr(path, 1, length(?) + 1) = ? || '\'))`
		if err := unindexWhere(tx, under, prefix, prefix, prefix, prefix, prefix); err != nil {
			return fmt.Errorf("storage: delete tracks under %s: %w", folder, err)
		}
		res, err := tx.Exec(`DELETE FROM tracks WHERE `+under, prefix, prefix, prefix, prefix, prefix)
		if err != nil {
			return fmt.Errorf("storage: delete tracks under %s: %w", folder, err)
		}
		if n, err = res.RowsAffected(); err != nil {
			return fmt.Errorf("storage: delete tracks under %s: %w", folder, err)
		}
		if _, err := tx.Exec(`DELETE FROM rejected_files WHERE `+under, prefix, prefix, prefix, prefix, prefix); err != nil {
			return fmt.Errorf("storage: delete rejected files under %s: %w", folder, err)
		}
		return nil
	})
	return n, err
}

// MoveTrack renames a track's path (a file moved or renamed on disk),
// keeping its row, content id and search entry. A track already at newPath
// is replaced. ErrNotFound when nothing is at oldPath.
func (s *Store) MoveTrack(oldPath, newPath string) error {
	if err := checkPath(newPath); err != nil {
		return err
	}
	if oldPath == newPath {
		return nil
	}
	return s.write(func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRow(`SELECT id FROM tracks WHERE path = ?`, oldPath).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: track %s", ErrNotFound, oldPath)
		}
		if err != nil {
			return fmt.Errorf("storage: move track: %w", err)
		}
		if err := unindexWhere(tx, `path = ?`, newPath); err != nil {
			return fmt.Errorf("storage: move track: %w", err)
		}
		if _, err := tx.Exec(`DELETE FROM tracks WHERE path = ?`, newPath); err != nil {
			return fmt.Errorf("storage: move track: %w", err)
		}
		if _, err := tx.Exec(`DELETE FROM rejected_files WHERE path = ?`, newPath); err != nil {
			return fmt.Errorf("storage: move track: %w", err)
		}
		if _, err := tx.Exec(`UPDATE tracks SET path = ? WHERE id = ?`, newPath, id); err != nil {
			return fmt.Errorf("storage: move track: %w", err)
		}
		return nil
	})
}

const trackColumns = `t.path, t.content_id, t.size, t.mtime_ns, t.format, t.title, t.artists, t.album, t.album_artist,
	t.track_no, t.disc_no, t.year, t.genre, t.duration_ns, t.cover, t.rg_track_gain, t.rg_track_peak, t.rg_album_gain,
	t.rg_album_peak, t.added_at_ms`

// gainColumns are the ReplayGain columns of g: NULL where the tags do not
// say.
func gainColumns(g library.ReplayGain) (trackGain, trackPeak, albumGain, albumPeak sql.NullFloat64) {
	if g.HasTrack {
		trackGain = sql.NullFloat64{Float64: g.TrackGain, Valid: true}
		trackPeak = sql.NullFloat64{Float64: g.TrackPeak, Valid: g.TrackPeak > 0}
	}
	if g.HasAlbum {
		albumGain = sql.NullFloat64{Float64: g.AlbumGain, Valid: true}
		albumPeak = sql.NullFloat64{Float64: g.AlbumPeak, Valid: g.AlbumPeak > 0}
	}
	return
}

// gainOf reads the ReplayGain columns back.
func gainOf(trackGain, trackPeak, albumGain, albumPeak sql.NullFloat64) library.ReplayGain {
	return library.ReplayGain{
		TrackGain: trackGain.Float64, TrackPeak: trackPeak.Float64, HasTrack: trackGain.Valid,
		AlbumGain: albumGain.Float64, AlbumPeak: albumPeak.Float64, HasAlbum: albumGain.Valid,
	}
}

const trackOrder = `t.sort_artist COLLATE NOCASE, t.album COLLATE NOCASE, t.disc_no, t.track_no, t.title COLLATE NOCASE, t.path`

func (s *Store) queryTracks(query string, args ...any) ([]library.Track, error) {
	return s.queryTracksSized(0, query, args...)
}

// queryTracksSized is queryTracks into a slice made for n tracks.
func (s *Store) queryTracksSized(n int, query string, args ...any) ([]library.Track, error) {
	var out []library.Track // nil when nothing matches, as before
	if n > 0 {
		out = make([]library.Track, 0, n)
	}
	err := s.eachTrack(func(t library.Track) error {
		out = append(out, t)
		return nil
	}, query, args...)
	return out, err
}

// eachTrack calls fn with every track query selects (trackColumns), as
// the rows come; an error of fn stops it and is returned.
func (s *Store) eachTrack(fn func(library.Track) error, query string, args ...any) error {
	rows, err := s.db.Query(query, args...)
	if err != nil {
		return fmt.Errorf("storage: read tracks: %w", err)
	}
	defer rows.Close()
	// The same album, artist, format, genre and cover come back for many
	// tracks: one string each, not one per row (a large catalog read
	// whole held them hundreds of thousands of times), packed apart from
	// the read's garbage (the window keeps them for as long as it shows
	// the catalog; see strpack).
	var in strpack.Interner
	for rows.Next() {
		var t library.Track
		var mtime, dur int64
		var artists string
		var tg, tp, ag, ap sql.NullFloat64
		var added int64
		if err := rows.Scan(&t.Path, &t.ContentID, &t.Size, &mtime, &t.Format, &t.Title, &artists, &t.Album,
			&t.AlbumArtist, &t.TrackNo, &t.DiscNo, &t.Year, &t.Genre, &dur, &t.Cover, &tg, &tp, &ag, &ap, &added); err != nil {
			return fmt.Errorf("storage: read tracks: %w", err)
		}
		t.Gain = gainOf(tg, tp, ag, ap)
		t.ModTime = time.Unix(0, mtime)
		if added > 0 {
			t.Added = time.UnixMilli(added)
		}
		t.Duration = time.Duration(dur)
		if err := json.Unmarshal([]byte(artists), &t.Artists); err != nil {
			return fmt.Errorf("storage: read track %s artists: %w", t.Path, err)
		}
		if len(t.Artists) == 0 {
			t.Artists = nil
		}
		t.Format, t.Album, t.AlbumArtist, t.Genre, t.Cover = in.Get(t.Format), in.Get(t.Album), in.Get(t.AlbumArtist), in.Get(t.Genre), in.Get(t.Cover)
		for i, a := range t.Artists {
			t.Artists[i] = in.Get(a)
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("storage: read tracks: %w", err)
	}
	return nil
}

// EachTrack calls fn with the tracks of the catalog in its order (as
// Tracks sorts them), skipping the first offset and stopping after limit
// (limit < 0: no limit), one at a time as the database reads them: a
// client that streams the catalog never holds it whole. An error of fn
// stops it and is returned.
func (s *Store) EachTrack(offset, limit int, fn func(library.Track) error) error {
	return s.eachTrack(fn, `SELECT `+trackColumns+` FROM tracks AS t INDEXED BY tracks_order ORDER BY `+trackOrder+
		` LIMIT ? OFFSET ?`, limit, max(offset, 0))
}

// Tracks returns the whole catalog sorted by album artist (or first
// artist), album, disc, track number, title, case-insensitively.
func (s *Store) Tracks() ([]library.Track, error) {
	// Sized at once: growing a slice of 100,000 tracks by appends copied
	// it over and over, a sixth of the read.
	n, err := s.TrackCount()
	if err != nil {
		return nil, err
	}
	return s.queryTracksSized(n+n/64, `SELECT `+trackColumns+` FROM tracks AS t ORDER BY `+trackOrder)
}

// TrackCount is the number of tracks in the catalog.
func (s *Store) TrackCount() (int, error) {
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM tracks`).Scan(&n); err != nil {
		return 0, fmt.Errorf("storage: count tracks: %w", err)
	}
	return n, nil
}

// TrackByPath returns the track at path or ErrNotFound.
func (s *Store) TrackByPath(path string) (library.Track, error) {
	ts, err := s.queryTracks(`SELECT `+trackColumns+` FROM tracks AS t WHERE t.path = ?`, path)
	if err != nil {
		return library.Track{}, err
	}
	if len(ts) == 0 {
		return library.Track{}, fmt.Errorf("%w: track %s", ErrNotFound, path)
	}
	return ts[0], nil
}

// TrackByContentID returns a local track with content id id (the first by
// path when several copies exist), or ErrNotFound: the queue's items are
// content ids, this resolves them to playable files.
func (s *Store) TrackByContentID(id string) (library.Track, error) {
	ts, err := s.queryTracks(`SELECT `+trackColumns+` FROM tracks AS t WHERE t.content_id = ? ORDER BY t.path LIMIT 1`, id)
	if err != nil {
		return library.Track{}, err
	}
	if len(ts) == 0 {
		return library.Track{}, fmt.Errorf("%w: content id %s", ErrNotFound, id)
	}
	return ts[0], nil
}

// maxIDsPerQuery bounds the content ids one statement looks up.
const maxIDsPerQuery = 500

// TracksByContentIDs returns the local tracks with the content ids ids
// that exist, by content id (the first by path when several files hold
// the same audio): a playlist looks up its own tracks, not the catalog.
func (s *Store) TracksByContentIDs(ids []string) (map[string]library.Track, error) {
	out := make(map[string]library.Track, len(ids))
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), maxIDsPerQuery)]
		ids = ids[len(chunk):]
		ij, err := json.Marshal(chunk)
		if err != nil {
			return nil, err
		}
		ts, err := s.queryTracks(`SELECT `+trackColumns+` FROM tracks AS t
WHERE t.content_id IN (SELECT value FROM json_each(?)) ORDER BY t.path`, string(ij))
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if _, dup := out[t.ContentID]; !dup {
				out[t.ContentID] = t
			}
		}
	}
	return out, nil
}

// AlbumCoverTrack returns the track whose cover art stands for the album
// of artist (album artist, else first artist) and title, compared without
// regard to ASCII case as albums are grouped: the first with a picture
// file beside it (a folder's cover.jpg), else the first with a picture in
// its tags, by disc and track number. ErrNotFound when no track of the
// album has a cover.
func (s *Store) AlbumCoverTrack(artist, title string) (library.Track, error) {
	ts, err := s.queryTracks(`SELECT `+trackColumns+` FROM tracks AS t
WHERE t.sort_artist = ? COLLATE NOCASE AND t.album = ? COLLATE NOCASE AND t.cover != ''
ORDER BY t.cover = ?, t.disc_no, t.track_no, t.path LIMIT 1`, artist, title, library.CoverEmbedded)
	if err != nil {
		return library.Track{}, err
	}
	if len(ts) == 0 {
		return library.Track{}, fmt.Errorf("%w: cover of album %q by %q", ErrNotFound, title, artist)
	}
	return ts[0], nil
}

// Albums returns the albums derived from the tracks, sorted by artist then
// title. Tracks without an album title are not listed.
func (s *Store) Albums() ([]Album, error) {
	rows, err := s.db.Query(`SELECT min(album), min(sort_artist), max(year), count(*),
	coalesce(min(cover) FILTER (WHERE cover != ''), ''), coalesce(min(path) FILTER (WHERE cover != ''), '')
FROM tracks WHERE album != ''
GROUP BY sort_artist COLLATE NOCASE, album COLLATE NOCASE
ORDER BY sort_artist COLLATE NOCASE, album COLLATE NOCASE`)
	if err != nil {
		return nil, fmt.Errorf("storage: read albums: %w", err)
	}
	defer rows.Close()
	var out []Album
	for rows.Next() {
		var a Album
		if err := rows.Scan(&a.Title, &a.Artist, &a.Year, &a.Tracks, &a.Cover, &a.CoverTrack); err != nil {
			return nil, fmt.Errorf("storage: read albums: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read albums: %w", err)
	}
	return out, nil
}

// Artists returns every artist named by a track, with its track count,
// sorted case-insensitively.
func (s *Store) Artists() ([]Artist, error) {
	rows, err := s.db.Query(`SELECT min(name), count(DISTINCT track_id) FROM track_artists
GROUP BY name COLLATE NOCASE ORDER BY name COLLATE NOCASE`)
	if err != nil {
		return nil, fmt.Errorf("storage: read artists: %w", err)
	}
	defer rows.Close()
	var out []Artist
	for rows.Next() {
		var a Artist
		if err := rows.Scan(&a.Name, &a.Tracks); err != nil {
			return nil, fmt.Errorf("storage: read artists: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read artists: %w", err)
	}
	return out, nil
}

// FileStamps returns the size and modification time of every known file,
// tracks and rejected files alike, by path: what an incremental rescan
// compares against the disk.
func (s *Store) FileStamps() (map[string]FileStamp, error) {
	rows, err := s.db.Query(`SELECT path, size, mtime_ns FROM tracks UNION ALL SELECT path, size, mtime_ns FROM rejected_files`)
	if err != nil {
		return nil, fmt.Errorf("storage: read file stamps: %w", err)
	}
	defer rows.Close()
	out := make(map[string]FileStamp)
	for rows.Next() {
		var p string
		var size, mtime int64
		if err := rows.Scan(&p, &size, &mtime); err != nil {
			return nil, fmt.Errorf("storage: read file stamps: %w", err)
		}
		out[p] = FileStamp{Size: size, ModTime: time.Unix(0, mtime)}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read file stamps: %w", err)
	}
	return out, nil
}

// FileStates is what a rescan compares against the disk, by path: for
// tracks their size, modification time, content id and cover reference;
// for rejected files their size and modification time. It reads only
// those columns, not the whole catalog. Once ctx is done it gives up with
// ctx's error.
func (s *Store) FileStates(ctx context.Context) (map[string]library.FileState, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, size, mtime_ns, content_id, cover FROM tracks
UNION ALL SELECT path, size, mtime_ns, '', '' FROM rejected_files WHERE path NOT IN (SELECT path FROM tracks)`)
	if err != nil {
		return nil, fmt.Errorf("storage: read file states: %w", err)
	}
	defer rows.Close()
	out := make(map[string]library.FileState)
	for rows.Next() {
		var p string
		var st library.FileState
		var mtime int64
		if err := rows.Scan(&p, &st.Size, &mtime, &st.ContentID, &st.Cover); err != nil {
			return nil, fmt.Errorf("storage: read file states: %w", err)
		}
		st.ModTime = time.Unix(0, mtime)
		out[p] = st
		if len(out)%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read file states: %w", err)
	}
	return out, nil
}

// PutRejectedFiles remembers files the scanner could not use, replacing any
// track at the same paths, in one transaction.
func (s *Store) PutRejectedFiles(files []RejectedFile) error {
	if len(files) > MaxTracksPerBatch {
		return fmt.Errorf("%w: %d files in one batch, want at most %d", ErrInvalid, len(files), MaxTracksPerBatch)
	}
	for _, f := range files {
		if err := checkPath(f.Path); err != nil {
			return err
		}
		if err := checkText(f.Path+": reason", f.Reason); err != nil {
			return err
		}
	}
	if len(files) == 0 {
		return nil
	}
	return s.write(func(tx *sql.Tx) error {
		for _, f := range files {
			if err := unindexWhere(tx, `path = ?`, f.Path); err != nil {
				return fmt.Errorf("storage: reject %s: %w", f.Path, err)
			}
			if _, err := tx.Exec(`DELETE FROM tracks WHERE path = ?`, f.Path); err != nil {
				return fmt.Errorf("storage: reject %s: %w", f.Path, err)
			}
			if _, err := tx.Exec(`INSERT INTO rejected_files (path, size, mtime_ns, reason) VALUES (?, ?, ?, ?)
ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, reason = excluded.reason`,
				f.Path, f.Size, f.ModTime.UnixNano(), f.Reason); err != nil {
				return fmt.Errorf("storage: reject %s: %w", f.Path, err)
			}
		}
		return nil
	})
}

// SetScanState records the progress of a folder's scan. Call it with a zero
// FinishedAt when a scan starts and again when it ends, so a scan cut off by
// a crash is visible as incomplete.
func (s *Store) SetScanState(st ScanState) error {
	if err := checkPath(st.Folder); err != nil {
		return err
	}
	if err := checkText("scan error", st.Error); err != nil {
		return err
	}
	var finished int64
	if !st.FinishedAt.IsZero() {
		finished = st.FinishedAt.UnixMilli()
	}
	return s.write(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO scan_state (folder, started_at_ms, finished_at_ms, complete, files, error) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (folder) DO UPDATE SET started_at_ms = excluded.started_at_ms, finished_at_ms = excluded.finished_at_ms,
	complete = excluded.complete, files = excluded.files, error = excluded.error`,
			st.Folder, st.StartedAt.UnixMilli(), finished, st.Complete, st.Files, st.Error)
		if err != nil {
			return fmt.Errorf("storage: write scan state: %w", err)
		}
		return nil
	})
}

// ScanStates returns the scan state of every folder, by folder path.
func (s *Store) ScanStates() ([]ScanState, error) {
	rows, err := s.db.Query(`SELECT folder, started_at_ms, finished_at_ms, complete, files, error FROM scan_state ORDER BY folder`)
	if err != nil {
		return nil, fmt.Errorf("storage: read scan state: %w", err)
	}
	defer rows.Close()
	var out []ScanState
	for rows.Next() {
		var st ScanState
		var started, finished int64
		if err := rows.Scan(&st.Folder, &started, &finished, &st.Complete, &st.Files, &st.Error); err != nil {
			return nil, fmt.Errorf("storage: read scan state: %w", err)
		}
		st.StartedAt = time.UnixMilli(started)
		if finished != 0 {
			st.FinishedAt = time.UnixMilli(finished)
		}
		out = append(out, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read scan state: %w", err)
	}
	return out, nil
}
