//go:build !linux || !cgo

package memrelease

// cgoGlibc: the C library is glibc, whose heap is trimmed and tuned.
const cgoGlibc = false

// trimC: only glibc's C heap is trimmed.
func trimC() {}

// KeepLargeBlocksApart: only glibc's C heap is tuned.
func KeepLargeBlocksApart() bool { return false }
