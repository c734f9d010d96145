package devicesync

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/reach"
)

const (
	handshakeTimeout = 10 * time.Second
	dialTimeout      = 5 * time.Second
	backoffMin       = reach.DefaultMin
	// dialRecheck bounds how long the dial loop sleeps with no dial due.
	dialRecheck = 5 * time.Second
)

// session is one authenticated TLS connection. Fields below mu are guarded
// by the node's mu.
type session struct {
	n      *Node
	conn   *tls.Conn
	peer   engine.DeviceID
	key    ed25519.PublicKey
	dialed bool
	rank   []byte // dedupe order, identical on both ends

	out        chan []byte
	done       chan struct{}
	closeOnce  sync.Once
	finishing  chan struct{}
	finishOnce sync.Once
	// halfClose, set before finishing is closed, makes the write loop end
	// a finished session with a TLS close_notify instead of closing the
	// socket, so the read side goes on until the peer closes: closing with
	// the peer's lines unread resets the connection, and the reset can
	// discard what the peer had not read yet of our last lines.
	halfClose bool

	source string  // remote address, without the port
	ticket *ticket // inbound: its slot; nil when dialed
	// trusted lifts the outsider budgets of a restricted session whose
	// requester the user accepted, and which sends its group's log next.
	trusted atomic.Bool
	// more says a push stopped at maxBatchesPerPush with ops left: the
	// write loop pushes again once it has sent what is queued.
	more atomic.Bool

	// via is the member carrying this session's stream; "" when direct.
	via engine.DeviceID

	// guarded by n.mu
	peerVector VersionVector // nil until the peer's first hello
	// peerCarries and peerReaches are what the peer's latest hello said:
	// it carries others' streams, and the members it reaches directly.
	peerCarries bool
	peerReaches []engine.DeviceID
	lastHeard   time.Time
	pairReq     *pendingReq // restricted sessions: the request it made
}

func newSession(n *Node, conn *tls.Conn, key ed25519.PublicKey, dialed bool) *session {
	st := conn.ConnectionState()
	rank, _ := st.ExportKeyingMaterial("EXPORTER-furudesk-connection-rank", nil, 16)
	return &session{
		n: n, conn: conn, key: key, peer: DeviceIDFromPublicKey(key), dialed: dialed, rank: rank, source: sourceOf(conn.RemoteAddr()),
		out: make(chan []byte, sendQueueLen), done: make(chan struct{}), finishing: make(chan struct{}),
	}
}

// penaltyKey is what a rule broken on s is held against: the member's
// device, else the source address.
func (s *session) penaltyKey(member bool) string {
	if member {
		return "dev:" + string(s.peer)
	}
	return s.source
}

// send queues a line without blocking. A peer that does not keep up is
// disconnected so it never delays the others.
func (s *session) send(line []byte) {
	select {
	case s.out <- line:
	case <-s.done:
	default:
		s.n.log.Warn("devicesync: closing connection", "peer", string(s.peer), "reason", "send queue full")
		s.n.c.closed.Add(1)
		s.close()
	}
}

// closed reports whether close was called.
func (s *session) closed() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *session) close() {
	s.closeOnce.Do(func() {
		close(s.done)
		_ = s.conn.Close()
	})
}

// retire ends s once it wrote what is queued (the op that removes its
// peer, say): the write side closes after the queue, the read side when
// the peer closes, and everything at the latest after finishTimeout.
func (s *session) retire() {
	s.finishOnce.Do(func() {
		s.halfClose = true
		close(s.finishing)
	})
	time.AfterFunc(finishTimeout, s.close)
}

// finishTimeout bounds how long a closing session may flush its queue.
const finishTimeout = 2 * time.Second

// finish writes what is queued (a final answer, say), then closes.
func (s *session) finish() {
	s.finishOnce.Do(func() { close(s.finishing) })
	t := time.NewTimer(finishTimeout)
	defer t.Stop()
	select {
	case <-s.done:
	case <-t.C:
		s.close()
	}
}

// writeLoop writes queued lines until the session closes, or until the
// queue is empty once finish was called.
func (s *session) writeLoop() {
	for {
		select {
		case <-s.done:
			return
		case line := <-s.out:
			if !s.write(line) {
				return
			}
			if len(s.out) == 0 && s.more.Swap(false) {
				s.n.pushMore(s)
			}
		case <-s.finishing:
			for {
				select {
				case line := <-s.out:
					if !s.write(line) {
						return
					}
				default:
					if s.halfClose && s.conn.CloseWrite() == nil {
						return // the read loop closes on the peer's EOF
					}
					s.close()
					return
				}
			}
		}
	}
}

func (s *session) write(line []byte) bool {
	_ = s.conn.SetWriteDeadline(time.Now().Add(min(s.n.limits.PeerTimeout, finishTimeout*5)))
	if _, err := s.conn.Write(line); err != nil {
		s.n.log.Debug("devicesync: write failed", "peer", string(s.peer), "err", err)
		s.close()
		return false
	}
	return true
}

// outranks reports whether s should be kept over o, another connection to
// the same peer. Both ends compute the same answer: the connection dialed
// by the smaller device id wins, then the greater exported key material.
func (s *session) outranks(o *session) bool {
	smallerDials := func(x *session) bool {
		dialer, other := x.n.id, x.peer
		if !x.dialed {
			dialer, other = other, dialer
		}
		return dialer < other
	}
	if a, b := smallerDials(s), smallerDials(o); a != b {
		return a
	}
	return bytes.Compare(s.rank, o.rank) > 0
}

// tlsConfig returns the TLS configuration. verify decides about the peer's
// key during the handshake.
func (n *Node) tlsConfig(cert tls.Certificate, verify func(ed25519.PublicKey) error) *tls.Config {
	return &tls.Config{
		MinVersion:         tls.VersionTLS13,
		Certificates:       []tls.Certificate{cert},
		NextProtos:         []string{ALPN},
		ClientAuth:         tls.RequireAnyClientCert,
		InsecureSkipVerify: true, // the key is checked against the group below, not a CA
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			key, err := peerKey(raw)
			if err != nil {
				return err
			}
			if err := verify(key); err != nil {
				n.c.refused.Add(1)
				n.log.Info("devicesync: refused peer", "peer", string(DeviceIDFromPublicKey(key)), "reason", err)
				return err
			}
			return nil
		},
	}
}

var (
	errSelf      = errors.New("devicesync: peer is this device")
	errNotMember = errors.New("devicesync: peer is not a member of the group")
	errWrongKey  = errors.New("devicesync: peer key is not the invite's")
)

// verifyInbound admits members and, for pairing only, other devices
// (a removed device too: it may be invited again).
func (n *Node) verifyInbound(key ed25519.PublicKey) error {
	if DeviceIDFromPublicKey(key) == n.id {
		return errSelf
	}
	return nil
}

// verifyMember admits only members.
func (n *Node) verifyMember(key ed25519.PublicKey) error {
	id := DeviceIDFromPublicKey(key)
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case id == n.id:
		return errSelf
	case !n.glog.isMember(id):
		return errNotMember
	}
	return nil
}

func (n *Node) cert() (tls.Certificate, error) {
	return selfCertificate(n.cfg.Key, time.Now())
}

func (n *Node) acceptLoop() {
	defer n.wg.Done()
	cert, err := n.cert()
	if err != nil {
		n.log.Error("devicesync: certificate", "err", err)
		return
	}
	conf := n.tlsConfig(cert, n.verifyInbound)
	conf.NextProtos = []string{ALPN, FetchALPN, RelayALPN, FetchBackALPN}
	for {
		c, err := n.ln.Accept()
		if err != nil {
			if n.ctx.Err() == nil {
				n.log.Error("devicesync: accept", "err", err)
			}
			return
		}
		now := n.gateClock.Now()
		source := sourceOf(c.RemoteAddr())
		t, reason := n.gate.arrive(source, n.memberSource(source), now, func() { _ = c.Close() })
		if t == nil {
			n.log.Debug("devicesync: closing connection", "remote", c.RemoteAddr().String(), "reason", reason)
			n.c.refused.Add(1)
			_ = c.Close()
			continue
		}
		// The handshake, and for a stranger its first valid pair_request,
		// within PairWindow of its arrival, however it trickles bytes. A
		// socket deadline is real time, whatever clock the gate reads.
		_ = c.SetDeadline(time.Now().Add(n.pairWindow))
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			defer t.release()
			n.handshakeAndServe(tls.Server(c, conf), t)
		}()
	}
}

// memberSource reports whether source is an address members announce or
// were connected from.
func (n *Node) memberSource(source string) bool {
	m := n.memberSources.Load()
	return m != nil && (*m)[source]
}

// updateMemberSourcesLocked recomputes the addresses of memberSource.
func (n *Node) updateMemberSourcesLocked() {
	m := map[string]bool{}
	for id, mem := range n.glog.members {
		if id == n.id {
			continue
		}
		for _, a := range mem.profile.Addresses {
			if host, _, err := net.SplitHostPort(a); err == nil {
				m[host] = true
			}
		}
	}
	for _, s := range n.sessions {
		m[s.source] = true
	}
	n.memberSources.Store(&m)
}

// handshakeAndServe completes the handshake and runs the session until it
// ends. t is the slot of an inbound connection, nil for one this device
// dialed. It reports the peer and whether the peer greeted it as a member
// (a device that refuses this one does not reset the dial backoff).
func (n *Node) handshakeAndServe(tc *tls.Conn, t *ticket) (engine.DeviceID, bool) {
	return n.handshakeAndServeVia(tc, t, "")
}

// handshakeAndServeVia is handshakeAndServe of a connection that is a
// stream carried by member via ("" for a direct one).
func (n *Node) handshakeAndServeVia(tc *tls.Conn, t *ticket, via engine.DeviceID) (engine.DeviceID, bool) {
	dialed := t == nil
	if dialed {
		_ = tc.SetDeadline(time.Now().Add(handshakeTimeout))
	}
	if err := tc.HandshakeContext(n.ctx); err != nil {
		// Not held against the address: a member refuses the key of a
		// device it does not know yet, and links fail. A stranger that
		// stalls has its window and its slot, nothing more.
		n.log.Debug("devicesync: handshake failed", "remote", tc.RemoteAddr().String(), "err", err)
		_ = tc.Close()
		return "", false
	}
	st := tc.ConnectionState()
	if st.NegotiatedProtocol == FetchALPN && !dialed && len(st.PeerCertificates) > 0 {
		key, _ := st.PeerCertificates[0].PublicKey.(ed25519.PublicKey)
		n.serveFetch(tc, t, key)
		return "", false
	}
	if st.NegotiatedProtocol == FetchBackALPN && !dialed && via == "" && len(st.PeerCertificates) > 0 {
		key, _ := st.PeerCertificates[0].PublicKey.(ed25519.PublicKey)
		n.acceptFetchBack(tc, t, key)
		return "", false
	}
	if st.NegotiatedProtocol == RelayALPN && !dialed && via == "" && len(st.PeerCertificates) > 0 {
		key, _ := st.PeerCertificates[0].PublicKey.(ed25519.PublicKey)
		n.serveRelay(tc, t, key)
		return "", false
	}
	if st.NegotiatedProtocol != ALPN || len(st.PeerCertificates) == 0 {
		n.log.Info("devicesync: closing connection", "remote", tc.RemoteAddr().String(), "reason", "no ALPN "+ALPN)
		n.c.refused.Add(1)
		_ = tc.Close()
		return "", false
	}
	key, _ := st.PeerCertificates[0].PublicKey.(ed25519.PublicKey)
	s := newSession(n, tc, key, dialed)
	s.ticket = t
	s.via = via

	n.mu.Lock()
	member := n.glog.isMember(s.peer)
	var refuse string
	switch {
	case n.closed:
		refuse = "closing"
	case member && n.gate.barred(s.penaltyKey(true), n.gateClock.Now()):
		refuse = "member in backoff after breaking a rule"
	case member && !dialed && !t.member():
		refuse = fmt.Sprintf("more than %d member connections", maxMemberConns)
	case !member && dialed:
		refuse = "not a member"
	case !member:
		refuse = t.outsider(n.gateClock.Now())
	}
	if refuse != "" {
		n.mu.Unlock()
		n.c.refused.Add(1)
		n.log.Debug("devicesync: closing connection", "peer", string(s.peer), "reason", refuse)
		s.close()
		return s.peer, false
	}
	if member {
		_ = tc.SetDeadline(time.Time{})
		registered, evs := n.registerLocked(s)
		n.mu.Unlock()
		n.emit(evs...)
		if !registered {
			s.close()
			return s.peer, false
		}
	} else {
		n.restricted[s] = struct{}{}
		n.mu.Unlock()
	}
	n.serve(s)
	n.mu.Lock()
	greeted := s.peerVector != nil
	n.mu.Unlock()
	return s.peer, greeted
}

// registerLocked makes s the session of its peer unless a better one
// exists, then greets the peer.
func (n *Node) registerLocked(s *session) (bool, []Event) {
	var evs []Event
	if old := n.sessions[s.peer]; old != nil {
		// A session already closed (its end not yet handled) is no
		// reason to refuse its successor. A direct session is preferred
		// to a relayed one, on both ends alike.
		switch {
		case old.closed() || n.silentLocked(old):
		case old.via == s.via && reach.Replace(old.source, s.source, old.lastHeard, n.clock.Now(), n.keepalive()+n.keepalive()/2):
			// it moved to another network: the old one is dead
			n.log.Info("devicesync: a member came back from another address", "peer", string(s.peer), "was", old.source, "now", s.source)
		case old.via != "" && s.via == "":
		case old.via == "" && s.via != "":
			return false, nil
		case !s.outranks(old):
			return false, nil
		}
		old.close()
		if old.via == "" && s.via == "" && old.source != s.source {
			// The streams this device carries for it from there are as
			// dead as the old connection (it roamed).
			n.cutStreamsFromLocked(s.peer, old.source)
		}
	} else {
		evs = append(evs, PeerOnline{Device: s.peer})
	}
	n.sessions[s.peer] = s
	s.lastHeard = n.clock.Now()
	if t := n.targets[s.conn.RemoteAddr().String()]; t != nil && s.dialed && s.via == "" {
		t.device = s.peer
	}
	go s.writeLoop()
	n.sendHelloLocked(s)
	if n.snapshot != nil {
		s.send(n.snapshot)
	}
	n.sendHeldLocked(s)
	return true, evs
}

// silentLocked reports whether nothing was heard on s for OnlineWindow. A
// live peer sends a hello every keepalive period, so a silent session is
// half-open: the peer restarted or lost it without us seeing the close. A
// new connection from that peer then replaces it whatever the rank, or the
// peer would be refused until our read deadline (PeerTimeout) fires while
// it cannot reach us, and its snapshots would stop reaching us: a false
// failover on a link that only looks up from this side.
func (n *Node) silentLocked(s *session) bool {
	return n.clock.Now().Sub(s.lastHeard) > OnlineWindow
}

// serve reads lines until the connection ends or breaks a rule. Every
// line counts against the peer's budgets, blank and unknown ones too.
func (n *Node) serve(s *session) {
	defer n.endSession(s)
	n.mu.Lock()
	_, restricted := n.restricted[s]
	n.mu.Unlock()
	m := n.newMeter(s)
	r := bufio.NewReaderSize(m, 64<<10)
	bucket := newTokenBucket(n.limits.MessageRate, n.limits.Burst, time.Now())
	if restricted {
		bucket = newTokenBucket(outsiderMessageRate, outsiderBurst, time.Now())
		go s.writeLoop()
	}
	for {
		if !restricted {
			_ = s.conn.SetReadDeadline(time.Now().Add(n.limits.PeerTimeout))
		}
		line, err := readLine(r, MaxLineBytes)
		if err != nil {
			var ne net.Error
			switch {
			case errors.Is(err, ErrLineTooLong):
				n.violation(s, "line over the size limit")
			case errors.Is(err, errByteRate):
				n.violation(s, "byte rate over the limit")
			case errors.Is(err, errConnBudget):
				n.closeFor(s, "the connection used up its byte budget")
			case restricted && errors.As(err, &ne) && ne.Timeout() && !s.ticket.isVerified():
				n.violation(s, "no valid pairing request in time")
			case !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed):
				n.log.Debug("devicesync: read failed", "peer", string(s.peer), "err", err)
			}
			return
		}
		if !bucket.allow(time.Now()) {
			n.violation(s, "message rate over the limit")
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		msg, err := decodeLine(line)
		if errors.Is(err, errUnknownType) {
			n.c.unknown.Add(1)
			continue
		}
		if err != nil {
			n.violation(s, err.Error())
			return
		}
		var evs []Event
		var reason string
		if restricted {
			evs, reason = n.handleRestricted(s, msg)
		} else {
			evs, reason = n.handleMember(s, msg)
		}
		n.emit(evs...)
		if reason != "" {
			n.log.Info("devicesync: closing connection", "peer", string(s.peer), "reason", reason)
			s.finish()
			return
		}
	}
}

func (n *Node) closeFor(s *session, reason string) {
	n.c.closed.Add(1)
	n.log.Warn("devicesync: closing connection", "peer", string(s.peer), "reason", reason)
	s.close()
}

// violation closes s for breaking a rule, and its source (a member: its
// device) serves a backoff before it is accepted again.
func (n *Node) violation(s *session, reason string) {
	if !s.dialed {
		n.mu.Lock()
		_, restricted := n.restricted[s]
		n.mu.Unlock()
		n.gate.penalize(s.penaltyKey(!restricted), n.gateClock.Now()) // before the peer sees the close
	}
	n.closeFor(s, reason)
}

func (n *Node) endSession(s *session) {
	s.close()
	n.mu.Lock()
	var evs []Event
	if n.sessions[s.peer] == s {
		delete(n.sessions, s.peer)
		evs = append(evs, PeerOffline{Device: s.peer})
		n.signalWake()
	}
	delete(n.restricted, s)
	n.mu.Unlock()
	n.emit(evs...)
}

// handleMember processes one message from a registered member session. It
// returns events for the app and a reason when the connection must close.
func (n *Node) handleMember(s *session, m message) ([]Event, string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.sessions[s.peer] != s {
		return nil, "superseded"
	}
	if !n.glog.isMember(s.peer) {
		n.c.refused.Add(1)
		return nil, "not a member"
	}
	s.lastHeard = n.clock.Now()
	switch m := m.(type) {
	case helloMsg:
		if m.Group != n.group {
			n.c.refused.Add(1)
			return nil, "hello for group " + m.Group
		}
		if m.Profile.DeviceID != s.peer {
			n.c.spoofed.Add(1)
			return nil, "hello profile of another device"
		}
		s.peerVector = VersionVector{}
		for k, v := range m.Vector {
			s.peerVector[k] = v
		}
		if s.peerCarries != m.Carries || !slices.Equal(s.peerReaches, m.Reaches) {
			s.peerCarries, s.peerReaches = m.Carries, m.Reaches
			n.signalWake() // a member may be reachable through it now
		}
		if s.via == "" {
			n.observeLocked(s.peer, m.Seen)
		}
		n.sendMissingLocked(s)
	case fetchCallMsg:
		if !s.dialed || s.via != "" || n.fetchHandler == nil || n.fetchBacks >= maxFetchBacks {
			n.c.refused.Add(1)
			return nil, ""
		}
		n.fetchBacks++
		n.wg.Add(1)
		go n.answerFetchCall(s.peer, s.conn.RemoteAddr().String(), m.Token)
	case relayCallMsg:
		if s.via != "" || !n.glog.isMember(m.From) || m.From == n.id {
			n.c.refused.Add(1)
			return nil, ""
		}
		if n.answering >= maxRelayAnswers {
			n.c.relayLimited.Add(1)
			return nil, ""
		}
		n.answering++
		n.wg.Add(1)
		go func() {
			n.answerRelay(s.peer, m.From, m.Token)
			n.mu.Lock()
			n.answering--
			n.mu.Unlock()
		}()
	case opsMsg:
		return n.applyRemoteOpsLocked(s, m.Ops)
	case snapshotMsg:
		return n.snapshotLocked(s, m), ""
	default:
		// pair messages from a member are not meaningful; ignore them.
	}
	return nil, ""
}

// applyRemoteOpsLocked checks the ops a member sent (admit), persists and
// applies those that pass, delivers the commands for this device among
// them and relays them. Refused ops are dropped and counted; they never
// close the connection, since a member relays what others wrote.
func (n *Node) applyRemoteOpsLocked(s *session, ops []Op) ([]Event, string) {
	fresh := 0
	for _, o := range ops {
		if n.glog.holds(o) {
			// Held already (a joiner's membership ops): the vector moves
			// past it all the same.
			n.glog.vector[o.Origin] = max(n.glog.vector[o.Origin], o.Seq)
		} else {
			fresh++
		}
		if s.peerVector != nil {
			s.peerVector[o.Origin] = max(s.peerVector[o.Origin], o.Seq)
		}
	}
	if fresh == 0 {
		n.c.duplicate.Add(uint64(len(ops)))
		return nil, ""
	}
	if n.glog.count+fresh > MaxLogOps {
		n.c.dropped.Add(uint64(fresh))
		return nil, fmt.Sprintf("operation log over %d ops", MaxLogOps)
	}
	before := n.membershipKeyLocked()
	prev := n.glog.vectorCopy()
	added, rej := n.glog.admit(ops, n.clock.Now().Add(MaxClockSkew).UnixMilli())
	n.countRejects(rej)
	if rej.refused() > 0 {
		n.log.Info("devicesync: refused ops", "peer", string(s.peer), "unsigned", rej.unsigned, "bad_signature", rej.badSig,
			"unknown_origin", rej.unknown, "void", rej.void, "malformed", rej.malformed)
	}
	if len(added) == 0 {
		return nil, ""
	}
	if err := n.cfg.Store.AppendOps(added); err != nil {
		n.glog.unadd(added, prev)
		n.log.Error("devicesync: persist ops", "err", err)
		return nil, "could not persist ops"
	}
	evs := n.commandEventsLocked(added)
	evs = append(evs, n.appOpsLocked(added)...)
	evs = append(evs, n.afterMembershipLocked(before)...)
	n.pushOpsLocked(s)
	return evs, ""
}

// commandEventsLocked turns newly added playback commands for this device
// into events, counting legacy and stale ones.
func (n *Node) commandEventsLocked(ops []Op) []Event {
	var evs []Event
	now := n.clock.Now().UnixMilli()
	for _, o := range ops {
		if o.Kind != KindPlaybackCommand {
			continue
		}
		var b commandBody
		if json.Unmarshal(o.Body, &b) != nil || b.Target != n.id {
			continue
		}
		switch {
		case !n.glog.isMember(o.Origin):
			n.c.refused.Add(1)
		case b.Stamp == nil || b.Stamp.Version != engine.EnvelopeVersion:
			n.c.legacy.Add(1)
		case now-o.HLCms > CommandMaxAge.Milliseconds():
			n.c.stale.Add(1)
		default:
			evs = append(evs, CommandReceived{OpID: o.ID, From: o.Origin, Target: b.Target, Stamp: *b.Stamp, Handoff: b.Handoff, Body: b.Command})
		}
	}
	return evs
}

// dialTarget is an address the node keeps trying to reach.
type dialTarget struct {
	addr      string
	device    engine.DeviceID // learned after a connection, or from a profile
	permanent bool            // from Config.Peers or an invite
	found     time.Time       // last mDNS answer for it (real time); zero: none
	// remembered: the address book holds it for device (remember.go).
	remembered bool
	dialing    bool
	backoff    reach.Backoff // real time
}

// dialLoop keeps one connection to every reachable member: it dials the
// targets that are not connected, with capped exponential backoff.
func (n *Node) dialLoop() {
	defer n.wg.Done()
	cert, err := n.cert()
	if err != nil {
		n.log.Error("devicesync: certificate", "err", err)
		return
	}
	conf := n.tlsConfig(cert, n.verifyMember)
	t := time.NewTimer(backoffMin)
	defer t.Stop()
	for {
		n.mu.Lock()
		n.refreshTargetsLocked()
		now := time.Now()
		// The loop sleeps until the next dial is due (a dial that ends,
		// a session that closes and new targets wake it): an idle device
		// wakes every dialRecheck, not every backoffMin.
		wait := dialRecheck
		for _, tg := range n.targets {
			if tg.dialing || (tg.device != "" && n.sessions[tg.device] != nil) {
				continue
			}
			if tg.device != "" && !n.glog.isMember(tg.device) {
				continue
			}
			if !tg.backoff.Due(now) {
				wait = min(wait, tg.backoff.Next().Sub(now))
				continue
			}
			tg.dialing = true
			n.wg.Add(1)
			go n.dial(tg, conf)
		}
		wait = min(wait, n.relayDueLocked(now))
		n.mu.Unlock()
		t.Reset(max(wait, backoffMin))
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		case <-n.wake:
		}
	}
}

// mdnsTargetTTL is how long an address found by mDNS stays a target
// without a new answer.
const mdnsTargetTTL = 3 * mdnsQueryEvery

// refreshTargetsLocked makes the members' current profile addresses
// targets and drops the others: addresses of devices that left the group,
// and addresses a member no longer announces (it restarted on a new port)
// unless mDNS found them lately. Stale addresses would otherwise pile up to
// maxDialTargets and keep a member's new address from ever being added.
func (n *Node) refreshTargetsLocked() {
	current := map[string]engine.DeviceID{}
	for id, m := range n.glog.members {
		if id == n.id || !n.glog.isMember(id) {
			continue
		}
		for _, a := range m.profile.Addresses {
			current[a] = id
		}
	}
	remembered := map[string]engine.DeviceID{}
	for dev := range n.book.Members {
		if id := engine.DeviceID(dev); id != n.id && n.glog.isMember(id) {
			for _, a := range n.book.Addrs(dev) {
				remembered[a] = id
			}
		}
	}
	now := time.Now()
	for a, t := range n.targets {
		_, announced := current[a]
		_, t.remembered = remembered[a]
		switch {
		case t.permanent || t.dialing || announced || t.remembered:
		case t.device != "" && !n.glog.isMember(t.device), now.Sub(t.found) > mdnsTargetTTL:
			delete(n.targets, a)
		}
	}
	for a, id := range current {
		if t := n.targets[a]; t == nil && len(n.targets) < maxDialTargets {
			n.targets[a] = &dialTarget{addr: a, device: id}
		}
	}
	for a, id := range remembered {
		if t := n.targets[a]; t == nil && len(n.targets) < maxDialTargets {
			n.targets[a] = &dialTarget{addr: a, device: id, remembered: true}
		}
	}
	n.updateMemberSourcesLocked()
}

func (n *Node) dial(tg *dialTarget, conf *tls.Config) {
	defer n.wg.Done()
	d := net.Dialer{Timeout: dialTimeout}
	c, err := d.DialContext(n.ctx, "tcp", tg.addr)
	ok := false
	var peer engine.DeviceID
	if err == nil {
		peer, ok = n.handshakeAndServe(tls.Client(c, conf), nil)
	}
	n.mu.Lock()
	tg.dialing = false
	if peer != "" {
		tg.device = peer
	}
	if ok {
		tg.backoff.Succeeded(time.Now())
		if n.glog.isMember(peer) {
			n.rememberLocked(peer, tg.addr)
		}
	} else {
		tg.backoff.Failed(time.Now())
	}
	n.mu.Unlock()
	n.signalWake() // the loop schedules the next dial
}
