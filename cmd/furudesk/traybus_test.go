//go:build linux || freebsd || openbsd || netbsd || dragonfly

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/furudesk/furudesk/internal/pulsetest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// startSessionBus starts a private dbus-daemon and returns its address.
func startSessionBus(t *testing.T) string {
	t.Helper()
	bin := needTool(t, "dbus-daemon")
	cmd := exec.Command(bin, "--session", "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuf
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	exited := make(chan struct{})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	select {
	case a := <-line:
		if a == "" {
			t.Fatalf("dbus-daemon printed no address:\n%s", log.String())
		}
		return a
	case <-time.After(20 * time.Second):
		t.Fatalf("dbus-daemon did not start:\n%s", log.String())
	}
	return ""
}

// fakeWatcher is the desktop's tray host (StatusNotifierWatcher): it
// records which bus connection registered a tray item.
type fakeWatcher struct{ items chan string }

func (w *fakeWatcher) RegisterStatusNotifierItem(service string, sender dbus.Sender) *dbus.Error {
	select {
	case w.items <- string(sender):
	default:
	}
	return nil
}

// menuEntry is one item of a dbusmenu layout.
type menuEntry struct {
	id       int32
	label    string
	enabled  bool
	toggled  bool
	children []menuEntry
}

func parseLayout(v []any) (menuEntry, error) {
	if len(v) != 3 {
		return menuEntry{}, fmt.Errorf("layout of %d fields", len(v))
	}
	e := menuEntry{enabled: true}
	e.id, _ = v[0].(int32)
	props, _ := v[1].(map[string]dbus.Variant)
	if l, ok := props["label"]; ok {
		e.label, _ = l.Value().(string)
	}
	if en, ok := props["enabled"]; ok {
		e.enabled, _ = en.Value().(bool)
	}
	if ts, ok := props["toggle-state"]; ok {
		n, _ := ts.Value().(int32)
		e.toggled = n == 1
	}
	kids, _ := v[2].([]dbus.Variant)
	for _, k := range kids {
		kv, _ := k.Value().([]any)
		c, err := parseLayout(kv)
		if err != nil {
			return e, err
		}
		e.children = append(e.children, c)
	}
	return e, nil
}

func (e menuEntry) find(label string) (menuEntry, bool) {
	for _, c := range e.children {
		if c.label == label {
			return c, true
		}
	}
	return menuEntry{}, false
}

func (e menuEntry) labels() []string {
	var l []string
	for _, c := range e.children {
		l = append(l, c.label)
	}
	return l
}

// The real binary's tray, read and clicked over D-Bus the way a desktop
// panel does (com.canonical.dbusmenu on a private session bus with a
// fake tray host): it shows the playing track and this device checked in
// "Play on…", Next skips, and Quit ends furudesk with status 0. MPRIS on
// the same bus raises the window.
func TestTrayMenuOnTheSessionBus(t *testing.T) {
	needE2E(t)
	display := startXvfb(t)
	addr := startSessionBus(t)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w := &fakeWatcher{items: make(chan string, 1)}
	if err := conn.Export(w, "/StatusNotifierWatcher", statusNotifierWatcher); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName(statusNotifierWatcher, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", statusNotifierWatcher, r, err)
	}

	root := t.TempDir()
	dir, home, run := filepath.Join(root, "data"), filepath.Join(root, "home"), filepath.Join(root, "run")
	for _, d := range []string{home, run} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := pulsetest.CleanEnv("DISPLAY="+display, "HOME="+home, "XDG_RUNTIME_DIR="+run, "LANG=C.UTF-8",
		"DBUS_SESSION_BUS_ADDRESS="+addr)
	n := &node{t: t, name: "tray", dir: dir, env: env, args: []string{"--data-dir", dir, "--mdns=false", "--listen", "127.0.0.1:0"}}
	n.start()
	t.Cleanup(func() { n.stop(false) })

	var item string
	select {
	case item = <-w.items:
	case <-time.After(30 * time.Second):
		t.Fatalf("furudesk registered no tray item:\n%s", n.log.String())
	}

	n.ctl("demo")
	var tracks []struct {
		ContentID string `json:"content_id"`
	}
	waitFor(t, 60*time.Second, "the demo library", func() bool {
		return json.Unmarshal(n.ctl("tracks"), &tracks) == nil && len(tracks) >= 2 && !n.status().Scan.Running
	})
	var ids []string
	for _, tr := range tracks {
		ids = append(ids, tr.ContentID)
	}
	n.ctl(append([]string{"play"}, ids...)...)
	st := n.status()
	want := trayTrackLabel(st)

	menu := conn.Object(item, "/StatusNotifierMenu")
	tryLayout := func() (menuEntry, error) {
		call := menu.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
		if call.Err != nil {
			return menuEntry{}, fmt.Errorf("GetLayout: %w", call.Err)
		}
		if len(call.Body) != 2 {
			return menuEntry{}, fmt.Errorf("GetLayout answered %d values", len(call.Body))
		}
		raw, _ := call.Body[1].([]any)
		return parseLayout(raw)
	}
	layout := func() menuEntry {
		e, err := tryLayout()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	// click clicks the menu's item labelled label until done. Ids change
	// when the menu is rebuilt, and a click on an id of the menu before (a
	// status change between reading the layout and the click) is lost
	// without an error: it clicks again, on the menu's current item.
	click := func(label string, done func() bool) {
		t.Helper()
		for try := 0; !done(); try++ {
			if try == 3 {
				t.Fatalf("%s in the tray did nothing after %d clicks:\n%s", label, try, n.log.String())
			}
			m, err := tryLayout()
			if err != nil && done() {
				return // it quit between the check and the question
			} else if err != nil {
				t.Fatal(err)
			}
			item, ok := m.find(label)
			if !ok {
				t.Fatalf("no %s in %q", label, m.labels())
			}
			if call := menu.Call("com.canonical.dbusmenu.Event", 0, item.id, "clicked", dbus.MakeVariant(""), uint32(0)); call.Err != nil && !done() {
				t.Fatal(call.Err)
			}
			for deadline := time.Now().Add(10 * time.Second); !done() && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond) // polling a condition with a deadline
			}
		}
	}
	var m menuEntry
	waitFor(t, 20*time.Second, "the tray to show "+want, func() bool {
		m = layout()
		_, cur := m.find(want)
		_, pause := m.find("Pause")
		return cur && pause
	})
	if cur, _ := m.find(want); cur.enabled {
		t.Errorf("the current track %q is a clickable item", want)
	}
	playOn, ok := m.find("Play on…")
	if !ok {
		t.Fatalf("no Play on… in %q", m.labels())
	}
	self, ok := playOn.find(st.DeviceName + " (this device)")
	if !ok || !self.toggled {
		t.Errorf("Play on… %q: want this device, checked as the player (got %+v)", playOn.labels(), self)
	}

	click("Next", func() bool { return n.status().Index >= 1 })
	waitFor(t, 20*time.Second, "the tray to follow the track", func() bool {
		_, ok := layout().find(trayTrackLabel(n.status()))
		return ok
	})

	// MPRIS on the same bus: Raise shows the window.
	if call := conn.Object("org.mpris.MediaPlayer2.furudesk", "/org/mpris/MediaPlayer2").Call("org.mpris.MediaPlayer2.Raise", 0); call.Err != nil {
		t.Fatalf("MPRIS Raise: %v", call.Err)
	}
	waitFor(t, 20*time.Second, "MPRIS Raise to show the window", func() bool {
		return strings.Contains(n.log.String(), `msg="window raised" by=mpris`)
	})

	click("Quit", func() bool {
		select {
		case <-n.exited:
			return true
		default:
			return false
		}
	})
	if code := n.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("furudesk exited %d after Quit:\n%s", code, n.log.String())
	}
	n.cmd = nil
}
