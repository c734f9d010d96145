package portmap

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

type fakeProto struct {
	name    string
	err     error
	mu      sync.Mutex
	maps    int
	unmaps  int
	granted time.Duration
}

func (f *fakeProto) Name() string { return f.name }
func (f *fakeProto) Map(ctx context.Context, port int, lifetime time.Duration) (string, time.Duration, error) {
	f.mu.Lock()
	f.maps++
	f.mu.Unlock()
	if f.err != nil {
		return "", 0, f.err
	}
	return "11.0.0.20:7400", f.granted, nil
}
func (f *fakeProto) Unmap(ctx context.Context, port int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unmaps++
	return nil
}

func TestNextRenewsAtHalfAndBacksOff(t *testing.T) {
	for _, c := range []struct {
		granted  time.Duration
		failures int
		want     time.Duration
	}{
		{2 * time.Hour, 0, time.Hour}, {time.Second, 0, time.Minute},
		{0, 1, retryMin}, {0, 2, 2 * retryMin}, {0, 20, retryMax},
	} {
		if got := Next(c.granted, c.failures); got != c.want {
			t.Errorf("Next(%v, %d) = %v, want %v", c.granted, c.failures, got, c.want)
		}
	}
}

// The mapper falls back to the second protocol, says what the routers
// answered, renews where the mapping is held, and removes it when turned
// off.
func TestMapperMapsRenewsAndRemoves(t *testing.T) {
	pmp := &fakeProto{name: "NAT-PMP", err: errors.New("connection refused")}
	upnp := &fakeProto{name: "UPnP-IGD", granted: 2 * time.Hour}
	var mu sync.Mutex
	var got [][]string
	m := New(7400, func(a []string) { mu.Lock(); got = append(got, a); mu.Unlock() }, nil, pmp, upnp)
	changes := 0
	m.OnChange(func() { mu.Lock(); changes++; mu.Unlock() })
	// Refresh is what the loop of SetOn(true) calls, here by hand.
	m.Refresh(context.Background())
	// A renewal asks UPnP only.
	if wait := m.Refresh(context.Background()); wait != time.Hour {
		t.Errorf("renew in %v, want an hour (half of 2h)", wait)
	}
	st := m.Status()
	if !st.On || st.Method != "UPnP-IGD" || st.External != "11.0.0.20:7400" || !strings.Contains(st.Answer, "mapped 11.0.0.20:7400") {
		t.Errorf("status %+v", st)
	}
	if pmp.maps != 1 || upnp.maps != 2 {
		t.Errorf("NAT-PMP asked %d times, UPnP %d; want 1 and 2", pmp.maps, upnp.maps)
	}
	m.SetOn(false)
	if upnp.unmaps != 1 {
		t.Errorf("%d unmaps after off, want 1", upnp.unmaps)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || !slices.Equal(got[0], []string{"11.0.0.20:7400"}) || got[1] != nil {
		t.Errorf("addresses handed on %q, want the mapped one once, then none", got)
	}
	if changes != 3 { // the mapping, its renewal, its removal
		t.Errorf("OnChange ran %d times, want 3", changes)
	}
	if st := m.Status(); st.On || st.External != "" {
		t.Errorf("after off: %+v", st)
	}
}

func TestMapperSaysWhyNot(t *testing.T) {
	a := &fakeProto{name: "NAT-PMP", err: errors.New("connection refused")}
	b := &fakeProto{name: "UPnP-IGD", err: errors.New("no internet gateway answered on the LAN")}
	m := New(7400, func([]string) { t.Error("addresses handed on without a mapping") }, nil, a, b)
	changed := false
	m.OnChange(func() { changed = true })
	if wait := m.Refresh(context.Background()); wait != retryMin {
		t.Errorf("retry in %v, want %v", wait, retryMin)
	}
	st := m.Status()
	if !strings.Contains(st.Answer, "NAT-PMP: connection refused") || !strings.Contains(st.Answer, "UPnP-IGD: no internet gateway") {
		t.Errorf("answer %q does not say what each router said", st.Answer)
	}
	if !changed {
		t.Error("a refusal did not run OnChange: Settings would not show it")
	}
}
