// Package pulsetest starts a private PulseAudio server with null sinks for
// tests that play and record real audio (the recipe of PLATFORM.md): its
// own runtime dir, socket and HOME with an .asoundrc routing ALSA to it, so
// nothing of the machine's audio setup leaks in or out.
package pulsetest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a running private PulseAudio server.
type Server struct {
	// Env is the environment for its clients: CleanEnv plus
	// XDG_RUNTIME_DIR, HOME, PULSE_SERVER and PULSE_CLIENTCONFIG.
	Env []string
}

// Start runs the pulseaudio binary bin with one null sink (44.1 kHz
// stereo) per name in sinks, the first the default, and returns once pactl
// reaches it. The caller checks that pulseaudio, pactl (and parec) exist,
// with its own skip policy. The server is killed when the test ends.
func Start(t testing.TB, bin string, sinks ...string) *Server {
	t.Helper()
	if len(sinks) == 0 {
		t.Fatal("pulsetest: no sink")
	}
	dir, err := os.MkdirTemp("", "fdpa") // short: unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	run, home := filepath.Join(dir, "run"), filepath.Join(dir, "home")
	for _, d := range []string{run, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(run, "pulse.sock")
	script := "load-module module-native-protocol-unix auth-anonymous=1 socket=" + sock + "\n"
	for _, s := range sinks {
		script += fmt.Sprintf("load-module module-null-sink sink_name=%s rate=44100 channels=2\n", s)
	}
	script += "set-default-sink " + sinks[0] + "\n"
	write(t, filepath.Join(dir, "pa.pa"), script)
	write(t, filepath.Join(home, ".asoundrc"), "pcm.!default { type pulse }\nctl.!default { type pulse }\n")
	write(t, filepath.Join(dir, "client.conf"), "autospawn = no\n")
	s := &Server{Env: CleanEnv("XDG_RUNTIME_DIR="+run, "HOME="+home, "PULSE_SERVER=unix:"+sock,
		"PULSE_CLIENTCONFIG="+filepath.Join(dir, "client.conf"))}
	cmd := exec.Command(bin, "-n", "-F", filepath.Join(dir, "pa.pa"), "--daemonize=no",
		"--exit-idle-time=-1", "--disallow-exit", "--use-pid-file=no", "--log-target=stderr",
		// Real-time scheduling where allowed (root on CI containers): the
		// test machine is shared and a starved server underruns.
		"--high-priority=yes", "--realtime=yes")
	cmd.Env = s.Env
	var log syncBuf
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start pulseaudio: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	deadline := time.Now().Add(15 * time.Second)
	for {
		c := exec.Command("pactl", "info")
		c.Env = s.Env
		if c.Run() == nil {
			return s
		}
		select {
		case <-exited:
			t.Fatalf("pulseaudio exited:\n%s", log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("pulseaudio did not come up:\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond) // polling a condition with a deadline
	}
}

// CleanEnv is os.Environ without the machine's audio routing and locale,
// with LANG=C.UTF-8 (Fyne and the tools then behave the same everywhere),
// plus kv.
func CleanEnv(kv ...string) []string {
	var env []string
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		switch {
		case strings.HasPrefix(k, "PULSE_"), k == "XDG_RUNTIME_DIR", k == "HOME", k == "ALSA_CONFIG_PATH", k == "LANG", k == "LC_ALL":
			continue
		}
		env = append(env, e)
	}
	return append(append(env, "LANG=C.UTF-8"), kv...)
}

func write(t testing.TB, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// PlayerPriority is the command prefix a process that plays into a
// recorded sink runs under, like a media player: nice -n -10 (nice is per
// thread on Linux and inherited at creation, so every thread of it), when
// the test runs as root and may give it; nil otherwise. A player starved
// by the test's own load underruns, and the sink records the silence the
// recordings are judged on, however right the player is.
func PlayerPriority() []string {
	nice, err := exec.LookPath("nice")
	if err != nil || os.Geteuid() != 0 {
		return nil
	}
	return []string{nice, "-n", "-10"}
}
