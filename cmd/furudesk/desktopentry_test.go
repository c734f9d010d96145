//go:build linux || freebsd || openbsd || netbsd || dragonfly

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/furudesk/furudesk/internal/pulsetest"
	"github.com/furudesk/furudesk/library"
)

// desktopFile is furudesk's desktop entry, installed by make package and
// make deb.
const desktopFile = "../../packaging/linux/furudesk.desktop"

func desktopEntry(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(desktopFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kv := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			kv[k] = v
		}
	}
	return kv
}

// Issue 39: the desktop entry offers furudesk for exactly the formats the
// library plays and hands it the files as URIs, and desktop-file-validate
// finds nothing wrong with it.
func TestDesktopEntryListsWhatTheLibraryPlays(t *testing.T) {
	kv := desktopEntry(t)
	got := strings.Split(strings.TrimSuffix(kv["MimeType"], ";"), ";")
	if want := library.MIMETypes(); !slices.Equal(got, want) {
		t.Errorf("%s: MimeType=%s\nwant (library.MIMETypes) %s;", desktopFile, kv["MimeType"], strings.Join(want, ";"))
	}
	if kv["Exec"] != "furudesk %U" || kv["Icon"] != "furudesk" {
		t.Errorf("Exec=%q Icon=%q, want furudesk %%U and furudesk", kv["Exec"], kv["Icon"])
	}
	if _, err := exec.LookPath("desktop-file-validate"); err == nil || os.Getenv("CI") == "true" {
		bin := needTool(t, "desktop-file-validate")
		if out, err := exec.Command(bin, desktopFile).CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("desktop-file-validate: %v\n%s", err, out)
		}
	}
}

// Issue 39: with furudesk the default for FLAC (xdg-mime default, in a
// private XDG_DATA_HOME), opening a FLAC the way a file manager does (gio
// open, xdg-open) starts the window and plays it; opening another while
// it runs plays that one in the same furudesk.
func TestOpenWithFurudeskFromTheFileManager(t *testing.T) {
	needE2E(t)
	gio, xdgMime, xdgOpen := needTool(t, "gio"), needTool(t, "xdg-mime"), needTool(t, "xdg-open")
	display := startXvfb(t)
	root := t.TempDir()
	data, config, home, run, bin := filepath.Join(root, "share"), filepath.Join(root, "config"),
		filepath.Join(root, "home"), filepath.Join(root, "run"), filepath.Join(root, "bin")
	for _, d := range []string{filepath.Join(data, "applications"), config, home, run, bin} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	entry, err := os.ReadFile(desktopFile)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(data, "applications", "furudesk.desktop"), entry)
	// furudesk on PATH is the test binary; the wrapper notes each pid so
	// the test ends exactly the processes it started.
	pids := filepath.Join(root, "pids")
	wrapper := fmt.Sprintf("#!/bin/sh\necho $$ >>%s\nexec %s \"$@\"\n", pids, binPath)
	if err := os.WriteFile(filepath.Join(bin, "furudesk"), []byte(wrapper), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b, _ := os.ReadFile(pids)
		var ps []int
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && syscall.Kill(pid, syscall.SIGINT) == nil {
				ps = append(ps, pid)
			}
		}
		// Not our children (gio and xdg-open started them): gone when a
		// signal can no longer reach them.
		waitFor(t, 30*time.Second, "the launched furudesk to quit", func() bool {
			for _, pid := range ps {
				if syscall.Kill(pid, 0) == nil {
					return false
				}
			}
			return true
		})
	})
	env := pulsetest.CleanEnv("DISPLAY="+display, "HOME="+home, "XDG_RUNTIME_DIR="+run,
		"XDG_DATA_HOME="+data, "XDG_CONFIG_HOME="+config, "XDG_DATA_DIRS=/usr/share", "XDG_CURRENT_DESKTOP=",
		"PATH="+bin+":/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(run, "no-bus"))
	// The tools' output goes to a file, not a pipe: what gio and xdg-open
	// start inherits it and would hold a pipe open.
	runTool := func(name string, args ...string) string {
		t.Helper()
		f, err := os.CreateTemp(root, "out")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd := exec.Command(name, args...)
		cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = env, root, f, f
		err = cmd.Run()
		out, _ := os.ReadFile(f.Name())
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	runTool(xdgMime, "default", "furudesk.desktop", "audio/flac")
	if got := runTool(xdgMime, "query", "default", "audio/flac"); got != "furudesk.desktop" {
		t.Fatalf("xdg-mime query default audio/flac = %q, want furudesk.desktop", got)
	}

	for i, name := range []string{"first song.flac", "second.flac"} {
		ffmpeg := needTool(t, "ffmpeg")
		runTool(ffmpeg, "-loglevel", "error", "-f", "lavfi", "-i", fmt.Sprintf("sine=frequency=%d:duration=30", 440+220*i),
			"-metadata", "title=Song "+strconv.Itoa(i+1), filepath.Join(root, name))
	}
	n := &node{t: t, name: "opened", dir: filepath.Join(data, "furudesk"), env: env}
	runTool(gio, "open", filepath.Join(root, "first song.flac"))
	waitFor(t, 30*time.Second, "gio open to start furudesk playing Song 1", func() bool {
		if _, err := n.ctlErr("status"); err != nil {
			return false
		}
		q := n.status().Queue
		return len(q) == 1 && q[0].Title == "Song 1"
	})
	if _, err := n.ctlErr("window"); err != nil {
		t.Errorf("no window: %v", err)
	}
	runTool(xdgOpen, filepath.Join(root, "second.flac"))
	waitFor(t, 30*time.Second, "xdg-open to play Song 2 in the same furudesk", func() bool {
		q := n.status().Queue
		return len(q) == 1 && q[0].Title == "Song 2"
	})
}
