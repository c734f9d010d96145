//go:build !linux || !cgo

package memrelease

// TrimC gives the C heap's free memory back to the system where the C
// library can be asked to (glibc); here it does nothing.
func TrimC() {}
