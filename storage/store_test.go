package storage

import (
	"bufio"
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOpenCreatesDirAndReopens(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data dir ?#%")
	dir = strings.ReplaceAll(dir, "?", "_") // '?' is refused, see TestOpenRefusesBadPath
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetSetting("theme", "dark"); err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	var sync, fk int
	if err := s.db.QueryRow(`PRAGMA synchronous`).Scan(&sync); err != nil || sync != 2 {
		t.Fatalf("synchronous = %d, %v; want 2 (FULL)", sync, err)
	}
	if err := s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign_keys = %d, %v; want 1", fk, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, DBFileName)); err != nil {
		t.Fatalf("database file: %v", err)
	}
	s, err = Open(dir)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if v, ok, err := s.Setting("theme"); err != nil || !ok || v != "dark" {
		t.Fatalf("after reopen theme = %q %v %v", v, ok, err)
	}
}

func TestOpenRefusesBadPath(t *testing.T) {
	for _, dir := range []string{"", "a?b"} {
		if _, err := Open(dir); !errors.Is(err, ErrBadPath) {
			t.Errorf("Open(%q) = %v, want ErrBadPath", dir, err)
		}
	}
}

func TestSecondOpenInProcessIsLocked(t *testing.T) {
	_, dir := openTemp(t)
	_, err := Open(dir)
	if !errors.Is(err, ErrLocked) || err.Error() != "another furudesk is using "+dir {
		t.Fatalf("second Open = %v, want exactly %q", err, "another furudesk is using "+dir)
	}
}

func TestSecondProcessFailsAtOnce(t *testing.T) {
	dir := t.TempDir()
	cmd := helperCmd(t, "hold", dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "opened\n" {
		t.Fatalf("child said %q, %v", line, err)
	}

	// The other process holds the dir until its stdin closes, so an Open
	// that waited for the lock would not answer while it is held; the
	// deadline only bounds such a broken run. How fast the refusal is,
	// is not this test's business.
	opened := make(chan error, 1)
	go func() {
		s, err := Open(dir)
		if err == nil {
			_ = s.Close()
		}
		opened <- err
	}()
	select {
	case err = <-opened:
	case <-time.After(30 * time.Second):
		t.Fatal("Open is waiting for the other process to let go of the dir, want it to fail at once")
	}
	if want := "another furudesk is using " + dir; err == nil || err.Error() != want {
		t.Fatalf("Open while another process holds the dir = %v, want %q", err, want)
	}
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("error %v does not match ErrLocked", err)
	}

	// Once the other process is gone the dir opens again.
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after the other process exited: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptDatabaseRefusedAndUntouched(t *testing.T) {
	t.Run("not a database", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, DBFileName)
		garbage := bytes.Repeat([]byte("this is not an SQLite file\n"), 200)
		if err := os.WriteFile(path, garbage, 0o600); err != nil {
			t.Fatal(err)
		}
		checkRefusedUntouched(t, dir, path, ErrCorrupt)
	})
	t.Run("damaged pages", func(t *testing.T) {
		dir := t.TempDir()
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.PutTracks(manyTracks(300)); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, DBFileName)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		pageSize := 4096
		if len(b) < 8*pageSize {
			t.Fatalf("database only %d bytes", len(b))
		}
		// Smash the B-tree page headers of a few pages, keep the file header.
		for p := 2; p < 8; p++ {
			copy(b[p*pageSize:p*pageSize+12], bytes.Repeat([]byte{0xA5}, 12))
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		checkRefusedUntouched(t, dir, path, ErrCorrupt)
	})
}

func TestNewerSchemaRefusedAndUntouched(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, 'from the future', 0)`, SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	err = checkRefusedUntouched(t, dir, filepath.Join(dir, DBFileName), ErrTooNew)
	if !strings.Contains(err.Error(), "newer furudesk") || !strings.Contains(err.Error(), "upgrade furudesk") {
		t.Fatalf("message %q should tell the user a newer furudesk wrote it", err)
	}
}

func TestForeignDatabaseRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, DBFileName)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE other_app (x)`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	checkRefusedUntouched(t, dir, path, ErrCorrupt)
}

// checkRefusedUntouched opens dir, expects want with the file's path in the
// message, and checks the file's bytes did not change. The dir must be
// usable again at once (the lock released).
func checkRefusedUntouched(t *testing.T, dir, path string, want error) error {
	t.Helper()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err == nil {
		_ = s.Close()
		t.Fatalf("Open succeeded, want %v", want)
	}
	if !errors.Is(err, want) {
		t.Fatalf("Open = %v, want %v", err, want)
	}
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("error %q does not name the file %s", err, path)
	}
	after, err2 := os.ReadFile(path)
	if err2 != nil {
		t.Fatal(err2)
	}
	if !bytes.Equal(before, after) {
		t.Fatalf("Open modified the refused file")
	}
	if _, err2 := Open(dir); errors.Is(err2, ErrLocked) {
		t.Fatalf("a refused Open kept the lock")
	}
	return err
}

// A read-only transaction does not hold the write lock: a write commits
// while it is open, at once, not after busy_timeout (the catalogs' long
// reads at launch held the launch's writes back).
func TestAReadTransactionLetsWritesThrough(t *testing.T) {
	s, _ := openTemp(t)
	tx, err := s.readTx()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM tracks`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := s.SetSetting("read-tx-test", "1"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > BusyTimeoutMS*time.Millisecond/2 {
		t.Fatalf("a write beside an open read took %v: it waited for the read's lock", d)
	}
}
