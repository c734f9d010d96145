package storage

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/furudesk/furudesk/library"
)

// TestMigrationsFromEveryVersion builds a database at each earlier schema
// version by applying the first k migrations, opens it, and requires the
// same schema as a fresh database, with data written at version k kept.
func TestMigrationsFromEveryVersion(t *testing.T) {
	fresh, _ := openTemp(t)
	want := schema(t, fresh.db)
	for k := 0; k <= SchemaVersion(); k++ {
		dir := t.TempDir()
		db, err := sql.Open("sqlite", filepath.Join(dir, DBFileName)+"?"+dsnParams)
		if err != nil {
			t.Fatal(err)
		}
		if err := migrate(db, k); err != nil {
			t.Fatalf("migrate to %d: %v", k, err)
		}
		if k >= 1 {
			if _, err := db.Exec(`INSERT INTO settings (key, value) VALUES ('theme', 'dark')`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`INSERT INTO identity (id, private_key, device_id, group_id, device_name, created_at_ms) VALUES (1, ?, 'dev_self', 'grp_old', 'Laptop', 1)`,
				[]byte(testKey(1))); err != nil {
				t.Fatal(err)
			}
		}
		// A track written by a build before migration 5 (which computes
		// search_text in Go).
		if k >= 2 && k < 5 {
			if _, err := db.Exec(`INSERT INTO tracks (path, content_id, size, mtime_ns, format, title, artists, artists_text,
	album, album_artist, sort_artist, track_no, disc_no, year, genre, duration_ns, cover)
VALUES ('/m/1.flac', 'b3:1', 1, 1, 'flac', 'Svefn-g-englar', '["Sigur Rós"]', 'Sigur Rós', 'Ágætis byrjun', '', 'Sigur Rós', 1, 1, 1999, '', 1, '')`); err != nil {
				t.Fatal(err)
			}
		}
		// A transport written before migration 6 gave the shuffle seed
		// and order their own columns.
		if k >= 1 && k < 6 {
			if _, err := db.Exec(`INSERT INTO transport (id, idx, position_ms, playing, volume, shuffle, repeat) VALUES (1, 0, 4200, 0, 40, 1, 'all')`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`INSERT INTO queue_items (position, content_id, meta) VALUES (0, 'b3:1', '{}')`); err != nil {
				t.Fatal(err)
			}
		}
		if k >= 3 {
			if _, err := db.Exec(`INSERT INTO op_log (id, origin, seq, hlc_ms, kind, body) VALUES ('dev_a:1', 'dev_a', 1, 5, 'device_trusted', '{}')`); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir)
		if err != nil {
			t.Fatalf("open at version %d: %v", k, err)
		}
		if got := schema(t, s.db); got != want {
			t.Errorf("schema migrated from version %d differs from fresh:\n%s\nwant:\n%s", k, got, want)
		}
		v, err := schemaVersion(s.db)
		if err != nil || v != SchemaVersion() {
			t.Errorf("from %d: version %d, %v; want %d", k, v, err, SchemaVersion())
		}
		var n int
		if err := s.db.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != SchemaVersion() {
			t.Errorf("from %d: %d schema_migrations rows, %v", k, n, err)
		}
		if k >= 1 {
			if v, ok, err := s.Setting("theme"); err != nil || !ok || v != "dark" {
				t.Errorf("from %d: data written before the migration lost: %q %v %v", k, v, ok, err)
			}
		}
		// Migration 5 indexes the tracks already there by their normalized
		// search text.
		if k >= 2 && k < 5 {
			for _, q := range []string{"agaetis", "sigur ros", "ros", "svefn"} {
				if res, err := s.Search(q, 10); err != nil || len(res) != 1 {
					t.Errorf("from %d: Search(%q) = %v, %v; want the track written before the migration", k, q, res, err)
				}
			}
		}
		// Migration 6 keeps the transport and gives it no seed and no
		// order: the caller derives a new order.
		if k >= 1 && k < 6 {
			q, err := s.Queue()
			want := Transport{PositionMS: 4200, Volume: 40, Shuffle: true, Repeat: RepeatAll}
			if err != nil || !q.Transport.Equal(want) || len(q.Items) != 1 {
				t.Errorf("from %d: queue %+v, %v; want transport %+v and the item", k, q, err, want)
			}
		}
		// Migration 7 adds the ReplayGain columns and makes the next scan
		// read the tracks already there again, for their gains.
		if k >= 2 && k < 5 {
			stamps, err := s.FileStamps()
			tr, terr := s.TrackByPath("/m/1.flac")
			if err != nil || terr != nil || stamps["/m/1.flac"].Same(1, time.Unix(0, 1)) || tr.Gain != (library.ReplayGain{}) {
				t.Errorf("from %d: stamp %+v (%v), gain %+v (%v); want the stamp cleared and no gain", k, stamps["/m/1.flac"], err, tr.Gain, terr)
			}
		}
		// Migration 4 adopts an op log written before the log had a group
		// for the identity's group; a log that never had ops has no group.
		g, ops, err := s.GroupLog()
		switch {
		case err != nil:
			t.Errorf("from %d: GroupLog: %v", k, err)
		case k == 3 && (g != "grp_old" || len(ops) != 1 || ops[0].ID != "dev_a:1"):
			t.Errorf("from 3: the old op log was not adopted: %q %+v", g, ops)
		case k >= 3 && len(ops) > 0 && ops[0].Sig != nil:
			// Migration 7: ops from before signing read back unsigned.
			t.Errorf("from %d: an op stored before signing has signature %x", k, ops[0].Sig)
		case k != 3 && g != "":
			t.Errorf("from %d: log group %q, want none", k, g)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
