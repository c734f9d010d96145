package devicesync

import (
	"crypto/ed25519"
	"encoding/json"

	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// blackholeProxy forwards TCP connections to a target until cut; then it
// silently drops everything in both directions and never forwards a close,
// like a link that died without a FIN (suspend, network change, a peer that
// restarted behind a NAT).
type blackholeProxy struct {
	t  testing.TB
	ln net.Listener

	mu     sync.Mutex
	target string
	cut    bool
	conns  []net.Conn
	// stalled, while not nil, stops the pipes reading (a peer that takes
	// nothing); closed by close.
	stalled chan struct{}
}

func newBlackholeProxy(t testing.TB) *blackholeProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &blackholeProxy{t: t, ln: ln}
	t.Cleanup(p.close)
	go p.accept()
	return p
}

func (p *blackholeProxy) addr() string { return p.ln.Addr().String() }

func (p *blackholeProxy) setTarget(addr string) {
	p.mu.Lock()
	p.target = addr
	p.mu.Unlock()
}

// cutSilently stops forwarding without closing anything.
func (p *blackholeProxy) cutSilently() {
	p.mu.Lock()
	p.cut = true
	p.mu.Unlock()
}

func (p *blackholeProxy) isCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut
}

// stall stops reading from both ends, so their writes back up.
func (p *blackholeProxy) stall() {
	p.mu.Lock()
	if p.stalled == nil {
		p.stalled = make(chan struct{})
	}
	p.mu.Unlock()
}

func (p *blackholeProxy) stallCh() chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stalled
}

func (p *blackholeProxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stalled != nil {
		close(p.stalled)
	}
	for _, c := range p.conns {
		_ = c.Close()
	}
}

func (p *blackholeProxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		target, cut := p.target, p.cut
		p.mu.Unlock()
		if cut || target == "" {
			_ = in.Close()
			continue
		}
		out, err := net.Dial("tcp", target)
		if err != nil {
			_ = in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

// pipe copies src to dst until cut; after the cut it reads and discards,
// and a close of src is not passed on.
func (p *blackholeProxy) pipe(src, dst net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		if ch := p.stallCh(); ch != nil {
			<-ch
			return
		}
		k, err := src.Read(buf)
		if k > 0 && !p.isCut() {
			if _, werr := dst.Write(buf[:k]); werr != nil && !p.isCut() {
				_ = src.Close()
				return
			}
		}
		if err != nil {
			if !p.isCut() {
				_ = dst.Close()
			}
			return
		}
	}
}

func withAdvertise(a ...string) nodeOpt { return func(cfg *Config) { cfg.Advertise = a } }

// orderedKeys returns two keys whose device ids sort ascending, so the
// first one's dialed connections win the duplicate-connection rule.
func orderedKeys(t testing.TB) (ed25519.PrivateKey, ed25519.PrivateKey) {
	k1, k2 := newKey(t), newKey(t)
	if DeviceIDFromPublicKey(k1.Public().(ed25519.PublicKey)) > DeviceIDFromPublicKey(k2.Public().(ed25519.PublicKey)) {
		k1, k2 = k2, k1
	}
	return k1, k2
}

// sessionDialed reports whether tn holds a session to peer and whether tn
// dialed it.
func (tn *testNode) sessionDialed(peer engine.DeviceID) (exists, dialed bool) {
	tn.Node.mu.Lock()
	defer tn.Node.mu.Unlock()
	s := tn.sessions[peer]
	return s != nil, s != nil && s.dialed
}

func snapshotOf(from engine.DeviceID, state string) func(SnapshotReceived) bool {
	return func(s SnapshotReceived) bool { return s.From == from && string(s.State) == state }
}

// pairOverProxy pairs a (smaller id) and b, where b is reachable only
// through a proxy it advertises, and waits until the connection a dialed
// through the proxy is the one both keep.
func pairOverProxy(t *testing.T, opts ...nodeOpt) (a, b *testNode, p *blackholeProxy) {
	t.Helper()
	ka, kb := orderedKeys(t)
	p = newBlackholeProxy(t)
	a = startNode(t, "a", append([]nodeOpt{withKey(ka)}, opts...)...)
	b = startNode(t, "b", append([]nodeOpt{withKey(kb), withAdvertise(p.addr())}, opts...)...)
	p.setTarget(b.Addr().String())
	pair(t, a, b)
	a.targetsAdd(p.addr()) // a dials through the proxy; its connection wins
	a.waitUntil("a keeps its connection through the proxy", func() bool {
		_, dialed := a.sessionDialed(b.ID())
		_, bDialed := b.sessionDialed(a.ID())
		okB, _ := b.sessionDialed(a.ID())
		return dialed && okB && !bDialed
	})
	return a, b, p
}

// Bug 5: A holds a connection that died without a close (B restarted, its
// FIN never arrived). The restarted B dials A; A must take the new
// connection rather than refuse it for the dead one until its read
// deadline, else B sees A offline, no snapshots flow, and B fails over
// although A is fine.
func TestRestartedPeerReplacesSilentConnection(t *testing.T) {
	clock := newFakeClock()
	lim := DefaultLimits()
	lim.PeerTimeout = time.Hour // the read deadline must not be what saves us
	a, b, p := pairOverProxy(t, withClock(clock), withLimits(lim))

	p.cutSilently()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.PublishSnapshot(json.RawMessage(`{"a":1}`), coord(a, 1)); err != nil {
		t.Fatal(err)
	}

	b2 := startNode(t, "b", withKey(b.key), withStore(b.store), withClock(clock), withLimits(lim))
	if err := b2.PublishSnapshot(json.RawMessage(`{"b":2}`), coord(b2, 2)); err != nil {
		t.Fatal(err)
	}
	// Time passes while b2 retries: a line b sent before the cut may still
	// be read by a, so the silence is measured from whatever a heard last.
	a.waitUntil("b2's snapshot", func() bool {
		clock.Advance(time.Second)
		return hasEvent(a, snapshotOf(b2.ID(), `{"b":2}`))
	})
	waitEvent(b2, snapshotOf(a.ID(), `{"a":1}`))
	connected(t, a, b2)
}

// A connection on which nothing arrives for PeerTimeout is closed on both
// ends and the devices find each other again by another address, and
// snapshots flow both ways afterwards.
func TestSilentConnectionIsClosedAndRedialled(t *testing.T) {
	lim := DefaultLimits()
	lim.PeerTimeout = time.Second
	a, b, p := pairOverProxy(t, withLimits(lim))

	p.cutSilently()
	waitEvent(a, func(e PeerOffline) bool { return e.Device == b.ID() })
	if err := a.PublishSnapshot(json.RawMessage(`{"a":1}`), coord(a, 1)); err != nil {
		t.Fatal(err)
	}
	if err := b.PublishSnapshot(json.RawMessage(`{"b":1}`), coord(b, 1)); err != nil {
		t.Fatal(err)
	}
	waitEvent(b, snapshotOf(a.ID(), `{"a":1}`))
	waitEvent(a, snapshotOf(b.ID(), `{"b":1}`))
	connected(t, a, b)
}

// A member that restarted on a new port is dialed at its new address, and
// its old address stops being a target: stale addresses must not pile up
// to the target limit and keep new ones out.
func TestRestartOnNewPortReplacesTarget(t *testing.T) {
	a := startNode(t, "a")
	b := startNode(t, "b")
	pair(t, a, b)
	old := b.Addr().String()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b2 := startNode(t, "b", withKey(b.key), withStore(b.store))
	if b2.Addr().String() == old {
		t.Skip("the kernel gave the restarted node its old port")
	}
	connected(t, a, b2)
	a.waitUntil("old address of b dropped from the targets", func() bool {
		a.Node.mu.Lock()
		defer a.Node.mu.Unlock()
		_, stale := a.targets[old]
		_, fresh := a.targets[b2.Addr().String()]
		return !stale && fresh
	})
	for _, d := range a.Devices() {
		if d.ID == b2.ID() && !slices.Equal(d.Addresses, []string{b2.Addr().String()}) {
			t.Fatalf("a lists b at %v, want %s", d.Addresses, b2.Addr())
		}
	}
}
