package devicesync

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/reach"
	"github.com/furudesk/furudesk/relay"
)

// Relayed connections: a member that two others both reach carries a
// stream between them (package relay has the rules). The caller opens a
// connection to the carrier with RelayALPN and asks for the callee; the
// carrier calls the callee over their sync connection (relay_call); the
// callee opens its own RelayALPN connection to the carrier and answers;
// the carrier joins the two and says "ok" to both. Inside the joined
// stream the two ends run the ordinary TLS 1.3 handshake with their
// device keys (sync or fetch ALPN), so the carrier forwards ciphertext it
// cannot read or alter, and each end checks the other's membership as on
// a direct connection. A direct connection, once it works, replaces a
// relayed one (registerLocked).

// RelayALPN is the TLS application protocol of connections to a carrier.
const RelayALPN = "furumi/relay/1"

const typeRelayCall = "relay_call"

// relayCallMsg is the carrier's call to the callee, on their sync
// connection.
type relayCallMsg struct {
	Type  string          `json:"type"`
	Token string          `json:"token"`
	From  engine.DeviceID `json:"from"`
}

func (relayCallMsg) msgType() string { return typeRelayCall }

func (m relayCallMsg) validate() error {
	if len(m.Token) == 0 || len(m.Token) > 64 || !ValidDeviceID(m.From) {
		return errors.New("token or from")
	}
	return nil
}

// relayRequest is the first line on a relay connection: to (a caller) or
// answer (a callee).
type relayRequest struct {
	To     engine.DeviceID `json:"to,omitempty"`
	Answer string          `json:"answer,omitempty"`
}

// relayReply is the carrier's line back: ok, or why not.
type relayReply struct {
	OK    bool   `json:"ok,omitempty"`
	Error string `json:"error,omitempty"`
}

// maxRelayAnswers bounds the relay calls a device answers at once.
const maxRelayAnswers = 8

// maxRelayLine bounds a relay connection's request and reply lines.
const maxRelayLine = 512

// relayedTry is how soon a member is tried again through a carrier after
// an attempt failed (doubling up to reach.DefaultMax).
const relayedTryMin = 500 * time.Millisecond

// legs is one carried stream's two connections.
type legs struct {
	from, to net.Conn
	answered chan struct{} // closed when to joined
	done     chan struct{} // closed when the stream ended
	once     sync.Once
}

func (l *legs) close() {
	l.once.Do(func() {
		close(l.done)
		if l.from != nil {
			_ = l.from.Close()
		}
		if l.to != nil {
			_ = l.to.Close()
		}
	})
}

// readRelayLine reads one line without reading past it: what follows is
// the stream.
func readRelayLine(c net.Conn) ([]byte, error) {
	var line []byte
	b := make([]byte, 1)
	for len(line) < maxRelayLine {
		if _, err := io.ReadFull(c, b); err != nil {
			return nil, err
		}
		if b[0] == '\n' {
			return line, nil
		}
		line = append(line, b[0])
	}
	return nil, ErrLineTooLong
}

func writeRelayLine(c net.Conn, v any) error {
	b, _ := json.Marshal(v)
	_, err := c.Write(append(b, '\n'))
	return err
}

// serveRelay runs an inbound RelayALPN connection on the carrier.
func (n *Node) serveRelay(tc *tls.Conn, t *ticket, key ed25519.PublicKey) {
	peer := DeviceIDFromPublicKey(key)
	refuse := func(reason string) {
		n.c.refused.Add(1)
		n.log.Info("devicesync: refused relay", "peer", string(peer), "reason", reason)
		_ = writeRelayLine(tc, relayReply{Error: reason})
		_ = tc.Close()
	}
	n.mu.Lock()
	member := n.glog.isMember(peer)
	n.mu.Unlock()
	switch {
	case !member:
		refuse("not a member")
		return
	case !t.member():
		refuse(fmt.Sprintf("more than %d member connections", maxMemberConns))
		return
	}
	line, err := readRelayLine(tc)
	var req relayRequest
	if err == nil {
		err = json.Unmarshal(line, &req)
	}
	if err != nil || (req.To == "") == (req.Answer == "") {
		refuse("malformed relay request")
		return
	}
	isMember := func(d string) bool { return n.glog.isMember(engine.DeviceID(d)) }
	now := n.clock.Now()
	if req.To != "" {
		token := randomHex(16)
		l := &legs{from: tc, answered: make(chan struct{}), done: make(chan struct{})}
		n.mu.Lock()
		err := n.carrier.Open(token, string(peer), string(req.To), isMember, func(d string) bool {
			s := n.sessions[engine.DeviceID(d)]
			return s != nil && !s.closed() && s.via == ""
		}, now)
		if err == nil {
			n.legs[token] = l
			line, _ := encodeLine(relayCallMsg{Type: typeRelayCall, Token: token, From: peer}, MaxLineBytes)
			n.sessions[req.To].send(line)
		}
		n.mu.Unlock()
		if err != nil {
			refuse(err.Error())
			return
		}
		n.carryStream(token, l)
		return
	}
	n.mu.Lock()
	_, err = n.carrier.Answer(req.Answer, string(peer), isMember, now)
	l := n.legs[req.Answer]
	if err == nil && l != nil {
		l.to = tc
		close(l.answered)
	}
	n.mu.Unlock()
	if err != nil || l == nil {
		refuse(fmt.Sprint("relay answer: ", cmpErr(err, relay.ErrUnknownCall)))
		return
	}
	<-l.done // the caller's goroutine carries the stream
}

func cmpErr(err, dflt error) error {
	if err != nil {
		return err
	}
	return dflt
}

// carryStream waits for the callee's answer, then joins the legs until
// one ends, within the carrier's rate limit.
func (n *Node) carryStream(token string, l *legs) {
	defer func() {
		l.close()
		n.mu.Lock()
		n.carrier.End(token)
		delete(n.legs, token)
		n.mu.Unlock()
	}()
	timer := time.NewTimer(n.relayLimits.AnswerWithin)
	defer timer.Stop()
	select {
	case <-l.answered:
	case <-timer.C:
		n.log.Info("devicesync: relay call not answered", "token", token)
		_ = writeRelayLine(l.from, relayReply{Error: relay.ErrExpired.Error()})
		return
	case <-l.done:
		return
	case <-n.ctx.Done():
		return
	}
	_ = l.from.SetDeadline(time.Time{})
	_ = l.to.SetDeadline(time.Time{})
	if writeRelayLine(l.from, relayReply{OK: true}) != nil || writeRelayLine(l.to, relayReply{OK: true}) != nil {
		return
	}
	n.c.relayStreams.Add(1)
	var wg sync.WaitGroup
	wg.Add(2)
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		defer l.close()
		n.copyLimited(dst, src)
	}
	go pipe(l.to, l.from)
	go pipe(l.from, l.to)
	wg.Wait()
}

// copyLimited copies src to dst at most at the carrier's rate.
func (n *Node) copyLimited(dst, src net.Conn) {
	rate := float64(n.relayLimits.BytesPerSec)
	bucket := newTokenBucket(rate, int(min(rate, 1<<20)), time.Now())
	buf := make([]byte, 32<<10)
	for {
		k, err := src.Read(buf)
		if k > 0 {
			n.c.relayBytes.Add(uint64(k))
			if n.relayTap != nil {
				n.relayTap(buf[:k])
			}
			if !bucket.take(float64(k), time.Now()) {
				time.Sleep(bucket.wait(time.Now())) // rate limit, real time
			}
			if _, werr := dst.Write(buf[:k]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// cutRelaysLocked closes the carried streams of devices that are no longer
// members.
func (n *Node) cutRelaysLocked() {
	for _, tok := range n.carrier.Cut(func(d string) bool { return n.glog.isMember(engine.DeviceID(d)) }) {
		if l := n.legs[tok]; l != nil {
			n.log.Info("devicesync: cutting relayed stream", "reason", "an end is not a member any more")
			go l.close()
		}
	}
}

// carrierAddrLocked is where to open a relay connection to member via:
// the address this device's sync connection to it was dialed at.
func (n *Node) carrierAddrLocked(via engine.DeviceID) string {
	if s := n.sessions[via]; s != nil && s.dialed && s.via == "" {
		return s.conn.RemoteAddr().String()
	}
	return ""
}

// openRelay opens a relay connection to carrier via at addr and sends req;
// it returns the connection once the carrier said ok.
func (n *Node) openRelay(ctx context.Context, addr string, via engine.DeviceID, req relayRequest, wait time.Duration) (net.Conn, error) {
	conf, err := n.memberConfig(via, RelayALPN)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: dialTimeout}
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	tc := tls.Client(raw, conf)
	_ = tc.SetDeadline(time.Now().Add(handshakeTimeout + wait))
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = tc.Close()
		return nil, err
	}
	if tc.ConnectionState().NegotiatedProtocol != RelayALPN {
		_ = tc.Close()
		return nil, fmt.Errorf("devicesync: %s does not carry relayed connections", via)
	}
	if err := writeRelayLine(tc, req); err != nil {
		_ = tc.Close()
		return nil, err
	}
	line, err := readRelayLine(tc)
	var rep relayReply
	if err == nil {
		err = json.Unmarshal(line, &rep)
	}
	if err == nil && !rep.OK {
		err = fmt.Errorf("devicesync: %s refused to carry: %s", via, rep.Error)
	}
	if err != nil {
		_ = tc.Close()
		return nil, err
	}
	_ = tc.SetDeadline(time.Time{})
	return tc, nil
}

// memberConfig is a TLS configuration that accepts only member peer,
// speaking alpn: a carrier dialed, a fetch, the end-to-end handshake
// inside a relayed stream.
func (n *Node) memberConfig(peer engine.DeviceID, alpn ...string) (*tls.Config, error) {
	cert, err := n.cert()
	if err != nil {
		return nil, err
	}
	conf := n.tlsConfig(cert, func(k ed25519.PublicKey) error {
		if DeviceIDFromPublicKey(k) != peer {
			return errWrongKey
		}
		return n.verifyMember(k)
	})
	conf.NextProtos = alpn
	return conf, nil
}

// dialVia reaches member peer through carrier via and runs the sync
// session over the relayed stream until it ends. It reports whether a
// member session was greeted.
func (n *Node) dialVia(via, peer engine.DeviceID) bool {
	n.mu.Lock()
	addr := n.carrierAddrLocked(via)
	n.mu.Unlock()
	if addr == "" {
		return false
	}
	c, err := n.openRelay(n.ctx, addr, via, relayRequest{To: peer}, n.relayLimits.AnswerWithin)
	if err != nil {
		n.log.Debug("devicesync: relay", "via", string(via), "peer", string(peer), "err", err)
		return false
	}
	conf, err := n.memberConfig(peer, ALPN)
	if err != nil {
		_ = c.Close()
		return false
	}
	_, ok := n.handshakeAndServeVia(tls.Client(c, conf), nil, via)
	return ok
}

// answerRelay answers carrier via's call with token from member from: it
// opens its own relay connection and serves the stream as an inbound
// connection of from (sync or fetch).
func (n *Node) answerRelay(via, from engine.DeviceID, token string) {
	defer n.wg.Done()
	n.mu.Lock()
	addrs := []string{}
	if a := n.carrierAddrLocked(via); a != "" {
		addrs = append(addrs, a)
	}
	addrs = append(addrs, n.book.Addrs(string(via))...)
	if m := n.glog.members[via]; m != nil {
		addrs = append(addrs, m.profile.Addresses...)
	}
	n.mu.Unlock()
	var c net.Conn
	for _, a := range slices.Compact(addrs) {
		var err error
		if c, err = n.openRelay(n.ctx, a, via, relayRequest{Answer: token}, 0); err == nil {
			break
		}
		n.log.Debug("devicesync: relay answer", "via", string(via), "addr", a, "err", err)
	}
	if c == nil {
		return
	}
	conf, err := n.memberConfig(from, ALPN, FetchALPN)
	if err != nil {
		_ = c.Close()
		return
	}
	t, reason := n.gate.arrive("relay:"+string(via), true, n.gateClock.Now(), func() { _ = c.Close() })
	if t == nil {
		n.log.Debug("devicesync: relayed connection refused", "reason", reason)
		_ = c.Close()
		return
	}
	defer t.release()
	_ = c.SetDeadline(time.Now().Add(n.pairWindow))
	n.handshakeAndServeVia(tls.Server(c, conf), t, via)
}

// relayCandidatesLocked describes the members this device is directly
// connected to, for relay.ChooseVia.
func (n *Node) relayCandidatesLocked() []relay.Candidate {
	var out []relay.Candidate
	for id, s := range n.sessions {
		if s.via != "" || s.closed() || s.peerVector == nil {
			continue
		}
		c := relay.Candidate{Via: string(id), Carries: s.peerCarries, Dialable: s.dialed}
		for _, r := range s.peerReaches {
			c.Reaches = append(c.Reaches, string(r))
		}
		out = append(out, c)
	}
	return out
}

// directReachLocked lists the members this device has a direct session
// with, for its hello.
func (n *Node) directReachLocked() []engine.DeviceID {
	var out []engine.DeviceID
	for id, s := range n.sessions {
		if s.via == "" && !s.closed() {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// relayDueLocked starts relayed dials to members this device has no
// session with, whose direct addresses were all tried at least once,
// through a carrier that reaches them; at most one per member at a time.
func (n *Node) relayDueLocked(now time.Time) time.Duration {
	wait := dialRecheck
	cands := n.relayCandidatesLocked()
	if len(cands) == 0 {
		return wait
	}
	for _, id := range n.glog.memberIDs() {
		if id == n.id || n.sessions[id] != nil {
			continue
		}
		untried := false
		for _, tg := range n.targets {
			if tg.device == id && tg.backoff.Next().IsZero() {
				untried = true // a first direct dial goes first
			}
		}
		if untried {
			continue
		}
		st := n.viaTries[id]
		if st == nil {
			st = &viaTry{backoff: reach.Backoff{Min: relayedTryMin}}
			n.viaTries[id] = st
		}
		if st.dialing {
			continue
		}
		if !st.backoff.Due(now) {
			wait = min(wait, st.backoff.Next().Sub(now))
			continue
		}
		via := relay.ChooseVia(string(id), cands, func(v string) bool { return v == st.lastFailed })
		if via == "" {
			continue
		}
		st.dialing = true
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			ok := n.dialVia(engine.DeviceID(via), id)
			n.mu.Lock()
			st.dialing = false
			if ok {
				st.backoff.Succeeded(time.Now())
				st.lastFailed = ""
			} else {
				st.backoff.Failed(time.Now())
				st.lastFailed = via
			}
			n.mu.Unlock()
			n.signalWake()
		}()
	}
	return wait
}

// viaTry is the state of relayed dials to one member.
type viaTry struct {
	dialing    bool
	backoff    reach.Backoff
	lastFailed string
}

// cutStreamsFromLocked closes the carried streams of member peer whose
// leg comes from source: the member left that address (it roamed), so
// the streams are dead though nothing told this device.
func (n *Node) cutStreamsFromLocked(peer engine.DeviceID, source string) {
	for _, tok := range n.carrier.Of(string(peer)) {
		l := n.legs[tok]
		if l == nil {
			continue
		}
		for _, c := range []net.Conn{l.from, l.to} {
			if c != nil && sourceOf(c.RemoteAddr()) == source {
				n.log.Info("devicesync: cutting relayed stream", "reason", "its device moved", "peer", string(peer))
				go l.close()
				break
			}
		}
	}
}

// SetCarry turns carrying other members' streams on or off (Settings ›
// Carry other devices' traffic). Turned off, the streams carried now are
// closed, and members learn it from the next hello.
func (n *Node) SetCarry(on bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.carry = on
	for _, tok := range n.carrier.SetCarries(on) {
		if l := n.legs[tok]; l != nil {
			go l.close()
		}
	}
	for _, s := range n.sessions {
		n.sendHelloLocked(s)
	}
}

// Carries reports whether this device carries other members' streams.
func (n *Node) Carries() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.carry
}
