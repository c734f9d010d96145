//go:build linux

package framegov

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// pollerWaiter waits for the display connection through the Go
// runtime's network poller: a hold parks the UI goroutine on a channel
// and no thread wakes until the display sends something, the app has work
// or the hold's timer fires. (A hold in a poll system call instead
// keeps the runtime's monitor thread waking a hundred times a second
// for as long as the call lasts.)
type pollerWaiter struct {
	display int      // the connection's fd, not owned: for a non-blocking check
	dup     *os.File // a duplicate of it in the poller, owned
	input   chan struct{}
}

// newPollerWaiter watches display, the fd of the connection to the
// display server. The connection must be non-blocking (libxcb makes its
// socket so); the poller would not take it otherwise.
func newPollerWaiter(display int) (*pollerWaiter, error) {
	if display < 0 {
		return nil, fmt.Errorf("framegov: no display fd (%d)", display)
	}
	fl, err := unix.FcntlInt(uintptr(display), unix.F_GETFL, 0)
	if err != nil || fl&unix.O_NONBLOCK == 0 {
		return nil, fmt.Errorf("framegov: the display fd is not non-blocking (%v)", err)
	}
	fd, err := unix.FcntlInt(uintptr(display), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("framegov: dup the display fd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "display")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("framegov: the display fd: %w", err)
	}
	w := &pollerWaiter{display: display, dup: f, input: make(chan struct{}, 1)}
	go func() {
		// Never done: each time the poller sees the connection readable
		// (new data since the last time), tell a hold and wait again,
		// until Close. The first call comes before any wait.
		first := true
		_ = rc.Read(func(uintptr) bool {
			if first {
				first = false
				return false
			}
			select {
			case w.input <- struct{}{}:
			default:
			}
			return false
		})
	}()
	return w, nil
}

func (w *pollerWaiter) Wait(timeout time.Duration, wake <-chan struct{}) End {
	// What the display sent before this hold, the toolkit read during the
	// frames since the last one.
	select {
	case <-w.input:
	default:
	}
	if w.pending() {
		return Input
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-w.input:
		return Input
	case <-wake:
		return Work
	case <-t.C:
		return Timeout
	}
}

// pending tells whether the connection has data nobody read yet.
func (w *pollerWaiter) pending() bool {
	fds := []unix.PollFd{{Fd: int32(w.display), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err != nil || n > 0
	}
}

// Close stops watching the connection (it stays open).
func (w *pollerWaiter) Close() error { return w.dup.Close() }
