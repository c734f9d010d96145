//go:build linux

package main

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// The window is driven as a user would: xdotool clicks and types into it
// (it sits at 0,0 under Xvfb, without a window manager), python3-xlib
// closes it (WM_DELETE_WINDOW, what a window manager's close button
// sends).

// Where things are in furudesk's window (1180×760): the sidebar's pages
// and the middle of the list or grid.
var pageY = map[string]int{"Artists": 75, "Albums": 114, "Tracks": 152, "Playlists": 191, "Queue": 230,
	"Devices": 270, "Settings": 309}

const (
	sidebarX = 60
	bodyX    = 690
	bodyY    = 380
)

func xdo(args ...string) error {
	out, err := exec.Command("xdotool", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("xdotool %v: %v: %s", args, err, out)
	}
	return nil
}

// windowID finds furudesk's window.
func windowID() (string, error) {
	out, err := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^furudesk$").Output()
	if err != nil {
		return "", fmt.Errorf("no visible furudesk window")
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return "", fmt.Errorf("no visible furudesk window")
	}
	return f[0], nil
}

func click(x, y int) error {
	return xdo("mousemove", strconv.Itoa(x), strconv.Itoa(y), "click", "1")
}

func showPage(name string) error { return click(sidebarX, pageY[name]) }

// wheel turns the wheel n notches down (n > 0) or up over (x, y).
func wheel(x, y, n int) error {
	if n == 0 {
		return nil
	}
	button := "5"
	if n < 0 {
		button, n = "4", -n
	}
	return xdo("mousemove", strconv.Itoa(x), strconv.Itoa(y), "click", "--repeat", strconv.Itoa(n), "--delay", "15", button)
}

// typeSearch types q into the search field (Ctrl+F) a key at a time, as
// a user does, then empties it again.
func typeSearch(q string) error {
	if err := xdo("key", "ctrl+f"); err != nil {
		return err
	}
	if err := xdo("type", "--delay", "90", q); err != nil {
		return err
	}
	time.Sleep(700 * time.Millisecond)
	return xdo("key", "ctrl+a", "BackSpace")
}

// closeWindow asks the window to close, as a window manager's close
// button does.
func closeWindow(id string) error {
	script := `import sys
from Xlib import display, X, protocol
d = display.Display()
w = d.create_resource_object('window', int(sys.argv[1]))
proto, delete = d.intern_atom('WM_PROTOCOLS'), d.intern_atom('WM_DELETE_WINDOW')
ev = protocol.event.ClientMessage(window=w, client_type=proto, data=(32, [delete, X.CurrentTime, 0, 0, 0]))
w.send_event(ev, event_mask=X.NoEventMask)
d.flush()
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, id).CombinedOutput()
	if err != nil {
		return fmt.Errorf("closing the window: %v: %s", err, out)
	}
	return nil
}

// trayHost is the desktop's tray host (a StatusNotifierWatcher on the
// session bus), so furudesk shows a tray icon and closing its window
// hides it to the tray.
type trayHost struct{ conn *dbus.Conn }

func (trayHost) RegisterStatusNotifierItem(string, dbus.Sender) *dbus.Error { return nil }
func (trayHost) RegisterStatusNotifierHost(string) *dbus.Error              { return nil }

func startTrayHost() (*trayHost, error) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, err
	}
	h := &trayHost{conn: conn}
	if err := conn.Export(h, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		return nil, err
	}
	r, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue)
	if err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		return nil, fmt.Errorf("own org.kde.StatusNotifierWatcher: %v %v", r, err)
	}
	return h, nil
}

// windowListed waits for the window's log line saying it lists n tracks
// or more (furudesk -v), from line k on.
func windowListed(p *proc, k int, n int, limit time.Duration) (time.Time, int, error) {
	deadline := time.Now().Add(limit)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return time.Time{}, k, fmt.Errorf("the window did not list %d tracks within %v", n, limit)
		}
		l, k2, err := p.waitLog(k, left, "window lists the library")
		if err != nil {
			return time.Time{}, k2, err
		}
		k = k2
		if i := strings.Index(l.text, "tracks="); i >= 0 {
			got, _ := strconv.Atoi(strings.Fields(l.text[i+len("tracks="):])[0])
			if got >= n {
				return l.at, k, nil
			}
		}
	}
}

// probeScript drives and watches the window through the X server itself
// (python3-xlib): it grabs a small rectangle every few milliseconds, so
// it times what appears on screen far closer than a screenshot tool can.
//
//	click X Y W H RX RY  click at (X,Y); print the milliseconds until the
//	                     W×H rectangle at (RX,RY) changes
//	wheel X Y N W H RX RY turn the wheel N notches down at (X,Y); print
//	                     the milliseconds from the last notch until the
//	                     rectangle shows its final picture (unchanged for
//	                     300 ms)
const probeScript = `import sys, time, hashlib
from Xlib import display, X
from Xlib.ext import xtest
d = display.Display()
root = d.screen().root
def grab(w, h, x, y):
    return hashlib.sha1(root.get_image(x, y, w, h, X.ZPixmap, 0xffffffff).data).digest()
mode = sys.argv[1]
a = [int(v) for v in sys.argv[2:]]
if mode == 'click':
    x, y, w, h, rx, ry = a
    base = grab(w, h, rx, ry)
    xtest.fake_input(d, X.MotionNotify, x=x, y=y)
    xtest.fake_input(d, X.ButtonPress, 1); xtest.fake_input(d, X.ButtonRelease, 1)
    d.sync()
    t0 = time.monotonic()
    while time.monotonic() - t0 < 10:
        if grab(w, h, rx, ry) != base:
            print(int((time.monotonic() - t0) * 1000)); sys.exit(0)
        time.sleep(0.003)
    print(-1)
elif mode == 'wheel':
    x, y, n, w, h, rx, ry = a
    xtest.fake_input(d, X.MotionNotify, x=x, y=y); d.sync()
    for i in range(n):
        xtest.fake_input(d, X.ButtonPress, 5); xtest.fake_input(d, X.ButtonRelease, 5); d.sync()
        time.sleep(0.01)
    last = time.monotonic()
    cur, since = grab(w, h, rx, ry), time.monotonic()
    while time.monotonic() - last < 30:
        g = grab(w, h, rx, ry)
        now = time.monotonic()
        if g != cur:
            cur, since = g, now
        elif now - since >= 0.3:
            print(int(max(0, since - last) * 1000)); sys.exit(0)
        time.sleep(0.003)
    print(-1)
`

// probe runs probeScript and returns the time it printed.
func probe(args ...string) (time.Duration, error) {
	out, err := exec.Command("/usr/bin/python3", append([]string{"-c", probeScript}, args...)...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("probe %v: %v: %s", args, err, out)
	}
	ms, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || ms < 0 {
		return 0, fmt.Errorf("probe %v: %q", args, out)
	}
	return time.Duration(ms) * time.Millisecond, nil
}
