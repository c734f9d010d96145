package devicesync

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// Fetches the other way round: the box at home reaches nobody behind a
// NAT, yet it must fetch the laptop's catalog. When this device cannot
// dial a member that is connected to it (the member dialed in), it asks
// the member over their sync connection (fetch_call) to dial back with
// FetchBackALPN and the token; the member does, and serves fetches on
// that connection as on one it accepted, while this device uses it as one
// it dialed. Both ends authenticate each other as for any fetch.

// FetchBackALPN is the TLS application protocol of a fetch connection a
// member dials back on request.
const FetchBackALPN = "furumi/fetch-back/1"

const typeFetchCall = "fetch_call"

// fetchCallMsg asks the peer to dial back a fetch connection.
type fetchCallMsg struct {
	Type  string `json:"type"`
	Token string `json:"token"`
}

func (fetchCallMsg) msgType() string { return typeFetchCall }

func (m fetchCallMsg) validate() error {
	if len(m.Token) == 0 || len(m.Token) > 64 {
		return errors.New("token")
	}
	return nil
}

// fetchBackWait bounds how long a fetch waits for the member to dial back.
const fetchBackWait = 5 * time.Second

// maxFetchBacks bounds the fetch calls a device answers at once.
const maxFetchBacks = maxFetchPerPeer

// backWaiter is a fetch waiting for its member to dial back.
type backWaiter struct {
	peer engine.DeviceID
	conn chan *tls.Conn
}

// dialFetchBack asks member peer, connected to this device over s, to
// dial back a fetch connection, and returns it.
func (n *Node) dialFetchBack(ctx context.Context, peer engine.DeviceID) (net.Conn, error) {
	token := randomHex(16)
	w := &backWaiter{peer: peer, conn: make(chan *tls.Conn, 1)}
	n.mu.Lock()
	s := n.sessions[peer]
	if s == nil || s.via != "" || s.closed() {
		n.mu.Unlock()
		return nil, fmt.Errorf("%w: %s is not connected to this device", ErrNoAddress, peer)
	}
	n.backWaiters[token] = w
	line, _ := encodeLine(fetchCallMsg{Type: typeFetchCall, Token: token}, MaxLineBytes)
	s.send(line)
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		delete(n.backWaiters, token)
		n.mu.Unlock()
		select {
		case tc := <-w.conn: // came after this fetch gave up
			_ = tc.Close()
		default:
		}
	}()
	timer := time.NewTimer(fetchBackWait)
	defer timer.Stop()
	select {
	case tc := <-w.conn:
		c := &fetchConn{Conn: tc, n: n, peer: peer}
		n.mu.Lock()
		refuse := n.trackFetchLocked(c)
		n.mu.Unlock()
		if refuse != "" {
			_ = tc.Close()
			return nil, fmt.Errorf("%w: %s", ErrFetchLimit, refuse)
		}
		return c, nil
	case <-timer.C:
		return nil, fmt.Errorf("devicesync: %s did not dial back a fetch connection within %v", peer, fetchBackWait)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-n.ctx.Done():
		return nil, ErrClosed
	}
}

// acceptFetchBack takes an inbound FetchBackALPN connection of member key:
// its first line is the token of a waiting fetch.
func (n *Node) acceptFetchBack(tc *tls.Conn, t *ticket, key ed25519.PublicKey) {
	peer := DeviceIDFromPublicKey(key)
	line, err := readRelayLine(tc)
	_ = tc.SetDeadline(time.Time{})
	n.mu.Lock()
	w := n.backWaiters[string(line)]
	ok := err == nil && w != nil && w.peer == peer && n.glog.isMember(peer) && t.member()
	if ok {
		delete(n.backWaiters, string(line))
		w.conn <- tc // buffered, one per token; a waiter gone drains it
	}
	n.mu.Unlock()
	if !ok {
		n.c.refused.Add(1)
		n.log.Debug("devicesync: refused fetch-back connection", "peer", string(peer), "err", err)
		_ = tc.Close()
	}
}

// answerFetchCall dials back member via s with FetchBackALPN and serves
// fetches on the connection.
func (n *Node) answerFetchCall(peer engine.DeviceID, addr, token string) {
	defer n.wg.Done()
	defer func() {
		n.mu.Lock()
		n.fetchBacks--
		n.mu.Unlock()
	}()
	conf, err := n.memberConfig(peer, FetchBackALPN)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(n.ctx, fetchDialTimeout)
	d := net.Dialer{}
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		cancel()
		return
	}
	tc := tls.Client(raw, conf)
	err = tc.HandshakeContext(ctx)
	cancel()
	if err == nil && tc.ConnectionState().NegotiatedProtocol != FetchBackALPN {
		err = errors.New("no fetch-back protocol")
	}
	if err == nil {
		_, err = tc.Write([]byte(token + "\n"))
	}
	if err != nil {
		n.log.Debug("devicesync: fetch back", "peer", string(peer), "err", err)
		_ = tc.Close()
		return
	}
	c := &fetchConn{Conn: tc, n: n, peer: peer}
	n.mu.Lock()
	h := n.fetchHandler
	refuse := n.trackFetchLocked(c)
	if h == nil {
		refuse = "fetch connections are not served"
	}
	n.mu.Unlock()
	if refuse != "" {
		_ = tc.Close()
		return
	}
	defer c.Close()
	h(peer, c)
}
