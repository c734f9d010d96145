package devicesync

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// Fetch connections carry bulk transfers between members (the group
// library's tracks, covers and catalogs) beside the JSON-lines connection:
// the same listener, the same device keys and the same membership check,
// but a TLS application protocol of their own, so a transfer never waits
// behind the coordination lines nor counts against their byte budgets.
// devicesync only authenticates them and hands them over: what travels on
// them is the handler's (see package grouplib).

// FetchALPN is the TLS application protocol of fetch connections.
const FetchALPN = "furumi/fetch/1"

// Limits of fetch connections, inbound and outbound alike: a member may
// hold maxFetchPerPeer of them to this device, all members together
// maxFetchConns, so fetches never crowd out the members' sync connections
// (maxMemberConns).
const (
	maxFetchPerPeer = 6
	maxFetchConns   = 32
)

// Errors of DialFetch.
var (
	ErrNoAddress  = errors.New("devicesync: no address known for that device")
	ErrFetchLimit = errors.New("devicesync: too many fetch connections")
)

// FetchHandler serves one inbound fetch connection of member peer, on the
// goroutine that accepted it, and returns when done with it. The node
// closes conn when the handler returns, when peer stops being a member
// (revoked, or it left) and when the node closes, so a blocked read or
// write in the handler returns an error then.
type FetchHandler func(peer engine.DeviceID, conn net.Conn)

// HandleFetch sets the handler of inbound fetch connections. Until it is
// set they are refused.
func (n *Node) HandleFetch(h FetchHandler) {
	n.mu.Lock()
	n.fetchHandler = h
	n.mu.Unlock()
}

// fetchConn is a fetch connection the node tracks, to close it when its
// peer is revoked or the node closes.
type fetchConn struct {
	*tls.Conn
	n    *Node
	peer engine.DeviceID
	once sync.Once
}

// Close closes the connection and forgets it.
func (c *fetchConn) Close() error {
	var err error
	c.once.Do(func() {
		err = c.Conn.Close()
		c.n.mu.Lock()
		c.n.fetches[c.peer] = slices.DeleteFunc(c.n.fetches[c.peer], func(o *fetchConn) bool { return o == c })
		if len(c.n.fetches[c.peer]) == 0 {
			delete(c.n.fetches, c.peer)
		}
		c.n.mu.Unlock()
	})
	return err
}

// trackFetchLocked registers c, or says why it may not be opened.
func (n *Node) trackFetchLocked(c *fetchConn) string {
	total := 0
	for _, cs := range n.fetches {
		total += len(cs)
	}
	switch {
	case n.closed:
		return "closing"
	case !n.glog.isMember(c.peer):
		return "not a member"
	case len(n.fetches[c.peer]) >= maxFetchPerPeer:
		return fmt.Sprintf("more than %d fetch connections of that device", maxFetchPerPeer)
	case total >= maxFetchConns:
		return fmt.Sprintf("more than %d fetch connections", maxFetchConns)
	}
	n.fetches[c.peer] = append(n.fetches[c.peer], c)
	return ""
}

// closeFetchesLocked closes the fetch connections of devices that are not
// members (all of them when all is set). The connections forget
// themselves once the lock is released.
func (n *Node) closeFetchesLocked(all bool) {
	for id, cs := range n.fetches {
		if !all && n.glog.isMember(id) {
			continue
		}
		for _, c := range cs {
			go func() { _ = c.Close() }() // Close takes n.mu
		}
	}
}

// serveFetch runs an inbound connection that negotiated FetchALPN: a
// member's is handed to the fetch handler, anyone else's is closed.
func (n *Node) serveFetch(tc *tls.Conn, t *ticket, key ed25519.PublicKey) {
	c := &fetchConn{Conn: tc, n: n, peer: DeviceIDFromPublicKey(key)}
	n.mu.Lock()
	h := n.fetchHandler
	refuse := ""
	switch {
	case h == nil:
		refuse = "fetch connections are not served"
	case !n.glog.isMember(c.peer):
		refuse = "not a member"
	case n.gate.barred(c.peerKey(), n.gateClock.Now()):
		refuse = "member in backoff after breaking a rule"
	case !t.member():
		refuse = fmt.Sprintf("more than %d member connections", maxMemberConns)
	default:
		refuse = n.trackFetchLocked(c)
	}
	n.mu.Unlock()
	if refuse != "" {
		n.c.refused.Add(1)
		n.log.Debug("devicesync: closing fetch connection", "peer", string(c.peer), "reason", refuse)
		_ = tc.Close()
		return
	}
	defer c.Close()
	_ = tc.SetDeadline(time.Time{})
	h(c.peer, c)
}

func (c *fetchConn) peerKey() string { return "dev:" + string(c.peer) }

// fetchDialTimeout bounds one address's connection and handshake.
const fetchDialTimeout = 3 * time.Second

// DialFetch opens a fetch connection to member peer: to the address its
// sync connection reaches when this device dialed it, else to the
// addresses it announces, in turn. The connection is authenticated like
// the sync connection (the peer's key must be the one the group holds for
// peer) and is closed by the node when peer stops being a member or the
// node closes. The caller closes it when done.
func (n *Node) DialFetch(ctx context.Context, peer engine.DeviceID) (net.Conn, error) {
	n.mu.Lock()
	if n.closed || !n.started {
		n.mu.Unlock()
		return nil, ErrClosed
	}
	if peer == n.id || !n.glog.isMember(peer) {
		n.mu.Unlock()
		return nil, fmt.Errorf("%w: %s", ErrUnknownDevice, peer)
	}
	var addrs []string
	var via engine.DeviceID
	back := false
	if s := n.sessions[peer]; s != nil && s.dialed && s.via == "" {
		addrs = append(addrs, s.conn.RemoteAddr().String())
	} else if s != nil && s.via != "" {
		via = s.via
	} else if s != nil {
		back = true // it dialed in: it can dial back
	}
	if m := n.glog.members[peer]; m != nil {
		addrs = append(addrs, m.profile.Addresses...)
	}
	for a, tg := range n.targets {
		if tg.device == peer {
			addrs = append(addrs, a)
		}
	}
	n.mu.Unlock()
	addrs = slices.Compact(addrs)
	var errs []error
	if via != "" || back {
		// Reached through a carrier: through it first; connected only
		// because it dialed in: it dials back first. Then directly.
		var c net.Conn
		var err error
		if back {
			c, err = n.dialFetchBack(ctx, peer)
		} else {
			c, err = n.dialFetchVia(ctx, via, peer)
		}
		if err == nil || errors.Is(err, ErrFetchLimit) {
			return c, err
		}
		errs = append(errs, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoAddress, errors.Join(append(errs, errors.New(string(peer)))...))
	}
	conf, err := n.memberConfig(peer, FetchALPN)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		c, err := n.dialFetchAt(ctx, a, conf, peer)
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil || errors.Is(err, ErrFetchLimit) {
			break
		}
	}
	return nil, fmt.Errorf("devicesync: fetch connection to %s: %w", peer, errors.Join(errs...))
}

// dialFetchVia opens a fetch connection to peer through carrier via: the
// fetch handshake runs end to end inside the carried stream.
func (n *Node) dialFetchVia(ctx context.Context, via, peer engine.DeviceID) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchDialTimeout+n.relayLimits.AnswerWithin)
	defer cancel()
	n.mu.Lock()
	addr := n.carrierAddrLocked(via)
	n.mu.Unlock()
	if addr == "" {
		return nil, fmt.Errorf("%w: %s through %s", ErrNoAddress, peer, via)
	}
	raw, err := n.openRelay(ctx, addr, via, relayRequest{To: peer}, n.relayLimits.AnswerWithin)
	if err != nil {
		return nil, err
	}
	conf, err := n.memberConfig(peer, FetchALPN)
	if err != nil {
		_ = raw.Close()
		return nil, err
	}
	return n.fetchOver(ctx, raw, conf, peer, string(via))
}

func (n *Node) dialFetchAt(ctx context.Context, addr string, conf *tls.Config, peer engine.DeviceID) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchDialTimeout)
	defer cancel()
	d := net.Dialer{}
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return n.fetchOver(ctx, raw, conf, peer, addr)
}

// fetchOver runs the fetch handshake with peer over raw (at where) and
// tracks the connection.
func (n *Node) fetchOver(ctx context.Context, raw net.Conn, conf *tls.Config, peer engine.DeviceID, where string) (net.Conn, error) {
	tc := tls.Client(raw, conf)
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = tc.Close()
		return nil, err
	}
	if tc.ConnectionState().NegotiatedProtocol != FetchALPN {
		_ = tc.Close()
		return nil, fmt.Errorf("devicesync: %s does not serve fetch connections", where)
	}
	c := &fetchConn{Conn: tc, n: n, peer: peer}
	n.mu.Lock()
	refuse := n.trackFetchLocked(c)
	n.mu.Unlock()
	if refuse != "" {
		_ = tc.Close()
		return nil, fmt.Errorf("%w: %s", ErrFetchLimit, refuse)
	}
	return c, nil
}
