package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync/atomic"
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

// windowRaise is the handler of the ctl raise command: the GUI sets it
// while its window exists; a headless process never does. A process serves
// one data dir with one ctl socket, so one handler per process.
var windowRaise atomic.Pointer[func()]

// setRaise installs the handler of the ctl raise command; nil removes it
// (the window is gone). It is called on ctl goroutines and must not block.
func setRaise(f func()) {
	if f == nil {
		windowRaise.Store(nil)
		return
	}
	windowRaise.Store(&f)
}

// raiseWindow runs the ctl raise command.
func raiseWindow() (any, error) {
	f := windowRaise.Load()
	if f == nil {
		return nil, errNoWindow
	}
	(*f)()
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
