//go:build !windows

package ctlconn

import (
	"fmt"
	"net"
	"os"
	"time"
)

// Listen listens on the unix socket at path, replacing a socket file left
// there (the caller holds the data dir's lock, so it belongs to a crashed
// instance). Closing the listener removes the socket file.
func Listen(path string) (net.Listener, error) {
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("ctl socket %s: %w", path, err)
	}
	// Whatever the umask: only this user may connect (the data dir is
	// private too, and each caller's uid is checked).
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("ctl socket %s: %w", path, err)
	}
	return ln, nil
}

// Dial connects to the socket at path within timeout.
func Dial(path string, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("unix", path, timeout)
}
