package engine

import (
	"errors"
	"maps"
	"math"
	"slices"
	"time"
)

// ReserveBlock is how many heartbeat ids (and, separately, command
// sequences) one checkpoint write reserves (engine.md rule 5).
const ReserveBlock = 1024

// MaxDeviceIDLen bounds a device id accepted from the network, in bytes.
const MaxDeviceIDLen = 256

// MaxTrackedPeers bounds the "last heartbeat seen" map. A trusted group is
// far smaller; beyond the bound the peer tracked longest ago that is not the
// owner is forgotten.
const MaxTrackedPeers = 1024

// GossipInterval is how long Tick lets pass without an announcement before
// it asks for one again (anti-entropy for dropped messages).
const GossipInterval = time.Second

// Errors returned by the engine. Stale and duplicate network input is not an
// error: it is dropped and counted (see Stats).
var (
	ErrGroupMismatch  = errors.New("engine: checkpoint belongs to another group")
	ErrDevice         = errors.New("engine: invalid device id")
	ErrVersion        = errors.New("engine: unsupported coordination envelope version")
	ErrSenderMismatch = errors.New("engine: announcement device_id does not match its sender")
	ErrFromSelf       = errors.New("engine: announcement claims to come from this device")
	ErrClaim          = errors.New("engine: malformed claim")
	ErrNoTerm         = errors.New("engine: no claim yet, nothing to stamp against")
	ErrExhausted      = errors.New("engine: claim counter or sequence exhausted")
	ErrClock          = errors.New("engine: nil clock")
)

// Engine is the playback coordination state machine of one device in one
// group. It is not safe for concurrent use: one goroutine (the app actor)
// owns it. See the package documentation for the driver contract.
type Engine struct {
	self  DeviceID
	group string
	cfg   Config
	clock Clock
	start time.Duration // New/Restore time, for the discovery grace

	claim Claim // winning claim (max-register)

	hbLast, hbReserved   uint64 // last heartbeat id issued, reservation
	cmdLast, cmdReserved uint64 // last command sequence issued, reservation

	local         Output // our output's last report
	localID       uint64 // heartbeat id of that report in this life; 0 none
	localAt       time.Duration
	localReported bool
	gatewaySource uint64 // last OutputReport source id

	// Liveness of the owner when it is another device. ownerBase is the time
	// of its last fresh report, or of learning the claim when it has not
	// reported since (rule 7).
	ownerBase     time.Duration
	ownerReported bool
	ownerOutput   Output
	peerHB        map[DeviceID]uint64 // last heartbeat id seen per peer
	peerOrder     []DeviceID          // keys of peerHB, oldest first

	startupUsed    bool // RequestStartup was called once
	startupPending bool

	term    Claim               // the term the senders map belongs to
	senders map[DeviceID]uint64 // last accepted sequence per sender in term

	// Ready/Advance bookkeeping: what the driver has acknowledged.
	acked        Checkpoint
	ackedOwner   DeviceID
	ackedRender  bool
	gossipSeq    uint64
	gossipAcked  uint64
	lastGossipAt time.Duration
	peerBehind   bool // a peer announced an older claim since the last Tick
	readyOut     bool
	inflight     inflight

	stats Stats
}

type inflight struct {
	cp        Checkpoint
	owner     DeviceID
	render    bool
	gossipSeq uint64
}

// Stats counts what the engine dropped or decided; presentation only.
type Stats struct {
	Announcements  uint64               // announcements processed
	AnnounceErrors uint64               // announcements rejected with an error
	Renewals       uint64               // fresh owner reports that renewed liveness
	Resumes        uint64               // Resumed calls that moved the liveness window
	ClaimsIssued   uint64               // claims issued by this device
	Verdicts       [verdictCount]uint64 // Receive outcomes, indexed by Verdict
	Senders        int                  // senders tracked in the current term
	Peers          int                  // peers whose heartbeat ids are tracked
}

func validDevice(d DeviceID) bool { return d != "" && len(d) <= MaxDeviceIDLen }

// validClaim accepts the zero claim or a complete one. Locally issued claims
// always have Counter >= 1.
func validClaim(c Claim) bool {
	if c.IsZero() {
		return true
	}
	return c.Counter > 0 && validDevice(c.Issuer) && validDevice(c.Owner)
}

func newEngine(device DeviceID, group string, cfg Config, clock Clock) (*Engine, error) {
	if !validDevice(device) {
		return nil, ErrDevice
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if clock == nil {
		return nil, ErrClock
	}
	now := clock.Now()
	e := &Engine{
		self:      device,
		group:     group,
		cfg:       cfg,
		clock:     clock,
		start:     now,
		peerHB:    make(map[DeviceID]uint64),
		gossipSeq: 1, // announce ourselves once at start
	}
	e.lastGossipAt = now
	return e, nil
}

// New returns the engine of a device that has no checkpoint in this group.
// clock must be monotonic.
func New(device DeviceID, group string, cfg Config, clock Clock) (*Engine, error) {
	e, err := newEngine(device, group, cfg, clock)
	if err != nil {
		return nil, err
	}
	e.acked = e.Checkpoint()
	return e, nil
}

// Restore returns the engine of a restarted device from its last persisted
// checkpoint. It fails with ErrGroupMismatch when cp belongs to another
// group. No liveness deadline is restored: a restored claim owned by another
// device gives that owner a full OwnerTimeoutMS from now, and the next
// heartbeat id and command sequence are above the checkpoint's reservations.
func Restore(cp Checkpoint, group string, cfg Config, clock Clock) (*Engine, error) {
	if cp.Group != group {
		return nil, ErrGroupMismatch
	}
	if !validClaim(cp.Claim) {
		return nil, ErrClaim
	}
	e, err := newEngine(cp.Device, group, cfg, clock)
	if err != nil {
		return nil, err
	}
	e.claim = cp.Claim
	e.hbLast, e.hbReserved = cp.HeartbeatReserved, cp.HeartbeatReserved
	e.cmdLast, e.cmdReserved = cp.CommandReserved, cp.CommandReserved
	e.ownerBase = e.start
	e.acked = e.Checkpoint()
	return e, nil
}

// Clone returns an independent copy of e sharing only its clock. The actor
// clones before a transition and keeps the clone when persistence fails.
func (e *Engine) Clone() *Engine {
	c := *e
	c.peerHB = maps.Clone(e.peerHB)
	c.peerOrder = slices.Clone(e.peerOrder)
	c.senders = maps.Clone(e.senders)
	return &c
}

// ID returns this device's id.
func (e *Engine) ID() DeviceID { return e.self }

// Config returns the configuration the engine runs with.
func (e *Engine) Config() Config { return e.cfg }

// SetConfig replaces the policy at runtime (the user edited settings). A
// startup intent still pending is dropped when ClaimOnStartup turns false.
func (e *Engine) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	e.cfg = cfg
	if !cfg.ClaimOnStartup {
		e.startupPending = false
	}
	return nil
}

// Claim returns the winning claim; zero when none is known.
func (e *Engine) Claim() Claim { return e.claim }

// Owner returns the owner of the winning claim; empty when none is known.
func (e *Engine) Owner() DeviceID { return e.claim.Owner }

// MayRender reports whether this device may play audio: only while it owns
// the winning claim (rule 3).
func (e *Engine) MayRender() bool { return e.claim.Owner == e.self }

// StartupPending reports whether a startup intent is recorded but not
// decided yet (discovery grace, or a known owner that has not reported).
func (e *Engine) StartupPending() bool { return e.startupPending }

// Checkpoint returns the durable state to persist.
func (e *Engine) Checkpoint() Checkpoint {
	return Checkpoint{
		Group:             e.group,
		Device:            e.self,
		Claim:             e.claim,
		HeartbeatReserved: e.hbReserved,
		CommandReserved:   e.cmdReserved,
	}
}

// Announcement returns what to gossip: our winning claim, our latest output
// report id and output. Publish it only after the checkpoint reported by
// Ready has been persisted.
func (e *Engine) Announcement() Coordination {
	return Coordination{
		Version:   EnvelopeVersion,
		Device:    e.self,
		Claim:     e.claim,
		Heartbeat: e.localID,
		Output:    e.local,
	}
}

// Stats returns counters for diagnostics.
func (e *Engine) Stats() Stats {
	s := e.stats
	s.Senders = len(e.senders)
	s.Peers = len(e.peerHB)
	return s
}

// OwnerView returns what this device knows about the current owner.
func (e *Engine) OwnerView() OwnerView {
	now := e.clock.Now()
	timeout := e.timeout()
	v := OwnerView{Owner: e.claim.Owner, LocalAvailable: e.local.Available}
	switch {
	case e.claim.IsZero():
	case e.claim.Owner == e.self:
		v.Self = true
		v.Reported = e.localReported
		v.Live = e.localReported && now-e.localAt <= timeout
		if e.localReported {
			v.Output = e.local
		}
	default:
		v.Reported = e.ownerReported
		v.Live = now-e.ownerBase <= timeout
		if e.ownerReported {
			v.Output = e.ownerOutput
		}
	}
	return v
}

// OwnerLive reports whether the owner is currently known live: it has
// reported since we learned the winning claim and its last fresh report is
// at most OwnerTimeoutMS old. An owner that has not reported yet is not
// known live (though it is not timed out either, see OwnerView).
func (e *Engine) OwnerLive() bool {
	v := e.OwnerView()
	return v.Reported && v.Live
}

// OwnerOutput returns the owner's last reported output; zero when it has not
// reported since we learned the winning claim.
func (e *Engine) OwnerOutput() Output { return e.OwnerView().Output }

func (e *Engine) timeout() time.Duration {
	return time.Duration(e.cfg.OwnerTimeoutMS) * time.Millisecond
}

// learn applies the max-register (rule 1). It reports whether the claim
// changed.
func (e *Engine) learn(c Claim) bool {
	if c.Compare(e.claim) <= 0 {
		return false
	}
	e.adopt(c)
	return true
}

// adopt makes c, greater than the winning claim, the winning claim.
func (e *Engine) adopt(c Claim) {
	e.claim = c
	e.gossipSeq++
	// A claim learned without a report gives its owner a full timeout from
	// now; "reported since we learned of it" starts over (rules 7, 8).
	e.ownerBase = e.clock.Now()
	e.ownerReported = false
	e.ownerOutput = Output{}
}

// issue makes a local claim naming owner (rule 2).
func (e *Engine) issue(owner DeviceID) (Claim, error) {
	if e.claim.Counter == math.MaxUint64 {
		return Claim{}, ErrExhausted
	}
	c := Claim{Counter: e.claim.Counter + 1, Issuer: e.self, Owner: owner}
	e.learn(c)
	e.stats.ClaimsIssued++
	return c, nil
}

// Heartbeat records a real report of the local output (never a cached one)
// and returns its id, strictly increasing across restarts (rule 5). When we
// own the output it renews our liveness.
func (e *Engine) Heartbeat(o Output) uint64 {
	if e.hbLast == math.MaxUint64 {
		return e.hbLast
	}
	e.hbLast++
	if e.hbLast > e.hbReserved {
		e.hbReserved = reserve(e.hbLast)
	}
	e.local = o
	e.localID = e.hbLast
	e.localAt = e.clock.Now()
	e.localReported = true
	e.gossipSeq++
	return e.hbLast
}

func reserve(last uint64) uint64 {
	if last > math.MaxUint64-ReserveBlock {
		return math.MaxUint64
	}
	return last + ReserveBlock - 1
}

// OutputReport records a report relayed by a gateway from another endpoint.
// A source id not greater than the last one is ignored, renews nothing and
// returns false (rule 6). Accepted reports act as Heartbeat.
func (e *Engine) OutputReport(source uint64, o Output) bool {
	if source <= e.gatewaySource {
		return false
	}
	e.gatewaySource = source
	e.Heartbeat(o)
	return true
}

// Announce feeds a peer's coordination envelope. from is the authenticated
// sender. The claim is learned if greater (rule 1); only a fresh report from
// the owner itself renews its liveness (rule 4). A rejected announcement
// changes nothing.
func (e *Engine) Announce(from DeviceID, c Coordination) error {
	return e.AnnounceAged(from, c, 0)
}

// AnnounceAged is Announce for an envelope that reached this device some
// time after its device made it: relayed by other members, or held by one
// and handed on when this device connected. from is the device whose
// signature it carries (verified by the caller against the key the group
// holds for it); age is how long ago it was made, as far as the relays
// know. A fresh report from the owner renews its liveness as of then, not
// now, so an old report never gives a silent owner more time than it had.
func (e *Engine) AnnounceAged(from DeviceID, c Coordination, age time.Duration) error {
	e.stats.Announcements++
	switch {
	case c.Version != EnvelopeVersion:
		e.stats.AnnounceErrors++
		return ErrVersion
	case !validDevice(from):
		e.stats.AnnounceErrors++
		return ErrDevice
	case c.Device != from:
		e.stats.AnnounceErrors++
		return ErrSenderMismatch
	case from == e.self:
		e.stats.AnnounceErrors++
		return ErrFromSelf
	case !validClaim(c.Claim):
		e.stats.AnnounceErrors++
		return ErrClaim
	}
	adopted := false
	switch r := c.Claim.Compare(e.claim); {
	case r > 0:
		e.adopt(c.Claim)
		adopted = true
	case r < 0:
		e.peerBehind = true // tell it on the next Tick, at most once per tick
	}
	if c.Heartbeat != 0 {
		if last, known := e.peerHB[from]; c.Heartbeat > last {
			e.notePeer(from, c.Heartbeat, known)
			if from == e.claim.Owner {
				// Live as of the report: a claim learned with its owner's
				// own report is not given more than that report.
				at := e.clock.Now() - max(age, 0)
				if !adopted {
					at = max(e.ownerBase, at)
				}
				e.ownerBase = at
				e.ownerReported = true
				e.ownerOutput = c.Output
				e.stats.Renewals++
			}
		}
	}
	e.decideStartup()
	return nil
}

// notePeer records hb as the last heartbeat id seen from the peer from;
// known tells whether from is tracked already.
func (e *Engine) notePeer(from DeviceID, hb uint64, known bool) {
	if !known {
		if len(e.peerHB) >= MaxTrackedPeers {
			// Forget the peer tracked longest ago (FIFO, deterministic,
			// O(1)), but never the owner.
			victim := e.peerOrder[0]
			e.peerOrder = e.peerOrder[1:]
			if victim == e.claim.Owner {
				e.peerOrder = append(e.peerOrder, victim)
				victim = e.peerOrder[0]
				e.peerOrder = e.peerOrder[1:]
			}
			delete(e.peerHB, victim)
		}
		e.peerOrder = append(e.peerOrder, from)
	}
	e.peerHB[from] = hb
}

// Tick advances time-based decisions: the startup decision (rule 8),
// failover (rule 7) and re-announcement (when a peer announced an older
// claim, or nothing was announced for GossipInterval). Call it on a ticker.
func (e *Engine) Tick() {
	e.decideStartup()
	if e.cfg.ShouldClaim(ReasonFailover, e.OwnerView()) {
		_, _ = e.issue(e.self) // ErrExhausted: nothing sensible left to do
	}
	if e.gossipSeq == e.gossipAcked && (e.peerBehind || e.clock.Now()-e.lastGossipAt >= GossipInterval) {
		e.gossipSeq++
	}
	e.peerBehind = false
}

// Resumed tells the engine that this device was not listening for away:
// its process was stopped (SIGSTOP, a laptop's sleep, App Nap, a paused VM)
// or starved, so no report could reach it although its clock ran on.
// Liveness counts only time this device was listening: the owner's window
// and the startup discovery grace move forward by away (never beyond now),
// so waking up never turns a live owner into a silent one, and the reports
// that waited in the inbox renew it as usual. An owner that was already
// silent before the pause keeps only what was left of its window.
//
// The driver calls it when its ticker fires much later than its interval,
// before the Tick of that wake-up. Tick keeps its meaning: a driver that
// ticks past a deadline without calling Resumed still fails over.
func (e *Engine) Resumed(away time.Duration) {
	if away <= 0 {
		return
	}
	now := e.clock.Now()
	shift := func(t time.Duration) time.Duration {
		if away >= now-t {
			return now
		}
		return t + away
	}
	e.ownerBase = shift(e.ownerBase)
	e.start = shift(e.start)
	e.stats.Resumes++
}

// RequestStartup records the one startup intent of this application
// instance (rule 8). Later calls are ignored; with ClaimOnStartup false the
// intent is dropped.
func (e *Engine) RequestStartup() {
	if e.startupUsed {
		return
	}
	e.startupUsed = true
	if !e.cfg.ClaimOnStartup {
		return
	}
	e.startupPending = true
	e.decideStartup()
}

func (e *Engine) decideStartup() {
	if !e.startupPending {
		return
	}
	if e.clock.Now()-e.start < time.Duration(e.cfg.DiscoveryMS)*time.Millisecond {
		return
	}
	v := e.OwnerView()
	if v.Owner != "" && !v.Self && v.Live && !v.Reported {
		return // the known owner has not reported yet: wait for it or its timeout
	}
	e.startupPending = false
	if e.cfg.ShouldClaim(ReasonStartup, v) {
		_, _ = e.issue(e.self)
	}
}

// Transfer issues {Counter+1, self, to} (explicit selection, rule 10) and
// returns a stamp carrying it. When to is another device, send it that
// device a handoff command with this stamp after persisting.
func (e *Engine) Transfer(to DeviceID) (CommandStamp, error) {
	if !validDevice(to) {
		return CommandStamp{}, ErrDevice
	}
	if e.cmdLast == math.MaxUint64 {
		return CommandStamp{}, ErrExhausted
	}
	c, err := e.issue(to)
	if err != nil {
		return CommandStamp{}, err
	}
	e.startupPending = false // an explicit choice supersedes the startup intent
	return CommandStamp{Version: EnvelopeVersion, Claim: c, Sequence: e.nextSeq()}, nil
}

func (e *Engine) nextSeq() uint64 {
	e.cmdLast++
	if e.cmdLast > e.cmdReserved {
		e.cmdReserved = reserve(e.cmdLast)
	}
	return e.cmdLast
}

// Stamp stamps an ordinary control in the current term, whoever owns it;
// the owner validates it with Receive. ErrNoTerm when no claim is known.
func (e *Engine) Stamp() (CommandStamp, error) {
	if e.claim.IsZero() {
		return CommandStamp{}, ErrNoTerm
	}
	if e.cmdLast == math.MaxUint64 {
		return CommandStamp{}, ErrExhausted
	}
	return CommandStamp{Version: EnvelopeVersion, Claim: e.claim, Sequence: e.nextSeq()}, nil
}

// Receive validates a stamped command from the authenticated sender from
// (rules 10, 11). Only Accepted commands may be executed, after Fence.
func (e *Engine) Receive(from DeviceID, s CommandStamp, handoff bool) Verdict {
	v := e.receive(from, s, handoff)
	e.stats.Verdicts[v]++
	return v
}

func (e *Engine) receive(from DeviceID, s CommandStamp, handoff bool) Verdict {
	if s.Version != EnvelopeVersion || s.Claim.IsZero() || !validClaim(s.Claim) || !validDevice(from) {
		return Incompatible
	}
	if handoff && (from != s.Claim.Issuer || s.Claim.Owner != e.self) {
		return Incompatible
	}
	e.learn(s.Claim) // a command may run ahead of its announcement
	if s.Claim != e.claim {
		return Stale
	}
	if e.claim.Owner != e.self {
		return NotOwner
	}
	if e.term != e.claim {
		clear(e.senders)
		e.term = e.claim
	}
	if e.senders == nil {
		e.senders = make(map[DeviceID]uint64)
	}
	last, ok := e.senders[from]
	switch {
	case !ok:
		if len(e.senders) >= MaxSendersPerTerm {
			return SenderLimit
		}
	case s.Sequence == last:
		return Duplicate
	case s.Sequence < last:
		return Stale
	}
	e.senders[from] = s.Sequence
	return Accepted
}

// Fence reports whether a command stamped s may still take effect: s.Claim
// is still the winning claim and this device owns it (rule 12). Call it
// again right before the effect reaches the audio output.
func (e *Engine) Fence(s CommandStamp) bool {
	return s.Version == EnvelopeVersion && s.Claim == e.claim && e.claim.Owner == e.self
}
