package devicesync

import (
	"testing"
)

func TestProfileLastWriterWins(t *testing.T) {
	g := newGroupLog()
	a := mkID(1)
	g.add([]Op{
		mkOp(a, 1, 10, KindTrusted, trustedBody{Target: a}),
		mkOp(a, 3, 30, KindProfileSet, profile{DeviceID: a, Name: "new"}),
		mkOp(a, 2, 20, KindProfileSet, profile{DeviceID: a, Name: "old"}), // below the vector: a duplicate
	})
	if got := g.members[a].profile.Name; got != "new" {
		t.Fatalf("name %q", got)
	}
	// Equal HLC: the greater op id wins, the same on every device.
	g2 := newGroupLog()
	g2.add([]Op{mkOp(a, 1, 10, KindTrusted, trustedBody{Target: a}), mkOp(a, 2, 50, KindProfileSet, profile{DeviceID: a, Name: "x"}), mkOp(a, 10, 50, KindProfileSet, profile{DeviceID: a, Name: "y"})})
	if got := g2.members[a].profile.Name; got != "x" { // "…:2" > "…:10" as strings
		t.Fatalf("tie: %q", got)
	}
	// A profile naming another device is ignored.
	b := mkID(2)
	g2.add([]Op{mkOp(b, 1, 60, KindProfileSet, profile{DeviceID: a, Name: "hijack"})})
	if g2.members[a].profile.Name != "x" {
		t.Fatal("profile hijacked")
	}
}

func TestMissingIsBatchedAndContiguous(t *testing.T) {
	g := newGroupLog()
	a, b := mkID(1), mkID(2)
	var ops []Op
	for i := uint64(1); i <= 1500; i++ {
		ops = append(ops, mkOp(a, i, int64(i), KindPlaybackCommand, commandBody{Target: b}))
	}
	ops = append(ops, mkOp(b, 1, 1, KindTrusted, trustedBody{Target: b}))
	g.add(ops)
	v := VersionVector{a: 100}
	got := g.missing(v, MaxOpsPerBatch, nil)
	if len(got) != MaxOpsPerBatch || got[0].Seq != 101 || got[len(got)-1].Seq != 1100 {
		t.Fatalf("batch %d ops, %d..%d", len(got), got[0].Seq, got[len(got)-1].Seq)
	}
	v[a] = 1500
	if got := g.missing(v, MaxOpsPerBatch, nil); len(got) != 1 || got[0].Origin != b {
		t.Fatalf("missing %v", got)
	}
}

func TestPruneKeepsNewestPerOrigin(t *testing.T) {
	g := newGroupLog()
	a, b := mkID(1), mkID(2)
	g.add([]Op{
		mkOp(a, 1, 10, KindTrusted, trustedBody{Target: a}),
		mkOp(a, 2, 20, KindProfileSet, profile{DeviceID: a, Name: "1"}),
		mkOp(a, 3, 30, KindPlaybackCommand, commandBody{Target: b}),
		mkOp(a, 4, 40, KindProfileSet, profile{DeviceID: a, Name: "2"}),
		mkOp(a, 5, 50, KindPlaybackCommand, commandBody{Target: b}),
	})
	gone := g.prune(1000)
	if len(gone) != 2 || gone[0] != OpID(a, 2) || gone[1] != OpID(a, 3) {
		t.Fatalf("pruned %v", gone)
	}
	if g.vector[a] != 5 || g.members[a].profile.Name != "2" || g.count != 3 {
		t.Fatalf("after prune: vector %d name %q count %d", g.vector[a], g.members[a].profile.Name, g.count)
	}
}

func TestTokenBucket(t *testing.T) {
	now := fakeNow()
	b := newTokenBucket(10, 3, now)
	for i := range 3 {
		if !b.allow(now) {
			t.Fatalf("burst token %d refused", i)
		}
	}
	if b.allow(now) {
		t.Fatal("fourth at once allowed")
	}
	if !b.allow(now.Add(100 * 1e6)) {
		t.Fatal("refill after 100ms refused")
	}
}
