package devicesync

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// lineOfThree pairs a and c with b, the only device both reach: a and c
// advertise an address nobody can dial, so they never connect directly.
func lineOfThree(t *testing.T) (a, b, c *testNode) {
	t.Helper()
	b = startNode(t, "b")
	a = startNode(t, "a", withAdvertise("127.0.0.1:1"))
	c = startNode(t, "c", withAdvertise("127.0.0.1:1"))
	pair(t, b, a)
	pair(t, b, c)
	a.waitUntil("a knows c", func() bool { return a.isMember(c.ID()) })
	c.waitUntil("c knows a", func() bool { return c.isMember(a.ID()) })
	return a, b, c
}

func ownerCoord(n *testNode, counter, hb uint64) engine.Coordination {
	c := coord(n, counter)
	c.Heartbeat = hb
	return c
}

// An owner's snapshot crosses a device that relays it: the far end gets it
// as the owner's own report, with the state intact, once per snapshot.
func TestOwnerSnapshotIsRelayedAcrossALine(t *testing.T) {
	a, b, c := lineOfThree(t)
	if a.isOnline(c.ID()) || c.isOnline(a.ID()) {
		t.Fatal("a and c are connected directly; the test needs a line")
	}
	if err := a.PublishSnapshot(json.RawMessage(`{"pos": 1}`), ownerCoord(a, 5, 1)); err != nil {
		t.Fatal(err)
	}
	got := waitEvent(c, func(s SnapshotReceived) bool { return s.From == a.ID() })
	if got.Via != b.ID() || got.Coordination.Heartbeat != 1 || string(got.State) != `{"pos":1}` {
		t.Fatalf("c got %+v, want a's snapshot via b", got)
	}
	for _, d := range c.Devices() {
		if d.ID == a.ID() && (!d.Online || !d.Relayed) {
			t.Fatalf("c shows a %+v, want online through another device", d)
		}
	}
	if direct := waitEvent(b, func(s SnapshotReceived) bool { return s.From == a.ID() }); direct.Via != "" || direct.Age != 0 {
		t.Fatalf("b got a's own snapshot as %+v", direct)
	}

	// Each new snapshot is relayed; the relays' copies of one snapshot are
	// delivered once.
	for hb := uint64(2); hb <= 4; hb++ {
		if err := a.PublishSnapshot(json.RawMessage(`{"pos": 2}`), ownerCoord(a, 5, hb)); err != nil {
			t.Fatal(err)
		}
	}
	waitEvent(c, func(s SnapshotReceived) bool { return s.From == a.ID() && s.Coordination.Heartbeat == 4 })
	c.mu.Lock()
	var hbs []uint64 // left after the two waited for above
	for _, e := range c.events {
		if s, ok := e.(SnapshotReceived); ok && s.From == a.ID() {
			hbs = append(hbs, s.Coordination.Heartbeat)
		}
	}
	c.mu.Unlock()
	if len(hbs) != 2 || hbs[0] != 2 || hbs[1] != 3 {
		t.Fatalf("c got a's snapshots %v besides 1 and 4, want [2 3] (each once)", hbs)
	}

	// A device that is not the owner is not relayed: its controls reach
	// the owner through the op log, its snapshot matters only to its
	// neighbours.
	ctl := coord(c, 5)
	ctl.Claim = engine.Claim{Counter: 5, Issuer: a.ID(), Owner: a.ID()}
	if err := c.PublishSnapshot(json.RawMessage(`{}`), ctl); err != nil {
		t.Fatal(err)
	}
	waitEvent(b, func(s SnapshotReceived) bool { return s.From == c.ID() })
	if b.Counters().Relayed != 4 {
		t.Fatalf("b relayed %d snapshots, want a's 4 only", b.Counters().Relayed)
	}
}

// A member that connects gets the owner snapshots its peer holds, with
// their age, so a device that starts learns the newest group state even
// from an owner it cannot reach or that is gone.
func TestHeldOwnerSnapshotReachesADeviceThatConnectsLater(t *testing.T) {
	a, b, c := lineOfThree(t)
	if err := a.PublishSnapshot(json.RawMessage(`{"pos": 7}`), ownerCoord(a, 9, 3)); err != nil {
		t.Fatal(err)
	}
	waitEvent(c, func(s SnapshotReceived) bool { return s.From == a.ID() })
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	cKey, cStore := c.key, c.store
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	b.waitUntil("c gone", func() bool { return !b.isOnline(c.ID()) })
	start := time.Now()
	c2 := startNode(t, "c", withKey(cKey), withStore(cStore), withAdvertise("127.0.0.1:1"))
	got := waitEvent(c2, func(s SnapshotReceived) bool { return s.From == a.ID() })
	if got.Via != b.ID() || string(got.State) != `{"pos":7}` || got.Coordination.Claim.Counter != 9 {
		t.Fatalf("restarted c got %+v", got)
	}
	if got.Age <= 0 || got.Age > time.Since(start)+waitTimeout {
		t.Fatalf("held snapshot age %v", got.Age)
	}
}

// What a relay changes, forges or replays is refused and counted: a state
// changed in transit, a snapshot signed by another member's key, one of a
// device that is not a member, and an old snapshot relayed again.
func TestRelayedSnapshotsAreVerified(t *testing.T) {
	a, b, c := lineOfThree(t)
	_ = c
	// m is a member driven by hand: it relays what it likes to b.
	m := startNode(t, "m")
	pair(t, b, m)
	mKey, mAddr := m.key, m.Addr().String()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	b.waitUntil("m gone", func() bool { return !b.isOnline(m.ID()) })
	b.waitNoDial(m.ID(), mAddr)
	p, err := dialRaw(t, b.Addr().String(), mKey)
	if err != nil {
		t.Fatal(err)
	}
	p.readType(typeHello)

	if err := a.PublishSnapshot(json.RawMessage(`{"pos": 1}`), ownerCoord(a, 11, 20)); err != nil {
		t.Fatal(err)
	}
	orig := waitEvent(b, func(s SnapshotReceived) bool { return s.From == a.ID() && s.Coordination.Heartbeat == 20 })
	a.Node.mu.Lock()
	var signed snapshotMsg
	if mm, err := decodeLine(a.snapshot[:len(a.snapshot)-1]); err == nil {
		signed = mm.(snapshotMsg)
	}
	a.Node.mu.Unlock()
	if len(signed.Sig) == 0 {
		t.Fatal("a's snapshot is not signed")
	}
	spoofed := b.Counters().Spoofed

	// 1. The state changed in transit (a newer heartbeat, so only the
	// signature can refuse it).
	tampered := signed
	tc := *signed.Coordination
	tc.Heartbeat = 21
	tampered.Coordination = &tc
	_ = p.send(tampered)
	tampered2 := signed
	tampered2.State = json.RawMessage(`{"pos":99}`)
	tampered2.Seq++
	_ = p.send(tampered2)
	// 2. Signed by m's key in a's name.
	forged := signed
	fc := *signed.Coordination
	fc.Heartbeat = 22
	forged.Coordination = &fc
	fields, _ := snapshotSigFields(&fc, signed.State, signed.Seq)
	forged.Sig = sign(mKey, sigDomainCoordination, a.ID(), fields...)
	_ = p.send(forged)
	// 3. Unsigned.
	unsigned := signed
	uc := *signed.Coordination
	uc.Heartbeat = 23
	unsigned.Coordination = &uc
	unsigned.Sig = nil
	_ = p.send(unsigned)
	// 4. A device that is not a member, signing for itself.
	x := newKey(t)
	xid := DeviceIDFromPublicKey(x.Public().(ed25519PublicKey))
	xc := engine.Coordination{Version: 1, Device: xid, Claim: engine.Claim{Counter: 50, Issuer: xid, Owner: xid}, Heartbeat: 1}
	xf, _ := snapshotSigFields(&xc, json.RawMessage(`{}`), 1)
	_ = p.send(snapshotMsg{Type: typeSnapshot, Coordination: &xc, State: json.RawMessage(`{}`), Seq: 1, Sig: sign(x, sigDomainCoordination, xid, xf...)})
	b.waitUntil("five refused", func() bool { return b.Counters().Spoofed == spoofed+5 })

	// 5. The genuine snapshot relayed again: not newer, renews nothing.
	dup := b.Counters().RelayDup
	_ = p.send(signed)
	b.waitUntil("replay counted", func() bool { return b.Counters().RelayDup > dup })

	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.events {
		if s, ok := e.(SnapshotReceived); ok && (s.From == xid || s.From == a.ID() && s.Coordination.Heartbeat > orig.Coordination.Heartbeat) {
			t.Fatalf("b delivered a refused snapshot: %+v", s)
		}
	}
}

// A revoked device's snapshots are not relayed and not delivered, however
// they are signed.
func TestRevokedDeviceSnapshotsAreNotRelayed(t *testing.T) {
	a, b, c := lineOfThree(t)
	if err := b.Revoke(a.ID()); err != nil {
		t.Fatal(err)
	}
	c.waitUntil("c learns the revocation", func() bool { return !c.isMember(a.ID()) })
	// a's key signs a snapshot; b hands it on as a relay would.
	cd := ownerCoord(a, 30, 40)
	fields, _ := snapshotSigFields(&cd, json.RawMessage(`{}`), 1)
	msg := snapshotMsg{Type: typeSnapshot, Coordination: &cd, State: json.RawMessage(`{}`), Seq: 1,
		Sig: sign(a.key, sigDomainCoordination, a.ID(), fields...)}
	spoofed := c.Counters().Spoofed
	b.Node.mu.Lock()
	b.sessions[c.ID()].send(mustLine(t, msg))
	b.Node.mu.Unlock()
	c.waitUntil("refused", func() bool { return c.Counters().Spoofed > spoofed })
	if hasEvent(c, func(s SnapshotReceived) bool { return s.From == a.ID() && s.Coordination.Heartbeat == 40 }) {
		t.Fatal("a revoked device's snapshot was delivered")
	}
}

func mustLine(t *testing.T, m message) []byte {
	t.Helper()
	line, err := encodeLine(m, MaxLineBytes)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// An owner that restarts gets back the snapshot it published last, signed
// by itself, from a member that held it: the newest state of the group.
func TestRestartedOwnerGetsItsLastSnapshotBack(t *testing.T) {
	a, b, _ := lineOfThree(t)
	if err := a.PublishSnapshot(json.RawMessage(`{"pos": 42}`), ownerCoord(a, 3, 8)); err != nil {
		t.Fatal(err)
	}
	waitEvent(b, func(s SnapshotReceived) bool { return s.From == a.ID() })
	aKey, aStore := a.key, a.store
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b.waitUntil("a gone", func() bool { return !b.isOnline(a.ID()) })
	a2 := startNode(t, "a", withKey(aKey), withStore(aStore), withAdvertise("127.0.0.1:1"), withPeers(b.Addr().String()))
	got := waitEvent(a2, func(s SnapshotReceived) bool { return s.From == a2.ID() })
	if got.Via != b.ID() || string(got.State) != `{"pos":42}` || got.Coordination.Heartbeat != 8 {
		t.Fatalf("restarted a got %+v, want its own last snapshot via b", got)
	}
}
