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

	// The state a settles in, not a look at the first PeerOffline: a
	// second connection of b's (a dial under way when b closed) can be
	// registered after the first one ended, until a reads its end.
	bOffline := func(e PeerOffline) bool { return e.Device == b.ID() }
	before := countEvents(a, bOffline)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	a.waitUntil("b offline after its close", func() bool {
		return countEvents(a, bOffline) > before && !a.isOnline(b.ID())
	})
	if !a.isMember(b.ID()) {
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

// Simultaneous connections between two devices settle on one: both ends
// keep the same connection, whatever order the handshakes finish in (while
// dials are in flight a device can briefly hold none, so the test waits for
// the settled state instead of sampling one instant).
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
	a.waitUntil("one connection shared with b", func() bool { return sharedSession(a, b) })
	connected(t, a, b)
}

// sharedSession reports whether a and b each hold exactly one session and
// it is the same TCP connection.
func sharedSession(a, b *testNode) bool {
	local, remote, ok := onlySession(a)
	if !ok {
		return false
	}
	bLocal, bRemote, ok := onlySession(b)
	return ok && local == bRemote && remote == bLocal
}

func onlySession(n *testNode) (local, remote string, ok bool) {
	n.Node.mu.Lock()
	defer n.Node.mu.Unlock()
	if len(n.sessions) != 1 {
		return "", "", false
	}
	for _, s := range n.sessions {
		if s.closed() {
			return "", "", false
		}
		local, remote = s.conn.LocalAddr().String(), s.conn.RemoteAddr().String()
	}
	return local, remote, true
}
