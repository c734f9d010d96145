package devicesync

import (
	"encoding/json"
	"testing"
	"time"
)

// Online means directly connected and heard within OnlineWindow.
func TestOnlineNeedsRecentTraffic(t *testing.T) {
	clock := newFakeClock()
	a := startNode(t, "a", withClock(clock), withSync(time.Hour))
	b := startNode(t, "b", withClock(clock), withSync(time.Hour))
	pair(t, a, b)

	clock.Advance(OnlineWindow + time.Second)
	if a.isOnline(b.ID()) || len(a.Online()) != 0 {
		t.Fatal("silent peer still online")
	}
	if err := b.PublishSnapshot(json.RawMessage(`{}`), coord(b, 1)); err != nil {
		t.Fatal(err)
	}
	waitEvent(a, func(SnapshotReceived) bool { return true })
	if !a.isOnline(b.ID()) {
		t.Fatal("peer heard just now is not online")
	}

	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	waitEvent(a, func(e PeerOffline) bool { return e.Device == b.ID() })
	if a.isOnline(b.ID()) || !a.isMember(b.ID()) {
		t.Fatal("closed peer must be offline but still a member")
	}
}

// The group and its members survive a restart from the store, and a
// restarted device reconnects by itself.
func TestRestartKeepsGroupAndReconnects(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	pair(t, a, b)
	group := a.Group()
	bKey, bStore := b.key, b.store
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b2 := startNode(t, "b", withKey(bKey), withStore(bStore))
	if b2.Group() != group || !b2.isMember(a.ID()) {
		t.Fatalf("after restart: group %s members %+v", b2.Group(), b2.Devices())
	}
	connected(t, a, b2)
}

// Simultaneous connections between two devices settle on one.
func TestDuplicateConnectionsSettleOnOne(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	pair(t, a, b)
	for range 3 {
		a.targetsAdd(b.Addr().String())
		b.targetsAdd(a.Addr().String())
	}
	if err := a.PublishSnapshot(json.RawMessage(`{"n":1}`), coord(a, 1)); err != nil {
		t.Fatal(err)
	}
	waitEvent(b, func(s SnapshotReceived) bool { return string(s.State) == `{"n":1}` })
	a.Node.mu.Lock()
	na := len(a.sessions)
	a.Node.mu.Unlock()
	if na != 1 {
		t.Fatalf("a has %d sessions", na)
	}
	connected(t, a, b)
}
