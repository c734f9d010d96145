package mpris

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// deadline bounds every wait on the bus, playerctl or a condition.
const deadline = 30 * time.Second

// requireTools skips the test when a tool is missing, and fails it in CI,
// where the tools are installed on purpose (Debian packages dbus, playerctl).
func requireTools(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (CI must install the Debian packages dbus and playerctl): %v", tool, err)
			}
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
}

const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// startBus runs a private session bus for the test and returns its
// address. The daemon prints its address once it listens.
func startBus(t testing.TB) string {
	t.Helper()
	requireTools(t, "dbus-daemon")
	// A short directory: a unix socket path has about 100 bytes.
	dir, err := os.MkdirTemp("", "mpris-bus-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	conf := filepath.Join(dir, "session.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, busConfig, filepath.Join(dir, "bus")), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("dbus-daemon", "--config-file="+conf, "--nofork", "--print-address")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case a := <-addr:
		if a == "" {
			t.Fatalf("dbus-daemon printed no address; stderr: %s", stderr.String())
		}
		return a
	case <-time.After(deadline):
		t.Fatalf("dbus-daemon did not start within %v", deadline)
	}
	return ""
}

// connect opens a client connection to the bus at addr.
func connect(t testing.TB, addr string) *dbus.Conn {
	t.Helper()
	c, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// rig is a server for a fake player on a private bus.
type rig struct {
	addr  string
	fake  *fakePlayer
	clock *fakeClock
	srv   *Server
}

// newRig serves f on a new private bus with a fake clock (unless opts
// has a clock).
func newRig(t testing.TB, f *fakePlayer, opts Options) *rig {
	t.Helper()
	r := &rig{addr: startBus(t), fake: f, clock: &fakeClock{}}
	if opts.Now == nil {
		opts.Now = r.clock.Now
	}
	srv, err := Serve(context.Background(), connect(t, r.addr), f, opts)
	if err != nil {
		t.Fatalf("Serve: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	r.srv = srv
	return r
}

// playerctl runs the real playerctl against the rig's bus and returns its
// trimmed output; it fails the test when playerctl fails.
func (r *rig) playerctl(t *testing.T, args ...string) string {
	t.Helper()
	out, err := r.playerctlErr(args...)
	if err != nil {
		t.Fatalf("playerctl %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return out
}

func (r *rig) playerctlErr(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, "playerctl", append([]string{"--player=furudesk"}, args...)...)
	cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS="+r.addr)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// eventually polls playerctl until its output is want or the deadline
// passes: the server applies a status on its own goroutine.
func (r *rig) eventually(t *testing.T, want string, args ...string) {
	t.Helper()
	var got string
	end := time.Now().Add(deadline)
	for time.Now().Before(end) {
		out, err := r.playerctlErr(args...)
		if err == nil && out == want {
			return
		}
		got = out
		time.Sleep(20 * time.Millisecond) // polling interval, not a wait for an effect
	}
	t.Fatalf("playerctl %s = %q, want %q (after %v)", strings.Join(args, " "), got, want, deadline)
}

// waitFor polls cond until true or the deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out after %v waiting for %s", deadline, what)
		}
		time.Sleep(5 * time.Millisecond) // polling interval
	}
}
