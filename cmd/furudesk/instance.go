package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"time"
)

// One furudesk per data dir: storage.Open locks the dir, so a second launch
// on it cannot open it. A second GUI launch instead asks the running
// instance, over its ctl socket, to raise its window, and exits 0.

// errNoWindow is the answer of a headless instance to the ctl raise command.
var errNoWindow = errors.New("this furudesk runs without a window (--headless); control it with furudesk ctl")

// raiseWait bounds how long a second launch waits for the running
// instance's ctl socket: the first one may hold the data dir lock while it
// is still starting (opening the database, discovering devices).
const raiseWait = 20 * time.Second

// windowWait bounds how long a raise waits for the window of a GUI launch
// that is still starting: its ctl socket opens before its window does.
const windowWait = 15 * time.Second

// raiser is the handler of the ctl raise command of this process. A process
// serves one data dir with one ctl socket, so there is one, in windowRaise.
type raiser struct {
	mu       sync.Mutex
	expected bool          // a GUI launch: the window is coming
	closed   bool          // the window is gone: furudesk is quitting
	f        func()        // shows the window; nil until it exists
	ready    chan struct{} // closed when f is set
}

var windowRaise = &raiser{ready: make(chan struct{})}

// expectWindow marks this process as a GUI launch before its ctl socket
// opens, so that a raise arriving before the window exists waits for it
// instead of answering errNoWindow.
func expectWindow() {
	windowRaise.mu.Lock()
	windowRaise.expected = true
	windowRaise.mu.Unlock()
}

// setRaise installs the handler of the ctl raise command once the window
// exists; nil removes it when the window is gone. f is called on ctl
// goroutines and must not block.
func setRaise(f func()) {
	r := windowRaise
	r.mu.Lock()
	defer r.mu.Unlock()
	if f == nil {
		r.f, r.closed = nil, true
		return
	}
	r.f, r.expected = f, true
	select {
	case <-r.ready:
	default:
		close(r.ready)
	}
}

// raiseWindow runs the ctl raise command.
func raiseWindow() (any, error) {
	r := windowRaise
	r.mu.Lock()
	f, expected, closed, ready := r.f, r.expected, r.closed, r.ready
	r.mu.Unlock()
	switch {
	case closed:
		return nil, errors.New("furudesk is quitting: its window is closed")
	case f == nil && !expected:
		return nil, errNoWindow
	case f == nil:
		select {
		case <-ready:
		case <-time.After(windowWait):
			return nil, errors.New("furudesk is starting but its window did not open")
		}
		r.mu.Lock()
		f = r.f
		r.mu.Unlock()
		if f == nil {
			return nil, errors.New("furudesk is quitting: its window is closed")
		}
	}
	f()
	return map[string]bool{"raised": true}, nil
}

// raiseRunning is a second GUI launch on the data dir of a running
// instance (lockErr is the data dir lock failure): it waits for that
// instance's ctl socket, asks it to raise its window and returns the exit
// code: 0 when it did, 1 (with lockErr or the instance's answer on stderr)
// otherwise.
func raiseRunning(dataDir string, lockErr error, stdout, stderr io.Writer) int {
	path := filepath.Join(dataDir, ctlSocketName)
	deadline := time.Now().Add(raiseWait)
	for {
		c, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(stderr, "furudesk: %v, and it does not answer on %s: %v\n", lockErr, path, err)
			return 1
		}
		time.Sleep(100 * time.Millisecond) // polling for a starting instance's socket, with a deadline
	}
	if _, err := ctlCall(path, ctlRequest{Cmd: "raise"}); err != nil {
		fmt.Fprintf(stderr, "furudesk: %v: %v\n", lockErr, err)
		return 1
	}
	fmt.Fprintf(stdout, "furudesk: already running for %s; showed its window\n", dataDir)
	return 0
}
