package reach

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

func TestGoodKeepsNewestFirstAndBounded(t *testing.T) {
	b := New()
	if !b.Good("A", "10.0.0.1:7700", t0) {
		t.Fatal("a new address did not change the book")
	}
	if b.Good("A", "10.0.0.1:7700", t0.Add(time.Minute)) {
		t.Error("the same front address a minute later rewrote the book")
	}
	if !b.Good("A", "10.0.0.1:7700", t0.Add(2*time.Hour)) {
		t.Error("a success hours later did not renew LastGood")
	}
	b.Good("A", "192.168.1.5:7700", t0.Add(3*time.Hour))
	if got := b.Addrs("A"); !slices.Equal(got, []string{"192.168.1.5:7700", "10.0.0.1:7700"}) {
		t.Errorf("Addrs = %v, want newest first", got)
	}
	if !b.Good("A", "10.0.0.1:7700", t0.Add(3*time.Hour+time.Second)) {
		t.Error("an older address that worked again did not move to the front")
	}
	for i := range MaxPerMember + 5 {
		b.Good("A", fmt.Sprintf("10.1.0.%d:7700", i), t0.Add(4*time.Hour+time.Duration(i)*time.Second))
	}
	got := b.Addrs("A")
	if len(got) != MaxPerMember || got[0] != fmt.Sprintf("10.1.0.%d:7700", MaxPerMember+4) {
		t.Errorf("after many addresses: %d kept, first %q; want the %d newest", len(got), got[0], MaxPerMember)
	}
	for _, bad := range []string{"", "nohost", "h:0", "h:70000", ":7700", strings.Repeat("x", 400) + ":1"} {
		if b.Good("A", bad, t0) {
			t.Errorf("Good took the invalid address %q", bad)
		}
	}
	if b.Good("", "10.0.0.1:1", t0) {
		t.Error("Good took an empty device id")
	}
}

func TestGoodBoundsMembers(t *testing.T) {
	b := New()
	for i := range MaxMembers + 3 {
		b.Good(fmt.Sprint("dev", i), "10.0.0.1:1", t0)
	}
	if len(b.Members) != MaxMembers {
		t.Errorf("%d members kept, limit %d", len(b.Members), MaxMembers)
	}
}

func TestKeepDropsNonMembersAndOldAddresses(t *testing.T) {
	b := New()
	b.Good("A", "10.0.0.1:1", t0)
	b.Good("A", "10.0.0.2:1", t0.Add(MaxAge))
	b.Good("R", "10.0.0.3:1", t0.Add(MaxAge))
	b.Good("B", "10.0.0.4:1", t0)
	if !b.Keep(func(d string) bool { return d != "R" }, t0.Add(MaxAge+time.Hour)) {
		t.Fatal("Keep reported no change")
	}
	if _, ok := b.Members["R"]; ok {
		t.Error("a revoked member's addresses were kept")
	}
	if _, ok := b.Members["B"]; ok {
		t.Error("a member whose only address is older than MaxAge was kept")
	}
	if got := b.Addrs("A"); !slices.Equal(got, []string{"10.0.0.2:1"}) {
		t.Errorf("A keeps %v, want only the address younger than MaxAge", got)
	}
	if b.Keep(func(string) bool { return true }, t0.Add(MaxAge+time.Hour)) {
		t.Error("a second Keep changed the book again")
	}
}

func TestParseRoundTripAndBadInput(t *testing.T) {
	b := New()
	b.SetPort(41234)
	b.Good("A", "10.0.0.1:7700", t0)
	b.Good("B", "[fd00::1]:7700", t0)
	got, err := Parse(b.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if got.Port != 41234 || !slices.Equal(got.Addrs("A"), b.Addrs("A")) || !slices.Equal(got.Addrs("B"), b.Addrs("B")) {
		t.Errorf("round trip: %+v, want %+v", got, b)
	}
	if e, err := Parse(nil); err != nil || e.Port != 0 || len(e.Members) != 0 {
		t.Errorf("Parse(nil) = %+v, %v; want an empty book", e, err)
	}
	many := `{"members":{"A":[` + strings.Repeat(`{"addr":"h:1","last_good":1},`, MaxPerMember) + `{"addr":"h:1","last_good":1}]}}`
	for name, in := range map[string]string{
		"not json":       `{"port":`,
		"port":           `{"port":70000}`,
		"address":        `{"members":{"A":[{"addr":"nope","last_good":1}]}}`,
		"empty id":       `{"members":{"":[{"addr":"h:1","last_good":1}]}}`,
		"too many addrs": many,
	} {
		if _, err := Parse([]byte(in)); !errors.Is(err, ErrBadBook) {
			t.Errorf("%s: Parse error %v, want ErrBadBook", name, err)
		}
	}
}

func TestListenFirst(t *testing.T) {
	b := New()
	if a, fb := b.ListenFirst(":0"); a != ":0" || fb {
		t.Errorf("no port yet: %q %v", a, fb)
	}
	if b.SetPort(0) || !b.SetPort(41234) || b.SetPort(41234) {
		t.Error("SetPort change reports are wrong")
	}
	if a, fb := b.ListenFirst(":0"); a != ":41234" || !fb {
		t.Errorf("remembered port: %q %v, want :41234 with fallback", a, fb)
	}
	if a, fb := b.ListenFirst("0.0.0.0:0"); a != "0.0.0.0:41234" || !fb {
		t.Errorf("remembered port on 0.0.0.0: %q %v", a, fb)
	}
	if a, fb := b.ListenFirst("127.0.0.1:7700"); a != "127.0.0.1:7700" || fb {
		t.Errorf("a configured port must win: %q %v", a, fb)
	}
}

func TestBackoff(t *testing.T) {
	var b Backoff
	now := t0
	if !b.Due(now) {
		t.Fatal("a new address is not due at once")
	}
	var waits []time.Duration
	for range 10 {
		b.Failed(now)
		waits = append(waits, b.Next().Sub(now))
		if b.Due(now) || !b.Due(b.Next()) {
			t.Fatalf("due before its time or not at it: next %v", b.Next())
		}
		now = b.Next()
	}
	want := []time.Duration{100, 200, 400, 800, 1600, 3200, 6400, 10000, 10000, 10000}
	for i := range want {
		if waits[i] != want[i]*time.Millisecond {
			t.Fatalf("waits %v, want %v ms", waits, want)
		}
	}
	b.Succeeded(now)
	if b.Next().Sub(now) != DefaultMin {
		t.Errorf("after a success the wait is %v, want %v", b.Next().Sub(now), DefaultMin)
	}
	b.Failed(now)
	if b.Next().Sub(now) != 2*DefaultMin {
		t.Errorf("a failure after a success waits %v, want %v", b.Next().Sub(now), 2*DefaultMin)
	}
	b.Reset()
	if !b.Due(now) {
		t.Error("Reset did not make the address due")
	}
	c := Backoff{Min: time.Second, Max: 3 * time.Second}
	for range 5 {
		c.Failed(now)
	}
	if c.Next().Sub(now) != 3*time.Second {
		t.Errorf("custom bounds: wait %v, want 3s", c.Next().Sub(now))
	}
}

func TestMoved(t *testing.T) {
	if got := Moved(nil, []string{"10.1.0.2"}); len(got) != 0 {
		t.Errorf("first look: %v gone", got)
	}
	got := Moved([]string{"10.1.0.2", "192.168.1.4", "10.1.0.2"}, []string{"192.168.1.4", "10.3.0.2"})
	if !slices.Equal(got, []string{"10.1.0.2"}) {
		t.Errorf("Moved = %v, want [10.1.0.2]", got)
	}
}

func TestReplace(t *testing.T) {
	ka := 2 * time.Second
	for _, tc := range []struct {
		old, new string
		quiet    time.Duration
		want     bool
	}{
		{"198.51.100.1", "198.51.100.2", 3 * time.Second, true},
		{"198.51.100.1", "198.51.100.2", time.Second, false}, // heard lately: a second dial, not a move
		{"198.51.100.1", "198.51.100.1", time.Minute, false}, // same address: the usual order decides
	} {
		if got := Replace(tc.old, tc.new, t0, t0.Add(tc.quiet), ka); got != tc.want {
			t.Errorf("Replace(%s→%s after %v) = %v, want %v", tc.old, tc.new, tc.quiet, got, tc.want)
		}
	}
}
