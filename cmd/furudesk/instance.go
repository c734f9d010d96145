package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/furudesk/furudesk/cmd/furudesk/internal/ctlconn"
	"github.com/furudesk/furudesk/internal/framegov"
	"github.com/furudesk/furudesk/ui"
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

// windowHooks are what the ctl commands about the window do: raise shows
// it; view describes it (ui.View) for scripts and tests that drive it.
// Both are called on ctl goroutines and must not block for long.
type windowHooks struct {
	raise func()
	view  func() (any, error)
}

// windowCtl holds the window's hooks for the ctl commands of this process.
// A process serves one data dir with one ctl socket, so there is one, in
// theWindow.
type windowCtl struct {
	mu       sync.Mutex
	expected bool          // a GUI launch: the window is coming
	closed   bool          // the window is gone: furudesk is quitting
	hooks    *windowHooks  // nil until the window exists
	ready    chan struct{} // closed when hooks is set
}

var theWindow = &windowCtl{ready: make(chan struct{})}

// expectWindow marks this process as a GUI launch before its ctl socket
// opens, so that a raise arriving before the window exists waits for it
// instead of answering errNoWindow.
func expectWindow() {
	theWindow.mu.Lock()
	theWindow.expected = true
	theWindow.mu.Unlock()
}

// setWindow installs the window's hooks once it exists; nil removes them
// when the window is gone.
func setWindow(h *windowHooks) {
	r := theWindow
	r.mu.Lock()
	defer r.mu.Unlock()
	if h == nil {
		r.hooks, r.closed = nil, true
		return
	}
	r.hooks, r.expected = h, true
	select {
	case <-r.ready:
	default:
		close(r.ready)
	}
}

// window returns the window's hooks, waiting for a window that is still
// opening.
func (r *windowCtl) window() (*windowHooks, error) {
	r.mu.Lock()
	h, expected, closed, ready := r.hooks, r.expected, r.closed, r.ready
	r.mu.Unlock()
	switch {
	case closed:
		return nil, errors.New("furudesk is quitting: its window is closed")
	case h == nil && !expected:
		return nil, errNoWindow
	case h == nil:
		select {
		case <-ready:
		case <-time.After(windowWait):
			return nil, errors.New("furudesk is starting but its window did not open")
		}
		r.mu.Lock()
		h = r.hooks
		r.mu.Unlock()
		if h == nil {
			return nil, errors.New("furudesk is quitting: its window is closed")
		}
	}
	return h, nil
}

// raiseWindow runs the ctl raise command.
func raiseWindow() (any, error) {
	h, err := theWindow.window()
	if err != nil {
		return nil, err
	}
	h.raise()
	return map[string]bool{"raised": true}, nil
}

// viewWindow runs the ctl window command.
func viewWindow() (any, error) {
	h, err := theWindow.window()
	if err != nil {
		return nil, err
	}
	return h.view()
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
		c, err := ctlconn.Dial(path, time.Second)
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

// inspectWait bounds how long the ctl window command waits for the UI
// goroutine (busy drawing a large list, or stopped).
const inspectWait = 5 * time.Second

// inspect describes the window on its UI goroutine.
func inspect(u *ui.UI) (any, error) {
	got := make(chan ui.View, 1)
	framegov.Do(func() { got <- u.Inspect() })
	select {
	case v := <-got:
		return v, nil
	case <-time.After(inspectWait):
		return nil, errors.New("the window did not answer within 5 s")
	}
}
