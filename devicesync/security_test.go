package devicesync

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

func snapshotFrom(c engine.Coordination, state string) map[string]any {
	return map[string]any{"type": "snapshot", "coordination": c, "state": json.RawMessage(state)}
}

// An attacker with its own key may connect only to ask to pair: every
// other message closes its connection and nothing reaches the app. A
// member never accepts the attacker as a server either.
func TestAttackerWithOwnKeyIsRefused(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	pair(t, a, b)
	evil := newKey(t)
	evilID := DeviceIDFromPublicKey(evil.Public().(ed25519PublicKey))

	hello := helloMsg{Type: typeHello, Group: a.Group(), Profile: profile{DeviceID: evilID}, Vector: VersionVector{}}
	c := coord(a, 99)
	c.Device = evilID
	op := Op{ID: OpID(evilID, 1), Origin: evilID, Seq: 1, HLCms: 1, Kind: KindTrusted, Body: json.RawMessage(`{"target":"` + string(evilID) + `"}`)}
	for i, msg := range []any{
		hello,
		snapshotFrom(c, `{}`),
		opsMsg{Type: typeOps, Ops: []Op{op}},
	} {
		p, err := dialRaw(t, a.Addr().String(), evil)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.send(msg); err != nil {
			t.Fatal(err)
		}
		if !p.closedByPeer() {
			t.Fatalf("message %d: connection stayed open", i)
		}
	}
	if got := a.Counters().Refused; got < 3 {
		t.Fatalf("refused = %d, want >= 3", got)
	}
	if a.isMember(evilID) || len(a.Devices()) != 2 {
		t.Fatalf("attacker became a member: %+v", a.Devices())
	}
	if hasEvent(a, func(SnapshotReceived) bool { return true }) || hasEvent(a, func(PairingRequest) bool { return true }) {
		t.Fatal("an attacker's message reached the app")
	}

	// A node that is told to dial the attacker refuses its server key.
	evilNode := startNode(t, "evil", withKey(evil))
	before := b.Counters().Refused
	b.targetsAdd(evilNode.Addr().String())
	b.waitUntil("refused the attacker as server", func() bool { return b.Counters().Refused > before })
	if b.isMember(evilID) {
		t.Fatal("b trusted the attacker")
	}
}

// A revoked device is disconnected at once, refused afterwards by every
// member, and still refused after the revoker restarts from its store.
func TestRevokedDeviceIsCutOffAndStaysOut(t *testing.T) {
	g := startGroup(t, "a", "b", "c")
	a, b, c := g[0], g[1], g[2]

	if err := a.Revoke(c.ID()); err != nil {
		t.Fatal(err)
	}
	waitEvent(a, func(g GroupChanged) bool { return len(g.Devices) == 2 })
	b.waitUntil("b applies the revocation", func() bool { return !b.isMember(c.ID()) })
	a.waitUntil("a drops c", func() bool { return !a.isOnline(c.ID()) })
	b.waitUntil("b drops c", func() bool { return !b.isOnline(c.ID()) })

	// c (still believing it is a member, or having founded a new group)
	// cannot get a snapshot or command through.
	refusedA := a.Counters().Refused
	p, err := dialRaw(t, a.Addr().String(), c.key)
	if err == nil {
		_ = p.send(snapshotFrom(coord(c, 5), `{}`))
		if !p.closedByPeer() {
			t.Fatal("revoked device's connection stayed open")
		}
	}
	a.waitUntil("handshake refused", func() bool { return a.Counters().Refused > refusedA })
	if hasEvent(a, func(s SnapshotReceived) bool { return s.From == c.ID() }) {
		t.Fatal("a revoked device's snapshot reached the app")
	}

	// Restart a from its persisted log: c is still out.
	aKey, aStore := a.key, a.store
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	a2 := startNode(t, "a", withKey(aKey), withStore(aStore))
	if a2.isMember(c.ID()) || !a2.isMember(b.ID()) {
		t.Fatalf("after restart: %+v", a2.Devices())
	}
	refused := a2.Counters().Refused
	if p, err := dialRaw(t, a2.Addr().String(), c.key); err == nil {
		_ = p.send(snapshotFrom(coord(c, 6), `{}`))
		if !p.closedByPeer() {
			t.Fatal("revoked device accepted after restart")
		}
	}
	a2.waitUntil("refused after restart", func() bool { return a2.Counters().Refused > refused })
}

// Snapshots are bound to the authenticated sender; legacy snapshots and
// commands are ignored; unknown types are skipped; malformed and oversized
// lines close the connection.
func TestMemberInputIsCheckedPerMessage(t *testing.T) {
	// a's gate stands still: the backoff b earns lasts however slow the
	// machine is between the offence and the redial.
	a := startNode(t, "a", withGateClock(newFakeClock()))
	b := startNode(t, "b")
	c := startNode(t, "c")
	pair(t, a, b)
	pair(t, a, c)
	bKey, bAddr := b.key, b.Addr().String()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	a.waitUntil("b gone", func() bool { return !a.isOnline(b.ID()) })
	a.waitNoDial(b.ID(), bAddr)

	p, err := dialRaw(t, a.Addr().String(), bKey)
	if err != nil {
		t.Fatal(err)
	}
	p.readType(typeHello)

	spoof := coord(a, 3) // b claims to be a
	_ = p.send(snapshotFrom(spoof, `{"spoof":1}`))
	_ = p.send(map[string]any{"type": "snapshot", "state": json.RawMessage(`{"legacy":1}`)})
	_ = p.send(map[string]any{"type": "snapshot", "coordination": map[string]any{"version": 0, "device_id": string(DeviceIDFromPublicKey(bKey.Public().(ed25519PublicKey)))}, "state": json.RawMessage(`{}`)})
	_ = p.sendLine(`{"type":"jam_invite","room":"x"}`)
	_ = p.sendLine(`{"type":"snapshot","state":{"ok":1},"coordination":` + mustJSON(coordFor(DeviceIDFromPublicKey(bKey.Public().(ed25519PublicKey)))) + `,"future_field":[1,2]}`)
	got := waitEvent(a, func(s SnapshotReceived) bool { return true })
	if string(got.State) != `{"ok":1}` || got.From != b.ID() {
		t.Fatalf("delivered %+v", got)
	}
	cnt := a.Counters()
	if cnt.Spoofed != 1 || cnt.Legacy != 2 || cnt.UnknownType != 1 {
		t.Fatalf("counters = %+v", cnt)
	}

	// A legacy command (no stamp) in an op is logged but not delivered.
	bID := b.ID()
	body, _ := json.Marshal(commandBody{Target: a.ID(), Command: json.RawMessage(`{}`)})
	seq := a.vectorOf(bID) + 1
	_ = p.send(opsMsg{Type: typeOps, Ops: []Op{signedOp(t, bKey, a.Group(), seq, time.Now().UnixMilli(), KindPlaybackCommand, body)}})
	a.waitUntil("legacy command counted", func() bool { return a.Counters().Legacy == 3 })
	if hasEvent(a, func(CommandReceived) bool { return true }) {
		t.Fatal("legacy command delivered")
	}

	_ = p.sendLine(`{"type":"snapshot","state":`)
	if !p.closedByPeer() {
		t.Fatal("malformed JSON did not close the connection")
	}
	// The listener holds the broken rule against b for a while: it may
	// not come straight back.
	refused := a.Counters().Refused
	if p, err := dialRaw(t, a.Addr().String(), bKey); err == nil && !p.closedByPeer() {
		a.gate.mu.Lock()
		pen := a.gate.penalties["dev:"+string(bID)]
		a.gate.mu.Unlock()
		t.Fatalf("b reconnected at once after breaking a rule (its penalty %+v, counters %+v)", pen, a.Counters())
	}
	a.waitUntil("b's reconnection refused", func() bool { return a.Counters().Refused > refused })

	p2 := memberPeer(t, a, c)
	closed := a.Counters().Closed
	_ = p2.sendLine(`{"type":"snapshot","state":"` + strings.Repeat("x", MaxLineBytes) + `"}`)
	if !p2.closedByPeer() {
		t.Fatal("oversized line did not close the connection")
	}
	a.waitUntil("closed counted", func() bool { return a.Counters().Closed > closed })
}

// A peer over its message rate is disconnected.
func TestMessageRateLimitClosesConnection(t *testing.T) {
	lim := DefaultLimits()
	lim.MessageRate, lim.Burst = 1, 5
	a := startNode(t, "a", withLimits(lim))
	b := startNode(t, "b")
	pair(t, a, b)
	bKey, bAddr := b.key, b.Addr().String()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	a.waitUntil("b gone", func() bool { return !a.isOnline(b.ID()) })
	a.waitNoDial(b.ID(), bAddr)
	p, err := dialRaw(t, a.Addr().String(), bKey)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if p.sendLine(`{"type":"noise"}`) != nil {
			break
		}
	}
	if !p.closedByPeer() {
		t.Fatal("flooding peer stayed connected")
	}
}

func coordFor(id engine.DeviceID) engine.Coordination {
	return engine.Coordination{Version: engine.EnvelopeVersion, Device: id}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// A device removed by mistake is invited again like a new one and is a
// member again, everywhere; its new ops count.
func TestRemovedDeviceCanBeInvitedAgain(t *testing.T) {
	g := startGroup(t, "a", "b", "c")
	a, b, c := g[0], g[1], g[2]
	if err := a.Revoke(b.ID()); err != nil {
		t.Fatal(err)
	}
	c.waitUntil("c applies the revocation", func() bool { return !c.isMember(b.ID()) })
	b.waitUntil("b learns it was removed", func() bool { return b.Group() != a.Group() })

	pair(t, c, b)
	for _, n := range []*testNode{a, c} {
		n.waitUntil("b is a member again", func() bool { return n.isMember(b.ID()) && n.isOnline(b.ID()) })
	}
	if err := b.PublishSnapshot(json.RawMessage(`{"back":1}`), coord(b, 1)); err != nil {
		t.Fatal(err)
	}
	waitEvent(a, snapshotOf(b.ID(), `{"back":1}`))
	// b's new ops count: a command from b reaches a.
	if _, err := b.SendCommand(a.ID(), stamp(b.ID(), 1), false, json.RawMessage(`{"c":1}`)); err != nil {
		t.Fatal(err)
	}
	waitEvent(a, func(e CommandReceived) bool { return e.From == b.ID() })
}

// A device that leaves records its own revocation: the others remove it,
// and it is a group of its own.
func TestLeaveRecordsSelfRevocation(t *testing.T) {
	g := startGroup(t, "a", "b", "c")
	a, b, c := g[0], g[1], g[2]
	old := c.Group()
	if err := c.Leave(); err != nil {
		t.Fatal(err)
	}
	if c.Group() == old || len(c.Devices()) != 1 {
		t.Fatalf("after leaving: group %s, devices %+v", c.Group(), c.Devices())
	}
	for _, n := range []*testNode{a, b} {
		n.waitUntil("c removed", func() bool { return !n.isMember(c.ID()) })
	}
	if err := c.Leave(); !errors.Is(err, ErrAlone) {
		t.Fatalf("leaving a group of one: %v", err)
	}
}

// A member that was offline when a device left learns it when it next
// calls on that device.
func TestMemberOfflineAtLeaveLearnsItLater(t *testing.T) {
	a := startNode(t, "a")
	c := startNode(t, "c")
	pair(t, a, c)
	a.waitUntil("a knows where c listens", func() bool {
		for _, d := range a.Devices() {
			if d.ID == c.ID() {
				return len(d.Addresses) > 0
			}
		}
		return false
	})
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	c.waitUntil("a gone", func() bool { return !c.isOnline(a.ID()) })
	if err := c.Leave(); err != nil {
		t.Fatal(err)
	}
	a2 := startNode(t, "a", withKey(a.key), withStore(a.store))
	a2.waitUntil("a learns that c left", func() bool { return !a2.isMember(c.ID()) })
}
