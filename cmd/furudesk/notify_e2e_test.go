//go:build linux || freebsd || openbsd || netbsd || dragonfly

package main

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/furudesk/furudesk/notify"
)

// notifyDaemon is the desktop's notification service for the test: it
// records what each Notify shows.
type notifyDaemon struct {
	mu  sync.Mutex
	got []string // "id replaces: summary | body"
}

func (d *notifyDaemon) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (d *notifyDaemon) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.got = append(d.got, summary+" | "+body)
	return 7, nil
}

func (d *notifyDaemon) summaries() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, s := range d.got {
		out = append(out, strings.SplitN(s, " | ", 2)[0])
	}
	return out
}

// Issue 39: the real window (openbox on Xvfb) tells a notification
// service on its session bus of each track that starts while the window
// is not in front, and of none while it is.
func TestTrackChangeNotificationsFromTheWindow(t *testing.T) {
	dt := startDesktop(t, "1280x800x24")
	x := dt.xwin
	addr := startSessionBus(t)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	d := &notifyDaemon{}
	if err := conn.Export(d, notify.ObjectPath, notify.BusName); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName(notify.BusName, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", notify.BusName, r, err)
	}
	env := slices.DeleteFunc(slices.Clone(dt.env), func(e string) bool { return strings.HasPrefix(e, "DBUS_SESSION_BUS_ADDRESS=") })
	env = append(env, "DBUS_SESSION_BUS_ADDRESS="+addr)
	x.env = env

	root := t.TempDir()
	dir := filepath.Join(root, "data")
	var files []string
	for i, name := range []string{"alpha.wav", "beta.wav", "gamma.wav"} {
		p := filepath.Join(root, name)
		writeTrack(t, p, i)
		files = append(files, p)
	}
	n := &node{t: t, name: "window", dir: dir, env: env, args: []string{"--data-dir", dir, "--mdns=false", "--listen", "127.0.0.1:0"}}
	n.start()
	t.Cleanup(func() { n.stop(false) })
	win := x.window(n)
	focus := func(want bool) {
		t.Helper()
		waitFor(t, 20*time.Second, "the window's focus to be "+map[bool]string{true: "on", false: "off"}[want], func() bool {
			return (x.focused() == win) == want
		})
		n.ctl("window") // a round trip through the window's loop, after the focus event
	}
	playing := func(title string) {
		t.Helper()
		waitFor(t, 20*time.Second, title+" playing", func() bool {
			st := n.status()
			return st.Playing && st.Track != nil && st.Track.Title == title
		})
	}

	x.run("xdotool", "windowactivate", "--sync", win)
	focus(true)
	n.ctl(append([]string{"open"}, files...)...) // in front: alpha is not announced
	playing("alpha")
	x.run("xdotool", "windowminimize", "--sync", win)
	focus(false)
	n.ctl("next")
	playing("beta")
	waitFor(t, 20*time.Second, "the notification of beta", func() bool {
		return len(d.summaries()) > 0
	})
	x.run("xdotool", "windowactivate", "--sync", win)
	focus(true)
	n.ctl("next") // in front: gamma is not announced
	playing("gamma")
	x.run("xdotool", "windowminimize", "--sync", win)
	focus(false)
	n.ctl("jump", "1")
	playing("beta")
	waitFor(t, 20*time.Second, "the second notification", func() bool { return len(d.summaries()) > 1 })
	if got := d.summaries(); !slices.Equal(got, []string{"beta", "beta"}) {
		t.Errorf("notifications %q, want beta twice (alpha and gamma started with the window in front)", got)
	}
}
