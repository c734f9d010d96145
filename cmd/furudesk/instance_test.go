package main

import (
	"bufio"
	"errors"
	"github.com/furudesk/furudesk/internal/pulsetest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startXvfb starts a private X server on a free display and returns its
// DISPLAY value.
func startXvfb(t *testing.T) string {
	t.Helper()
	return startXvfbScreen(t, "1024x768x24")
}

// startXvfbScreen is startXvfb with a screen of this size (WxHxDEPTH).
func startXvfbScreen(t *testing.T, screen string) string {
	t.Helper()
	bin := needTool(t, "Xvfb")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(bin, "-displayfd", "3", "-screen", "0", screen, "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w} // fd 3: Xvfb writes the display number it picked
	var log syncBuf
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Xvfb: %v", err)
	}
	_ = w.Close()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case n := <-line:
		if n == "" {
			t.Fatalf("Xvfb did not report a display:\n%s", log.String())
		}
		return ":" + n
	case <-time.After(30 * time.Second):
		t.Fatalf("Xvfb did not start within 30 s:\n%s", log.String())
	}
	return ""
}

// Launching furudesk again on the data dir of a running window raises that
// window and exits 0, instead of failing on the data dir lock.
func TestSecondLaunchRaisesTheRunningWindow(t *testing.T) {
	needE2E(t)
	display := startXvfb(t)
	root := t.TempDir()
	dir, home, run := filepath.Join(root, "data"), filepath.Join(root, "home"), filepath.Join(root, "run")
	for _, d := range []string{home, run} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// No session bus (and none autolaunched): MPRIS and the tray step aside.
	env := pulsetest.CleanEnv("DISPLAY="+display, "HOME="+home, "XDG_RUNTIME_DIR="+run,
		"DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(run, "no-bus"))
	args := []string{"--data-dir", dir, "--mdns=false", "--listen", "127.0.0.1:0"}

	first := &node{t: t, name: "first", dir: dir, env: env, args: args}
	first.start() // waits for the ctl socket
	t.Cleanup(func() { first.stop(false) })

	second := exec.Command(binPath, args...)
	second.Env = env
	var out syncBuf
	second.Stdout, second.Stderr = &out, &out
	done := make(chan error, 1)
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- second.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("second launch exited %d, want 0:\n%s", ee.ExitCode(), out.String())
		} else if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		_ = second.Process.Kill()
		t.Fatalf("second launch still running after 60 s:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "showed its window") {
		t.Errorf("second launch said %q; want it to say it showed the running window", out.String())
	}
	waitFor(t, 20*time.Second, "the first instance to raise its window", func() bool {
		return strings.Contains(first.log.String(), `msg="window raised" by=ctl`)
	})
	select {
	case <-first.exited:
		t.Fatalf("the first instance exited:\n%s", first.log.String())
	default:
	}
	if _, err := first.ctlErr("status"); err != nil {
		t.Errorf("the first instance no longer answers: %v", err)
	}
}

// A headless instance has no window: a second launch on its data dir says
// so and fails.
func TestSecondLaunchOnHeadlessFails(t *testing.T) {
	needE2E(t)
	root := t.TempDir()
	dir := filepath.Join(root, "data")
	env := pulsetest.CleanEnv("HOME="+root, "XDG_RUNTIME_DIR="+root, "LANG=C.UTF-8", "DISPLAY=",
		"DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(root, "no-bus"))
	args := []string{"--data-dir", dir, "--mdns=false", "--listen", "127.0.0.1:0"}
	first := &node{t: t, name: "headless", dir: dir, env: env, args: append([]string{"--headless"}, args...)}
	first.start()
	t.Cleanup(func() { first.stop(false) })

	second := exec.Command(binPath, args...)
	second.Env = env
	out, err := second.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("second launch: %v, want exit code 1:\n%s", err, out)
	}
	if !strings.Contains(string(out), "without a window") {
		t.Errorf("second launch said %q; want it to say the running furudesk has no window", out)
	}
}
