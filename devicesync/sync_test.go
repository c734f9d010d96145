package devicesync

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// Pair two devices; snapshots and commands flow both ways and only from
// the authenticated sender.
func TestPairTwoSyncsSnapshotsAndCommandsBothWays(t *testing.T) {
	a := startNode(t, "desk")
	b := startNode(t, "laptop")
	pair(t, a, b)

	for _, n := range []*testNode{a, b} {
		devs := n.Devices()
		if len(devs) != 2 || !devs[0].Self || devs[0].ID != n.ID() {
			t.Fatalf("%s devices = %+v", n.cfg.Name, devs)
		}
	}
	names := map[string]bool{}
	for _, d := range b.Devices() {
		names[d.Name] = true
	}
	if !names["desk"] || !names["laptop"] {
		t.Fatalf("b's device names = %v", names)
	}

	if err := a.PublishSnapshot(json.RawMessage(`{"playing":true}`), coord(a, 1)); err != nil {
		t.Fatal(err)
	}
	got := waitEvent(b, func(s SnapshotReceived) bool { return s.From == a.ID() })
	if got.Coordination.Device != a.ID() || string(got.State) != `{"playing":true}` {
		t.Fatalf("b got %+v", got)
	}
	if err := b.PublishSnapshot(json.RawMessage(`{"paused":true}`), coord(b, 2)); err != nil {
		t.Fatal(err)
	}
	waitEvent(a, func(s SnapshotReceived) bool { return s.From == b.ID() && string(s.State) == `{"paused":true}` })

	id, err := a.SendCommand(b.ID(), stamp(a.ID(), 1), false, json.RawMessage(`{"op":"pause"}`))
	if err != nil {
		t.Fatal(err)
	}
	cmd := waitEvent(b, func(c CommandReceived) bool { return c.OpID == id })
	if cmd.From != a.ID() || cmd.Target != b.ID() || cmd.Stamp.Sequence != 1 || string(cmd.Body) != `{"op":"pause"}` {
		t.Fatalf("b got command %+v", cmd)
	}
	if _, err := b.SendCommand(a.ID(), stamp(a.ID(), 2), true, json.RawMessage(`{"op":"play"}`)); err != nil {
		t.Fatal(err)
	}
	back := waitEvent(a, func(c CommandReceived) bool { return c.From == b.ID() })
	if !back.Handoff {
		t.Fatalf("handoff flag lost: %+v", back)
	}
	if c := a.Counters(); c != (Counters{}) {
		t.Fatalf("a counters = %+v, want zero", c)
	}
}

// Three devices paired through one inviter find each other through the
// profile addresses in the log, and a command reaches its target.
func TestPairThreeConvergesAndDelivers(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	c := startNode(t, "c")
	pair(t, a, b)
	pair(t, a, c)
	connected(t, b, c) // b and c never exchanged an invite

	for _, n := range []*testNode{a, b, c} {
		n.waitUntil("three members", func() bool { return len(n.Devices()) == 3 })
	}
	if _, err := b.SendCommand(c.ID(), stamp(b.ID(), 7), false, json.RawMessage(`{"op":"next"}`)); err != nil {
		t.Fatal(err)
	}
	waitEvent(c, func(e CommandReceived) bool { return e.From == b.ID() && e.Stamp.Sequence == 7 })
	if err := c.PublishSnapshot(json.RawMessage(`{}`), coord(c, 3)); err != nil {
		t.Fatal(err)
	}
	waitEvent(a, func(s SnapshotReceived) bool { return s.From == c.ID() })
	waitEvent(b, func(s SnapshotReceived) bool { return s.From == c.ID() })
	if hasEvent(a, func(e CommandReceived) bool { return true }) {
		t.Fatal("a command for c was delivered to a")
	}
}

// A command logged while its target is away is relayed by anti-entropy
// once it connects, but never when older than CommandMaxAge.
func TestCommandReachesTargetLaterButNotWhenStale(t *testing.T) {
	clock := newFakeClock()
	a := startNode(t, "a", withClock(clock))
	b := startNode(t, "b", withClock(clock))
	c := startNode(t, "c", withClock(clock))
	pair(t, a, b)
	pair(t, a, c)
	connected(t, b, c)

	// Snapshot before: b sees c. Now make c unreachable for b and a by
	// closing it, send b→c, then restart c from its store.
	cKey, cStore := c.key, c.store
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	fresh, err := b.SendCommand(c.ID(), stamp(b.ID(), 1), false, json.RawMessage(`{"op":"fresh"}`))
	if err != nil {
		t.Fatal(err)
	}
	c2 := startNode(t, "c", withClock(clock), withKey(cKey), withStore(cStore), withPeers(a.Addr().String()))
	cmd := waitEvent(c2, func(e CommandReceived) bool { return true })
	if cmd.OpID != fresh {
		t.Fatalf("got %s, want %s", cmd.OpID, fresh)
	}

	if err := c2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SendCommand(c.ID(), stamp(b.ID(), 2), false, json.RawMessage(`{"op":"stale"}`)); err != nil {
		t.Fatal(err)
	}
	a.waitUntil("a holds the stale command", func() bool { return a.vectorOf(b.ID()) == b.vectorOf(b.ID()) })
	clock.Advance(CommandMaxAge + time.Minute)
	c3 := startNode(t, "c", withClock(clock), withKey(cKey), withStore(cStore), withPeers(a.Addr().String()))
	c3.waitUntil("stale command counted", func() bool { return c3.Counters().StaleCmds == 1 })
	if hasEvent(c3, func(e CommandReceived) bool { return true }) {
		t.Fatal("a stale command was delivered")
	}
}

// Ops are persisted before they are applied: while the store fails, a
// received command is neither applied nor delivered; once it works again,
// anti-entropy brings the command.
func TestPersistFailureDefersOps(t *testing.T) {
	a := startNode(t, "a", withSync(50*time.Millisecond))
	b := startNode(t, "b", withSync(50*time.Millisecond))
	pair(t, a, b)
	before := b.vectorOf(a.ID())
	// b redials 100 ms after it drops the connection: the drop is told by
	// its event, not by a look at b's state that may come after the redial.
	offline := func() int { return countEvents(b, func(e PeerOffline) bool { return e.Device == a.ID() }) }
	wasOffline := offline()
	b.store.SetFail(errors.New("disk full"))
	if _, err := b.SendCommand(a.ID(), stamp(b.ID(), 1), false, json.RawMessage(`{}`)); err == nil {
		t.Fatal("SendCommand succeeded although the store fails")
	}
	if _, err := a.SendCommand(b.ID(), stamp(a.ID(), 1), false, json.RawMessage(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	b.waitUntil("b dropped the connection", func() bool { return offline() > wasOffline })
	if got := b.vectorOf(a.ID()); got != before || hasEvent(b, func(CommandReceived) bool { return true }) {
		t.Fatalf("b applied ops it could not persist: vector %d → %d", before, got)
	}
	b.store.SetFail(nil)
	waitEvent(b, func(c CommandReceived) bool { return c.From == a.ID() && string(c.Body) == `{"n":1}` })
}
