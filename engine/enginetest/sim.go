// Package enginetest is a deterministic simulator for the engine package in
// the style of TigerBeetle's VOPR: one seed drives 2-7 devices, each with its
// own fake monotonic clock, over a network that drops, duplicates, delays,
// reorders and partitions messages, with crashes that lose everything but
// the last persisted checkpoint. Invariants are checked after every event
// (safety); then the faults stop, the network heals, and the devices must
// converge (liveness).
//
// A failing seed prints the command that replays it with a trace:
//
//	go test ./engine/enginetest -run 'TestSim$' -seed=N -simtrace -v
//
// The default test runs 300 seeds (30 under -race, 20 with -short); a long
// run is
//
//	go test ./engine/enginetest -run 'TestSim$' -seeds=100000 -timeout 0
//
// with -seedbase=K to start somewhere else than seed 1.
package enginetest

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// Options tunes one simulation run. Zero values take defaults.
type Options struct {
	// Devices is the number of devices; 0 picks 2-7 from the seed.
	Devices int
	// EventsPerDevice is the length of the fault phase in device events per
	// device (default 2000).
	EventsPerDevice int
	// Trace, when set, receives one line per event (for replaying a seed).
	Trace func(string)
	// Topology links the devices; Mesh (the default) links every pair.
	// Every member relays the newest envelope of each device that announces
	// itself as the owner, so devices that are not linked hear the owner
	// through the others.
	Topology Topology
	// Calm runs the fault phase without drops, partitions or large delays
	// (crashes, restarts, freezes, duplicates, transfers and controls
	// remain) and checks that no device fails over while the owner was up
	// and reachable through devices that were up.
	Calm bool
}

// Result summarises a successful run.
type Result struct {
	Devices         int
	Events          int // device events fed to engines (both phases)
	Messages        int // messages delivered
	Crashes         int
	PersistFailures int // checkpoint writes that failed and rolled back
	Freezes         int // devices stopped for a while (their clocks ran on)
	Relayed         int // envelopes forwarded by a member to another
	Failovers       int // claims issued because the owner went silent
	ClaimsIssued    int
	Accepted        int // commands accepted by an owner
	LiveRounds      int // gossip rounds the liveness phase needed
}

// Violation is the error of a failed run: an invariant broke.
type Violation struct {
	Seed  uint64
	Event int
	What  string
}

func (v *Violation) Error() string {
	return fmt.Sprintf("seed %d, event %d: %s", v.Seed, v.Event, v.What)
}

const (
	tickInterval = 250 * time.Millisecond // liveness-phase round length
	// maxGossipRounds bounds how many liveness rounds the devices may
	// disagree after the last claim change (once old messages drained).
	maxGossipRounds = 3
	maxSenders      = engine.MaxSendersPerTerm
)

type clock struct {
	now    *time.Duration
	offset time.Duration
}

func (c *clock) Now() time.Duration { return *c.now + c.offset }

type msgKind uint8

const (
	kindAnnounce msgKind = iota
	kindCommand
)

// msg is a message in flight: an announcement or a command, whose common
// fields share storage so that the queue moves few bytes.
type msg struct {
	at      time.Duration
	order   uint64
	num     uint64 // announcement: heartbeat id; command: sequence
	claim   engine.Claim
	device  engine.DeviceID // announcement's device id
	version uint32
	from    uint16 // sending device (index into sim.devs): the origin or a relay
	to      uint16 // receiving device (index into sim.devs)
	origin  uint16 // announcement: the device it is from (signed by it)
	kind    msgKind
	handoff bool
	out     engine.Output
	link    int32 // next message in the same queue bucket
}

// outgoing is a command waiting in a device's outbox for its checkpoint.
type outgoing struct {
	to      int
	handoff bool
	stamp   engine.CommandStamp
}

type pending struct {
	stamp engine.CommandStamp
	from  engine.DeviceID // empty: a local control
}

type claimKey struct {
	counter uint64
	issuer  engine.DeviceID
}

type acceptKey struct {
	claim engine.Claim
	from  engine.DeviceID
}

type device struct {
	idx     int
	id      engine.DeviceID
	cfg     engine.Config
	passive bool
	gateway bool // reports through OutputReport
	clock   *clock
	eng     *engine.Engine
	prev    *engine.Engine // clone before the current input, if taken
	life    int

	persisted    engine.Checkpoint
	hasPersisted bool

	available  bool // the real output endpoint works
	wantPlay   bool // the user pressed play
	source     uint64
	lastRender bool

	// invariant state
	lastClaim  engine.Claim // within this life
	lastPub    engine.Claim // last claim checked by published
	pubHB      uint64
	pubHBLife  int
	sentSeq    uint64
	transfers  map[engine.Claim]bool
	accepted   map[acceptKey]uint64 // this life
	outbox     []outgoing
	pendingCmd []pending // accepted, effect not applied yet
	prevSource uint64    // gateway source when prev was cloned

	// freezes and relays (relay.go)
	frozen      bool
	frozenAt    time.Duration
	wakeAt      time.Duration
	held        []msg // messages that arrived while frozen, in order
	downs       []span
	relayed     []relayKey // per origin index: newest envelope forwarded
	claimAt     time.Duration
	lastPending bool
}

// sim is one run.
type sim struct {
	seed  uint64
	rng   *prng
	opt   Options
	now   time.Duration
	devs  []*device
	queue msgQueue
	order uint64
	event int
	res   Result
	err   *Violation

	tracing bool

	// faults
	faults    bool
	dropP     float64
	dupP      float64
	maxDelay  time.Duration
	partition []int
	lastHeard []time.Duration // last delivery of an announcement per sender

	issued map[claimKey]engine.DeviceID // published claims: owner per (counter, issuer)

	links [][]bool // links[i][j]: i and j reach each other directly
}

// announcement encodes a from d.
func announcement(d *device, a engine.Coordination) msg {
	return msg{from: uint16(d.idx), origin: uint16(d.idx), kind: kindAnnounce, version: a.Version, device: a.Device, claim: a.Claim, num: a.Heartbeat, out: a.Output}
}

func (m *msg) coordination() engine.Coordination {
	return engine.Coordination{Version: m.version, Device: m.device, Claim: m.claim, Heartbeat: m.num, Output: m.out}
}

// command encodes o from d.
func command(d *device, o outgoing) msg {
	return msg{from: uint16(d.idx), to: uint16(o.to), kind: kindCommand, handoff: o.handoff, version: o.stamp.Version, claim: o.stamp.Claim, num: o.stamp.Sequence}
}

func (m *msg) stamp() engine.CommandStamp {
	return engine.CommandStamp{Version: m.version, Claim: m.claim, Sequence: m.num}
}

// prng draws the simulation's random numbers from a PCG exactly as
// math/rand/v2's Rand does on 64-bit platforms (so a seed replays the same
// run everywhere), without Rand's dynamic dispatch to its Source.
type prng struct{ src *rand.PCG }

// uint64n returns a uniform value in [0, n), n > 0: Lemire's multiply and
// reject, as in math/rand/v2.
func (r *prng) uint64n(n uint64) uint64 {
	if n&(n-1) == 0 {
		return r.src.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(r.src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.src.Uint64(), n)
		}
	}
	return hi
}

// IntN returns a uniform int in [0, n); it panics if n <= 0.
func (r *prng) IntN(n int) int {
	if n <= 0 {
		panic("enginetest: invalid argument to IntN")
	}
	return int(r.uint64n(uint64(n)))
}

// Int64N returns a uniform int64 in [0, n); it panics if n <= 0.
func (r *prng) Int64N(n int64) int64 {
	if n <= 0 {
		panic("enginetest: invalid argument to Int64N")
	}
	return int64(r.uint64n(uint64(n)))
}

// Float64 returns a uniform float64 in [0, 1).
func (r *prng) Float64() float64 {
	return float64(r.src.Uint64()<<11>>11) / (1 << 53)
}

// Run simulates one seed and returns the first invariant violation as a
// *Violation error.
func Run(seed uint64, opt Options) (Result, error) {
	s := &sim{
		seed:   seed,
		rng:    &prng{src: rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)},
		opt:    opt,
		issued: make(map[claimKey]engine.DeviceID, 256),
	}
	s.tracing = opt.Trace != nil
	if s.opt.EventsPerDevice == 0 {
		s.opt.EventsPerDevice = 2000
	}
	n := opt.Devices
	if n == 0 {
		n = 2 + s.rng.IntN(6)
	}
	s.res.Devices = n
	s.setup(n)
	if s.opt.Calm {
		s.calmPhase()
	} else {
		s.faultPhase()
	}
	if s.err == nil {
		s.livenessPhase()
	}
	if s.err != nil {
		return s.res, s.err
	}
	return s.res, nil
}

func (s *sim) tracef(format string, args ...any) {
	if s.opt.Trace != nil {
		s.opt.Trace(fmt.Sprintf("%8d %9s ", s.event, s.now) + fmt.Sprintf(format, args...))
	}
}

func (s *sim) fail(format string, args ...any) {
	if s.err == nil {
		s.err = &Violation{Seed: s.seed, Event: s.event, What: fmt.Sprintf(format, args...)}
	}
}

func (s *sim) setup(n int) {
	s.partition = make([]int, n)
	s.lastHeard = make([]time.Duration, n)
	s.faults = true
	s.dropP = s.rng.Float64() * 0.3
	s.dupP = s.rng.Float64() * 0.2
	s.maxDelay = time.Duration(1+s.rng.IntN(2000)) * time.Millisecond
	if s.opt.Calm {
		s.dropP = 0
		s.maxDelay = time.Duration(1+s.rng.IntN(calmMaxDelayMS)) * time.Millisecond
	}
	s.links = s.opt.Topology.links(n, s.rng)
	for i := range n {
		cfg := engine.DefaultConfig()
		cfg.DiscoveryMS = uint64(s.rng.IntN(3001))
		cfg.OwnerTimeoutMS = uint64(1000 + s.rng.IntN(9001))
		cfg.TakePausedOnStartup = s.rng.IntN(4) != 0
		passive := s.rng.IntN(4) == 0
		if passive {
			cfg.ClaimOnStartup = false
			cfg.AutomaticFailover = false
		} else {
			cfg.ClaimOnStartup = s.rng.IntN(8) != 0
			cfg.AutomaticFailover = s.rng.IntN(8) != 0
		}
		d := &device{
			idx:       i,
			id:        engine.DeviceID(fmt.Sprintf("d%d", i)),
			cfg:       cfg,
			passive:   passive,
			gateway:   s.rng.IntN(5) == 0,
			available: s.rng.IntN(5) != 0,
			wantPlay:  s.rng.IntN(2) == 0,
			transfers: make(map[engine.Claim]bool),
			relayed:   make([]relayKey, n),
		}
		s.devs = append(s.devs, d)
		s.start(d)
	}
}

// start launches a new application instance of d from its persisted state.
func (s *sim) start(d *device) {
	d.life++
	d.clock = &clock{now: &s.now, offset: time.Duration(s.rng.Int64N(int64(time.Hour)))}
	var err error
	if d.hasPersisted {
		d.eng, err = engine.Restore(d.persisted, "group", d.cfg, d.clock)
	} else {
		d.eng, err = engine.New(d.id, "group", d.cfg, d.clock)
	}
	if err != nil {
		s.fail("%s: start: %v", d.id, err)
		return
	}
	if d.eng.Claim().Compare(d.persisted.Claim) != 0 {
		s.fail("%s: restored claim %v, persisted %v", d.id, d.eng.Claim(), d.persisted.Claim)
	}
	d.lastClaim = d.eng.Claim()
	d.claimAt = s.now
	d.up(s.now)
	clear(d.relayed)
	d.accepted = make(map[acceptKey]uint64)
	d.outbox = d.outbox[:0]
	d.pendingCmd = d.pendingCmd[:0]
	d.lastRender = false
	d.source = 0 // a new gateway session numbers its reports afresh
	if s.tracing {
		s.tracef("%s start life=%d claim=%v", d.id, d.life, d.eng.Claim())
	}
	d.lastPending = d.cfg.ClaimOnStartup // a claim now is the startup decision
	d.eng.RequestStartup()
	s.res.Events++
	s.drive(d)
}

func (s *sim) crash(d *device) {
	if s.tracing {
		s.tracef("%s crash", d.id)
	}
	d.eng, d.prev = nil, nil
	d.outbox = d.outbox[:0]
	d.pendingCmd = d.pendingCmd[:0]
	if d.frozen {
		d.up(s.now) // the freeze ends; the crash begins
	}
	d.frozen, d.held = false, d.held[:0]
	d.down(s.now, false)
	s.res.Crashes++
}

func (d *device) output() engine.Output {
	return engine.Output{Available: d.available, Playing: d.available && d.wantPlay && d.lastRender}
}

// drive follows the driver contract of engine/doc.go for one transition.
func (s *sim) drive(d *device) {
	e := d.eng
	if e == nil || s.err != nil {
		return
	}
	s.checkDevice(d)
	if s.faults && s.rng.IntN(400) == 0 {
		s.crash(d) // before persisting: the transition is lost
		return
	}
	if !e.HasReady() && len(d.outbox) == 0 && len(d.pendingCmd) == 0 {
		d.prev = nil
		return
	}
	rd := e.Ready()
	// 1. persist; when it fails, restore the engine cloned before the input
	// and execute or send nothing.
	if rd.PersistCheckpoint {
		if d.prev != nil && s.rng.IntN(4) == 0 {
			if s.tracing {
				s.tracef("%s persistence failed: back to %v", d.id, d.prev.Claim())
			}
			d.eng, d.prev = d.prev, nil
			d.lastClaim = d.eng.Claim()
			d.source = d.prevSource
			d.outbox = d.outbox[:0]
			d.pendingCmd = d.pendingCmd[:0]
			s.res.PersistFailures++
			return
		}
		s.persist(d, rd.Checkpoint)
	}
	d.prev = nil
	// 2. publish
	if rd.Gossip {
		s.publishAnnouncement(d, rd.Announcement)
	}
	for _, m := range d.outbox {
		s.publishCommand(d, m)
	}
	d.outbox = d.outbox[:0]
	// 3. apply
	d.lastRender = rd.MayRender
	for _, p := range d.pendingCmd {
		if e.Fence(p.stamp) && !e.MayRender() {
			s.fail("%s: Fence true while not rendering", d.id)
		}
		if p.from == "" {
			continue // our own control
		}
		k := acceptKey{p.stamp.Claim, p.from}
		if last, ok := d.accepted[k]; ok && p.stamp.Sequence <= last {
			s.fail("%s: accepted sequence %d from %s after %d in term %v", d.id, p.stamp.Sequence, p.from, last, p.stamp.Claim)
		}
		d.accepted[k] = p.stamp.Sequence
		s.res.Accepted++
	}
	d.pendingCmd = d.pendingCmd[:0]
	// 4. advance
	e.Advance()
	if e.HasReady() && rd.Empty() {
		s.fail("%s: Ready empty but HasReady still true", d.id)
	}
}

func (s *sim) persist(d *device, cp engine.Checkpoint) {
	if cp.Claim.Compare(d.persisted.Claim) < 0 {
		s.fail("%s: persisted claim went backwards: %v -> %v", d.id, d.persisted.Claim, cp.Claim)
	}
	if cp.HeartbeatReserved < d.persisted.HeartbeatReserved || cp.CommandReserved < d.persisted.CommandReserved {
		s.fail("%s: reservation went backwards: %+v -> %+v", d.id, d.persisted, cp)
	}
	if cp.Device != d.id || cp.Group != "group" {
		s.fail("%s: checkpoint names %q/%q", d.id, cp.Device, cp.Group)
	}
	d.persisted, d.hasPersisted = cp, true
}

// published records a claim that left the device, checking that it was
// persisted first and that claims are immutable.
func (s *sim) published(d *device, c engine.Claim) {
	if c.Counter == d.lastPub.Counter && c.Issuer == d.lastPub.Issuer && c.Owner == d.lastPub.Owner || c.IsZero() {
		return
	}
	d.lastPub = c
	if c.Compare(d.persisted.Claim) > 0 {
		s.fail("%s: published claim %v before persisting it (persisted %v)", d.id, c, d.persisted.Claim)
	}
	k := claimKey{c.Counter, c.Issuer}
	if o, ok := s.issued[k]; !ok {
		s.issued[k] = c.Owner
	} else if o != c.Owner {
		s.fail("claim {%d %s} published with owners %s and %s", c.Counter, c.Issuer, o, c.Owner)
		s.issued[k] = c.Owner
	}
}

func (s *sim) publishAnnouncement(d *device, a engine.Coordination) {
	s.published(d, a.Claim)
	if a.Heartbeat > d.persisted.HeartbeatReserved {
		s.fail("%s: published heartbeat %d above persisted reservation %d", d.id, a.Heartbeat, d.persisted.HeartbeatReserved)
	}
	if a.Heartbeat != 0 {
		if a.Heartbeat < d.pubHB || (a.Heartbeat == d.pubHB && d.pubHBLife != d.life) {
			s.fail("%s: heartbeat id %d repeated or went back (last published %d in life %d, now life %d)", d.id, a.Heartbeat, d.pubHB, d.pubHBLife, d.life)
		}
		d.pubHB, d.pubHBLife = a.Heartbeat, d.life
	}
	m := announcement(d, a)
	for _, p := range s.devs {
		if p != d && s.linked(d.idx, p.idx) {
			m.to = uint16(p.idx)
			s.send(&m)
		}
	}
}

func (s *sim) publishCommand(d *device, o outgoing) {
	s.published(d, o.stamp.Claim)
	if o.stamp.Sequence > d.persisted.CommandReserved {
		s.fail("%s: sent sequence %d above persisted reservation %d", d.id, o.stamp.Sequence, d.persisted.CommandReserved)
	}
	if o.stamp.Sequence <= d.sentSeq {
		s.fail("%s: command sequence %d repeated (last sent %d)", d.id, o.stamp.Sequence, d.sentSeq)
	}
	d.sentSeq = o.stamp.Sequence
	m := command(d, o)
	s.send(&m)
}

// send queues a copy of m (maybe two, maybe none) with its delivery time
// and send order set.
func (s *sim) send(m *msg) {
	delay := time.Millisecond
	if s.faults {
		if s.rng.Float64() < s.dropP {
			return
		}
		delay = time.Duration(1 + s.rng.Int64N(int64(s.maxDelay)))
		if s.rng.Float64() < s.dupP {
			s.order++
			s.queue.push(m, s.now+time.Duration(1+s.rng.Int64N(int64(s.maxDelay))), s.order)
		}
	}
	s.order++
	s.queue.push(m, s.now+delay, s.order)
}

// deliver hands every message due by now to its (live, reachable) receiver.
func (s *sim) deliver() {
	for s.err == nil {
		// m stays valid until the next push, which only drive does.
		m := s.queue.popDue(s.now)
		if m == nil {
			return
		}
		to := s.devs[m.to]
		if to.eng == nil || s.partition[m.from] != s.partition[m.to] {
			continue
		}
		if to.frozen {
			to.held = append(to.held, *m) // read when it runs again
			continue
		}
		mm := *m // m is valid only until the next push
		s.handle(to, &mm)
	}
}

// handle feeds one delivered message to its receiver, relays it when it
// is an owner's envelope, and drives the receiver.
func (s *sim) handle(to *device, m *msg) {
	s.res.Messages++
	s.res.Events++
	from := s.devs[m.from].id
	switch m.kind {
	case kindAnnounce:
		// The envelope is signed by its origin: whoever relayed it, it is
		// the origin's own report.
		origin := s.devs[m.origin].id
		s.lastHeard[m.origin] = s.now
		c := m.coordination()
		err := to.eng.Announce(origin, c)
		if err != nil {
			s.fail("%s: Announce from %s: %v", to.id, origin, err)
		}
		if s.tracing {
			s.tracef("%s <- announce %s via %s claim=%v hb=%d out=%+v -> claim=%v", to.id, origin, from, c.Claim, c.Heartbeat, c.Output, to.eng.Claim())
		}
		s.relay(to, m)
	case kindCommand:
		st := m.stamp()
		v := to.eng.Receive(from, st, m.handoff)
		if s.tracing {
			s.tracef("%s <- command %s %v handoff=%v: %v", to.id, from, st, m.handoff, v)
		}
		s.checkVerdict(to, from, st, m.handoff, v)
	}
	s.drive(to)
}

func (s *sim) live() []*device {
	var out []*device
	for _, d := range s.devs {
		if d.eng != nil {
			out = append(out, d)
		}
	}
	return out
}

func (s *sim) randDevice() *device { return s.devs[s.rng.IntN(len(s.devs))] }

func (s *sim) heartbeat(d *device) {
	o := d.output()
	if d.gateway {
		replay := s.rng.IntN(8) == 0 && d.source > 0
		if replay {
			src := d.source - uint64(s.rng.IntN(int(min(d.source, 100)))) // a replayed report
			if d.eng.OutputReport(src, o) {
				s.fail("%s: OutputReport accepted old source %d", d.id, src)
			}
		}
		// In calm runs the endpoint reports every round, replays aside.
		if !replay || s.opt.Calm {
			d.source++
			if !d.eng.OutputReport(d.source, o) {
				s.fail("%s: OutputReport refused new source %d", d.id, d.source)
			}
		}
	} else {
		d.eng.Heartbeat(o)
	}
	if s.tracing {
		s.tracef("%s heartbeat %+v", d.id, o)
	}
}

// faultPhase is the safety phase: random inputs and faults.
func (s *sim) faultPhase() {
	total := s.opt.EventsPerDevice * len(s.devs)
	for s.event = 0; s.event < total && s.err == nil; s.event++ {
		d := s.randDevice()
		switch r := s.rng.IntN(100); {
		case r < 20: // time passes; messages arrive
			s.now += time.Duration(s.rng.IntN(200)) * time.Millisecond
			s.wakeDue()
			s.deliver()
			continue
		case r < 25: // partitions change
			if s.rng.IntN(3) == 0 {
				clear(s.partition)
				if s.tracing {
					s.tracef("heal partitions")
				}
			} else {
				for i := range s.partition {
					s.partition[i] = s.rng.IntN(3)
				}
				if s.tracing {
					s.tracef("partition %v", s.partition)
				}
			}
			continue
		case r < 21: // crash or restart
			if d.eng != nil {
				s.crash(d)
			} else {
				s.start(d)
			}
			continue
		}
		if d.eng == nil {
			if s.rng.IntN(4) == 0 {
				s.start(d)
			}
			continue
		}
		if d.frozen {
			continue // a stopped process handles nothing
		}
		if s.rng.IntN(200) == 0 {
			s.freeze(d, time.Duration(1+s.rng.IntN(10_000))*time.Millisecond)
			continue
		}
		s.res.Events++
		d.prev = nil
		if s.rng.IntN(32) == 0 {
			d.prev = d.eng.Clone() // this transition's write may fail
			d.prevSource = d.source
		}
		switch r := s.rng.IntN(100); {
		case r < 35:
			d.eng.Tick()
			if s.tracing {
				s.tracef("%s tick", d.id)
			}
		case r < 70:
			s.heartbeat(d)
		case r < 76: // the user selects an output
			s.transfer(d)
		case r < 90: // an ordinary control
			s.control(d, true)
		case r < 95: // output availability changes
			d.available = !d.available
			s.heartbeat(d)
		default: // the user presses play/pause
			d.wantPlay = !d.wantPlay
			s.heartbeat(d)
		}
		s.drive(d)
	}
}

// calmMaxDelayMS bounds a message's delay in calm runs.
const calmMaxDelayMS = 100

// calmPhase is the fault phase of calm runs: the network delivers
// everything (late by at most calmMaxDelayMS, sometimes twice), every
// running device reports and ticks every round as the app does, and
// between rounds the users transfer and control while devices crash,
// restart and freeze. checkFailover holds at every failover.
func (s *sim) calmPhase() {
	rounds := max(s.opt.EventsPerDevice/4, 1)
	const steps = 5
	for round := 0; round < rounds && s.err == nil; round++ {
		s.event = round
		for k := s.rng.IntN(3); k > 0 && s.err == nil; k-- {
			s.calmEvent(s.randDevice())
		}
		for range steps {
			s.now += tickInterval / steps
			s.wakeDue()
			s.deliver()
		}
		for _, d := range s.devs {
			if d.eng == nil || d.frozen || s.err != nil {
				continue
			}
			s.res.Events += 2
			d.prev = nil
			s.heartbeat(d)
			d.eng.Tick()
			s.drive(d)
		}
	}
}

func (s *sim) calmEvent(d *device) {
	if d.eng == nil {
		if s.rng.IntN(3) == 0 {
			s.start(d)
		}
		return
	}
	if d.frozen {
		return
	}
	d.prev = nil
	switch r := s.rng.IntN(100); {
	case r < 30: // the user selects an output
		s.transfer(d)
	case r < 60: // an ordinary control
		s.control(d, false)
	case r < 75: // the process is stopped for a while
		timeout := time.Duration(d.cfg.OwnerTimeoutMS) * time.Millisecond
		s.freeze(d, time.Duration(200+s.rng.Int64N(int64(3*timeout/time.Millisecond)))*time.Millisecond)
		return
	case r < 80:
		s.crash(d)
		return
	case r < 90: // output availability changes
		d.available = !d.available
		s.heartbeat(d)
	default: // the user presses play/pause
		d.wantPlay = !d.wantPlay
		s.heartbeat(d)
	}
	s.res.Events++
	s.drive(d)
}

// transfer is d's user selecting an output at random.
func (s *sim) transfer(d *device) {
	to := s.randDevice()
	st, err := d.eng.Transfer(to.id)
	if err != nil {
		s.fail("%s: Transfer: %v", d.id, err)
		return
	}
	d.transfers[st.Claim] = true
	if s.tracing {
		s.tracef("%s transfer to %s: %v", d.id, to.id, st)
	}
	if to != d {
		d.outbox = append(d.outbox, outgoing{to: to.idx, handoff: true, stamp: st})
	}
}

// control is an ordinary control of d's user: applied here when d owns the
// output, sent to the owner otherwise (now and then to another device when
// misaddress is set).
func (s *sim) control(d *device, misaddress bool) {
	st, err := d.eng.Stamp()
	if err != nil {
		return // no claim yet
	}
	owner := st.Claim.Owner
	if owner == d.id {
		d.pendingCmd = append(d.pendingCmd, pending{stamp: st})
		return
	}
	to := s.index(owner)
	if misaddress && s.rng.IntN(10) == 0 {
		to = s.rng.IntN(len(s.devs)) // misaddressed
	}
	if to != d.idx {
		d.outbox = append(d.outbox, outgoing{to: to, stamp: st})
	}
}

func (s *sim) index(id engine.DeviceID) int {
	for i, d := range s.devs {
		if d.id == id {
			return i
		}
	}
	return 0
}

// livenessPhase heals the network, restarts some crashed devices and then
// requires convergence within a bound.
func (s *sim) livenessPhase() {
	s.faults = false
	clear(s.partition)
	if s.tracing {
		s.tracef("liveness phase")
	}
	// Messages in flight keep their delays; they are delivered as time
	// passes. Frozen devices run again. Without a full mesh a dead device
	// may be the only way between others, so every device comes back.
	for _, d := range s.devs {
		if d.frozen {
			s.wake(d)
		}
		if d.eng == nil && (s.links != nil || s.rng.IntN(2) == 0) {
			s.start(d)
		}
	}
	if len(s.live()) == 0 {
		s.start(s.devs[0])
	}
	var maxDisc, maxTimeout time.Duration
	for _, d := range s.devs {
		maxDisc = max(maxDisc, time.Duration(d.cfg.DiscoveryMS)*time.Millisecond)
		maxTimeout = max(maxTimeout, time.Duration(d.cfg.OwnerTimeoutMS)*time.Millisecond)
	}
	heal := s.now
	gossip := 8 * tickInterval // bounded gossip rounds after any change
	inflight := s.maxDelay
	if s.links != nil {
		// A claim crosses the group one hop per round at worst.
		inflight = time.Duration(len(s.devs)-1) * (s.maxDelay + tickInterval)
	}
	// Every decision in the liveness phase is bounded by: old messages
	// drained, discovery grace, one owner timeout, failover tick, gossip.
	deadline := heal + inflight + maxDisc + 2*maxTimeout + 2*tickInterval + 2*gossip
	agreedAt := time.Duration(-1)
	var agreedClaim engine.Claim
	stable := 0
	prev := make([]engine.Claim, len(s.devs))
	lastChange := s.now
	for round := 1; s.err == nil; round++ {
		s.now += tickInterval
		for _, d := range s.live() {
			s.res.Events += 2
			s.heartbeat(d)
			d.eng.Tick()
			s.drive(d)
		}
		s.deliver()
		s.event++
		if s.err != nil {
			return
		}
		for i, d := range s.devs {
			if d.eng != nil && d.eng.Claim() != prev[i] {
				prev[i] = d.eng.Claim()
				lastChange = s.now
			}
		}
		c, agree := s.agreement()
		if !agree && s.now-lastChange > inflight+maxGossipRounds*tickInterval {
			s.fail("live devices disagree %d gossip rounds after the last claim change\n%s", maxGossipRounds, s.describe())
			return
		}
		if !agree {
			agreedAt = -1
			stable = 0
		} else if agreedAt < 0 || c != agreedClaim {
			agreedAt, agreedClaim = s.now, c
			stable = 0
		}
		ok, why := s.converged(c, agree, agreedAt)
		if ok {
			stable++
			if stable >= 4 {
				s.res.LiveRounds = round
				return
			}
		} else {
			stable = 0
		}
		if s.now > deadline {
			s.fail("no convergence %s after heal: %s\n%s", s.now-heal, why, s.describe())
			return
		}
	}
}
