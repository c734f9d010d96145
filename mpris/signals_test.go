package mpris

import (
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/godbus/dbus/v5"
)

// watch subscribes a new client of the rig's bus to the signals of the
// MPRIS object.
func (r *rig) watch(t *testing.T) <-chan *dbus.Signal {
	t.Helper()
	c := connect(t, r.addr)
	if err := c.AddMatchSignal(dbus.WithMatchObjectPath(ObjectPath)); err != nil {
		t.Fatalf("AddMatchSignal: %v", err)
	}
	ch := make(chan *dbus.Signal, 64)
	c.Signal(ch)
	return ch
}

// nextSignal is the next signal from the MPRIS object.
func nextSignal(t *testing.T, ch <-chan *dbus.Signal) *dbus.Signal {
	t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case s := <-ch:
			if s.Path == ObjectPath {
				return s
			}
		case <-timeout:
			t.Fatalf("no signal within %v", deadline)
		}
	}
}

// changedProps checks s is PropertiesChanged of the Player interface and
// returns the changed properties.
func changedProps(t *testing.T, s *dbus.Signal) map[string]dbus.Variant {
	t.Helper()
	if s.Name != ifaceProps+".PropertiesChanged" || len(s.Body) != 3 {
		t.Fatalf("signal %s %v, want PropertiesChanged", s.Name, s.Body)
	}
	if iface, _ := s.Body[0].(string); iface != ifacePlayer {
		t.Fatalf("PropertiesChanged for %q, want %s", s.Body[0], ifacePlayer)
	}
	if inv, _ := s.Body[2].([]string); len(inv) != 0 {
		t.Errorf("invalidated properties %v, want none", inv)
	}
	ch, ok := s.Body[1].(map[string]dbus.Variant)
	if !ok {
		t.Fatalf("changed properties of type %T", s.Body[1])
	}
	if _, ok := ch["Position"]; ok {
		t.Errorf("PropertiesChanged carries Position; the specification forbids it")
	}
	return ch
}

// applied waits until the server shows a status for which cond holds, so
// a test knows a status was processed even when it signalled nothing.
func (r *rig) applied(t *testing.T, what string, cond func(st app.Status) bool) {
	t.Helper()
	waitFor(t, what, func() bool {
		v, _ := r.srv.snapshot()
		return cond(v.st)
	})
}

func keys(m map[string]dbus.Variant) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

func TestPropertiesChangedOnStatusChange(t *testing.T) {
	t.Parallel()
	r := newRig(t, newFakePlayer(pausedAt(0, 0)), Options{})
	sigs := r.watch(t)

	// A status that changes no MPRIS property signals nothing: the next
	// signal is the one of the change after it.
	r.fake.set(func(st *app.Status) { st.DeviceName = "Desk"; st.Scan.Done = 3 })
	r.applied(t, "the device name", func(st app.Status) bool { return st.DeviceName == "Desk" })

	r.fake.set(func(st *app.Status) { st.Playing = true })
	ch := changedProps(t, nextSignal(t, sigs))
	if len(ch) != 1 || ch["PlaybackStatus"].Value() != "Playing" {
		t.Errorf("changed %v, want only PlaybackStatus=Playing", ch)
	}

	// A new track: the metadata, and what can be done with it.
	r.fake.set(func(st *app.Status) { st.Index = 2; st.Track = &st.Queue[2] })
	ch = changedProps(t, nextSignal(t, sigs))
	meta, _ := ch["Metadata"].Value().(map[string]dbus.Variant)
	if meta["xesam:title"].Value() != "Third Tide" || meta["mpris:length"].Value() != int64(240_000_000) {
		t.Errorf("Metadata %v, want Third Tide of 240 s", meta)
	}
	if got := keys(ch); len(got) != 2 || !got["Metadata"] || !got["CanGoNext"] {
		t.Errorf("changed %v, want Metadata and CanGoNext (last track)", got)
	}

	// Changes made through playerctl come back as signals too.
	requireTools(t, "playerctl")
	r.playerctl(t, "volume", "0.5")
	ch = changedProps(t, nextSignal(t, sigs))
	if len(ch) != 1 || ch["Volume"].Value() != 0.5 {
		t.Errorf("changed %v, want only Volume=0.5", ch)
	}
	r.playerctl(t, "shuffle", "On")
	r.playerctl(t, "loop", "Track")
	ch = changedProps(t, nextSignal(t, sigs))
	if len(ch) != 1 || ch["Shuffle"].Value() != true {
		t.Errorf("changed %v, want only Shuffle=true", ch)
	}
	ch = changedProps(t, nextSignal(t, sigs))
	if len(ch) != 1 || ch["LoopStatus"].Value() != "Track" {
		t.Errorf("changed %v, want only LoopStatus=Track", ch)
	}

	// The queue emptied: stopped, nothing to play.
	r.fake.set(func(st *app.Status) { st.Queue, st.QueueLen, st.Track, st.Playing = nil, 0, nil, false })
	ch = changedProps(t, nextSignal(t, sigs))
	if ch["PlaybackStatus"].Value() != "Stopped" || ch["CanPlay"].Value() != false {
		t.Errorf("changed %v, want Stopped and CanPlay=false", ch)
	}
	if meta, _ := ch["Metadata"].Value().(map[string]dbus.Variant); len(meta) != 0 {
		t.Errorf("Metadata without a track = %v, want empty", meta)
	}
}

func TestSeekedWhenThePositionJumps(t *testing.T) {
	t.Parallel()
	st := pausedAt(0, 10_000)
	st.Playing = true
	r := newRig(t, newFakePlayer(st), Options{})
	sigs := r.watch(t)

	// Normal progress: 2 s later at 12 s. No Seeked.
	r.clock.Advance(2 * time.Second)
	r.fake.set(func(st *app.Status) { st.PositionMS = 12_000 })
	r.applied(t, "position 12 s", func(st app.Status) bool { return st.PositionMS == 12_000 })
	// Paused there: no jump either.
	r.fake.set(func(st *app.Status) { st.Playing = false; st.PositionMS = 12_100 })
	if ch := changedProps(t, nextSignal(t, sigs)); len(ch) != 1 || ch["PlaybackStatus"].Value() != "Paused" {
		t.Errorf("changed %v, want only PlaybackStatus=Paused", ch)
	}

	// Seeked elsewhere (the window, another device): Seeked with the new
	// position in µs.
	r.fake.set(func(st *app.Status) { st.PositionMS = 60_000 })
	s := nextSignal(t, sigs)
	if s.Name != ifacePlayer+".Seeked" || len(s.Body) != 1 || s.Body[0] != int64(60_000_000) {
		t.Fatalf("signal %s %v, want Seeked 60000000", s.Name, s.Body)
	}

	// A new track starting at 0 is not a seek: its signal is the metadata.
	r.fake.set(func(st *app.Status) { st.Index, st.PositionMS = 1, 0; st.Track = &st.Queue[1] })
	if ch := changedProps(t, nextSignal(t, sigs)); ch["Metadata"].Value() == nil {
		t.Errorf("changed %v, want Metadata", ch)
	}

	// A seek from playerctl.
	requireTools(t, "playerctl")
	r.playerctl(t, "position", "30")
	s = nextSignal(t, sigs)
	if s.Name != ifacePlayer+".Seeked" || s.Body[0] != int64(30_000_000) {
		t.Fatalf("signal %s %v, want Seeked 30000000", s.Name, s.Body)
	}
}
