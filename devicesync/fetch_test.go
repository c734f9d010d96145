package devicesync

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// echoFetch is a fetch handler that reports each connection's peer and
// echoes lines until the connection closes.
func echoFetch(peers chan<- engine.DeviceID, ended chan<- struct{}) FetchHandler {
	return func(peer engine.DeviceID, c net.Conn) {
		peers <- peer
		defer func() { ended <- struct{}{} }()
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			if _, err := c.Write(line); err != nil {
				return
			}
		}
	}
}

func echoOnce(t *testing.T, c net.Conn, text string) error {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(waitTimeout))
	if _, err := io.WriteString(c, text+"\n"); err != nil {
		return err
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if got != text+"\n" {
		t.Fatalf("echo %q, want %q", got, text)
	}
	return nil
}

// fetchGroup pairs two nodes and waits until each knows where the other
// listens (its profile, which follows the pairing).
func fetchGroup(t *testing.T) (a, b *testNode) {
	ns := startGroup(t, "A", "B")
	a, b = ns[0], ns[1]
	for _, x := range [][2]*testNode{{a, b}, {b, a}} {
		x[0].waitUntil("the other's address", func() bool {
			for _, d := range x[0].Devices() {
				if d.ID == x[1].ID() && len(d.Addresses) > 0 {
					return true
				}
			}
			return false
		})
	}
	return a, b
}

// A member's fetch connection reaches the handler, authenticated: the
// handler learns the dialing device, and bytes flow both ways outside the
// sync connection.
func TestFetchConnectionBetweenMembers(t *testing.T) {
	a, b := fetchGroup(t)
	peers, ended := make(chan engine.DeviceID, 4), make(chan struct{}, 4)
	b.HandleFetch(echoFetch(peers, ended))
	c, err := a.DialFetch(context.Background(), b.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := <-peers; got != a.ID() {
		t.Fatalf("handler saw peer %s, want %s", got, a.ID())
	}
	if err := echoOnce(t, c, "hello"); err != nil {
		t.Fatal(err)
	}
	before, _ := b.BytesRead()
	big := make([]byte, 4<<20) // far beyond a member's read budget on the sync line
	go func() { _, _ = c.Write(append(big, '\n')) }()
	_ = c.SetReadDeadline(time.Now().Add(waitTimeout))
	if _, err := io.ReadFull(c, make([]byte, len(big)+1)); err != nil {
		t.Fatal(err)
	}
	if after, _ := b.BytesRead(); after-before > 1<<20 {
		t.Fatalf("fetch bytes counted on the sync connection: %d", after-before)
	}
}

// A device that is not a member gets no fetch connection: DialFetch
// refuses at once, and a raw TLS client presenting the fetch protocol is
// closed without reaching the handler.
func TestFetchRefusesNonMembers(t *testing.T) {
	a := startNode(t, "A")
	stranger := startNode(t, "S")
	peers, ended := make(chan engine.DeviceID, 4), make(chan struct{}, 4)
	a.HandleFetch(echoFetch(peers, ended))
	if _, err := stranger.DialFetch(context.Background(), a.ID()); !errors.Is(err, ErrUnknownDevice) {
		t.Fatalf("DialFetch to a device of another group: %v, want ErrUnknownDevice", err)
	}
	c := dialFetchRaw(t, a.Addr().String(), stranger)
	if !closedWithout(c, peers) {
		t.Fatal("a stranger's fetch connection was served")
	}
}

func dialFetchRaw(t *testing.T, addr string, as *testNode) *tls.Conn {
	t.Helper()
	cert, err := selfCertificate(as.key, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: waitTimeout}, "tcp", addr, &tls.Config{
		MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert}, NextProtos: []string{FetchALPN}, InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// closedWithout reports whether the server closed c without a handler
// being called.
func closedWithout(c net.Conn, peers <-chan engine.DeviceID) bool {
	_ = c.SetReadDeadline(time.Now().Add(waitTimeout))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	if err == nil || errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	select {
	case <-peers:
		return false
	default:
		return true
	}
}

// Revoking a device closes its open fetch connections at once, and it
// gets no new one.
func TestFetchRevokedDeviceIsCutOff(t *testing.T) {
	a, b := fetchGroup(t)
	peers, ended := make(chan engine.DeviceID, 4), make(chan struct{}, 4)
	a.HandleFetch(echoFetch(peers, ended))
	c, err := b.DialFetch(context.Background(), a.ID())
	if err != nil {
		t.Fatal(err)
	}
	<-peers
	if err := echoOnce(t, c, "before"); err != nil {
		t.Fatal(err)
	}
	if err := a.Revoke(b.ID()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(waitTimeout):
		t.Fatal("the revoked device's fetch connection stayed open")
	}
	if err := echoOnce(t, c, "after"); err == nil {
		t.Fatal("the revoked device's connection still echoes")
	}
	raw := dialFetchRaw(t, a.Addr().String(), b)
	if !closedWithout(raw, peers) {
		t.Fatal("the revoked device got a new fetch connection")
	}
}

// One member holds at most maxFetchPerPeer fetch connections to a device.
func TestFetchConnectionsPerPeerAreBounded(t *testing.T) {
	a, b := fetchGroup(t)
	peers, ended := make(chan engine.DeviceID, 2*maxFetchPerPeer), make(chan struct{}, 2*maxFetchPerPeer)
	a.HandleFetch(echoFetch(peers, ended))
	for i := range maxFetchPerPeer {
		c, err := b.DialFetch(context.Background(), a.ID())
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		defer c.Close()
		<-peers
	}
	if _, err := b.DialFetch(context.Background(), a.ID()); !errors.Is(err, ErrFetchLimit) {
		t.Fatalf("connection %d: %v, want ErrFetchLimit", maxFetchPerPeer+1, err)
	}
}
