package main

// furudesk FILE|FOLDER|file://URI...: the files play in the furudesk of
// the data dir, the running one (over its ctl socket, as ctl does) or
// this one once it has started. What plays and in which order is package
// openfiles'; app.OpenFiles queues them.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/cmd/furudesk/internal/ctlconn"
	"github.com/furudesk/furudesk/openfiles"
)

// openAnswerWait bounds how long a launch with files waits for the
// running instance to answer at all (its socket accepted the connection):
// one that does not is stopped or stuck, and a second coordinator on its
// data dir is never started.
const openAnswerWait = 2 * time.Second

// enqueueFlag is the first argument of the ctl open command when the
// files are appended to the queue rather than played now.
const enqueueFlag = "--enqueue"

// openRequest is the ctl request that opens paths (absolute, from
// openfiles.Paths).
func openRequest(paths []string, enqueue bool) ctlRequest {
	args := make([]string, 0, len(paths)+1)
	if enqueue {
		args = append(args, enqueueFlag)
	}
	return ctlRequest{Cmd: "open", Args: append(args, paths...)}
}

// execOpen runs the ctl open command. Paths must be absolute: the
// server's working directory is not the caller's.
func execOpen(a *app.App, req ctlRequest) (any, error) {
	args := req.Args
	enqueue := len(args) > 0 && args[0] == enqueueFlag
	if enqueue {
		args = args[1:]
	}
	if len(args) == 0 {
		return nil, errors.New("usage: open [--enqueue] FILE|FOLDER|file://URI (one or more)")
	}
	paths, probs := openfiles.Paths(args, "")
	res, err := a.OpenFiles(paths, enqueue)
	res.Problems = append(probs, res.Problems...)
	if err != nil && len(probs) > 0 && len(paths) == 0 {
		return nil, errors.New(openedText(res))
	}
	if err != nil {
		return nil, err
	}
	return ctlMessage(openedText(res)), nil
}

// openedText says what an opening did, for the terminal.
func openedText(res app.Opened) string {
	var b strings.Builder
	switch {
	case res.Tracks == 0:
		b.WriteString("Nothing to play")
	case res.Tracks == 1:
		b.WriteString("Playing 1 track")
	default:
		fmt.Fprintf(&b, "Playing %d tracks", res.Tracks)
	}
	if res.Outside > 0 {
		fmt.Fprintf(&b, " (%d from outside the music folders, not added to the library)", res.Outside)
	}
	for _, p := range res.Problems {
		b.WriteString("\n  left out: " + p.String())
	}
	return b.String()
}

// openArgs turns the command line's files into absolute paths against
// this process's working directory; the arguments that name no file are
// printed to stderr and left out.
func openArgs(args []string, stderr io.Writer) []string {
	cwd, _ := os.Getwd()
	paths, probs := openfiles.Paths(args, cwd)
	for _, p := range probs {
		fmt.Fprintln(stderr, "furudesk: left out:", p)
	}
	return paths
}

// openInRunning hands paths to the furudesk running for dataDir (it holds
// the data dir lock: lockErr) and returns the exit code: 0 when it plays
// them, 1 with why otherwise. It waits for a starting instance's socket
// as a raise does, then at most openAnswerWait for a first answer.
func openInRunning(dataDir string, paths []string, enqueue bool, lockErr error, stdout, stderr io.Writer) int {
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "furudesk: nothing to play")
		return 1
	}
	path := filepath.Join(dataDir, ctlSocketName)
	if err := waitForSocket(path, raiseWait); err != nil {
		fmt.Fprintf(stderr, "furudesk: %v, and it does not answer on %s: %v\n", lockErr, path, err)
		return 1
	}
	if _, err := ctlCallWithin(path, ctlRequest{Cmd: "status"}, openAnswerWait); err != nil {
		fmt.Fprintf(stderr, "furudesk: the furudesk running for %s did not answer within %s (%v): "+
			"it may be stopped; not starting a second one\n", dataDir, openAnswerWait, err)
		return 1
	}
	res, err := ctlCall(path, openRequest(paths, enqueue))
	if err != nil {
		fmt.Fprintln(stderr, "furudesk:", err)
		return 1
	}
	fmt.Fprintln(stdout, res.Message)
	return 0
}

// waitForSocket waits until the ctl socket at path accepts a connection,
// for at most wait.
func waitForSocket(path string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		c, err := ctlconn.Dial(path, time.Second)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond) // polling for a starting instance's socket, with a deadline
	}
}

// openAtLaunch plays the command line's files in this furudesk, once it
// runs; what was left out is in the window's notices and on stderr.
func openAtLaunch(a *app.App, paths []string, enqueue bool, stderr io.Writer) {
	if len(paths) == 0 {
		return
	}
	res, err := a.OpenFiles(paths, enqueue)
	if err != nil {
		fmt.Fprintln(stderr, "furudesk:", app.UserMessage(err))
		return
	}
	fmt.Fprintln(stderr, "furudesk:", openedText(res))
}
