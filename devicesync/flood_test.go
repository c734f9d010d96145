package devicesync

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// flood holds outsider connections to addr the way the attacker
// did: a fresh key per connection, a blank line every keepalive, and a new
// connection whenever one is closed. Its sources are loopback addresses
// other than 127.0.0.1, where the members are.
type flood struct {
	held, dialed atomic.Int64
	stop         context.CancelFunc
	wg           sync.WaitGroup
}

func startFlood(t testing.TB, addr string, conns, sources int, keepalive time.Duration) *flood {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &flood{stop: cancel}
	from := make([]net.IP, sources)
	for i := range from {
		from[i] = otherSource(t)
	}
	for i := range conns {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			src := from[i%sources]
			for ctx.Err() == nil {
				f.hold(ctx, t, addr, src, keepalive)
				select { // the attacker's own pace between attempts
				case <-ctx.Done():
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
	}
	t.Cleanup(f.end)
	return f
}

func (f *flood) end() {
	f.stop()
	f.wg.Wait()
}

// hold makes one connection and keeps it alive with blank lines until
// the other side closes it.
func (f *flood) hold(ctx context.Context, t testing.TB, addr string, src net.IP, keepalive time.Duration) {
	cert, err := selfCertificate(newKey(t), time.Now())
	if err != nil {
		return
	}
	d := &tls.Dialer{NetDialer: &net.Dialer{LocalAddr: &net.TCPAddr{IP: src}, Timeout: 5 * time.Second},
		Config: &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert}, NextProtos: []string{ALPN}, InsecureSkipVerify: true}}
	f.dialed.Add(1)
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	f.held.Add(1)
	defer f.held.Add(-1)
	tk := time.NewTicker(keepalive)
	defer tk.Stop()
	for {
		_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte("\n")); err != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
	}
}

// During a flood of 300 outsider connections kept alive with blank lines,
// from 30 addresses, a member that restarts on a new port gets back online
// with the flooded device, and a new device pairs with it. Outsiders never
// hold more than their budget, and each of them is gone within the pairing
// window. (How fast the member is back: BenchmarkMemberBackDuringFlood.)
func TestMembersGetInDuringAFlood(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	pair(t, a, b)
	f := startFlood(t, a.Addr().String(), 300, 30, 500*time.Millisecond)
	a.waitUntil("the flood fills the outsiders' budget", func() bool {
		o, _, _ := a.gate.counts()
		return o == maxOutsiders
	})
	// The whole flood, not its first connections: its 300 goroutines dial
	// at the pace the machine gives them (102 had when c had paired, in a
	// run under -race -cpu 1 beside two busy loops).
	a.waitUntil("the flood's 300 connections dialed", func() bool { return f.dialed.Load() >= 300 })

	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	a.waitUntil("b gone", func() bool { return !a.isOnline(b.ID()) })
	b2 := startNode(t, "b", withKey(b.key), withStore(b.store))
	if b2.Addr().String() == b.Addr().String() {
		t.Skip("the kernel gave the restarted node its old port")
	}
	start := time.Now()
	connected(t, a, b2)
	t.Logf("b back online %v after its restart, during the flood", time.Since(start))

	c := startNode(t, "c")
	start = time.Now()
	pair(t, a, c)
	t.Logf("c paired in %v during the flood", time.Since(start))

	if o, _, _ := a.gate.counts(); o > maxOutsiders {
		t.Fatalf("outsiders %d, flood connections %d", o, f.dialed.Load())
	}
	if a.Counters().Refused == 0 {
		t.Fatal("no outsider was refused")
	}
}

func withPairWindow(d time.Duration) nodeOpt { return func(cfg *Config) { cfg.pairWindow = d } }

// An outsider has a fixed window to ask to pair: blank lines and lines of
// unknown types do not renew it, and once it is closed its address serves
// a backoff.
func TestPairingWindowIsNotRenewedByNoise(t *testing.T) {
	const window = 300 * time.Millisecond
	// a's gate stands still: the backoff the address earns lasts however
	// slow the machine is between the close and the redial (on the real
	// clock it ends after a second and the redial is served again).
	a := startNode(t, "a", withPairWindow(window), withGateClock(newFakeClock()))
	from := otherSource(t)
	p, err := dialRawFrom(t, a.Addr().String(), newKey(t), from)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tk := time.NewTicker(window / 5)
		defer tk.Stop()
		for i := 0; ; i++ {
			line := ""
			if i%2 == 1 {
				line = `{"type":"noise"}`
			}
			if p.sendLine(line) != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-tk.C:
			}
		}
	}()
	start := time.Now()
	if !p.closedByPeer() {
		t.Fatal("noise kept the connection open")
	}
	t.Logf("closed %v after it opened (window %v)", time.Since(start), window)
	refused := a.Counters().Refused
	if p, err := dialRawFrom(t, a.Addr().String(), newKey(t), from); err == nil && !p.closedByPeer() {
		t.Fatal("the address came straight back")
	}
	a.waitUntil("the address is refused", func() bool { return a.Counters().Refused > refused })

}

// Every peer reads within byte budgets: an outsider's large line closes
// its connection and its address serves a backoff; a member's connection
// is closed once it has carried its byte budget, without a backoff (the
// member comes back with a fresh one), and its other messages are read
// until then.
func TestByteBudgets(t *testing.T) {
	lim := DefaultLimits()
	lim.ConnBytes = 4 * MaxLineBytes
	// a's gate stands still: the outsider's backoff lasts however slow the
	// machine is between the close and the redial.
	a := startNode(t, "a", withLimits(lim), withGateClock(newFakeClock()))
	from := otherSource(t)
	p, err := dialRawFrom(t, a.Addr().String(), newKey(t), from)
	if err != nil {
		t.Fatal(err)
	}
	_ = p.sendLine(`{"type":"noise","pad":"` + strings.Repeat("x", 2*outsiderByteBurst) + `"}`)
	if !p.closedByPeer() {
		t.Fatal("an outsider's large line was read")
	}
	refused := a.Counters().Refused
	if p, err := dialRawFrom(t, a.Addr().String(), newKey(t), from); err == nil && !p.closedByPeer() {
		t.Fatal("the outsider's address came straight back")
	}
	a.waitUntil("the outsider's address is refused", func() bool { return a.Counters().Refused > refused })

	b := startNode(t, "b")
	pair(t, a, b)
	m := memberPeer(t, a, b)
	closed := a.Counters().Closed
	pad := strings.Repeat("x", MaxLineBytes/2)
	sent := 0
	for sent <= int(lim.ConnBytes) {
		if m.sendLine(`{"type":"noise","pad":"`+pad+`"}`) != nil {
			break
		}
		sent += len(pad)
	}
	if !m.closedByPeer() {
		t.Fatal("the member's connection outlived its byte budget")
	}
	a.waitUntil("closed counted", func() bool { return a.Counters().Closed > closed })
	if unknown := a.Counters().UnknownType; unknown < uint64(lim.ConnBytes)/uint64(len(pad))-1 {
		t.Fatalf("read %d lines of the member before its budget ran out", unknown)
	}
	a.waitUntil("b's connection ended", func() bool { return !a.isOnline(b.ID()) })
	again, err := dialRaw(t, a.Addr().String(), b.key)
	if err != nil {
		t.Fatal(err)
	}
	again.readType(typeHello) // no backoff
}
