package app

import (
	"testing"
	"time"

	"github.com/furudesk/furudesk/audio"
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
