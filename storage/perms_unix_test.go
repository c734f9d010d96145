//go:build unix

package storage

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A data dir another program created with 0755, holding a database and
// WAL files an older furudesk left at 0644, and a umask of 000: after Open
// the dir is 0700 and every database file (the identity key lives in the
// database) 0600, also the ones SQLite creates afterwards. A new data dir
// under umask 000 starts out the same way.
func TestDataDirAndDatabaseArePrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)

	dir := filepath.Join(t.TempDir(), "furu")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mustIdentity(t, s, "grp_a")
	wantPrivate(t, dir)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range privateFiles {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			if err := os.Chmod(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetSetting("theme", "dark"); err != nil { // writes the WAL
		t.Fatal(err)
	}
	wantPrivate(t, dir)
	if id, err := s.Identity(); err != nil || id.GroupID != "grp_a" {
		t.Fatalf("identity after reopening: %+v %v", id, err)
	}
}

func wantPrivate(t *testing.T, dir string) {
	t.Helper()
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != DirMode {
		t.Fatalf("data dir mode %v, %v", info.Mode().Perm(), err)
	}
	seen := 0
	for _, name := range privateFiles {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		seen++
		if info.Mode().Perm() != FileMode {
			t.Errorf("%s: mode %04o, want %04o", name, info.Mode().Perm(), FileMode)
		}
	}
	if seen < 3 { // the database, its WAL index and the lock at least
		t.Fatalf("only %d database files found", seen)
	}
}

// A shared folder such as /tmp is refused, not made private.
func TestSharedFolderIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil {
		t.Fatal("opened a sticky shared folder as a data dir")
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o777 {
		t.Fatalf("the shared folder was changed to %v", info.Mode())
	}
}
