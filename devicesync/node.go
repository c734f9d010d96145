package devicesync

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/reach"
	"github.com/furudesk/furudesk/relay"
)

// Clock is the wall clock the node reads for protocol time: op HLCs, invite
// expiry, command age and the online window. Socket deadlines, backoff and
// rate limits use the real monotonic clock.
type Clock interface{ Now() time.Time }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Default timings.
const (
	DefaultSyncInterval = 2 * time.Second
	DefaultPairRetry    = time.Second
)

// Config configures a Node. Zero Clock, Logger, Limits, SyncInterval and
// PairRetry mean the documented defaults; every other field is taken as
// given and checked by Validate.
type Config struct {
	Key    ed25519.PrivateKey // this installation's identity
	Name   string             // shown to the user on other devices
	Listen string             // host:port, port 0 picks a free port
	Peers  []string           // host:port of devices to dial (--peer)
	// Advertise overrides the addresses put in this device's profile and
	// invites; nil derives them from the bound listener.
	Advertise []string
	// Public lists the addresses this device is reachable at from
	// outside its network (a port the user forwarded on the router;
	// --public-addr); they come first in its profile and invites
	// (outside.go).
	Public []string
	MDNS   bool // announce and browse on the LAN
	// MDNSExclude names network interfaces mDNS must stay off (a VPN, a
	// container bridge): names or shell patterns such as "tun*".
	MDNSExclude []string
	Store       Store
	Clock       Clock        // nil: time.Now
	Logger      *slog.Logger // nil: slog.Default()
	Limits      Limits       // zero: DefaultLimits()
	// SyncInterval is the anti-entropy period (zero: DefaultSyncInterval).
	SyncInterval time.Duration
	// PairRetry is how often a requester repeats its pairing request while
	// the other user decides (zero: DefaultPairRetry).
	PairRetry time.Duration

	// pairWindow replaces PairWindow in tests that wait for it to pass.
	pairWindow time.Duration

	// Carry makes this device carry streams between members that cannot
	// reach each other directly (Settings › Carry other devices'
	// traffic; on for a headless box).
	Carry bool
	// RelayLimits bound what it carries (zero: relay.DefaultLimits()).
	RelayLimits relay.Limits

	// relayTap sees the bytes this device carries for others (tests).
	relayTap func([]byte)

	// gateClock is the clock of the inbound gate's backoffs and budgets
	// (tests); nil is the real monotonic clock.
	gateClock Clock
}

// Validate names the first invalid field.
func (c Config) Validate() error {
	switch {
	case len(c.Key) != ed25519.PrivateKeySize:
		return fmt.Errorf("devicesync: Config.Key has %d bytes, want %d", len(c.Key), ed25519.PrivateKeySize)
	case c.Store == nil:
		return errors.New("devicesync: Config.Store is nil")
	case c.Listen == "":
		return errors.New(`devicesync: Config.Listen is empty, want host:port (port 0 allowed)`)
	case len(c.Name) > maxNameBytes:
		return fmt.Errorf("devicesync: Config.Name has %d bytes, limit %d", len(c.Name), maxNameBytes)
	case len(c.Peers) > maxDialTargets:
		return fmt.Errorf("devicesync: Config.Peers has %d entries, limit %d", len(c.Peers), maxDialTargets)
	case ValidatePublic(c.Public) != nil:
		return ValidatePublic(c.Public)
	case ValidateMDNSExclude(c.MDNSExclude) != nil:
		return ValidateMDNSExclude(c.MDNSExclude)
	case c.SyncInterval < 0 || c.PairRetry < 0:
		return fmt.Errorf("devicesync: SyncInterval = %v, PairRetry = %v, want >= 0", c.SyncInterval, c.PairRetry)
	}
	for _, p := range c.Peers {
		if _, _, err := net.SplitHostPort(p); err != nil {
			return fmt.Errorf("devicesync: Config.Peers entry %q: %v", p, err)
		}
	}
	if c.RelayLimits != (relay.Limits{}) {
		if err := c.RelayLimits.Validate(); err != nil {
			return err
		}
	}
	if c.Limits != (Limits{}) {
		return c.Limits.Validate()
	}
	return nil
}

// API errors.
var (
	ErrClosed        = errors.New("devicesync: node closed")
	ErrUnknownDevice = errors.New("devicesync: not a member of the group")
	ErrRevokeSelf    = errors.New("devicesync: a device cannot remove itself; leave the group instead")
	ErrAlone         = errors.New("devicesync: this device is alone in its group")
	ErrEnvelope      = errors.New("devicesync: snapshot or command without a valid version-1 envelope of this device")
	ErrGroupFull     = errors.New("devicesync: group has the maximum number of devices")
)

// maxQueuedEvents bounds events waiting for the app; beyond it events are
// dropped and counted.
const maxQueuedEvents = 4096

// MaxCommandBytes bounds one playback command body.
const MaxCommandBytes = 64 << 10

// Node is one device's end of device sync. Create it with New, then Start.
// Its methods are safe for concurrent use.
type Node struct {
	cfg   Config
	id    engine.DeviceID
	pub   ed25519.PublicKey
	clock Clock
	// gateClock times the inbound gate (Config.gateClock).
	gateClock Clock
	log       *slog.Logger
	limits    Limits
	sync      time.Duration
	retry     time.Duration
	// pairWindow is PairWindow (tests shorten it).
	pairWindow time.Duration

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	ln     net.Listener

	events  chan Event
	evMu    sync.Mutex
	evQueue []Event
	evWake  chan struct{}

	wake          chan struct{} // dial manager: a target may have become dialable
	gate          *gate
	memberSources atomic.Pointer[map[string]bool] // see memberSource

	c struct {
		legacy, spoofed, stale, unknown, refused, closed, dropped, events atomic.Uint64
		duplicate, unsigned, badSig, unknownOrigin                        atomic.Uint64
		memberBytes, outsiderBytes                                        atomic.Uint64
		relayed, relayDup, relayLimited                                   atomic.Uint64
		relayStreams, relayBytes                                          atomic.Uint64
	}

	mu      sync.Mutex
	started bool
	closed  bool
	group   string
	glog    *groupLog
	// addrs are the profile's and invites' addresses: public, mapped,
	// local (outside.go); observed are what members saw this device
	// come from.
	addrs          []string
	public, mapped []string
	local          []string
	observed       *reach.Observed
	sessions       map[engine.DeviceID]*session // registered member sessions
	restricted     map[*session]struct{}        // unknown peers that may only pair
	pending        map[string]*pendingReq
	denied         map[string]time.Time // denialKey → when its invite expires
	left           map[string]Op        // group left → this device's revocation of itself there
	snapshot       []byte               // latest own snapshot line
	snapMu         sync.Mutex           // guards snapIn and snapState, taken before mu
	snapIn         []byte               // the state of the latest own snapshot, as given
	snapState      []byte               // and in compact form (compactJSON)
	snapSeq        uint64               // sequence of the latest own snapshot
	// held is the newest snapshot of each other device (relay.go);
	// relayBudget bounds how many of a device's snapshots are forwarded.
	held        map[engine.DeviceID]*heldSnapshot
	echoed      snapshotOrder // our own snapshot last handed back to us
	relayBudget map[engine.DeviceID]*tokenBucket
	targets     map[string]*dialTarget
	// book is what this device remembers to find members again
	// (remember.go).
	book *reach.Book
	// carrier, legs: the streams this device carries for others;
	// viaTries: its relayed dials to members, answering: relay calls it
	// is answering now (carry.go).
	carrier     *relay.Carrier
	carry       bool // Config.Carry, then SetCarry
	relayLimits relay.Limits
	legs        map[string]*legs
	viaTries    map[engine.DeviceID]*viaTry
	answering   int
	// backWaiters are fetches waiting for their member to dial back, by
	// token; fetchBacks counts the dial-backs this device runs
	// (fetchback.go).
	backWaiters map[string]*backWaiter
	fetchBacks  int
	// localIPs are this device's interface addresses at the last look
	// (roamLocked).
	localIPs []string
	// relayTap sees every byte this device carries (tests: the carrier
	// sees only ciphertext). Set before Start.
	relayTap func([]byte)
	mdns     func()
	// fetchHandler serves inbound fetch connections; fetches are the
	// open ones, both ways, by peer (fetch.go).
	fetchHandler FetchHandler
	fetches      map[engine.DeviceID][]*fetchConn
}

// New checks cfg and returns a Node that is not yet listening.
func New(cfg Config) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := &Node{
		cfg:        cfg,
		pub:        cfg.Key.Public().(ed25519.PublicKey),
		clock:      cfg.Clock,
		log:        cfg.Logger,
		limits:     cfg.Limits,
		sync:       cfg.SyncInterval,
		retry:      cfg.PairRetry,
		events:     make(chan Event, 64),
		evWake:     make(chan struct{}, 1),
		wake:       make(chan struct{}, 1),
		gate:       newGate(),
		sessions:   map[engine.DeviceID]*session{},
		restricted: map[*session]struct{}{},
		pending:    map[string]*pendingReq{},
		denied:     map[string]time.Time{},
		left:       map[string]Op{},
		targets:    map[string]*dialTarget{},
		fetches:    map[engine.DeviceID][]*fetchConn{},
		glog:       newGroupLog(""),

		held:        map[engine.DeviceID]*heldSnapshot{},
		relayBudget: map[engine.DeviceID]*tokenBucket{},
	}
	n.id = DeviceIDFromPublicKey(n.pub)
	n.relayLimits = cmp.Or(cfg.RelayLimits, relay.DefaultLimits())
	n.carrier = relay.NewCarrier(string(n.id), cfg.Carry, n.relayLimits)
	n.carry = cfg.Carry
	n.legs = map[string]*legs{}
	n.backWaiters = map[string]*backWaiter{}
	n.relayTap = cfg.relayTap
	n.viaTries = map[engine.DeviceID]*viaTry{}
	n.public = slices.Clone(cfg.Public)
	n.observed = reach.NewObserved()
	if n.clock == nil {
		n.clock = realClock{}
	}
	n.gateClock = cfg.gateClock
	if n.gateClock == nil {
		n.gateClock = realClock{}
	}
	if n.log == nil {
		n.log = slog.Default()
	}
	n.log = n.log.With("device", string(n.id))
	if n.limits == (Limits{}) {
		n.limits = DefaultLimits()
	}
	if n.sync == 0 {
		n.sync = DefaultSyncInterval
	}
	if n.retry == 0 {
		n.retry = DefaultPairRetry
	}
	n.pairWindow = cmp.Or(cfg.pairWindow, PairWindow)
	for _, p := range cfg.Peers {
		n.targets[p] = &dialTarget{addr: p, permanent: true}
	}
	return n, nil
}

// ID returns this device's id.
func (n *Node) ID() engine.DeviceID { return n.id }

// Events returns the channel of events for the app. It is closed after
// Close returns.
func (n *Node) Events() <-chan Event { return n.events }

// Start loads the group (creating a group of one on first run), listens,
// and starts dialing, anti-entropy and discovery. ctx bounds the node's
// life as Close does.
func (n *Node) Start(ctx context.Context) error {
	n.mu.Lock()
	if n.started {
		n.mu.Unlock()
		return errors.New("devicesync: Start called twice")
	}
	n.started = true
	n.mu.Unlock()

	n.book = n.loadBook()
	ln, err := n.listen()
	if err != nil {
		return fmt.Errorf("devicesync: listen on %s: %w", n.cfg.Listen, err)
	}
	n.ctx, n.cancel = context.WithCancel(ctx)
	n.ln = ln
	n.localIPs = localIPs()
	n.mu.Lock()
	n.local = n.cfg.Advertise
	if n.local == nil {
		n.local = advertiseAddrs(ln.Addr())
	}
	n.composeAddrsLocked()
	err = n.loadGroupLocked()
	n.mu.Unlock()
	if err != nil {
		n.cancel()
		_ = ln.Close()
		return err
	}
	n.wg.Add(4)
	go n.acceptLoop()
	go n.dialLoop()
	go n.syncLoop()
	go n.eventPump()
	if n.cfg.MDNS {
		n.startMDNS()
	}
	return nil
}

// Addr returns the bound listen address, nil before Start.
func (n *Node) Addr() net.Addr {
	if n.ln == nil {
		return nil
	}
	return n.ln.Addr()
}

// Group returns the current group id.
func (n *Node) Group() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.group
}

// closeFlushTimeout bounds how long Close lets the member connections
// write what is already queued (an owner's last snapshot): in total, not
// per peer, so a dead peer cannot hold Close up.
const closeFlushTimeout = 500 * time.Millisecond

// Close stops the node. It first lets the connections to members write
// what is already queued for them, such as a snapshot published just
// before, for at most closeFlushTimeout in total; nothing can be queued
// after Close began. Then it closes the listener and every connection,
// waits for its goroutines, and closes the Events channel.
func (n *Node) Close() error {
	n.mu.Lock()
	if n.closed || !n.started || n.ctx == nil {
		n.closed = true
		n.mu.Unlock()
		return nil
	}
	n.closed = true // no new sessions, snapshots or commands from here on
	flushing := make([]*session, 0, len(n.sessions))
	for _, s := range n.sessions {
		// The write loop drains the queue and half-closes; the session
		// ends when the peer, having read everything, closes its side.
		s.finishOnce.Do(func() {
			s.halfClose = true
			close(s.finishing)
		})
		flushing = append(flushing, s)
	}
	for s := range n.restricted {
		s.close()
	}
	n.closeFetchesLocked(true)
	n.mu.Unlock()
	deadline := time.NewTimer(closeFlushTimeout)
flush:
	for _, s := range flushing {
		select {
		case <-s.done:
		case <-deadline.C:
			break flush
		}
	}
	deadline.Stop()

	n.mu.Lock()
	n.cancel()
	for _, s := range flushing {
		s.close() // a peer that did not take its lines in time
	}
	for _, s := range n.sessions {
		s.close()
	}
	stopMDNS := n.mdns
	n.mu.Unlock()
	err := n.ln.Close()
	if stopMDNS != nil {
		stopMDNS()
	}
	n.wg.Wait()
	close(n.events)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("devicesync: close listener: %w", err)
	}
	return nil
}

// Counters returns the totals of refused and ignored input.
func (n *Node) Counters() Counters {
	return Counters{
		Legacy:      n.c.legacy.Load(),
		Spoofed:     n.c.spoofed.Load(),
		StaleCmds:   n.c.stale.Load(),
		UnknownType: n.c.unknown.Load(),
		Refused:     n.c.refused.Load(),
		Closed:      n.c.closed.Load(),
		Dropped:     n.c.dropped.Load(),
		EventsLost:  n.c.events.Load(),
		Relayed:     n.c.relayed.Load(),
		RelayDup:    n.c.relayDup.Load(),
		RelayLimit:  n.c.relayLimited.Load(),

		DuplicateOps:  n.c.duplicate.Load(),
		UnsignedOps:   n.c.unsigned.Load(),
		BadSignature:  n.c.badSig.Load(),
		UnknownOrigin: n.c.unknownOrigin.Load(),

		RelayStreams: n.c.relayStreams.Load(),
		RelayBytes:   n.c.relayBytes.Load(),
	}
}

// BytesRead returns the bytes read so far from members and from other
// devices (outsiders), for benchmarks and status.
func (n *Node) BytesRead() (members, outsiders uint64) {
	return n.c.memberBytes.Load(), n.c.outsiderBytes.Load()
}

// countRejects adds what admit refused to the counters.
func (n *Node) countRejects(r rejects) {
	n.c.duplicate.Add(uint64(r.duplicate))
	n.c.unsigned.Add(uint64(r.unsigned))
	n.c.badSig.Add(uint64(r.badSig))
	n.c.unknownOrigin.Add(uint64(r.unknown))
	n.c.dropped.Add(uint64(r.void + r.malformed))
}

// Devices lists the group's members, this device first, then by id.
func (n *Node) Devices() []DeviceInfo {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.devicesLocked()
}

func (n *Node) devicesLocked() []DeviceInfo {
	now := n.clock.Now()
	out := []DeviceInfo{{ID: n.id, Name: n.cfg.Name, Fingerprint: Fingerprint(n.pub), Addresses: slices.Clone(n.addrs), ProtocolVersion: engine.ProfileVersion, Online: true, Self: true}}
	for _, id := range n.glog.memberIDs() {
		if id == n.id {
			continue
		}
		m := n.glog.members[id]
		d := DeviceInfo{ID: id, Name: m.profile.Name, Fingerprint: Fingerprint(n.glog.keys[id]), Addresses: slices.Clone(m.profile.Addresses), ProtocolVersion: m.profile.ProtocolVersion}
		if s := n.sessions[id]; s != nil && now.Sub(s.lastHeard) <= OnlineWindow {
			d.Online, d.Via = true, s.via
		} else if h := n.held[id]; h != nil && !h.relayedAt.IsZero() && now.Sub(h.relayedAt) <= OnlineWindow {
			// Not connected, but its snapshots reach us through others.
			d.Online, d.Relayed = true, true
		}
		if !d.Online {
			d.Unreachable = n.unreachableLocked(id, m.profile.Addresses)
		}
		out = append(out, d)
	}
	return out
}

// Online returns the ids of members that are online now (presentation only).
func (n *Node) Online() []engine.DeviceID {
	var ids []engine.DeviceID
	for _, d := range n.Devices() {
		if d.Online && !d.Self {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// PublishSnapshot signs this device's playback snapshot, sends it to every
// connected member (who relay it when c names this device as the owner)
// and keeps it for members that connect later. c must be a version-1
// envelope naming this device.
func (n *Node) PublishSnapshot(state json.RawMessage, c engine.Coordination) error {
	if c.Version != engine.EnvelopeVersion || c.Device != n.id {
		return fmt.Errorf("%w: version %d device %q", ErrEnvelope, c.Version, c.Device)
	}
	// An owner announces itself every second with the same state most of
	// the time: the state's compact form is kept until it changes. It is
	// made outside n.mu, which every session and call of the node takes.
	n.snapMu.Lock()
	defer n.snapMu.Unlock()
	if n.snapIn == nil || !bytes.Equal(state, n.snapIn) {
		if !json.Valid(state) {
			return fmt.Errorf("devicesync: snapshot state is not JSON")
		}
		compact, err := compactJSON(state)
		if err != nil {
			return err
		}
		n.snapIn, n.snapState = bytes.Clone(state), compact
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return ErrClosed
	}
	m := snapshotMsg{Type: typeSnapshot, Coordination: &c, State: n.snapState, Seq: n.nextSnapshotSeqLocked()}
	fields, err := snapshotSigFields(&c, m.State, m.Seq)
	if err != nil {
		return err
	}
	m.Sig = sign(n.cfg.Key, sigDomainCoordination, n.id, fields...)
	line, err := encodeSnapshotLine(m, MaxLineBytes)
	if err != nil {
		return err
	}
	n.snapshot = line
	for _, s := range n.sessions {
		s.send(line)
	}
	return nil
}

// SendCommand logs a stamped playback command for target and pushes it to
// the group; target receives it once, directly or relayed. It returns the
// op id.
func (n *Node) SendCommand(target engine.DeviceID, stamp engine.CommandStamp, handoff bool, body json.RawMessage) (string, error) {
	if stamp.Version != engine.EnvelopeVersion {
		return "", fmt.Errorf("%w: stamp version %d", ErrEnvelope, stamp.Version)
	}
	if len(body) > MaxCommandBytes || !json.Valid(body) {
		return "", fmt.Errorf("devicesync: command body is not JSON of at most %d bytes", MaxCommandBytes)
	}
	b, _ := json.Marshal(commandBody{Target: target, Stamp: &stamp, Handoff: handoff, Command: body})
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return "", ErrClosed
	}
	if target == n.id || !n.glog.isMember(target) {
		return "", fmt.Errorf("%w: %s", ErrUnknownDevice, target)
	}
	op, err := n.appendLocalLocked(KindPlaybackCommand, b)
	if err != nil {
		return "", err
	}
	return op.ID, nil
}

// Revoke removes a member from the group: its connections close at once
// and it is refused afterwards, here and on every member the op reaches,
// until a member admits it again through pairing. What it did after the
// last of its ops this device holds is void.
func (n *Node) Revoke(id engine.DeviceID) error {
	n.mu.Lock()
	if id == n.id {
		n.mu.Unlock()
		return ErrRevokeSelf
	}
	if !n.glog.isMember(id) {
		n.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrUnknownDevice, id)
	}
	b, _ := json.Marshal(revokedBody{Target: id, TargetMaxSeqSeen: n.glog.vector[id]})
	return n.changeAndUnlock(func() error {
		_, err := n.appendLocalLocked(KindRevoked, b)
		return err
	})
}

// changeAndUnlock runs change, which alters the membership, with n.mu held
// by the caller; then it applies what follows from the change (closing
// connections, a group of its own), releases n.mu and reports the change.
func (n *Node) changeAndUnlock(change func() error) error {
	before := n.membershipKeyLocked()
	err := change()
	var evs []Event
	if err == nil {
		evs = n.afterMembershipLocked(before)
	}
	n.mu.Unlock()
	n.emit(evs...)
	return err
}

// Leave takes this device out of its group: it records its own revocation
// in the group's log, sends it to the members connected now, and founds a
// group of its own. Members that are not connected learn it from the
// others; until then they list this device offline.
func (n *Node) Leave() error {
	n.mu.Lock()
	if n.closed || !n.started {
		n.mu.Unlock()
		return ErrClosed
	}
	if len(n.glog.members) <= 1 {
		n.mu.Unlock()
		return ErrAlone
	}
	return n.changeAndUnlock(func() error {
		if err := n.leaveLocked("left the group"); err != nil {
			return err
		}
		return n.foundGroupLocked()
	})
}

// leaveLocked records this device's revocation of itself in the current
// group when it has other members, and ends the member connections after
// they wrote what is queued (that op among it). The caller then switches
// to another group.
func (n *Node) leaveLocked(reason string) error {
	if len(n.glog.members) > 1 && n.glog.isMember(n.id) {
		b, _ := json.Marshal(revokedBody{Target: n.id, TargetMaxSeqSeen: n.glog.nextSeq(n.id)})
		op, err := n.appendLocalLocked(KindRevoked, b)
		if err != nil {
			return err
		}
		for _, s := range n.sessions {
			if s.peerVector == nil { // no hello yet: appendLocalLocked did not push to it
				n.sendOpsLocked(s, []Op{op})
			}
		}
		// Members not connected now get it when they next call on this
		// device (handleRestricted), while it runs.
		if len(n.left) >= maxLeftGroups {
			clear(n.left)
		}
		n.left[n.group] = op
	}
	for id, s := range n.sessions {
		n.log.Info("devicesync: closing connection", "peer", string(id), "reason", reason)
		s.retire()
	}
	return nil
}

// maxLeftGroups bounds the groups whose leaving op a node keeps.
const maxLeftGroups = 4

// emit queues events for the app without blocking; past maxQueuedEvents
// they are dropped and counted.
func (n *Node) emit(evs ...Event) {
	if len(evs) == 0 {
		return
	}
	n.evMu.Lock()
	for _, e := range evs {
		if len(n.evQueue) >= maxQueuedEvents {
			n.c.events.Add(1)
			continue
		}
		n.evQueue = append(n.evQueue, e)
	}
	n.evMu.Unlock()
	select {
	case n.evWake <- struct{}{}:
	default:
	}
}

// eventPump moves queued events to the app's channel.
func (n *Node) eventPump() {
	defer n.wg.Done()
	for {
		n.evMu.Lock()
		q := n.evQueue
		n.evQueue = nil
		n.evMu.Unlock()
		for _, e := range q {
			select {
			case n.events <- e:
			case <-n.ctx.Done():
				return
			}
		}
		select {
		case <-n.evWake:
		case <-n.ctx.Done():
			return
		}
	}
}

func (n *Node) signalWake() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// syncLoop runs anti-entropy: a hello to every member each SyncInterval,
// and pruning of ops that no longer matter. The hello is also the
// keepalive, so it comes at least three times per PeerTimeout: a live
// connection is never closed by the peer's read deadline.
func (n *Node) syncLoop() {
	defer n.wg.Done()
	t := time.NewTicker(n.keepalive())
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		ips := localIPs()
		n.mu.Lock()
		n.roamLocked(ips)
		for _, s := range n.sessions {
			n.sendHelloLocked(s)
		}
		gone := n.glog.prune(n.clock.Now().Add(-CommandMaxAge).UnixMilli())
		if len(gone) > 0 {
			if err := n.cfg.Store.DeleteOps(gone); err != nil {
				n.log.Warn("devicesync: prune ops", "err", err)
			}
		}
		n.expirePendingLocked()
		n.mu.Unlock()
	}
}

func (n *Node) sendHelloLocked(s *session) {
	line, err := encodeLine(helloMsg{
		Type:    typeHello,
		Group:   n.group,
		Profile: n.selfProfile(),
		Devices: n.glog.memberIDs(),
		Vector:  n.glog.vectorCopy(),
		Carries: n.carry,
		Reaches: n.directReachLocked(),
		Seen:    seenFor(s),
	}, MaxLineBytes)
	if err != nil {
		n.log.Error("devicesync: hello", "err", err)
		return
	}
	s.send(line)
}

// advertiseAddrs lists the addresses peers can reach a listener on: the
// bound address, or every interface address when bound to all interfaces.
func advertiseAddrs(a net.Addr) []string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return []string{a.String()}
	}
	if !tcp.IP.IsUnspecified() {
		return []string{tcp.String()}
	}
	port := fmt.Sprint(tcp.Port)
	var out []string
	ifAddrs, _ := net.InterfaceAddrs()
	for _, ia := range ifAddrs {
		ipn, ok := ia.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.IsLinkLocalUnicast() || ipn.IP.IsMulticast() {
			continue
		}
		out = append(out, net.JoinHostPort(ipn.IP.String(), port))
		if len(out) == maxAddresses {
			break
		}
	}
	if len(out) == 0 {
		out = []string{net.JoinHostPort("127.0.0.1", port)}
	}
	return out
}
