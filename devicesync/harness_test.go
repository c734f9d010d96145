package devicesync

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// waitTimeout is the generous deadline for real-socket conditions.
const waitTimeout = 20 * time.Second

// fakeClock is a settable wall clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_800_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// testNode is a started Node with a recorder of its events.
type testNode struct {
	*Node
	t     testing.TB
	sink  func(Event)
	key   ed25519.PrivateKey
	store *MemStore

	mu     sync.Mutex
	cond   *sync.Cond
	events []Event
	done   bool
}

type nodeOpt func(*Config)

func withClock(c Clock) nodeOpt            { return func(cfg *Config) { cfg.Clock = c } }
func withGateClock(c Clock) nodeOpt        { return func(cfg *Config) { cfg.gateClock = c } }
func withSync(d time.Duration) nodeOpt     { return func(cfg *Config) { cfg.SyncInterval = d } }
func withLimits(l Limits) nodeOpt          { return func(cfg *Config) { cfg.Limits = l } }
func withPeers(p ...string) nodeOpt        { return func(cfg *Config) { cfg.Peers = p } }
func withStore(s *MemStore) nodeOpt        { return func(cfg *Config) { cfg.Store = s } }
func withKey(k ed25519.PrivateKey) nodeOpt { return func(cfg *Config) { cfg.Key = k } }

func testLogger() *slog.Logger {
	if os.Getenv("DEVICESYNC_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func newKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// startNode starts a node on loopback with an in-memory store; it is closed
// when the test ends.
func startNode(t testing.TB, name string, opts ...nodeOpt) *testNode {
	return startNodeSink(t, name, nil, opts...)
}

// startNodeSink is startNode with events handed to sink instead of being
// recorded, when sink is not nil.
func startNodeSink(t testing.TB, name string, sink func(Event), opts ...nodeOpt) *testNode {
	t.Helper()
	cfg := Config{
		Key:    newKey(t),
		Name:   name,
		Listen: "127.0.0.1:0",
		Store:  NewMemStore(),
		Logger: testLogger().With("node", name),
		// Quick, yet within the outsiders' message rate (5/s, burst 10): a
		// request repeated faster is cut off as a flood when the accept
		// comes late on a busy machine.
		PairRetry: 250 * time.Millisecond,
	}
	for _, o := range opts {
		o(&cfg)
	}
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	tn := &testNode{Node: n, t: t, key: cfg.Key, store: cfg.Store.(*MemStore), sink: sink}
	tn.cond = sync.NewCond(&tn.mu)
	go func() {
		for e := range n.Events() {
			tn.mu.Lock()
			if f := tn.sink; f != nil {
				tn.mu.Unlock()
				f(e)
				continue
			}
			tn.events = append(tn.events, e)
			tn.cond.Broadcast()
			tn.mu.Unlock()
		}
		tn.mu.Lock()
		tn.done = true
		tn.cond.Broadcast()
		tn.mu.Unlock()
	}()
	// Conditions on node state are not all tied to events: wake waiters
	// regularly so they re-check.
	stop := make(chan struct{})
	go func() {
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				tn.mu.Lock()
				tn.cond.Broadcast()
				tn.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		if err := n.Close(); err != nil {
			t.Error(err)
		}
	})
	return tn
}

// waitUntil waits until cond holds, failing the test after waitTimeout.
func (tn *testNode) waitUntil(what string, cond func() bool) {
	tn.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	tn.mu.Lock()
	defer tn.mu.Unlock()
	for {
		tn.mu.Unlock()
		ok := cond()
		tn.mu.Lock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			tn.t.Fatalf("%s: timed out waiting for %s", tn.cfg.Name, what)
		}
		tn.cond.Wait()
	}
}

// waitEvent waits for the first recorded event matching match, removes it
// from the record, and returns it.
func waitEvent[E Event](tn *testNode, match func(E) bool) E {
	tn.t.Helper()
	var got E
	tn.waitUntil("event", func() bool {
		tn.mu.Lock()
		defer tn.mu.Unlock()
		for i, e := range tn.events {
			if v, ok := e.(E); ok && (match == nil || match(v)) {
				got = v
				tn.events = slices.Delete(tn.events, i, i+1)
				return true
			}
		}
		return false
	})
	return got
}

// countEvents is how many matching events are recorded: a test waits for
// it to grow when an earlier event of the same kind may still be there
// (pairing can end a duplicate connection and record a PeerOffline).
func countEvents[E Event](tn *testNode, match func(E) bool) int {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	k := 0
	for _, e := range tn.events {
		if v, ok := e.(E); ok && (match == nil || match(v)) {
			k++
		}
	}
	return k
}

// hasEvent reports whether a matching event was recorded.
func hasEvent[E Event](tn *testNode, match func(E) bool) bool {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	for _, e := range tn.events {
		if v, ok := e.(E); ok && (match == nil || match(v)) {
			return true
		}
	}
	return false
}

func (tn *testNode) isOnline(id engine.DeviceID) bool {
	for _, d := range tn.Devices() {
		if d.ID == id {
			return d.Online
		}
	}
	return false
}

func (tn *testNode) isMember(id engine.DeviceID) bool {
	for _, d := range tn.Devices() {
		if d.ID == id {
			return true
		}
	}
	return false
}

// pair makes joiner join inviter's group, the inviter's user accepting.
func pair(t testing.TB, inviter, joiner *testNode) {
	t.Helper()
	code, _, err := inviter.CreateInvite()
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- joiner.Pair(context.Background(), code) }()
	req := waitEvent(inviter, func(r PairingRequest) bool { return r.DeviceID == joiner.ID() })
	if err := inviter.Accept(req.ID, false); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Pair: %v", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("Pair did not return")
	}
	if joiner.Group() != inviter.Group() {
		t.Fatalf("joiner group %s, inviter group %s", joiner.Group(), inviter.Group())
	}
	connected(t, inviter, joiner)
	// The joiner has the membership ops from the response; the rest of
	// the inviter's log follows through anti-entropy.
	want := inviter.vectorOf(inviter.ID())
	joiner.waitUntil("the inviter's log", func() bool { return joiner.vectorOf(inviter.ID()) >= want })
}

// startGroup starts a node for each name, pairs every one with the first,
// and waits until they are all connected to each other.
func startGroup(t testing.TB, names ...string) []*testNode {
	t.Helper()
	ns := make([]*testNode, len(names))
	for i, name := range names {
		ns[i] = startNode(t, name)
		if i > 0 {
			pair(t, ns[0], ns[i])
		}
	}
	for i := 1; i < len(ns); i++ {
		for j := i + 1; j < len(ns); j++ {
			connected(t, ns[i], ns[j])
		}
	}
	return ns
}

// connected waits until a and b are directly connected both ways.
func connected(t testing.TB, a, b *testNode) {
	t.Helper()
	a.waitUntil("online "+b.cfg.Name, func() bool { return a.isOnline(b.ID()) })
	b.waitUntil("online "+a.cfg.Name, func() bool { return b.isOnline(a.ID()) })
}

func coord(n *testNode, counter uint64) engine.Coordination {
	return engine.Coordination{
		Version:   engine.EnvelopeVersion,
		Device:    n.ID(),
		Claim:     engine.Claim{Counter: counter, Issuer: n.ID(), Owner: n.ID()},
		Heartbeat: counter,
		Output:    engine.Output{Available: true, Playing: true},
	}
}

func stamp(issuer engine.DeviceID, seq uint64) engine.CommandStamp {
	return engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: engine.Claim{Counter: 1, Issuer: issuer, Owner: issuer}, Sequence: seq}
}

// rawPeer is a hand-driven TLS client, for attackers and malformed input.
type rawPeer struct {
	t    testing.TB
	conn *tls.Conn
	r    *bufio.Reader
}

// dialRaw connects to addr with key, presenting the ALPN, trusting any
// server key.
func dialRaw(t testing.TB, addr string, key ed25519.PrivateKey) (*rawPeer, error) {
	t.Helper()
	return dialRawFrom(t, addr, key, nil)
}

// otherSource returns a loopback address of its own (127.0.0.2 and up,
// each call the next) for a client to connect from, as devices at other
// addresses would. Linux routes all of 127/8 to the loopback interface;
// elsewhere the test is skipped.
func otherSource(t testing.TB) net.IP {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("needs the loopback addresses beyond 127.0.0.1 that Linux has")
	}
	n := sourceSeq.Add(1)
	return net.IPv4(127, byte(n/250), byte(2+n%250), 1)
}

var sourceSeq atomic.Uint32

// dialRawFrom is dialRaw from the local address from (nil: any).
func dialRawFrom(t testing.TB, addr string, key ed25519.PrivateKey, from net.IP) (*rawPeer, error) {
	t.Helper()
	cert, err := selfCertificate(key, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	d := &net.Dialer{Timeout: waitTimeout}
	if from != nil {
		d.LocalAddr = &net.TCPAddr{IP: from}
	}
	conn, err := tls.DialWithDialer(d, "tcp", addr, &tls.Config{
		MinVersion:         tls.VersionTLS13,
		Certificates:       []tls.Certificate{cert},
		NextProtos:         []string{ALPN},
		InsecureSkipVerify: true,
	})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = conn.Close() })
	return &rawPeer{t: t, conn: conn, r: bufio.NewReader(conn)}, nil
}

func (p *rawPeer) sendLine(line string) error {
	_ = p.conn.SetWriteDeadline(time.Now().Add(waitTimeout))
	_, err := io.WriteString(p.conn, line+"\n")
	return err
}

func (p *rawPeer) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	return p.sendLine(string(b))
}

// closedByPeer reads until the server closes the connection, reporting
// false if it stays open past the deadline.
func (p *rawPeer) closedByPeer() bool {
	_ = p.conn.SetReadDeadline(time.Now().Add(waitTimeout))
	for {
		if _, err := readLine(p.r, MaxLineBytes*2); err != nil {
			var ne interface{ Timeout() bool }
			return !(errors.As(err, &ne) && ne.Timeout())
		}
	}
}

// readType reads lines until one of type typ arrives and returns it.
func (p *rawPeer) readType(typ string) message {
	p.t.Helper()
	_ = p.conn.SetReadDeadline(time.Now().Add(waitTimeout))
	for {
		line, err := readLine(p.r, MaxLineBytes)
		if err != nil {
			p.t.Fatalf("read %s: %v", typ, err)
		}
		m, err := decodeLine(line)
		if err == nil && m.msgType() == typ {
			return m
		}
	}
}

// vectorOf returns the greatest seq the node holds from origin.
func (tn *testNode) vectorOf(origin engine.DeviceID) uint64 {
	tn.Node.mu.Lock()
	defer tn.Node.mu.Unlock()
	return tn.glog.vector[origin]
}

type ed25519PublicKey = ed25519.PublicKey

// targetsAdd makes the node dial addr.
func (tn *testNode) targetsAdd(addr string) {
	tn.Node.mu.Lock()
	tn.targets[addr] = &dialTarget{addr: addr, permanent: true}
	tn.Node.mu.Unlock()
	tn.signalWake()
}

func mkID(i int) engine.DeviceID {
	return engine.DeviceID(fmt.Sprintf("dev_%024x", i))
}

func mkOp(origin engine.DeviceID, seq uint64, hlc int64, kind string, body any) Op {
	b, err := json.Marshal(body)
	if err != nil {
		panic(err)
	}
	return Op{ID: OpID(origin, seq), Origin: origin, Seq: seq, HLCms: hlc, Kind: kind, Body: b}
}

func fakeNow() time.Time { return newFakeClock().Now() }

// signedOp is op number seq of key's device in group, signed.
func signedOp(t testing.TB, key ed25519.PrivateKey, group string, seq uint64, hlc int64, kind string, body any) Op {
	t.Helper()
	b, ok := body.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	id := DeviceIDFromPublicKey(key.Public().(ed25519.PublicKey))
	o := Op{ID: OpID(id, seq), Origin: id, Seq: seq, HLCms: hlc, Kind: kind, Body: b}
	if err := signOp(key, group, &o); err != nil {
		t.Fatal(err)
	}
	return o
}
