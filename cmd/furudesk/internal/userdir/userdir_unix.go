//go:build !windows

package userdir

// Secure leaves dir as it is: its 0700 mode, set when furudesk made it,
// is the protection on this platform.
func Secure(dir string) error { return nil }
