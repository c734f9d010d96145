//go:build linux

package framegov

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// fdWaiter waits for a display connection's fd to become readable or for
// its eventfd to be written (Wake).
type fdWaiter struct {
	display int // not owned: the display library reads and closes it
	wake    int // an eventfd, owned
}

// newFDWaiter waits on display, the fd of the connection to the display
// server.
func newFDWaiter(display int) (*fdWaiter, error) {
	if display < 0 {
		return nil, fmt.Errorf("framegov: no display fd (%d)", display)
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("framegov: eventfd: %w", err)
	}
	return &fdWaiter{display: display, wake: wake}, nil
}

func (w *fdWaiter) Wait(timeout time.Duration) End {
	fds := []unix.PollFd{{Fd: int32(w.display), Events: unix.POLLIN}, {Fd: int32(w.wake), Events: unix.POLLIN}}
	deadline := time.Now().Add(timeout)
	for {
		ms := int(time.Until(deadline).Milliseconds())
		if ms <= 0 {
			return Timeout
		}
		n, err := unix.Poll(fds, ms)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			// Not expected (the fds are valid while the window is);
			// end the hold rather than block the loop.
			return Input
		case n == 0:
			return Timeout
		}
		if fds[1].Revents != 0 {
			var b [8]byte
			_, _ = unix.Read(w.wake, b[:]) // resets the counter
			return Work
		}
		return Input // readable, or closed: the display library sees to it
	}
}

func (w *fdWaiter) Wake() {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], 1)
	_, _ = unix.Write(w.wake, b[:]) // EAGAIN only at a counter of 2^64-2: still readable
}
