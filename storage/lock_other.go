//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package storage

import "os"

// lockFile is a no-op where furudesk has no supported file lock; the data
// dir is then not protected against a second process.
func lockFile(f *os.File) (held bool, err error) { return false, nil }
