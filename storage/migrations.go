package storage

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/furudesk/furudesk/library"
)

// migration is one schema step. Versions are the 1-based index in
// migrations; a released migration is never edited, only followed by a new
// one.
type migration struct {
	name string
	up   string
	// fill, when set, runs after up in the same transaction: data that only
	// Go can compute (such as normalized search text).
	fill func(tx *sql.Tx) error
}

// migrations is the ordered schema history; SchemaVersion is its length.
var migrations = []migration{
	{name: "core: identity, settings, checkpoints, queue", up: `
CREATE TABLE identity (
	id            INTEGER PRIMARY KEY CHECK (id = 1),
	private_key   BLOB    NOT NULL,
	device_id     TEXT    NOT NULL,
	group_id      TEXT    NOT NULL,
	device_name   TEXT    NOT NULL,
	created_at_ms INTEGER NOT NULL
);
CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE library_folders (
	path     TEXT PRIMARY KEY,
	position INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE checkpoints (
	group_id           TEXT PRIMARY KEY,
	device_id          TEXT    NOT NULL,
	claim_counter      INTEGER NOT NULL,
	claim_issuer       TEXT    NOT NULL,
	claim_owner        TEXT    NOT NULL,
	heartbeat_reserved INTEGER NOT NULL,
	command_reserved   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE transport (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	idx         INTEGER NOT NULL,
	position_ms INTEGER NOT NULL,
	playing     INTEGER NOT NULL,
	volume      INTEGER NOT NULL CHECK (volume BETWEEN 0 AND 100),
	shuffle     INTEGER NOT NULL,
	repeat      TEXT    NOT NULL CHECK (repeat IN ('off', 'all', 'one'))
);
CREATE TABLE queue_items (
	position   INTEGER PRIMARY KEY,
	content_id TEXT NOT NULL,
	meta       TEXT NOT NULL
);
`},
	{name: "library: tracks, artists, rejected files, scan state, search", up: `
CREATE TABLE tracks (
	id           INTEGER PRIMARY KEY,
	path         TEXT    NOT NULL UNIQUE,
	content_id   TEXT    NOT NULL,
	size         INTEGER NOT NULL,
	mtime_ns     INTEGER NOT NULL,
	format       TEXT    NOT NULL,
	title        TEXT    NOT NULL,
	artists      TEXT    NOT NULL,
	artists_text TEXT    NOT NULL,
	album        TEXT    NOT NULL,
	album_artist TEXT    NOT NULL,
	sort_artist  TEXT    NOT NULL,
	track_no     INTEGER NOT NULL,
	disc_no      INTEGER NOT NULL,
	year         INTEGER NOT NULL,
	genre        TEXT    NOT NULL,
	duration_ns  INTEGER NOT NULL,
	cover        TEXT    NOT NULL
);
CREATE INDEX tracks_content_id ON tracks (content_id);
CREATE INDEX tracks_order ON tracks (sort_artist COLLATE NOCASE, album COLLATE NOCASE, disc_no, track_no, title COLLATE NOCASE, path);
CREATE TABLE track_artists (
	track_id INTEGER NOT NULL REFERENCES tracks (id) ON DELETE CASCADE,
	position INTEGER NOT NULL,
	name     TEXT    NOT NULL,
	PRIMARY KEY (track_id, position)
) WITHOUT ROWID;
CREATE INDEX track_artists_name ON track_artists (name COLLATE NOCASE);
CREATE TABLE rejected_files (
	path     TEXT PRIMARY KEY,
	size     INTEGER NOT NULL,
	mtime_ns INTEGER NOT NULL,
	reason   TEXT    NOT NULL
) WITHOUT ROWID;
CREATE TABLE scan_state (
	folder         TEXT PRIMARY KEY,
	started_at_ms  INTEGER NOT NULL,
	finished_at_ms INTEGER NOT NULL,
	complete       INTEGER NOT NULL,
	files          INTEGER NOT NULL,
	error          TEXT    NOT NULL
) WITHOUT ROWID;
CREATE VIRTUAL TABLE tracks_fts USING fts5 (
	title, artists, album,
	content = '', contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2',
	prefix = '1 2 3'
);
CREATE TRIGGER tracks_fts_insert AFTER INSERT ON tracks BEGIN
	INSERT INTO tracks_fts (rowid, title, artists, album)
	VALUES (new.id, new.title, new.artists_text || ' ' || new.album_artist, new.album);
END;
CREATE TRIGGER tracks_fts_delete AFTER DELETE ON tracks BEGIN
	DELETE FROM tracks_fts WHERE rowid = old.id;
END;
CREATE TRIGGER tracks_fts_update AFTER UPDATE OF title, artists_text, album_artist, album ON tracks BEGIN
	DELETE FROM tracks_fts WHERE rowid = old.id;
	INSERT INTO tracks_fts (rowid, title, artists, album)
	VALUES (new.id, new.title, new.artists_text || ' ' || new.album_artist, new.album);
END;
`},
	{name: "group: trusted devices, operation log, pairing", up: `
CREATE TABLE devices (
	device_id          TEXT PRIMARY KEY,
	name               TEXT    NOT NULL,
	public_key         BLOB    NOT NULL,
	addresses          TEXT    NOT NULL,
	trusted            INTEGER NOT NULL,
	revoked            INTEGER NOT NULL,
	revoked_cutoff_seq INTEGER NOT NULL,
	updated_hlc_ms     INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE op_log (
	id     TEXT PRIMARY KEY,
	origin TEXT    NOT NULL,
	seq    INTEGER NOT NULL,
	hlc_ms INTEGER NOT NULL,
	kind   TEXT    NOT NULL,
	body   TEXT    NOT NULL,
	UNIQUE (origin, seq)
);
CREATE INDEX op_log_kind_hlc ON op_log (kind, hlc_ms);
CREATE TABLE pair_invites (
	id            TEXT PRIMARY KEY,
	secret_hash   BLOB    NOT NULL,
	created_at_ms INTEGER NOT NULL,
	expires_at_ms INTEGER NOT NULL,
	used          INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE pair_requests (
	device_id      TEXT PRIMARY KEY,
	name           TEXT    NOT NULL,
	public_key     BLOB    NOT NULL,
	addresses      TEXT    NOT NULL,
	group_id       TEXT    NOT NULL,
	invite_id      TEXT    NOT NULL,
	received_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
`},
	// The operation log has no group column: it always belongs to one group,
	// recorded here and changed only together with emptying the log
	// (ResetGroup). A log written before this table existed is adopted for
	// the identity's group, which is what it was kept for.
	{name: "group: the group the operation log belongs to", up: `
CREATE TABLE op_log_group (
	id       INTEGER PRIMARY KEY CHECK (id = 1),
	group_id TEXT NOT NULL
);
INSERT INTO op_log_group (id, group_id)
SELECT 1, group_id FROM identity WHERE id = 1 AND EXISTS (SELECT 1 FROM op_log);
`},
	// Search indexes library.SearchText, the same normalization the GUI
	// searches with (æ → ae, ß → ss, ø → o and accents dropped), instead of
	// the tokenizer's own diacritic folding, which left æ, ø, ß unfolded.
	// SQL cannot compute it, so PutTracks stores it in tracks.search_text
	// and the migration fills it for the tracks already there.
	{name: "library: search by normalized search text", up: `
DROP TRIGGER tracks_fts_insert;
DROP TRIGGER tracks_fts_delete;
DROP TRIGGER tracks_fts_update;
DROP TABLE tracks_fts;
ALTER TABLE tracks ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
CREATE VIRTUAL TABLE tracks_fts USING fts5 (
	search_text,
	content = '', contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2',
	prefix = '1 2 3'
);
CREATE TRIGGER tracks_fts_insert AFTER INSERT ON tracks BEGIN
	INSERT INTO tracks_fts (rowid, search_text) VALUES (new.id, new.search_text);
END;
CREATE TRIGGER tracks_fts_delete AFTER DELETE ON tracks BEGIN
	DELETE FROM tracks_fts WHERE rowid = old.id;
END;
CREATE TRIGGER tracks_fts_update AFTER UPDATE OF search_text ON tracks BEGIN
	DELETE FROM tracks_fts WHERE rowid = old.id;
	INSERT INTO tracks_fts (rowid, search_text) VALUES (new.id, new.search_text);
END;
`, fill: fillSearchText},
	// The shuffled play order used to travel inside each queue item's
	// metadata; it gets its own columns. shuffle_seed holds the uint64 bit
	// for bit; shuffle_order is a JSON array of queue indexes.
	{name: "queue: shuffle seed and order in the transport", up: `
ALTER TABLE transport ADD COLUMN shuffle_seed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE transport ADD COLUMN shuffle_order TEXT NOT NULL DEFAULT '[]';
`},
	// "Recently added" lists tracks by when they entered the catalog. A
	// trigger dates each new row, so PutTracks is unchanged and a rescan
	// (an update of the row) or a move keeps the date; tracks already
	// there are dated by their file's modification time, the best guess.
	{name: "library: when each track was added", up: `
ALTER TABLE tracks ADD COLUMN added_at_ms INTEGER NOT NULL DEFAULT 0;
UPDATE tracks SET added_at_ms = mtime_ns / 1000000;
CREATE TRIGGER tracks_added_at AFTER INSERT ON tracks WHEN new.added_at_ms = 0 BEGIN
	UPDATE tracks SET added_at_ms = CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
	WHERE id = new.id;
END;
CREATE INDEX tracks_added ON tracks (added_at_ms);
`},
	// ReplayGain of each track from its tags (NULL: the tags do not say).
	// Tracks indexed before have no gains read: their stamps are cleared so
	// the next scan reads every file once more.
	{name: "library: ReplayGain track and album gains and peaks", up: `
ALTER TABLE tracks ADD COLUMN rg_track_gain REAL;
ALTER TABLE tracks ADD COLUMN rg_track_peak REAL;
ALTER TABLE tracks ADD COLUMN rg_album_gain REAL;
ALTER TABLE tracks ADD COLUMN rg_album_peak REAL;
UPDATE tracks SET mtime_ns = 0;
`},
	// Every op is signed by its origin (devicesync). Ops stored before
	// have no signature: devicesync does not trust such a history and
	// leaves the group it describes (see devicesync's loadGroupLocked).
	{name: "op log: signatures", up: `
ALTER TABLE op_log ADD COLUMN sig BLOB NOT NULL DEFAULT x'';
`},
	// The group library (package grouplib): the catalog of each device of
	// the group as this device holds it, its own included: the items with
	// the version each changed at (the entry as JSON), and the removals
	// remembered for deltas. Removing a device's catalog is deleting its
	// rows.
	{name: "group library: catalogs of the group's devices", up: `
CREATE TABLE group_catalogs (
	origin  TEXT PRIMARY KEY,
	version INTEGER NOT NULL,
	floor   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE group_catalog_items (
	origin     TEXT    NOT NULL,
	content_id TEXT    NOT NULL,
	ver        INTEGER NOT NULL,
	entry      TEXT    NOT NULL,
	PRIMARY KEY (origin, content_id)
) WITHOUT ROWID;
CREATE TABLE group_catalog_gone (
	origin     TEXT    NOT NULL,
	content_id TEXT    NOT NULL,
	ver        INTEGER NOT NULL,
	PRIMARY KEY (origin, content_id)
) WITHOUT ROWID;
`},
	// The search index is kept by the statements that change tracks, one
	// statement per batch, instead of by triggers: a trigger writes the
	// index one row at a time, and FTS5 flushes its pending terms to disk
	// at every statement that writes it, so a scan's batch of 256 new
	// tracks made 256 tiny index segments to merge (most of a cold scan's
	// database time).
	{name: "library: search index kept by batch, not by triggers", up: `
DROP TRIGGER tracks_fts_insert;
DROP TRIGGER tracks_fts_delete;
DROP TRIGGER tracks_fts_update;
`},
	// A peer asks for what changed in a catalog since a version: the
	// items dated after it, found by date instead of by reading the
	// whole catalog.
	{name: "group library: catalog items by version", up: `
CREATE INDEX group_catalog_items_ver ON group_catalog_items (origin, ver);
`},
	// The owner marks the controls its transport contains (queue rule
	// C7), saved with the effect they describe, so a control sent again
	// after a restart is not applied twice: a JSON object, '' for none.
	{name: "queue: the controls the transport contains", up: `
ALTER TABLE transport ADD COLUMN applied TEXT NOT NULL DEFAULT '';
`},
}

// fillSearchText computes tracks.search_text for every track; the update
// trigger indexes it.
func fillSearchText(tx *sql.Tx) error {
	type row struct {
		id   int64
		text string
	}
	rows, err := tx.Query(`SELECT id, title, artists, album, album_artist FROM tracks`)
	if err != nil {
		return err
	}
	var todo []row
	for rows.Next() {
		var id int64
		var t library.Track
		var artists string
		if err := rows.Scan(&id, &t.Title, &artists, &t.Album, &t.AlbumArtist); err != nil {
			_ = rows.Close()
			return err
		}
		if err := json.Unmarshal([]byte(artists), &t.Artists); err != nil {
			_ = rows.Close()
			return fmt.Errorf("track %d artists: %w", id, err)
		}
		todo = append(todo, row{id, library.SearchText(t)})
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	up, err := tx.Prepare(`UPDATE tracks SET search_text = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	defer up.Close()
	for _, r := range todo {
		if _, err := up.Exec(r.text, r.id); err != nil {
			return err
		}
	}
	return nil
}

// SchemaVersion is the newest schema version this build knows.
func SchemaVersion() int { return len(migrations) }

// schemaVersion reads the highest applied migration; 0 for an empty
// database. A database with tables but without schema_migrations is not
// furudesk's and is an error.
func schemaVersion(db *sql.DB) (int, error) {
	var tables, hasMigrations int
	err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE name = 'schema_migrations') FROM sqlite_master WHERE type = 'table'`).Scan(&tables, &hasMigrations)
	if err != nil {
		return 0, err
	}
	if hasMigrations == 0 {
		if tables > 0 {
			return 0, fmt.Errorf("not a furudesk database: %d tables but no schema_migrations", tables)
		}
		return 0, nil
	}
	var v sql.NullInt64
	if err := db.QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, err
	}
	return int(v.Int64), nil
}

// migrate applies migrations up to version target, each in its own
// transaction together with its schema_migrations row.
func migrate(db *sql.DB, target int) error {
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
	version       INTEGER PRIMARY KEY,
	name          TEXT    NOT NULL,
	applied_at_ms INTEGER NOT NULL
)`); err != nil {
		return err
	}
	current, err := schemaVersion(db)
	if err != nil {
		return err
	}
	if current > len(migrations) {
		return fmt.Errorf("%w: schema version %d, known up to %d", ErrTooNew, current, len(migrations))
	}
	for v := current + 1; v <= target; v++ {
		m := migrations[v-1]
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(m.up); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migration %d (%s): %w", v, m.name, err)
		}
		if m.fill != nil {
			if err := m.fill(tx); err != nil {
				_ = tx.Rollback()
				return fmt.Errorf("migration %d (%s): %w", v, m.name, err)
			}
		}
		if _, err := tx.Exec(`INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)`,
			v, m.name, time.Now().UnixMilli()); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migration %d (%s): %w", v, m.name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d (%s): %w", v, m.name, err)
		}
	}
	return nil
}
