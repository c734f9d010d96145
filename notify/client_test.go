package notify

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/engine"
)

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

// startBus runs a private session bus and returns its address.
func startBus(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("dbus-daemon is required on CI: %v", err)
		}
		t.Skipf("dbus-daemon not installed: %v", err)
	}
	dir, err := os.MkdirTemp("", "notify-bus-")
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
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("dbus-daemon did not start")
	}
	return ""
}

func connect(t *testing.T, addr string) *dbus.Conn {
	t.Helper()
	c, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// daemon is a notification service for tests: it records each Notify.
type daemon struct {
	mu     sync.Mutex
	caps   []string
	got    []received
	nextID uint32
}

type received struct {
	AppName          string
	ReplacesID, ID   uint32
	Icon, Sum, Body  string
	ImagePath, Entry string
}

func (d *daemon) GetCapabilities() ([]string, *dbus.Error) { return d.caps, nil }

func (d *daemon) Notify(appName string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := replaces
	if id == 0 {
		d.nextID++
		id = d.nextID
	}
	r := received{AppName: appName, ReplacesID: replaces, ID: id, Icon: icon, Sum: summary, Body: body}
	if v, ok := hints["image-path"]; ok {
		r.ImagePath, _ = v.Value().(string)
	}
	if v, ok := hints["desktop-entry"]; ok {
		r.Entry, _ = v.Value().(string)
	}
	d.got = append(d.got, r)
	return id, nil
}

func (d *daemon) received() []received {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]received(nil), d.got...)
}

// serveDaemon runs the test service on the bus at addr.
func serveDaemon(t *testing.T, addr string, caps ...string) *daemon {
	t.Helper()
	c := connect(t, addr)
	d := &daemon{caps: caps}
	if err := c.Export(d, ObjectPath, iface); err != nil {
		t.Fatal(err)
	}
	if r, err := c.RequestName(BusName, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", BusName, r, err)
	}
	return d
}

func status(id, title string, index int, playing, here bool) app.Status {
	owner := engine.DeviceID("dev_other")
	if here {
		owner = "dev_self"
	}
	return app.Status{DeviceID: "dev_self", Owner: owner, Playing: playing, Index: index,
		Track: &app.QueueItem{ContentID: id, Title: title, Artists: []string{"Radiohead"}, Album: "Kid A"}}
}

// Issue 39: a notification service on a private session bus receives one
// notification per track change, with the title, "artist — album" and
// the cover, each replacing the one before; none while the window has the
// focus, or while another device plays.
func TestOneNotificationPerTrackChange(t *testing.T) {
	addr := startBus(t)
	d := serveDaemon(t, addr, "body", "body-markup")
	focused := false
	f := &Follower{
		Settings: func() Settings { return Settings{On: true} },
		Focused:  func() bool { return focused },
		Cover: func(id string) string {
			if id == "b3:1" {
				return "file:///covers/kida.png"
			}
			return ""
		},
		Show: NewClient(connect(t, addr)).Show,
	}
	f.Status(status("b3:1", "Everything In Its Right Place", 0, true, true))
	f.Status(status("b3:1", "Everything In Its Right Place", 0, false, true)) // paused
	f.Status(status("b3:1", "Everything In Its Right Place", 0, true, true))  // resumed
	f.Status(status("b3:2", "Kid A & <Co>", 1, true, true))
	focused = true
	f.Status(status("b3:3", "The National Anthem", 2, true, true))
	focused = false
	f.Status(status("b3:4", "How to Disappear Completely", 3, true, false)) // another device plays
	f.Status(status("b3:5", "Treefingers", 4, true, true))

	got := d.received()
	want := []received{
		{AppName: "furudesk", ReplacesID: 0, ID: 1, Icon: "file:///covers/kida.png", Sum: "Everything In Its Right Place",
			Body: "Radiohead — Kid A", ImagePath: "file:///covers/kida.png", Entry: "furudesk"},
		{AppName: "furudesk", ReplacesID: 1, ID: 1, Icon: AppIcon, Sum: "Kid A & <Co>", Body: "Radiohead — Kid A", Entry: "furudesk"},
		{AppName: "furudesk", ReplacesID: 1, ID: 1, Icon: AppIcon, Sum: "Treefingers", Body: "Radiohead — Kid A", Entry: "furudesk"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("received\n%+v\nwant\n%+v", got, want)
	}
}

// A body with markup characters is escaped for a service that reads
// markup, and left as it is for one that does not.
func TestBodyMarkupIsEscapedOnlyWhereItIsRead(t *testing.T) {
	for _, c := range []struct {
		caps []string
		want string
	}{{[]string{"body-markup"}, "Simon &amp; Garfunkel — Bookends"}, {[]string{"body"}, "Simon & Garfunkel — Bookends"}} {
		addr := startBus(t)
		d := serveDaemon(t, addr, c.caps...)
		if err := NewClient(connect(t, addr)).Show(Notification{Summary: "America", Body: "Simon & Garfunkel — Bookends", Icon: AppIcon}); err != nil {
			t.Fatal(err)
		}
		if got := d.received(); len(got) != 1 || got[0].Body != c.want {
			t.Errorf("caps %v: received %+v, want body %q", c.caps, got, c.want)
		}
	}
}

// Without a notification service, Show says so (the front end logs it
// once and goes on).
func TestNoServiceIsSaid(t *testing.T) {
	addr := startBus(t)
	err := NewClient(connect(t, addr)).Show(Notification{Summary: "x"})
	if err != ErrNoService {
		t.Fatalf("Show without a service: %v, want ErrNoService", err)
	}
}
