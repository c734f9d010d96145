package app

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/engine"
)

// relayOutput is the fake output as a gateway's (the web hub's browser).
type relayOutput struct{ *fakeOutput }

func (relayOutput) Relays() bool { return true }

// TestRelayOnlyReportsReachTheEngine: with a gateway's output, ticks and
// the output's cached Report never become heartbeats; only a Relayed
// event does, and an id that is not newer renews nothing.
func TestRelayOnlyReportsReachTheEngine(t *testing.T) {
	r := buildRig(t, self)
	r.out.playing = true // the cached state says "playing"
	opts := Options{Clock: r.clock, Ticks: r.ticks}
	a, err := New(opts, Deps{Store: r.store, Output: relayOutput{r.out}, Transport: r.tr})
	if err != nil {
		t.Fatal(err)
	}
	r.app = a
	t.Cleanup(func() { _ = a.Close() })
	hb := func() (h uint64) {
		r.do(func(a *actor) { h = a.e.Announcement().Heartbeat })
		return h
	}
	r.advance(10 * time.Second)
	r.audio(audio.Activity{Playing: true})
	if h := hb(); h != 0 {
		t.Fatalf("a tick or an activity event heartbeated a relayed output: %d", h)
	}
	r.audio(audio.Relayed{Source: 7, Available: true, Playing: true})
	h1 := hb()
	if h1 == 0 {
		t.Fatal("a relayed report did not reach the engine")
	}
	r.audio(audio.Relayed{Source: 7, Available: true, Playing: true})
	r.audio(audio.Relayed{Source: 3, Available: true, Playing: true})
	r.advance(5 * time.Second)
	if h := hb(); h != h1 {
		t.Fatalf("a replayed or older report, or a tick, renewed: %d -> %d", h1, h)
	}
	r.audio(audio.Relayed{Source: 8, Available: true})
	if h := hb(); h <= h1 {
		t.Fatal("a newer report did not reach the engine")
	}
}

// TestRelayStartupIsThePages: a gateway's launch is no startup intent;
// App.RequestStartup (the page opening as the output) is.
func TestRelayStartupIsThePages(t *testing.T) {
	r := buildRig(t, self)
	a, err := New(Options{Clock: r.clock, Ticks: r.ticks}, Deps{Store: r.store, Output: relayOutput{r.out}, Transport: r.tr})
	if err != nil {
		t.Fatal(err)
	}
	r.app = a
	t.Cleanup(func() { _ = a.Close() })
	owner := func() (o string) {
		r.do(func(a *actor) { o = string(a.e.Owner()) })
		return o
	}
	r.advance(10 * time.Second)
	if o := owner(); o != "" {
		t.Fatalf("the gateway's launch claimed: owner %q", o)
	}
	if err := a.RequestStartup(); err != nil {
		t.Fatal(err)
	}
	r.advance(time.Second)
	if o := owner(); o != string(self) {
		t.Fatalf("the page's startup did not claim: owner %q", o)
	}
}

// labeledOutput is a gateway's output that names the endpoint it plays
// through.
type labeledOutput struct {
	relayOutput
	label *atomic.Pointer[string]
}

func (o labeledOutput) OutputLabel() string {
	if p := o.label.Load(); p != nil {
		return *p
	}
	return ""
}

// TestRelayLabelInPickers: while the gateway plays through an endpoint,
// its snapshots name it and every device lists the gateway by that name
// (presentation only); with none, it shows as itself; a peer that sends no
// label (an old one) shows as itself.
func TestRelayLabelInPickers(t *testing.T) {
	r := buildRig(t, self, peerB)
	label := &atomic.Pointer[string]{}
	a, err := New(Options{Clock: r.clock, Ticks: r.ticks, Name: "Web hub"}, Deps{Store: r.store,
		Output: labeledOutput{relayOutput{r.out}, label}, Transport: r.tr})
	if err != nil {
		t.Fatal(err)
	}
	r.app = a
	t.Cleanup(func() { _ = a.Close() })
	row := func(id engine.DeviceID) DeviceStatus {
		for _, d := range r.app.Status().Devices {
			if d.DeviceID == id {
				return d
			}
		}
		t.Fatalf("%s not listed", id)
		return DeviceStatus{}
	}
	r.advance(10 * time.Second)
	if d := row(self); d.Output != "" || d.Shown() != "Web hub" {
		t.Fatalf("with no browser the hub shows as %q (output %q)", d.Shown(), d.Output)
	}
	l := "Linux · Chrome"
	label.Store(&l)
	if err := a.RequestStartup(); err != nil {
		t.Fatal(err)
	}
	r.advance(5 * time.Second)
	st := r.app.Status()
	if d := row(self); d.Shown() != "Linux · Chrome (via Web hub)" || st.OwnerName != d.Shown() {
		t.Fatalf("the hub plays in a browser, shown as %q, owner %q", d.Shown(), st.OwnerName)
	}
	if s := string(r.tr.lastSnap().State); !strings.Contains(s, `"output":"Linux · Chrome"`) {
		t.Fatalf("the snapshot %s does not name the browser", s)
	}
	label.Store(nil)
	r.advance(time.Second)
	if d := row(self); d.Shown() != "Web hub" {
		t.Fatalf("the browser closed, the hub still shows as %q", d.Shown())
	}

	// A peer's label: listed while its snapshots carry it, cleaned.
	owner := engine.Claim{Counter: 50, Issuer: peerB, Owner: peerB}
	r.announce(peerB, owner, 1, true, &PlayerState{Output: "Android\x07 · Firefox", Volume: 50, Repeat: "off"})
	if d := row(peerB); d.Output != "Android · Firefox" {
		t.Fatalf("the peer's browser listed as %q", d.Output)
	}
	r.announce(peerB, owner, 2, true, &PlayerState{Volume: 50, Repeat: "off"})
	if d := row(peerB); d.Output != "" {
		t.Fatalf("the peer sent no label, its row says %q", d.Output)
	}
}
