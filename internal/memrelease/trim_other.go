//go:build !linux || !cgo

package memrelease

// trimC: only glibc's C heap is trimmed.
func trimC() {}
