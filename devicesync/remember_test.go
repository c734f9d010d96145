package devicesync

import (
	"errors"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/furudesk/furudesk/reach"
)

func portOf(t testing.TB, n *testNode) int {
	t.Helper()
	return n.Addr().(*net.TCPAddr).Port
}

// restart closes n and starts it again with its key and store, the way a
// relaunch does.
func restart(t testing.TB, n *testNode, opts ...nodeOpt) *testNode {
	t.Helper()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	return startNode(t, n.cfg.Name, append([]nodeOpt{withKey(n.key), withStore(n.store)}, opts...)...)
}

// Three devices restarted together, with no multicast and no --peer, are
// one group again: each comes back on its last port, so the addresses the
// others remember are right.
func TestRestartTogetherWithoutDiscovery(t *testing.T) {
	ns := startGroup(t, "a", "b", "c")
	ports := []int{portOf(t, ns[0]), portOf(t, ns[1]), portOf(t, ns[2])}
	for _, n := range ns {
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
	}
	began := time.Now()
	again := make([]*testNode, len(ns))
	for i, n := range ns {
		again[i] = startNode(t, n.cfg.Name, withKey(n.key), withStore(n.store))
		if got := portOf(t, again[i]); got != ports[i] {
			t.Errorf("%s listens on port %d after the restart, was %d", n.cfg.Name, got, ports[i])
		}
	}
	for i := range again {
		for j := i + 1; j < len(again); j++ {
			connected(t, again[i], again[j])
		}
	}
	t.Logf("three devices restarted together: one group again after %v", time.Since(began).Round(time.Millisecond))
}

// A device finds a member at the address it last reached it on even when
// the member's profile names another one (a NAT's address, an address
// typed once with --peer): the address book, not the profile, finds it.
func TestRememberedAddressOutlivesTheProfile(t *testing.T) {
	b := startNode(t, "b")
	a := startNode(t, "a", withAdvertise("127.0.0.1:1"))
	pair(t, b, a) // a dialed b: a remembers b's address
	port := portOf(t, b)

	// b comes back on its port, but now announces an address nobody can
	// dial; a still reaches it and learns that profile.
	b = restart(t, b, withAdvertise("127.0.0.1:2"))
	if got := portOf(t, b); got != port {
		t.Fatalf("b came back on port %d, was %d", got, port)
	}
	connected(t, a, b)
	a.waitUntil("b's new profile", func() bool {
		for _, d := range a.Devices() {
			if d.ID == b.ID() {
				return slices.Equal(d.Addresses, []string{"127.0.0.1:2"})
			}
		}
		return false
	})

	// a relaunches with nothing but its store: only its book knows where b is.
	a = restart(t, a, withAdvertise("127.0.0.1:1"))
	connected(t, a, b)
	bk, err := reach.Parse(a.store.book)
	if err != nil {
		t.Fatal(err)
	}
	if got := bk.Addrs(string(b.ID())); len(got) == 0 || got[0] != b.Addr().String() {
		t.Errorf("a's stored book has %v for b, want %s first", got, b.Addr())
	}
}

// When the last port is taken, the device listens on another and says so
// in its profile; the port it got is remembered for the next launch.
func TestTakenPortFallsBack(t *testing.T) {
	a := startNode(t, "a")
	old := portOf(t, a)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	squat, err := net.Listen("tcp", a.Addr().String())
	if err != nil {
		t.Skipf("cannot take the port again: %v", err)
	}
	defer squat.Close()
	a2 := startNode(t, "a", withKey(a.key), withStore(a.store))
	now := portOf(t, a2)
	if now == old {
		t.Fatalf("a listens on the taken port %d", old)
	}
	bk, err := reach.Parse(a2.store.book)
	if err != nil || bk.Port != now {
		t.Errorf("stored port %d (%v), want %d", bk.Port, err, now)
	}
	if d := a2.Devices()[0]; !slices.Contains(d.Addresses, a2.Addr().String()) {
		t.Errorf("a's profile addresses %v lack %s", d.Addresses, a2.Addr())
	}
}

// A configured port is used as given: no fallback hides a mistake.
func TestConfiguredPortIsNotReplaced(t *testing.T) {
	squat, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer squat.Close()
	st := NewMemStore()
	n, err := New(Config{Key: newKey(t), Listen: squat.Addr().String(), Store: st, Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(t.Context()); err == nil {
		n.Close()
		t.Fatal("Start on a taken configured port succeeded")
	}
}

// A stored book that cannot be read does not stop the node: it starts
// without it and stores a valid one in its place.
func TestBadStoredBookIsReplaced(t *testing.T) {
	st := NewMemStore()
	st.book = []byte(`{"port": "nope"}`)
	if _, err := reach.Parse(st.book); !errors.Is(err, reach.ErrBadBook) {
		t.Fatalf("the test's book parses: %v", err)
	}
	a := startNode(t, "a", withStore(st))
	bk, err := reach.Parse(st.book)
	if err != nil || bk.Port != portOf(t, a) {
		t.Errorf("stored book %+v (%v), want a valid one with port %d", bk, err, portOf(t, a))
	}
}

// A device whose address went away (it left that network) drops the
// connections bound to it at once and dials again, without waiting for a
// read deadline.
func TestRoamingRedialsAtOnce(t *testing.T) {
	ns := startGroup(t, "a", "b")
	a, b := ns[0], ns[1]
	a.Node.mu.Lock()
	old := a.sessions[b.ID()]
	a.localIPs = []string{"127.0.0.1", "192.0.2.77"}
	a.roamLocked([]string{"192.0.2.77"}) // 127.0.0.1 "went away"
	a.Node.mu.Unlock()
	if !old.closed() {
		t.Fatal("the connection bound to the address that went away is open")
	}
	a.waitUntil("a new connection to b", func() bool {
		a.Node.mu.Lock()
		defer a.Node.mu.Unlock()
		s := a.sessions[b.ID()]
		return s != nil && s != old && !s.closed()
	})
	connected(t, a, b)
}
