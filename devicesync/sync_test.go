package devicesync

import (
	"encoding/json"
	"testing"
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
