package devicesync

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

func withCarry() nodeOpt { return func(cfg *Config) { cfg.Carry = true } }

func withRelayTap(f func([]byte)) nodeOpt { return func(cfg *Config) { cfg.relayTap = f } }

// carriedLine is lineOfThree with b carrying streams: a and c reach each
// other only through b.
func carriedLine(t testing.TB, opts ...nodeOpt) (a, b, c *testNode) {
	t.Helper()
	b = startNode(t, "b", append([]nodeOpt{withCarry()}, opts...)...)
	a = startNode(t, "a", withAdvertise("127.0.0.1:1"))
	c = startNode(t, "c", withAdvertise("127.0.0.1:1"))
	pair(t, b, a)
	pair(t, b, c)
	return a, b, c
}

func viaOf(n *testNode, id engine.DeviceID) (bool, engine.DeviceID) {
	for _, d := range n.Devices() {
		if d.ID == id {
			return d.Online && !d.Relayed, d.Via
		}
	}
	return false, ""
}

// Two devices that cannot dial each other get a session of their own
// through the member both reach, and say so; commands and fetches work
// over it; revoking one end cuts the carried stream at once.
func TestSessionThroughACarrier(t *testing.T) {
	var tapMu sync.Mutex
	var carried []byte
	a, b, c := carriedLine(t, withRelayTap(func(p []byte) {
		tapMu.Lock()
		carried = append(carried, p...)
		tapMu.Unlock()
	}))
	began := time.Now()
	a.waitUntil("c through b", func() bool { on, via := viaOf(a, c.ID()); return on && via == b.ID() })
	c.waitUntil("a through b", func() bool { on, via := viaOf(c, a.ID()); return on && via == b.ID() })
	t.Logf("a and c connected through b %v after pairing", time.Since(began).Round(time.Millisecond))
	if on, via := viaOf(a, b.ID()); !on || via != "" {
		t.Fatalf("a shows b online %v via %q, want direct", on, via)
	}
	if st := b.Counters(); st.RelayStreams == 0 {
		t.Errorf("b counts %d carried streams", st.RelayStreams)
	}

	// A command for c travels the relayed session (and b's relay of ops).
	if _, err := a.SendCommand(c.ID(), stamp(a.ID(), 1), false, json.RawMessage(`{"op":"pause"}`)); err != nil {
		t.Fatal(err)
	}
	waitEvent(c, func(e CommandReceived) bool { return e.From == a.ID() })

	// A fetch connection runs end to end through b.
	c.HandleFetch(func(peer engine.DeviceID, conn net.Conn) {
		_, _ = io.Copy(conn, conn) // echo
	})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	fc, err := a.DialFetch(ctx, c.ID())
	if err != nil {
		t.Fatalf("fetch through b: %v", err)
	}
	msg := []byte("a track's bytes")
	if _, err := fc.Write(msg); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(msg))
	_ = fc.SetReadDeadline(time.Now().Add(waitTimeout))
	if _, err := io.ReadFull(fc, got); err != nil || string(got) != string(msg) {
		t.Fatalf("echo through b: %q, %v", got, err)
	}
	fc.Close()
	tapMu.Lock()
	// The tap sees the inner handshake (its ALPN travels in the clear in
	// a ClientHello) but never the fetch's data.
	if !bytes.Contains(carried, []byte(FetchALPN)) || bytes.Contains(carried, msg) {
		t.Errorf("b carried %d bytes: inner fetch handshake among them %v, the fetch's plaintext %v; want the handshake, ciphertext only",
			len(carried), bytes.Contains(carried, []byte(FetchALPN)), bytes.Contains(carried, msg))
	}
	tapMu.Unlock()

	// Revoked: the carrier cuts its streams with c, a drops the session.
	before := b.Counters().RelayBytes
	if err := a.Revoke(c.ID()); err != nil {
		t.Fatal(err)
	}
	b.waitUntil("b cut c's streams", func() bool {
		b.Node.mu.Lock()
		defer b.Node.mu.Unlock()
		return b.carrier.Len() == 0 && len(b.legs) == 0
	})
	a.waitUntil("a without c", func() bool { on, _ := viaOf(a, c.ID()); return !on })
	if b.Counters().RelayBytes < before {
		t.Error("relay byte counter went back")
	}
}

// dialRelay opens a RelayALPN connection to n with key and sends req.
func dialRelay(t *testing.T, n *testNode, key []byte, req relayRequest) relayReply {
	t.Helper()
	cert, err := selfCertificate(key, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", n.Addr().String(), &tls.Config{
		MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert},
		NextProtos: []string{RelayALPN}, InsecureSkipVerify: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := writeRelayLine(conn, req); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(waitTimeout))
	line, err := readRelayLine(conn)
	if err != nil {
		return relayReply{Error: "closed: " + err.Error()}
	}
	var rep relayReply
	_ = json.Unmarshal(line, &rep)
	return rep
}

// An outsider cannot use a member as an open relay; a member cannot have
// itself carried to a device that is not a member, nor through a device
// that does not carry.
func TestRelayRefusals(t *testing.T) {
	a, b, c := carriedLine(t)
	if rep := dialRelay(t, b, newKey(t), relayRequest{To: c.ID()}); rep.OK || rep.Error == "" {
		t.Errorf("an outsider's relay request: %+v, want refused", rep)
	}
	if rep := dialRelay(t, b, a.key, relayRequest{To: mkID(99)}); rep.OK || rep.Error == "" {
		t.Errorf("a relay to a non-member: %+v, want refused", rep)
	}
	if rep := dialRelay(t, b, a.key, relayRequest{Answer: "no-such-call"}); rep.OK || rep.Error == "" {
		t.Errorf("an answer to no call: %+v, want refused", rep)
	}
	if rep := dialRelay(t, a, c.key, relayRequest{To: b.ID()}); rep.OK || rep.Error == "" {
		t.Errorf("a relay through a device that does not carry: %+v, want refused", rep)
	}
	// Turned off on b: its streams close, and a and c lose each other.
	a.waitUntil("c through b", func() bool { on, via := viaOf(a, c.ID()); return on && via == b.ID() })
	b.SetCarry(false)
	if b.Carries() {
		t.Error("b still carries")
	}
	a.waitUntil("a without c", func() bool { on, _ := viaOf(a, c.ID()); return !on })
	if rep := dialRelay(t, b, a.key, relayRequest{To: c.ID()}); rep.OK {
		t.Errorf("b carries after it was turned off: %+v", rep)
	}
}

// When a direct connection works, it replaces the relayed one.
func TestDirectReplacesRelayed(t *testing.T) {
	b := startNode(t, "b", withCarry())
	a := startNode(t, "a", withAdvertise("127.0.0.1:1"))
	c := startNode(t, "c", withAdvertise("127.0.0.1:1"))
	pair(t, b, a)
	pair(t, b, c)
	a.waitUntil("c through b", func() bool { on, via := viaOf(a, c.ID()); return on && via == b.ID() })
	a.targetsAdd(c.Addr().String()) // a learns an address of c that works
	a.waitUntil("c directly", func() bool { on, via := viaOf(a, c.ID()); return on && via == "" })
	c.waitUntil("a directly", func() bool { on, via := viaOf(c, a.ID()); return on && via == "" })
}

// The box reaches nobody behind a NAT, yet fetches from the laptop that
// dialed it: the laptop dials back on request. A stranger's fetch-back
// connection with a made-up token is refused.
func TestFetchDialedBack(t *testing.T) {
	b := startNode(t, "box")
	a := startNode(t, "laptop", withAdvertise("127.0.0.1:1"))
	pair(t, b, a) // a dialed b; b cannot dial a
	a.HandleFetch(func(peer engine.DeviceID, conn net.Conn) {
		_, _ = conn.Write([]byte("catalog of " + string(peer) + "\n"))
	})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	fc, err := b.DialFetch(ctx, a.ID())
	if err != nil {
		t.Fatalf("the box fetches from the laptop: %v", err)
	}
	defer fc.Close()
	_ = fc.SetReadDeadline(time.Now().Add(waitTimeout))
	line, err := readRelayLine(fc)
	if err != nil || string(line) != "catalog of "+string(b.ID()) {
		t.Fatalf("read %q, %v", line, err)
	}

	cert, err := selfCertificate(a.key, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", b.Addr().String(), &tls.Config{
		MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert},
		NextProtos: []string{FetchBackALPN}, InsecureSkipVerify: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = conn.Write([]byte("made-up-token\n"))
	_ = conn.SetReadDeadline(time.Now().Add(waitTimeout))
	if _, err := conn.Read(make([]byte, 1)); err == nil {
		t.Error("a fetch-back connection with an unknown token stayed open")
	}
}
