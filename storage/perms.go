package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Modes of the data dir and of the files that hold the database (and with
// it this device's private key), whatever the umask and whatever modes an
// older furudesk or the user left them with.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// privateFiles are the files of the data dir that get FileMode.
var privateFiles = []string{DBFileName, DBFileName + "-wal", DBFileName + "-shm", DBFileName + "-journal", LockFileName}

// makePrivate gives dir DirMode and the database files in it FileMode,
// creating the database file first so that SQLite, which gives its -wal
// and -shm files the database file's mode, creates them private too. On
// Windows, where modes do not map to access rights, it does nothing.
func makePrivate(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("storage: data dir: %w", err)
	}
	if info.Mode()&fs.ModeSticky != 0 {
		return fmt.Errorf("%w: %s is a shared folder (sticky bit): give furudesk a folder of its own", ErrBadPath, dir)
	}
	if err := restrictMode(dir, info.Mode(), DirMode); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, DBFileName), os.O_RDONLY|os.O_CREATE, FileMode)
	if err != nil {
		return fmt.Errorf("storage: create the database file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("storage: create the database file: %w", err)
	}
	for _, name := range privateFiles {
		p := filepath.Join(dir, name)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("storage: %w", err)
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%w: %s is not a regular file", ErrBadPath, p)
		}
		if err := restrictMode(p, info.Mode(), FileMode); err != nil {
			return err
		}
	}
	return nil
}

// restrictMode takes from path the permission bits beyond want.
func restrictMode(path string, have, want fs.FileMode) error {
	if have.Perm()&^want == 0 {
		return nil
	}
	if err := os.Chmod(path, have.Perm()&want); err != nil {
		return fmt.Errorf("storage: %s can be read by other users (mode %04o) and cannot be made private: %w", path, have.Perm(), err)
	}
	return nil
}
