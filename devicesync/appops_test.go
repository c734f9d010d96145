package devicesync

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func appIDs(ops []Op) []string {
	var ids []string
	for _, o := range ops {
		ids = append(ids, o.ID)
	}
	return ids
}

// An application op appended on one device reaches the others as
// OpsAdded, is relayed by a device that only stores it, and is there again
// after a restart.
func TestAppOpsTravelAndSurviveARestart(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	c := startNode(t, "c")
	pair(t, a, b)
	pair(t, a, c)

	op, err := b.AppendOp("playlist_created", json.RawMessage(`{ "name" : "Road trip" }`))
	if err != nil {
		t.Fatal(err)
	}
	if string(op.Body) != `{"name":"Road trip"}` || op.Origin != b.ID() || op.Kind != "playlist_created" {
		t.Fatalf("logged %+v, want the compact body from b", op)
	}
	own := waitEvent(b, func(e OpsAdded) bool { return true })
	if own.Group != b.Group() || !slices.Equal(appIDs(own.Ops), []string{op.ID}) {
		t.Fatalf("b's own event %+v", own)
	}
	for _, n := range []*testNode{a, c} {
		got := waitEvent(n, func(e OpsAdded) bool { return slices.Contains(appIDs(e.Ops), op.ID) })
		if got.Group != a.Group() || string(got.Ops[0].Body) != string(op.Body) {
			t.Fatalf("%s got %+v", n.cfg.Name, got)
		}
	}
	if hasEvent(a, func(e OpsAdded) bool {
		return slices.ContainsFunc(e.Ops, func(o Op) bool { return groupKind(o.Kind) })
	}) {
		t.Fatal("OpsAdded carried devicesync's own ops")
	}

	// c restarts from its store: the op is in AppOps, not announced again.
	store, key := c.store, c.key
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c2 := startNode(t, "c", withStore(store), withKey(key))
	group, ops := c2.AppOps()
	if group != a.Group() || !slices.Equal(appIDs(ops), []string{op.ID}) {
		t.Fatalf("after restart AppOps = %s %v", group, appIDs(ops))
	}
}

func TestAppendOpRefusesBadInput(t *testing.T) {
	a := startNode(t, "a")
	for _, c := range []struct {
		kind, body string
		want       error
	}{
		{KindTrusted, `{}`, ErrAppKind},
		{KindPlaybackCommand, `{}`, ErrAppKind},
		{"", `{}`, ErrAppKind},
		{strings.Repeat("k", 65), `{}`, ErrAppKind},
		{"x", `{"unterminated`, nil},
		{"x", `{"big":"` + strings.Repeat("a", MaxAppOpBytes) + `"}`, nil},
	} {
		_, err := a.AppendOp(c.kind, json.RawMessage(c.body))
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("AppendOp(%.20q, %.20q) = %v, want %v", c.kind, c.body, err, c.want)
		}
	}
	if _, ops := a.AppOps(); len(ops) != 0 {
		t.Fatalf("refused ops were logged: %v", appIDs(ops))
	}
}

// ForgetOps drops what it is asked to, but never an origin's newest op nor
// devicesync's own ops; a device joining later gets only what is left.
func TestForgetOps(t *testing.T) {
	a := startNode(t, "a")
	var ids []string
	for i := range 3 {
		op, err := a.AppendOp("listen_recorded", json.RawMessage(`{"plays":`+string(rune('1'+i))+`}`))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, op.ID)
	}
	// a's first op trusts a itself: devicesync's own, never forgotten.
	a.mu.Lock()
	trust := a.glog.byOrigin[a.ID()][0].ID
	a.mu.Unlock()
	last, err := a.AppendOp("listen_recorded", json.RawMessage(`{"plays":4}`))
	if err != nil {
		t.Fatal(err)
	}
	gone, err := a.ForgetOps([]string{ids[0], ids[2], trust, last.ID, "nobody:1"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{ids[0], ids[2]}; !slices.Equal(gone, want) {
		t.Fatalf("forgot %v, want %v", gone, want)
	}
	if _, ops := a.AppOps(); !slices.Equal(appIDs(ops), []string{ids[1], last.ID}) {
		t.Fatalf("AppOps after forgetting: %v", appIDs(ops))
	}
	for _, o := range a.store.Ops() {
		if slices.Contains(gone, o.ID) {
			t.Fatalf("store still holds %s", o.ID)
		}
	}
	b := startNode(t, "b")
	pair(t, a, b)
	b.waitUntil("a's ops", func() bool { return b.vectorOf(a.ID()) == a.vectorOf(a.ID()) })
	if _, ops := b.AppOps(); !slices.Equal(appIDs(ops), []string{ids[1], last.ID}) {
		t.Fatalf("b got %v", appIDs(ops))
	}

	// A failing store forgets nothing.
	a.store.SetFail(errors.New("disk full"))
	if _, err := a.ForgetOps([]string{ids[1]}); err == nil {
		t.Fatal("ForgetOps with a failing store succeeded")
	}
	a.store.SetFail(nil)
	if _, ops := a.AppOps(); len(ops) != 2 {
		t.Fatalf("a failed forget changed the log: %v", appIDs(ops))
	}
}

// A device that joins a group gets the application ops logged before it
// joined: the pairing response carries only the membership ops, and the
// joiner's version vector must not claim the ops in between.
func TestJoinerGetsEarlierAppOps(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	var ids []string
	for range 3 {
		op, err := a.AppendOp("playlist_created", json.RawMessage(`{"name":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, op.ID)
	}
	pair(t, a, b)
	b.waitUntil("a's playlists", func() bool {
		_, ops := b.AppOps()
		return slices.Equal(appIDs(ops), ids)
	})
	c := startNode(t, "c")
	pair(t, b, c) // c joins through b, which relays a's ops
	c.waitUntil("a's playlists on c", func() bool {
		_, ops := c.AppOps()
		return slices.Equal(appIDs(ops), ids)
	})
}

// A log longer than one push (maxBatchesPerPush batches) reaches a device
// that joins without waiting for anti-entropy rounds: the push goes on as
// the connection takes it.
func TestLongLogFollowsWithoutWaitingForRounds(t *testing.T) {
	slow := []nodeOpt{withSync(time.Hour), withLimits(Limits{MessageRate: 1e9, Burst: 1 << 30, ByteRate: 1 << 40, ByteBurst: 1 << 40, ConnBytes: 1 << 60, PeerTimeout: time.Hour})}
	a := startNode(t, "a", slow...)
	want := maxBatchesPerPush*MaxOpsPerBatch + 500
	for range want {
		if _, err := a.AppendOp("listen_recorded", json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	b := startNode(t, "b", slow...)
	pair(t, a, b)
	b.waitUntil("a's whole log", func() bool {
		_, ops := b.AppOps()
		return len(ops) == want
	})
}
