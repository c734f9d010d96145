package storage

import (
	"database/sql"
	"path/filepath"
	"testing"
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
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
