package devicesync

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// pendingIdle is how long a request stays pending after the requester
// stopped retrying.
const pendingIdle = 30 * time.Second

// maxDenied bounds the denials remembered so that a denied requester's
// retries get the same answer.
const maxDenied = 64

// Pairing request states.
const (
	pairWaiting = iota
	pairAccepted
	pairJoinRequester
	pairDenied
)

// pendingReq is a pairing request the inviter knows about. An invite has at
// most one waiting request. Accepted requests are kept until their invite
// expires so retries get the same answer; a denied one frees its place at
// once and leaves a denial (Node.denied) behind.
type pendingReq struct {
	id           string
	inviteID     string
	device       engine.DeviceID
	key          ed25519.PublicKey
	name         string
	group        string
	groupDevices int
	conflict     bool
	state        int
	expires      time.Time
	lastSeen     time.Time
	session      *session
	response     []byte // the decided answer, resent on retries
}

// CreateInvite creates a single-use invite valid for InviteTTL and returns
// its code for the user to carry to the other device. Only a hash of its
// secret is stored.
func (n *Node) CreateInvite() (code string, expires time.Time, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed || !n.started {
		return "", time.Time{}, ErrClosed
	}
	now := n.clock.Now()
	p := invitePayload{
		V: 1,
		T: inviteTarget{Addresses: n.inviteAddrsLocked(), Key: base64.RawURLEncoding.EncodeToString(n.pub)},
		D: n.id,
		I: randomHex(8),
		S: randomHex(16),
		E: now.Add(InviteTTL).Unix(),
	}
	expires = time.Unix(p.E, 0)
	if err := n.cfg.Store.SaveInvite(InviteRecord{ID: p.I, SecretHash: hashSecret(p.S), Expires: expires}); err != nil {
		return "", time.Time{}, fmt.Errorf("devicesync: save invite: %w", err)
	}
	return encodeInvite(p), expires, nil
}

// Pending lists the pairing requests waiting for the user's answer.
func (n *Node) Pending() []PairingRequest {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.expirePendingLocked()
	var out []PairingRequest
	for _, p := range n.pending {
		if p.state == pairWaiting {
			out = append(out, p.event())
		}
	}
	slices.SortFunc(out, func(a, b PairingRequest) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func (p *pendingReq) event() PairingRequest {
	return PairingRequest{ID: p.id, DeviceID: p.device, Name: p.name, Fingerprint: Fingerprint(p.key), GroupConflict: p.conflict}
}

// denialKey names a denial of device's request with invite.
func denialKey(invite string, device engine.DeviceID) string { return invite + "/" + string(device) }

// expirePendingLocked forgets requests and denials whose invite expired and
// waiting requests whose requester stopped asking.
func (n *Node) expirePendingLocked() {
	now := n.clock.Now()
	for id, p := range n.pending {
		if now.After(p.expires) || (p.state == pairWaiting && now.Sub(p.lastSeen) > pendingIdle) {
			delete(n.pending, id)
		}
	}
	for k, exp := range n.denied {
		if now.After(exp) {
			delete(n.denied, k)
		}
	}
}

// waitingLocked counts the requests waiting for the user.
func (n *Node) waitingLocked() int {
	k := 0
	for _, p := range n.pending {
		if p.state == pairWaiting {
			k++
		}
	}
	return k
}

// Accept admits the device of a pending request. Without a group conflict,
// or with joinTheirs false, the requester joins this device's group. With a
// conflict and joinTheirs true, this device leaves its group and joins the
// requester's.
func (n *Node) Accept(id string, joinTheirs bool) error {
	n.mu.Lock()
	p := n.pending[id]
	if p == nil || p.state != pairWaiting {
		n.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrUnknownRequest, id)
	}
	rec, err := n.cfg.Store.LoadInvite(p.inviteID)
	switch {
	case err != nil:
		n.mu.Unlock()
		return fmt.Errorf("%w: %v", ErrInviteInvalid, err)
	case rec.Used:
		n.mu.Unlock()
		return ErrInviteInvalid
	case n.clock.Now().After(rec.Expires):
		n.mu.Unlock()
		return ErrInviteExpired
	case !(p.conflict && joinTheirs) && len(n.glog.members) >= MaxGroupDevices:
		n.mu.Unlock()
		return ErrGroupFull
	}
	rec.Used = true
	if err := n.cfg.Store.SaveInvite(rec); err != nil {
		n.mu.Unlock()
		return fmt.Errorf("devicesync: save invite: %w", err)
	}
	for oid, o := range n.pending {
		if o != p && o.inviteID == p.inviteID {
			delete(n.pending, oid)
		}
	}
	var evs []Event
	var resp pairResponseMsg
	self := n.selfProfile()
	if p.conflict && joinTheirs {
		p.state = pairJoinRequester
		resp = pairResponseMsg{Type: typePairResponse, Status: statusJoinRequester, Profile: &self}
		if p.session != nil {
			// The requester answers with its group's log: a large line
			// the outsider budgets would refuse.
			p.session.trusted.Store(true)
			_ = p.session.conn.SetReadDeadline(time.Now().Add(n.pairWindow))
		}
	} else {
		b, _ := json.Marshal(trustedBody{Target: p.device, Key: p.key, Name: p.name, FromSeq: n.glog.vector[p.device]})
		before := n.membershipKeyLocked()
		if _, err := n.appendLocalLocked(KindTrusted, b); err != nil {
			n.mu.Unlock()
			return err
		}
		evs = n.afterMembershipLocked(before)
		p.state = pairAccepted
		resp = pairResponseMsg{Type: typePairResponse, Status: statusAccepted, Group: n.group, Profile: &self, Ops: n.membershipOpsLocked()}
	}
	line, err := encodeLine(resp, MaxLineBytes)
	if err == nil {
		p.response = line
		if p.session != nil {
			p.session.send(line)
		}
	}
	n.mu.Unlock()
	n.emit(evs...)
	return err
}

// Deny refuses a pending request. It frees the request's place at once
// (another device may use the invite); the denied device's retries get the
// same answer until the invite expires.
func (n *Node) Deny(id string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.pending[id]
	if p == nil || p.state != pairWaiting {
		return fmt.Errorf("%w: %q", ErrUnknownRequest, id)
	}
	delete(n.pending, id)
	n.expirePendingLocked()
	if len(n.denied) >= maxDenied {
		var oldest string
		for k, exp := range n.denied {
			if oldest == "" || exp.Before(n.denied[oldest]) {
				oldest = k
			}
		}
		delete(n.denied, oldest)
	}
	n.denied[denialKey(p.inviteID, p.device)] = p.expires
	if p.session != nil {
		if line, err := encodeLine(pairResponseMsg{Type: typePairResponse, Status: statusDenied}, MaxLineBytes); err == nil {
			p.session.send(line)
		}
	}
	return nil
}

// membershipOpsLocked returns the ops a joining device needs to know and
// verify the members: the root, trust, revocations and profiles.
func (n *Node) membershipOpsLocked() []Op {
	return n.glog.missing(VersionVector{}, MaxOpsPerBatch, func(o Op) bool {
		return o.Kind == KindGroupRoot || o.Kind == KindTrusted || o.Kind == KindRevoked || o.Kind == KindProfileSet
	})
}

// handleRestricted processes a message from a device that is not a member:
// only pairing is allowed.
func (n *Node) handleRestricted(s *session, m message) ([]Event, string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch m := m.(type) {
	case pairRequestMsg:
		return n.pairRequestLocked(s, m)
	case pairResponseMsg:
		p := s.pairReq
		if p == nil || p.state != pairJoinRequester || m.Status != statusAccepted {
			n.c.refused.Add(1)
			return nil, "unexpected pair_response"
		}
		evs, err := n.joinGroupLocked(m.Group, m.Ops, p.device)
		if err != nil {
			n.log.Warn("devicesync: joining the requester's group failed", "err", err)
			return nil, "join failed"
		}
		delete(n.pending, p.id)
		return evs, "joined the requester's group"
	case helloMsg:
		n.c.refused.Add(1)
		if op, ok := n.left[m.Group]; ok {
			// A member of a group this device left, that missed it.
			n.sendOpsLocked(s, []Op{op})
			return nil, "this device left that group"
		}
		if m.Group == n.group && n.glog.isRevoked(s.peer) {
			// A removed device still believing it is a member learns
			// why it is refused: the revocations that name it, nothing
			// else of the group.
			n.sendOpsLocked(s, n.glog.missing(VersionVector{}, MaxOpsPerBatch, func(o Op) bool {
				mo, _, ok := parseMembership(n.group, o)
				return ok && o.Kind == KindRevoked && mo.target == s.peer
			}))
			return nil, "removed from the group"
		}
		return nil, "not a member: hello refused"
	default:
		n.c.refused.Add(1)
		return nil, "not a member: " + m.msgType() + " refused"
	}
}

// pairRequestLocked answers a pairing request on a restricted session.
func (n *Node) pairRequestLocked(s *session, m pairRequestMsg) ([]Event, string) {
	if m.Profile.DeviceID != s.peer {
		n.c.spoofed.Add(1)
		return nil, "pair_request profile of another device"
	}
	n.expirePendingLocked()
	reply := func(status string) {
		if line, err := encodeLine(pairResponseMsg{Type: typePairResponse, Status: status}, MaxLineBytes); err == nil {
			s.send(line)
		}
	}
	rec, err := n.cfg.Store.LoadInvite(m.InviteID)
	if err != nil || !rec.matches(m.Secret) {
		n.c.refused.Add(1)
		// Counted before the answer: a source that asks again at once
		// must find itself barred.
		if n.gate.wrongSecret(s.source, n.gateClock.Now()) {
			n.log.Warn("devicesync: too many pairing requests with a wrong invite or secret, refusing the address for a while", "remote", s.source)
		}
		reply(statusInvalid)
		return nil, "pairing with an unknown invite or a wrong secret"
	}
	// The requester knows the secret: it keeps its connection while it
	// asks again, and is not evicted by strangers.
	s.ticket.verify()
	_ = s.conn.SetReadDeadline(time.Now().Add(n.pairWindow))
	now := n.clock.Now()
	if exp, ok := n.denied[denialKey(m.InviteID, s.peer)]; ok && !now.After(exp) {
		reply(statusDenied)
		return nil, "pairing denied"
	}
	for _, p := range n.pending {
		if p.inviteID == m.InviteID && p.device == s.peer {
			p.lastSeen, p.session, s.pairReq = now, s, p
			if p.response != nil {
				s.send(p.response)
			} else {
				reply(statusPending)
			}
			return nil, ""
		}
	}
	switch {
	case rec.Used:
		n.c.refused.Add(1)
		reply(statusInvalid)
		return nil, "invite already used"
	case now.After(rec.Expires):
		reply(statusExpired)
		return nil, "invite expired"
	}
	for _, p := range n.pending {
		if p.inviteID == m.InviteID && p.state == pairWaiting {
			reply(statusInviteTaken)
			return nil, "another device's request with this invite waits for the user"
		}
	}
	if n.waitingLocked() >= MaxPendingPairings {
		reply(statusBusy)
		return nil, fmt.Sprintf("more than %d pending pairing requests", MaxPendingPairings)
	}
	p := &pendingReq{
		id:           randomHex(8),
		inviteID:     m.InviteID,
		device:       s.peer,
		key:          s.key,
		name:         m.Profile.Name,
		group:        m.Group,
		groupDevices: m.GroupDevices,
		conflict:     m.Group != n.group && m.GroupDevices > 1,
		expires:      rec.Expires,
		lastSeen:     now,
		session:      s,
	}
	n.pending[p.id] = p
	s.pairReq = p
	reply(statusPending)
	n.log.Info("devicesync: pairing request", "peer", string(s.peer), "name", p.name, "fingerprint", Fingerprint(p.key), "conflict", p.conflict)
	return []Event{p.event()}, ""
}

// joinGroupLocked makes group, with ops as its initial log, this device's
// group. The ops are checked like any received ops (admit): via and this
// device must be members of what they describe. This device leaves its
// current group first (leaveLocked).
func (n *Node) joinGroupLocked(group string, ops []Op, via engine.DeviceID) ([]Event, error) {
	if !validGroupID(group) {
		return nil, fmt.Errorf("devicesync: invalid group id %q", group)
	}
	if err := validateOps(ops); err != nil {
		return nil, fmt.Errorf("devicesync: pairing ops: %w", err)
	}
	g := newGroupLog(group)
	added, rej := g.admit(ops, n.clock.Now().Add(MaxClockSkew).UnixMilli())
	n.countRejects(rej)
	if g.root == "" || !g.isMember(n.id) || !g.isMember(via) {
		return nil, errors.New("devicesync: pairing response does not admit this device")
	}
	if err := n.leaveLocked("joined another group"); err != nil {
		return nil, err
	}
	// The response holds the membership ops only: the vector claims no
	// other device's ops yet, so anti-entropy sends the ones in between.
	g.vector = VersionVector{n.id: g.vector[n.id]}
	if err := n.cfg.Store.ResetGroup(group); err != nil {
		return nil, fmt.Errorf("devicesync: reset group: %w", err)
	}
	if err := n.cfg.Store.AppendOps(added); err != nil {
		return nil, fmt.Errorf("devicesync: persist ops: %w", err)
	}
	n.group, n.glog = group, g
	if err := n.refreshProfileLocked(); err != nil {
		return nil, err
	}
	n.signalWake()
	n.log.Info("devicesync: joined group", "group", group, "via", string(via))
	return []Event{GroupChanged{Group: n.group, Devices: n.devicesLocked()}}, nil
}

// Pair joins the group of the device that created code. It returns once
// that device's user accepted (nil), denied, or the invite turned out
// invalid or expired; it keeps asking every PairRetry for at most
// PairRetryWindow or until ctx ends.
func (n *Node) Pair(ctx context.Context, code string) error {
	inv, key, err := decodeInvite(code)
	if err != nil {
		return err
	}
	if n.clock.Now().Unix() > inv.E {
		return ErrInviteExpired
	}
	if inv.D == n.id {
		return fmt.Errorf("%w: the invite is this device's own", ErrInviteInvalid)
	}
	n.mu.Lock()
	if n.closed || !n.started {
		n.mu.Unlock()
		return ErrClosed
	}
	n.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, PairRetryWindow)
	defer cancel()
	stop := context.AfterFunc(n.ctx, cancel)
	defer stop()

	cert, err := n.cert()
	if err != nil {
		return err
	}
	conf := n.tlsConfig(cert, func(k ed25519.PublicKey) error {
		if !k.Equal(key) {
			return errWrongKey
		}
		return nil
	})
	var last error
	for attempt := 0; ; attempt++ {
		addr := inv.T.Addresses[attempt%len(inv.T.Addresses)]
		done, err := n.pairAttempt(ctx, addr, conf, inv)
		if done {
			return err
		}
		if err != nil {
			n.log.Debug("devicesync: pairing attempt failed", "addr", addr, "err", err)
			last = err
		}
		t := time.NewTimer(n.retry)
		select {
		case <-ctx.Done():
			t.Stop()
			if n.ctx.Err() != nil {
				return ErrClosed
			}
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				if errors.Is(last, ErrInviteTaken) {
					return ErrInviteTaken
				}
				return ErrPairTimeout
			}
			return ctx.Err()
		case <-t.C:
		}
	}
}

// pairAttempt runs one connection to the inviter, repeating the request
// every PairRetry while it is pending. done reports a final answer.
func (n *Node) pairAttempt(ctx context.Context, addr string, conf *tls.Config, inv invitePayload) (done bool, err error) {
	d := net.Dialer{Timeout: dialTimeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false, err
	}
	tc := tls.Client(c, conf)
	defer tc.Close()
	stop := context.AfterFunc(ctx, func() { _ = tc.Close() })
	defer stop()
	_ = tc.SetDeadline(time.Now().Add(handshakeTimeout))
	if err := tc.HandshakeContext(ctx); err != nil {
		return false, err
	}
	_ = tc.SetDeadline(time.Time{})
	if tc.ConnectionState().NegotiatedProtocol != ALPN {
		return false, errors.New("devicesync: inviter did not negotiate " + ALPN)
	}

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReader(tc)
		for {
			line, err := readLine(r, MaxLineBytes)
			if err != nil {
				readErr <- err
				return
			}
			select {
			case lines <- line:
			case <-ctx.Done():
				readErr <- ctx.Err()
				return
			}
		}
	}()

	n.mu.Lock()
	req := pairRequestMsg{Type: typePairRequest, InviteID: inv.I, Secret: inv.S, Profile: n.selfProfile(), Group: n.group, GroupDevices: len(n.glog.members)}
	n.mu.Unlock()
	reqLine, err := encodeLine(req, MaxLineBytes)
	if err != nil {
		return true, err
	}
	t := time.NewTicker(n.retry)
	defer t.Stop()
	for {
		_ = tc.SetWriteDeadline(time.Now().Add(handshakeTimeout))
		if _, err := tc.Write(reqLine); err != nil {
			return false, err
		}
		resp, err := n.awaitAnswer(ctx, t.C, lines, readErr)
		if err != nil {
			return false, err
		}
		if resp == nil {
			continue // time to ask again
		}
		switch resp.Status {
		case statusAccepted:
			n.mu.Lock()
			evs, err := n.joinGroupLocked(resp.Group, resp.Ops, inv.D)
			if err == nil {
				n.addPermanentTargetsLocked(inv.T.Addresses, inv.D)
			}
			n.mu.Unlock()
			n.emit(evs...)
			return true, err
		case statusJoinRequester:
			return true, n.welcomeInviter(tc, inv, *resp)
		case statusDenied:
			return true, ErrPairDenied
		case statusExpired:
			return true, ErrInviteExpired
		case statusBusy:
			return true, ErrPairBusy
		case statusInviteTaken:
			// Another device's request with this invite waits for the
			// user; if it is denied, this one gets its place.
			return false, ErrInviteTaken
		default:
			return true, ErrInviteInvalid
		}
	}
}

// awaitAnswer waits for a decided pair_response. It returns nil, nil when
// retry fires first, so the caller repeats its request.
func (n *Node) awaitAnswer(ctx context.Context, retry <-chan time.Time, lines <-chan []byte, readErr <-chan error) (*pairResponseMsg, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case err := <-readErr:
			return nil, err
		case <-retry:
			return nil, nil
		case line := <-lines:
			m, err := decodeLine(line)
			if errors.Is(err, errUnknownType) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if resp, ok := m.(pairResponseMsg); ok && resp.Status != statusPending {
				return &resp, nil
			}
		}
	}
}

// welcomeInviter admits the inviter into this device's group (the
// inviter's user chose to join ours) and sends it the group's log.
func (n *Node) welcomeInviter(tc *tls.Conn, inv invitePayload, resp pairResponseMsg) error {
	n.mu.Lock()
	key, _ := base64.RawURLEncoding.DecodeString(inv.T.Key)
	name := ""
	if resp.Profile != nil && resp.Profile.DeviceID == inv.D {
		name = resp.Profile.Name
	}
	b, _ := json.Marshal(trustedBody{Target: inv.D, Key: key, Name: name, FromSeq: n.glog.vector[inv.D]})
	before := n.membershipKeyLocked()
	_, err := n.appendLocalLocked(KindTrusted, b)
	if err != nil {
		n.mu.Unlock()
		return err
	}
	evs := n.afterMembershipLocked(before)
	self := n.selfProfile()
	line, err := encodeLine(pairResponseMsg{Type: typePairResponse, Status: statusAccepted, Group: n.group, Profile: &self, Ops: n.membershipOpsLocked()}, MaxLineBytes)
	n.addPermanentTargetsLocked(inv.T.Addresses, inv.D)
	n.mu.Unlock()
	n.emit(evs...)
	if err != nil {
		return err
	}
	_ = tc.SetWriteDeadline(time.Now().Add(handshakeTimeout))
	if _, err := tc.Write(line); err != nil {
		return fmt.Errorf("devicesync: send group to inviter: %w", err)
	}
	return nil
}

// addPermanentTargetsLocked remembers where a newly paired device listens.
func (n *Node) addPermanentTargetsLocked(addrs []string, device engine.DeviceID) {
	for _, a := range addrs {
		if n.targets[a] == nil && len(n.targets) < maxDialTargets {
			n.targets[a] = &dialTarget{addr: a, device: device, permanent: true}
		}
	}
	n.signalWake()
}
