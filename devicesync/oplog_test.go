package devicesync

import (
	"testing"
	"time"
)

func TestProfileLastWriterWins(t *testing.T) {
	tg := newTestGroup(t, "a", "b")
	a := tg.id("a")
	g := tg.log(tg.root("a", 1), tg.opAt("a", 3, 30, KindProfileSet, profile{DeviceID: a, Name: "new"}))
	// An older op arriving late (below the vector) is stored in its place
	// and loses.
	if added, _ := g.admit([]Op{tg.opAt("a", 2, 20, KindProfileSet, profile{DeviceID: a, Name: "old"})}, 0); len(added) != 1 {
		t.Fatalf("an op below the vector: added %v", added)
	}
	if got := g.members[a].profile.Name; got != "new" {
		t.Fatalf("name %q", got)
	}
	// Equal HLC: the greater op id wins, the same on every device.
	g2 := tg.log(tg.opAt("a", 1, 1, KindGroupRoot, rootBody{Key: tg.pub("a"), Nonce: tg.nonce}),
		tg.opAt("a", 2, 50, KindProfileSet, profile{DeviceID: a, Name: "x"}),
		tg.opAt("a", 10, 50, KindProfileSet, profile{DeviceID: a, Name: "y"}))
	if got := g2.members[a].profile.Name; got != "x" { // "…:2" > "…:10" as strings
		t.Fatalf("tie: %q", got)
	}
	// A profile naming another device is ignored.
	g2.admit([]Op{tg.opAt("a", 11, 40, KindTrusted, trustedBody{Target: tg.id("b"), Key: tg.pub("b")})}, 0)
	g2.admit([]Op{tg.opAt("b", 1, 60, KindProfileSet, profile{DeviceID: a, Name: "hijack"})}, 0)
	if g2.members[a].profile.Name != "x" {
		t.Fatal("profile hijacked")
	}
}

func TestMissingIsBatchedAndContiguous(t *testing.T) {
	tg := newTestGroup(t, "a", "b")
	a, b := tg.id("a"), tg.id("b")
	ops := []Op{tg.root("a", 1), tg.trust("a", "b", 2)}
	for i := int64(3); i <= 1500; i++ {
		ops = append(ops, tg.op("a", i, KindPlaybackCommand, commandBody{Target: b}))
	}
	ops = append(ops, tg.profile("b", 1, "b"))
	g := newGroupLog(tg.group)
	for i := 0; i < len(ops); i += MaxOpsPerBatch {
		g.admit(ops[i:min(i+MaxOpsPerBatch, len(ops))], 0)
	}
	v := VersionVector{a: 100, b: 1}
	got := g.missing(v, MaxOpsPerBatch, nil)
	if len(got) != MaxOpsPerBatch || got[0].Seq != 101 || got[len(got)-1].Seq != 1100 {
		t.Fatalf("batch %d ops, %d..%d", len(got), got[0].Seq, got[len(got)-1].Seq)
	}
	v[a], v[b] = 1500, 0
	if got := g.missing(v, MaxOpsPerBatch, nil); len(got) != 1 || got[0].Origin != b {
		t.Fatalf("missing %v", got)
	}
}

func TestPruneKeepsNewestPerOrigin(t *testing.T) {
	tg := newTestGroup(t, "a", "b")
	a, b := tg.id("a"), tg.id("b")
	g := tg.log(
		tg.root("a", 10),
		tg.op("a", 20, KindProfileSet, profile{DeviceID: a, Name: "1"}),
		tg.op("a", 30, KindPlaybackCommand, commandBody{Target: b}),
		tg.op("a", 40, KindProfileSet, profile{DeviceID: a, Name: "2"}),
		tg.op("a", 50, KindPlaybackCommand, commandBody{Target: b}),
	)
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

// A byte bucket goes into debt and says how long until it is paid: a
// member is read slower, not cut off.
func TestByteBucketDebt(t *testing.T) {
	now := fakeNow()
	b := newTokenBucket(1000, 2000, now)
	if !b.take(2000, now) || b.wait(now) != 0 {
		t.Fatal("the burst is owed")
	}
	if b.take(500, now) {
		t.Fatal("over the burst is not a debt")
	}
	if got := b.wait(now); got != 500*time.Millisecond {
		t.Fatalf("wait %v, want 500ms", got)
	}
	if got := b.wait(now.Add(500 * time.Millisecond)); got != 0 {
		t.Fatalf("after the wait: %v", got)
	}
}
