package mpris

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
)

// The tests in this file talk to the server as a generic D-Bus client.

func (r *rig) object(t testing.TB) dbus.BusObject {
	t.Helper()
	return connect(t, r.addr).Object(BusName, ObjectPath)
}

func get(t *testing.T, obj dbus.BusObject, iface, name string) any {
	t.Helper()
	v, err := obj.GetProperty(iface + "." + name)
	if err != nil {
		t.Fatalf("Get %s.%s: %v", iface, name, err)
	}
	return v.Value()
}

func dbusErrorName(err error) string {
	var e dbus.Error
	if errors.As(err, &e) {
		return e.Name
	}
	return fmt.Sprintf("%v", err)
}

func TestIntrospection(t *testing.T) {
	t.Parallel()
	r := newRig(t, newFakePlayer(pausedAt(0, 0)), Options{})
	var data string
	if err := r.object(t).Call(ifaceIntro+".Introspect", 0).Store(&data); err != nil {
		t.Fatal(err)
	}
	var node introspect.Node
	if err := xml.Unmarshal([]byte(data), &node); err != nil {
		t.Fatalf("introspection is not XML: %v", err)
	}
	methods := map[string][]string{}
	props := map[string][]string{}
	for _, i := range node.Interfaces {
		for _, m := range i.Methods {
			methods[i.Name] = append(methods[i.Name], m.Name)
		}
		for _, p := range i.Properties {
			props[i.Name] = append(props[i.Name], p.Name)
		}
	}
	for _, m := range []string{"Next", "Previous", "Pause", "PlayPause", "Stop", "Play", "Seek", "SetPosition", "OpenUri"} {
		if !slices.Contains(methods[ifacePlayer], m) {
			t.Errorf("introspection lacks %s.%s", ifacePlayer, m)
		}
	}
	// Every property GetAll returns is described, and the other way round.
	for _, iface := range []string{ifaceRoot, ifacePlayer} {
		var all map[string]dbus.Variant
		if err := r.object(t).Call(ifaceProps+".GetAll", 0, iface).Store(&all); err != nil {
			t.Fatal(err)
		}
		for name := range all {
			if !slices.Contains(props[iface], name) {
				t.Errorf("%s.%s is not in the introspection", iface, name)
			}
		}
		for _, name := range props[iface] {
			if _, ok := all[name]; !ok {
				t.Errorf("%s.%s is introspected but GetAll lacks it", iface, name)
			}
		}
	}
}

func TestRootInterface(t *testing.T) {
	t.Parallel()
	r := newRig(t, newFakePlayer(pausedAt(0, 0)), Options{})
	obj := r.object(t)
	for name, want := range map[string]any{
		"Identity": "furudesk", "DesktopEntry": "furudesk", "CanRaise": false, "CanQuit": false, "HasTrackList": false,
	} {
		if got := get(t, obj, ifaceRoot, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := get(t, obj, ifaceRoot, "SupportedUriSchemes"); len(got.([]string)) != 0 {
		t.Errorf("SupportedUriSchemes = %v, want none (OpenUri is not supported)", got)
	}
	// Without callbacks, Raise and Quit do nothing.
	if err := obj.Call(ifaceRoot+".Raise", 0).Err; err != nil {
		t.Errorf("Raise: %v", err)
	}

	var raised, quit atomic.Int32
	r2 := newRig(t, newFakePlayer(pausedAt(0, 0)), Options{
		Raise: func() { raised.Add(1) },
		Quit:  func() { quit.Add(1) },
	})
	obj = r2.object(t)
	if get(t, obj, ifaceRoot, "CanRaise") != true || get(t, obj, ifaceRoot, "CanQuit") != true {
		t.Errorf("CanRaise/CanQuit false with callbacks")
	}
	if err := obj.Call(ifaceRoot+".Raise", 0).Err; err != nil || raised.Load() != 1 {
		t.Errorf("Raise: err %v, raised %d times", err, raised.Load())
	}
	if err := obj.Call(ifaceRoot+".Quit", 0).Err; err != nil {
		t.Errorf("Quit: %v", err)
	}
	waitFor(t, "the Quit callback", func() bool { return quit.Load() == 1 })
}

func TestOpenUriIsNotSupported(t *testing.T) {
	t.Parallel()
	r := newRig(t, newFakePlayer(pausedAt(0, 0)), Options{})
	err := r.object(t).Call(ifacePlayer+".OpenUri", 0, "file:///music/a.mp3").Err
	if dbusErrorName(err) != errNotSupported {
		t.Errorf("OpenUri: %v, want %s", err, errNotSupported)
	}
}

func TestSetChecksNamesAndValues(t *testing.T) {
	t.Parallel()
	st := pausedAt(0, 0)
	st.Playing = true
	r := newRig(t, newFakePlayer(st), Options{})
	obj := r.object(t)
	set := func(iface, name string, v any) error {
		return obj.Call(ifaceProps+".Set", 0, iface, name, dbus.MakeVariant(v)).Err
	}
	for _, c := range []struct {
		iface, name string
		value       any
		want        string
	}{
		{ifacePlayer, "LoopStatus", "Sometimes", errInvalidArgs},
		{ifacePlayer, "LoopStatus", int32(1), errInvalidArgs},
		{ifacePlayer, "Shuffle", "yes", errInvalidArgs},
		{ifacePlayer, "Volume", "loud", errInvalidArgs},
		{ifacePlayer, "Rate", 2.0, errInvalidArgs},
		{ifacePlayer, "PlaybackStatus", "Playing", errReadOnly},
		{ifacePlayer, "Position", int64(5), errReadOnly},
		{ifaceRoot, "Identity", "other", errReadOnly},
		{ifacePlayer, "Colour", "red", errUnknownProperty},
		{"org.example.Nope", "X", true, errUnknownIface},
	} {
		if err := set(c.iface, c.name, c.value); dbusErrorName(err) != c.want {
			t.Errorf("Set %s.%s = %v: %v, want %s", c.iface, c.name, c.value, err, c.want)
		}
	}
	if got := r.fake.callLog(); len(got) != 0 {
		t.Errorf("rejected writes reached the app: %q", got)
	}
	// Rate 1 is a no-op; rate 0 pauses, as the specification says.
	if err := set(ifacePlayer, "Rate", 1.0); err != nil {
		t.Errorf("Rate 1: %v", err)
	}
	if err := set(ifacePlayer, "Rate", 0.0); err != nil {
		t.Errorf("Rate 0: %v", err)
	}
	if got := r.fake.callLog(); !slices.Equal(got, []string{"pause"}) {
		t.Errorf("app calls = %q, want [pause]", got)
	}
}

func TestAppErrorsReachTheCaller(t *testing.T) {
	t.Parallel()
	f := newFakePlayer(pausedAt(0, 0))
	f.err = errors.New("app: furudesk did not answer in time")
	r := newRig(t, f, Options{})
	obj := r.object(t)
	err := obj.Call(ifacePlayer+".Next", 0).Err
	if dbusErrorName(err) != "org.freedesktop.DBus.Error.Failed" || !strings.Contains(err.Error(), "did not answer in time") {
		t.Errorf("Next: %v, want Failed with the app's sentence", err)
	}
	err = obj.Call(ifaceProps+".Set", 0, ifacePlayer, "Volume", dbus.MakeVariant(0.3)).Err
	if err == nil || !strings.Contains(err.Error(), "did not answer in time") {
		t.Errorf("Set Volume: %v, want the app's sentence", err)
	}
}

func TestSetPositionIgnoresStaleTrackAndOutOfRange(t *testing.T) {
	t.Parallel()
	r := newRig(t, newFakePlayer(pausedAt(0, 0)), Options{})
	obj := r.object(t)
	for _, c := range []struct {
		track dbus.ObjectPath
		pos   int64
	}{
		{TrackID(testQueue()[1].ContentID), 1_000_000}, // not the current track
		{TrackID(testQueue()[0].ContentID), -1},
		{TrackID(testQueue()[0].ContentID), 180_000_001},
	} {
		if err := obj.Call(ifacePlayer+".SetPosition", 0, c.track, c.pos).Err; err != nil {
			t.Errorf("SetPosition(%s, %d): %v", c.track, c.pos, err)
		}
	}
	if err := obj.Call(ifacePlayer+".SetPosition", 0, TrackID(testQueue()[0].ContentID), int64(90_000_000)).Err; err != nil {
		t.Fatal(err)
	}
	if got := r.fake.callLog(); !slices.Equal(got, []string{"seek 1m30s"}) {
		t.Errorf("app calls = %q, want only [seek 1m30s]", got)
	}
}

// TestRemoteOwnerIsShownAndControlled documents the controller case: the
// app's status carries the owner's transport, and controls go to the app,
// which routes them to the owner. MPRIS needs nothing of its own for it.
func TestRemoteOwnerIsShownAndControlled(t *testing.T) {
	requireTools(t, "playerctl")
	t.Parallel()
	st := pausedAt(1, 5_000)
	st.Owner, st.OwnerName, st.Rendering, st.Playing, st.Volume = "dev_kitchen", "Kitchen", false, true, 35
	r := newRig(t, newFakePlayer(st), Options{})
	if got := r.playerctl(t, "status"); got != "Playing" {
		t.Errorf("status = %q, want the owner's Playing", got)
	}
	if got := r.playerctl(t, "volume"); got != "0.350000" {
		t.Errorf("volume = %q, want the owner's 0.350000", got)
	}
	r.playerctl(t, "next")
	r.eventually(t, "Third Tide", "metadata", "title")
	if got := r.fake.callLog(); !slices.Equal(got, []string{"next"}) {
		t.Errorf("app calls = %q, want [next]", got)
	}
}

func TestMetadataStringsAreMadeValid(t *testing.T) {
	requireTools(t, "playerctl")
	t.Parallel()
	st := pausedAt(0, 0)
	st.Queue[0].Title = "Bad\xff\x00Title"
	st.Queue[0].Album = strings.Repeat("é", MaxStringBytes) // 2 bytes each
	r := newRig(t, newFakePlayer(st), Options{})
	if got := r.playerctl(t, "metadata", "title"); got != "Bad\uFFFD\uFFFDTitle" {
		t.Errorf("title = %q, want the invalid bytes replaced", got)
	}
	if got := r.playerctl(t, "metadata", "album"); got != strings.Repeat("é", MaxStringBytes/2) {
		t.Errorf("album of %d bytes, want %d bytes of whole characters", len(got), MaxStringBytes)
	}
	// The bus did not drop the server's connection.
	r.playerctl(t, "play")
	r.eventually(t, "Playing", "status")
}

func TestSecondServerTakesAnInstanceName(t *testing.T) {
	requireTools(t, "playerctl")
	t.Parallel()
	r := newRig(t, newFakePlayer(pausedAt(0, 0)), Options{})
	second, err := Serve(context.Background(), connect(t, r.addr), newFakePlayer(pausedAt(2, 0)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	instance := fmt.Sprintf("%s.instance%d", BusName, os.Getpid())
	if r.srv.BusName() != BusName || second.BusName() != instance {
		t.Errorf("names %q and %q, want %q and %q", r.srv.BusName(), second.BusName(), BusName, instance)
	}
	list := strings.Fields(r.playerctl(t, "--list-all"))
	want := []string{"furudesk", strings.TrimPrefix(instance, "org.mpris.MediaPlayer2.")}
	for _, w := range want {
		if !slices.Contains(list, w) {
			t.Errorf("playerctl --list-all = %q, want %q in it", list, w)
		}
	}
}

// TestServeOnTheSessionBus: with a nil conn the server connects to
// DBUS_SESSION_BUS_ADDRESS, and ending the context removes it from the bus.
func TestServeOnTheSessionBus(t *testing.T) {
	addr := startBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	f := newFakePlayer(pausedAt(0, 0))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := Serve(ctx, nil, f, Options{})
	if err != nil {
		t.Fatalf("Serve on the session bus: %v", err)
	}
	client := connect(t, addr)
	hasOwner := func() bool {
		var has bool
		if err := client.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, BusName).Store(&has); err != nil {
			t.Fatal(err)
		}
		return has
	}
	if !hasOwner() {
		t.Fatalf("%s has no owner after Serve", BusName)
	}
	cancel()
	select {
	case <-srv.Done():
	case <-time.After(deadline):
		t.Fatal("server did not stop after its context ended")
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close after the context ended: %v", err)
	}
	waitFor(t, "the name to be released", func() bool { return !hasOwner() })
	if n := f.subscribers(); n != 0 {
		t.Errorf("%d status subscriptions left after Close", n)
	}
}

func TestLostBusStopsTheServer(t *testing.T) {
	t.Parallel()
	addr := startBus(t)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	f := newFakePlayer(pausedAt(0, 0))
	srv, err := Serve(context.Background(), conn, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	select {
	case <-srv.Done():
	case <-time.After(deadline):
		t.Fatal("server did not notice its connection closed")
	}
	_ = srv.Close() // the name cannot be released on a closed connection
	if n := f.subscribers(); n != 0 {
		t.Errorf("%d status subscriptions left after Close", n)
	}
}

func TestServeNeedsAPlayer(t *testing.T) {
	if _, err := Serve(context.Background(), nil, nil, Options{}); !errors.Is(err, ErrNoPlayer) {
		t.Errorf("Serve(nil player) = %v, want ErrNoPlayer", err)
	}
}

// BenchmarkGetAllOverTheBus is one client's GetAll of the Player
// properties through a private dbus-daemon: what a desktop widget pays.
func BenchmarkGetAllOverTheBus(b *testing.B) {
	r := newRig(b, newFakePlayer(pausedAt(0, 0)), Options{})
	obj := r.object(b)
	b.ReportAllocs()
	for b.Loop() {
		var all map[string]dbus.Variant
		if err := obj.Call(ifaceProps+".GetAll", 0, ifacePlayer).Store(&all); err != nil {
			b.Fatal(err)
		}
	}
}
