//go:build linux || freebsd || openbsd || netbsd || dragonfly

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/furudesk/furudesk/internal/pulsetest"
)

// Issue 39: `furudesk FILE...` against a running furudesk of the data dir
// hands the files to it (relative paths taken from the caller's working
// directory) and they play there, from outside the music folders, heard
// on its sink; a missing file is named and the others still play;
// --enqueue appends; a stopped instance is reported within about 2 s and
// no second one starts.
func TestFurudeskFilesPlayInTheRunningInstance(t *testing.T) {
	needE2E(t)
	pa := startPulse(t, 1)
	root := t.TempDir()
	dir, downloads := filepath.Join(root, "data"), filepath.Join(root, "Downloads")
	if err := os.MkdirAll(downloads, 0o700); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"one.wav", "two.wav", "three.wav"} {
		writeTrack(t, filepath.Join(downloads, name), i)
	}
	env := append(pulsetest.CleanEnv("HOME="+root, "XDG_RUNTIME_DIR="+root, "LANG=C.UTF-8", "DISPLAY=",
		"DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(root, "no-bus")), append(pa.env, "PULSE_SINK=dev0")...)
	args := []string{"--headless", "--data-dir", dir, "--mdns=false", "--listen", "127.0.0.1:0"}
	first := &node{t: t, name: "first", dir: dir, env: env, args: args}
	rec := pa.record(t, "dev0")
	first.start()
	t.Cleanup(func() { first.stop(false) })

	launch := func(extra ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(binPath, append(append([]string(nil), args...), extra...)...)
		cmd.Env, cmd.Dir = env, downloads
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			return string(out), ee.ExitCode()
		case err != nil:
			t.Fatal(err)
		}
		return string(out), 0
	}

	// An idle null sink stalls a new stream for 1-2 s: 3 s recorded first.
	waitFor(t, 20*time.Second, "3 s recorded", func() bool { return rec.frames() > 3*rate })
	t0 := time.Now()
	out, code := launch("one.wav", "file://"+filepath.Join(downloads, "two.wav"), "gone.flac")
	if code != 0 || !strings.Contains(out, "Playing 2 tracks (2 from outside the music folders") ||
		!strings.Contains(out, "gone.flac: does not exist") {
		t.Fatalf("furudesk one.wav two.wav gone.flac: exit %d:\n%s", code, out)
	}
	waitFor(t, 10*time.Second, "one.wav heard", func() bool {
		st := first.status()
		return st.Playing && st.Source == "local" && len(st.Queue) == 2 && st.Queue[0].Title == "one" && audible(rec, t0, time.Now())
	})
	_, i := firstSound(rec, t0)
	// The highest of three measures: a stall of the shared machine in one
	// of them reads low, another track reads 1,400 Hz higher.
	waitFor(t, 5*time.Second, "a second of one.wav recorded", func() bool { return rec.frames() > i+rate })
	f := max(freqAt(rec, i+rate*4/10), freqAt(rec, i+rate*6/10), freqAt(rec, i+rate*8/10))
	if f < trackFreq(0, 0)-15 || f > trackFreq(0, 2)+15 {
		t.Errorf("heard %.0f Hz, want one.wav's %.0f-%.0f Hz", f, trackFreq(0, 0), trackFreq(0, 2))
	}

	if out, code := launch("--enqueue", "three.wav"); code != 0 || !strings.Contains(out, "Playing 1 track") {
		t.Fatalf("--enqueue three.wav: exit %d:\n%s", code, out)
	}
	waitFor(t, 5*time.Second, "three.wav appended", func() bool {
		q := first.status().Queue
		return len(q) == 3 && q[2].Title == "three"
	})
	if out, code := launch("notes.txt"); code != 1 || !strings.Contains(out, "notes.txt") {
		t.Errorf("furudesk notes.txt: exit %d, want 1 naming it:\n%s", code, out)
	}

	// A stopped instance: said within about 2 s, and no second one.
	if err := first.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	out, code = launch("one.wav")
	took := time.Since(t1)
	if err := first.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if code != 1 || !strings.Contains(out, "did not answer within 2s") || took > 8*time.Second {
		t.Errorf("against a stopped instance: exit %d after %v:\n%s", code, took, out)
	}
	if _, err := first.ctlErr("status"); err != nil {
		t.Errorf("the first instance no longer answers: %v", err)
	}
}

// Issue 39: with no furudesk running, `furudesk FILE` starts one that
// plays it.
func TestFurudeskFileStartsAndPlays(t *testing.T) {
	needE2E(t)
	root := t.TempDir()
	dir := filepath.Join(root, "data")
	song := filepath.Join(root, "song.wav")
	writeTrack(t, song, 1)
	env := pulsetest.CleanEnv("HOME="+root, "XDG_RUNTIME_DIR="+root, "LANG=C.UTF-8", "DISPLAY=",
		"DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(root, "no-bus"))
	n := &node{t: t, name: "n", dir: dir, env: env,
		args: []string{"--headless", "--data-dir", dir, "--mdns=false", "--listen", "127.0.0.1:0", song}}
	n.start()
	t.Cleanup(func() { n.stop(false) })
	waitFor(t, 10*time.Second, "song.wav queued", func() bool {
		q := n.status().Queue
		return len(q) == 1 && q[0].Title == "song"
	})
}
