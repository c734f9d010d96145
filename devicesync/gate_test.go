package devicesync

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func arriveOK(t *testing.T, g *gate, source string, member bool, now time.Time, evicted *[]string) *ticket {
	t.Helper()
	tk, reason := g.arrive(source, member, now, func() { *evicted = append(*evicted, source) })
	if tk == nil {
		t.Fatalf("%s refused: %s", source, reason)
	}
	return tk
}

// Outsiders share a small budget, a few per source; when it is full a
// newcomer evicts an outsider that has not proven it knows an invite secret
// and has had its time to (the oldest of the address holding the most),
// else it is refused. Members' handshakes from their addresses, strangers
// pairing from those addresses, and members' connections do not count
// against it.
func TestGateKeepsOutsidersApartFromMembers(t *testing.T) {
	g := newGate()
	now := fakeNow()
	var evicted []string
	var own []*ticket
	for range maxOutsidersPerSource {
		own = append(own, arriveOK(t, g, "10.0.0.1", false, now, &evicted))
	}
	if tk, _ := g.arrive("10.0.0.1", false, now, func() {}); tk != nil {
		t.Fatal("a source got more than its share")
	}
	first := own[0]
	first.verify()
	for i := 0; len(g.outsiders) < maxOutsiders; i++ {
		arriveOK(t, g, fmt.Sprintf("10.0.1.%d", i/maxOutsidersPerSource), false, now, &evicted)
	}
	if tk, _ := g.arrive("10.0.9.9", false, now.Add(minEvictAge/2), func() {}); tk != nil || len(evicted) != 0 {
		t.Fatal("a newcomer evicted one that had no time to ask to pair")
	}
	arriveOK(t, g, "10.0.9.9", false, now.Add(minEvictAge), &evicted)
	if len(evicted) != 1 || evicted[0] != "10.0.0.1" || first.released || !own[1].released {
		t.Fatalf("evicted %v; the verified requester released: %v; the oldest unverified released: %v", evicted, first.released, own[1].released)
	}
	// The newcomer from an address of its own outlasts the ones from
	// addresses that hold several slots.
	for i := range 8 {
		arriveOK(t, g, fmt.Sprintf("10.0.2.%d", i), false, now.Add(2*minEvictAge), &evicted)
	}
	if g.perSource["10.0.9.9"] != 1 || slices.Contains(evicted, "10.0.9.9") {
		t.Fatalf("the lone newcomer was evicted: %v", evicted)
	}
	for _, tk := range append([]*ticket{}, g.outsiders...) {
		tk.release()
	}
	evicted = nil

	// A member reconnecting from its address is not held up, nor is a
	// stranger pairing from such an address.
	lane := arriveOK(t, g, "192.168.1.5", true, now, &evicted)
	if !lane.member() {
		t.Fatal("member refused")
	}
	stranger := arriveOK(t, g, "192.168.1.5", true, now, &evicted)
	if reason := stranger.outsider(now); reason != "" {
		t.Fatalf("stranger at a member address: %q", reason)
	}
	if o, l, m := g.counts(); o != 0 || l != 1 || m != 1 {
		t.Fatalf("counts %d %d %d", o, l, m)
	}
	// An address in backoff that members use: its handshakes go on, its
	// strangers are refused after theirs.
	g.penalize("192.168.1.5", now)
	if tk, _ := g.arrive("192.168.1.5", false, now, func() {}); tk != nil {
		t.Fatal("a stranger's address in backoff admitted")
	}
	again := arriveOK(t, g, "192.168.1.5", true, now, &evicted)
	if reason := again.outsider(now); reason == "" {
		t.Fatal("a stranger from an address in backoff kept after its handshake")
	}
	for _, tk := range []*ticket{again, stranger, lane, lane} {
		tk.release() // as their connections' ends do
	}
	if o, l, m := g.counts(); o != 0 || l != 0 || m != 0 || len(g.perSource) != 0 || len(g.laneBy) != 0 {
		t.Fatalf("after release: %d %d %d %v %v", o, l, m, g.perSource, g.laneBy)
	}
}

// A source that broke a rule is refused at accept for a backoff that
// doubles with each offence, up to a cap, and starts over once forgotten.
// Wrong invite secrets bar a source after a few.
func TestGateBackoff(t *testing.T) {
	g := newGate()
	now := fakeNow()
	want := []time.Duration{penaltyMin, 2 * penaltyMin, 4 * penaltyMin}
	for i, w := range want {
		if got := g.penalize("10.0.0.1", now); got != w {
			t.Fatalf("offence %d: backoff %v, want %v", i, got, w)
		}
		if tk, _ := g.arrive("10.0.0.1", false, now.Add(w-time.Millisecond), func() {}); tk != nil {
			t.Fatalf("offence %d: admitted during the backoff", i)
		}
		if tk, _ := g.arrive("10.0.0.1", false, now.Add(w), func() {}); tk == nil {
			t.Fatalf("offence %d: refused after the backoff", i)
		} else {
			tk.release()
		}
		now = now.Add(w)
	}
	for range 10 {
		g.penalize("10.0.0.1", now)
	}
	if got := g.penalize("10.0.0.1", now); got != penaltyMax {
		t.Fatalf("capped backoff %v", got)
	}
	if got := g.penalize("10.0.0.1", now.Add(penaltyMax+penaltyForget+time.Second)); got != penaltyMin {
		t.Fatalf("after a quiet while: %v", got)
	}
	if g.barred("dev:x", now) {
		t.Fatal("barred without an offence")
	}
	for i := range maxWrongSecrets {
		if barred := g.wrongSecret("10.0.0.2", now); barred != (i == maxWrongSecrets-1) {
			t.Fatalf("wrong secret %d: barred %v", i, barred)
		}
	}
	if !g.barred("10.0.0.2", now.Add(wrongSecretWindow-time.Second)) || g.barred("10.0.0.2", now.Add(wrongSecretWindow)) {
		t.Fatal("wrong secrets bar a source for the window")
	}
	// The table of penalties stays bounded.
	for i := range 2 * maxPenalties {
		g.penalize(fmt.Sprint("s", i), now)
	}
	if len(g.penalties) > maxPenalties {
		t.Fatalf("%d penalties kept", len(g.penalties))
	}
}
