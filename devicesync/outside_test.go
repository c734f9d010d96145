package devicesync

import (
	"fmt"
	"slices"
	"testing"
)

// A member tells a device which address its connection comes from (the
// hello's seen); the device keeps what members report as candidates of
// its own outside address and puts them in its invites, never in its
// profile; an outsider's report counts for nothing.
func TestDeviceLearnsTheAddressMembersSeeItComeFrom(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	pair(t, a, b)
	bKey, bAddr := b.key, b.Addr().String()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	a.waitUntil("b gone", func() bool { return !a.isOnline(b.ID()) })
	a.waitNoDial(b.ID(), bAddr)

	p, err := dialRawFrom(t, a.Addr().String(), bKey, otherSource(t))
	if err != nil {
		t.Fatal(err)
	}
	hello := p.readType(typeHello).(helloMsg)
	if hello.Seen != p.conn.LocalAddr().String() {
		t.Errorf("a's hello says it sees b at %q, want %q", hello.Seen, p.conn.LocalAddr())
	}
	port := a.ListenPort()
	// An outsider's report first: it is refused before it counts.
	outKey := newKey(t)
	out, err := dialRaw(t, a.Addr().String(), outKey)
	if err != nil {
		t.Fatal(err)
	}
	_ = out.send(helloMsg{Type: typeHello, Group: a.Group(), Profile: profile{DeviceID: DeviceIDFromPublicKey(outKey.Public().(ed25519PublicKey))}, Vector: VersionVector{}, Seen: "192.0.2.66:1000"})
	// Then b's: its own loopback is not an outside address, the second is.
	_ = p.send(helloMsg{Type: typeHello, Group: a.Group(), Profile: profile{DeviceID: b.ID()}, Vector: VersionVector{}, Seen: "127.0.0.1:5555"})
	_ = p.send(helloMsg{Type: typeHello, Group: a.Group(), Profile: profile{DeviceID: b.ID()}, Vector: VersionVector{}, Seen: "203.0.113.5:4444"})
	want := fmt.Sprintf("203.0.113.5:%d", port)
	a.waitUntil("a learns 203.0.113.5", func() bool { return len(a.Observed()) > 0 })
	if got := a.Observed(); !slices.Equal(got, []string{want}) {
		t.Fatalf("a's observed candidates %v, want [%s]", got, want)
	}
	code, _, err := a.CreateInvite()
	if err != nil {
		t.Fatal(err)
	}
	inv, _, err := decodeInvite(code)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(inv.T.Addresses, want) || inv.T.Addresses[len(inv.T.Addresses)-1] != want {
		t.Errorf("invite addresses %v, want the observed %s last", inv.T.Addresses, want)
	}
	if slices.Contains(a.Devices()[0].Addresses, want) {
		t.Errorf("the observed candidate is in a's profile: %v", a.Devices()[0].Addresses)
	}
}

// The user-set public addresses come first in the profile and the
// invite, reach the members, and are validated.
func TestPublicAddressesLeadTheProfileAndTheInvite(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	pair(t, a, b)
	if err := a.SetPublic([]string{"203.0.113.7:7400"}); err != nil {
		t.Fatal(err)
	}
	b.waitUntil("b sees a's public address", func() bool {
		for _, d := range b.Devices() {
			if d.ID == a.ID() {
				return len(d.Addresses) > 0 && d.Addresses[0] == "203.0.113.7:7400"
			}
		}
		return false
	})
	a.SetMapped([]string{"198.51.100.20:7400"})
	code, _, _ := a.CreateInvite()
	inv, _, err := decodeInvite(code)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.T.Addresses) < 3 || inv.T.Addresses[0] != "203.0.113.7:7400" || inv.T.Addresses[1] != "198.51.100.20:7400" {
		t.Errorf("invite addresses %v, want the public one, then the mapped one, first", inv.T.Addresses)
	}
	for _, bad := range [][]string{{"nonsense"}, {"203.0.113.7:0"}, {"a:1", "b:2", "c:3", "d:4", "e:5"}} {
		if err := a.SetPublic(bad); err == nil {
			t.Errorf("SetPublic(%q) accepted", bad)
		}
	}
	if _, err := New(Config{Key: newKey(t), Store: NewMemStore(), Listen: "127.0.0.1:0", Public: []string{"x"}}); err == nil {
		t.Error("Config.Public of a bad address accepted")
	}
}

// An offline member comes with the reason it cannot be reached: nothing
// carries it, or a carrier reaches it but no session through it is up.
func TestOfflineMemberSaysWhyItIsOutOfReach(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	pair(t, a, b)
	why := func() string {
		for _, d := range a.Devices() {
			if d.ID == b.ID() {
				return d.Unreachable
			}
		}
		return "b missing"
	}
	if w := why(); w != "" {
		t.Errorf("b online, reason %q", w)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	a.waitUntil("b gone", func() bool { return !a.isOnline(b.ID()) })
	if w := why(); w != WhyNoRoute {
		t.Errorf("b offline, reason %q, want %q", w, WhyNoRoute)
	}
	a.Node.mu.Lock()
	got := a.unreachableLocked("nobody", nil)
	a.Node.mu.Unlock()
	if got != WhyNoAddress {
		t.Errorf("a member without addresses: %q, want %q", got, WhyNoAddress)
	}
}
