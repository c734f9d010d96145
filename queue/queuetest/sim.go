// Package queuetest is a deterministic simulator of the shared queue and
// its position rules (package queue) on several devices, each with its
// own engine (package engine), a simulated audio output and a network
// that delays, holds for frozen devices and loses what is sent to a dead
// one, and half the time what a device killed had sent and the network
// not delivered yet. One seed drives everything. A fault phase of
// controls, transfers, kills, restarts and freezes is followed by a calm
// one; the invariants are checked throughout (I1 to I3) and when it has
// settled (I4):
//
//	I1 a transfer starts within queue.HandoffSlack of where the source's
//	   output stopped;
//	I2 a controller's shown position never steps back on one track by
//	   more than queue.MaxLead without a jump (no rewind beyond what a
//	   control asked);
//	I3 no control is lost: each one a device sent is acknowledged by an
//	   owner's snapshot, shown by the device that took over, or dropped
//	   with a notice (unless its sender crashed before); an owner's
//	   snapshot acknowledges only controls it applied, and no owner
//	   applies one control twice in a term, also across its restarts
//	   (queue rule C7);
//	I4 after the topology settles every device shows the owner's queue
//	   and index, and exactly one device renders;
//	I5 an output that starts other than by a control skips no music;
//	I6 no control is dropped for want of an acknowledgement: no owner
//	   here freezes longer than queue.PendingHold, so one it did not
//	   apply by then was lost to a process that will not receive it,
//	   and should have been sent again (queue rules C5, C6).
//
// The devices model the app's actor as far as these rules need: every
// transition persists, then publishes, then reaches the output, so a
// snapshot published by a control goes out before its effect.
package queuetest

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/queue"
)

// Options shape a run.
type Options struct {
	Devices int           // 0: 2 to 4 from the seed
	Events  int           // fault-phase events; 0: 60
	Trace   func(string)  // nil: no trace
	Rules   RuleSet       // rules left out, to check that a seed fails without each
	Step    time.Duration // 0: 50 ms
	// AllowDrops lets controls be dropped for want of an ack (I6 off).
	AllowDrops bool
	// OldControllers models controllers of a build before rule C7: their
	// controls have no ID, so only C5's addresses keep a control from
	// being applied twice, and (the world those rules were proven in) a
	// kill loses nothing already sent.
	OldControllers bool
}

// RuleSet names rules a run leaves out (all false: every rule holds).
type RuleSet struct {
	NoOutputBehind bool // P1: the output's report counts at once after a control
	NoHeardAt      bool // P5: a takeover extrapolates across the owner's silence
	NoResuming     bool // P3: a resuming owner's snapshot confirms its position
	NoRetarget     bool // C3: pending controls are not sent to a new owner
	NoHeldView     bool // C2: a snapshot that does not show our controls confirms our view
	NoOwnerClaim   bool // S1: a snapshot published before its sender owned the output is adopted
	NoLoad         bool // P7: a state loaded at launch is extrapolated at once
	NoRestarted    bool // C5: controllers do not note the owner's launch (nor address controls to it)
	NoAddress      bool // C5: an owner applies a control addressed to another of its launches
	NoSeekID       bool // S2: a seek does not name its track
	NoAckFrom      bool // C6: acks are a high-water mark alone
	NoMarks        bool // C7: an owner applies a control its state contains already
}

// Result counts what a run did.
type Result struct {
	Steps, Controls, Transfers, Kills, Freezes, Acked, Dropped int
}

const (
	heartbeat = 500 * time.Millisecond
	tick      = 250 * time.Millisecond
	settle    = 20 * time.Second
	trackMS   = 40_000
)

type clock struct{ now time.Duration }

func (c *clock) Now() time.Duration { return c.now }

type msgKind int

const (
	snapshot msgKind = iota
	command
)

type msg struct {
	kind    msgKind
	from    engine.DeviceID
	to      engine.DeviceID
	at      time.Duration // delivery time
	sent    time.Duration
	coord   engine.Coordination
	state   queue.State
	stamp   engine.CommandStamp
	handoff bool
	c       queue.Control
	id      int    // control id (I3)
	seq     uint64 // send order
}

// output is a simulated audio endpoint.
type output struct {
	on      bool
	idx     int
	cid     string
	at      int64 // position at since
	since   time.Duration
	playing bool
}

func (o output) pos(now time.Duration) int64 {
	if !o.on {
		return 0
	}
	p := o.at
	if o.playing {
		p += (now - o.since).Milliseconds()
	}
	return min(p, trackMS)
}

type device struct {
	id     engine.DeviceID
	e      *engine.Engine
	st     queue.State
	pos    queue.Position
	pend   queue.Pending
	pendID []int // the control id of each of pend's controls, in order
	out    output

	up, frozen bool
	thaw       time.Duration
	rendering  bool
	launch     uint64 // its first heartbeat id since boot (State.Launch)
	outBehind  bool
	holdUntil  time.Duration
	lastHB     time.Duration
	lastTick   time.Duration

	heardFrom   engine.DeviceID
	heardHB     uint64
	aliveAt     time.Duration
	closingFrom engine.DeviceID

	// durable
	cp    engine.Checkpoint
	saved queue.State

	// I2, from the first owner state adopted after a boot: until then
	// a device shows what it saved, however old.
	view    viewKey
	seen    int64
	adopted bool
}

type viewKey struct {
	ok     bool
	term   engine.Claim
	idx    int
	cid    string
	jumps  uint64
	played bool
}

type sim struct {
	seed   uint64
	opt    Options
	r      *rand.Rand
	clk    *clock
	devs   []*device
	net    []msg
	due    []msg
	nextAt time.Duration // the earliest delivery time in net
	seq    uint64        // messages sent
	res    Result
	trace  []string
	calm   bool

	// I3: controls by id: their sender, and what became of them.
	ctl     map[int]*ctlRec
	nextCtl int
	// held: each device's last snapshot, as the members keep it (the
	// echo a restarted owner learns its state from).
	held map[engine.DeviceID]msg
	link map[[2]engine.DeviceID]time.Duration // last delivery time per link
	// furthest is how far any output got or any control asked on an
	// entry (I5).
	furthest map[entryKey]int64
	err      error
}

type entryKey struct {
	idx int
	cid string
}

type ctlRec struct {
	from engine.DeviceID
	op   string
	// applied: the copies (stamps) an owner applied; by: how many
	// copies each owner applied in a term (I3: never twice).
	applied map[engine.CommandStamp]bool
	by      map[engine.Claim]int
	done    string // "": open; "acked", "taken over", "dropped", "sender died"
	stamp   []engine.CommandStamp
	c       queue.Control // as last sent (its address)
}

// Run simulates seed.
func Run(seed uint64, opt Options) (Result, error) {
	if opt.Step == 0 {
		opt.Step = 50 * time.Millisecond
	}
	if opt.Events == 0 {
		opt.Events = 60
	}
	s := &sim{seed: seed, opt: opt, r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), clk: &clock{},
		ctl: map[int]*ctlRec{}, held: map[engine.DeviceID]msg{},
		link: map[[2]engine.DeviceID]time.Duration{}, furthest: map[entryKey]int64{}}
	n := opt.Devices
	if n == 0 {
		n = 2 + s.r.IntN(3)
	}
	for i := range n {
		d := &device{id: engine.DeviceID(fmt.Sprintf("d%d", i))}
		s.devs = append(s.devs, d)
		s.boot(d, true)
	}
	// Fault phase: events at random times, the world running between.
	for range opt.Events {
		s.runFor(time.Duration(200+s.r.IntN(3000)) * time.Millisecond)
		if s.err != nil {
			break
		}
		s.event()
	}
	// Heal: everyone up and thawed, then calm.
	s.calm = true
	for _, d := range s.devs {
		if !d.up {
			s.boot(d, false)
		}
		d.frozen = false
	}
	s.runFor(settle)
	// Converged: at some step of the last second (a track that ends
	// just then is in flight to the others for a moment).
	for i := 0; s.err == nil; i++ {
		err := s.settled()
		if err == nil {
			break
		}
		if i == 20 {
			s.err = err
			break
		}
		s.runFor(s.opt.Step)
	}
	if s.err != nil && opt.Trace != nil {
		for _, l := range s.trace[max(0, len(s.trace)-3000):] {
			opt.Trace(l)
		}
	}
	return s.res, s.err
}

func (s *sim) logf(format string, args ...any) {
	if s.opt.Trace == nil {
		return
	}
	s.trace = append(s.trace, fmt.Sprintf("%8.2fs ", s.clk.now.Seconds())+fmt.Sprintf(format, args...))
}

func (s *sim) fail(format string, args ...any) {
	if s.err == nil {
		s.err = s.errf(format, args...)
	}
}

func (s *sim) errf(format string, args ...any) error {
	return fmt.Errorf("queuetest seed %d at %.2fs: %s", s.seed, s.clk.now.Seconds(), fmt.Sprintf(format, args...))
}

func cfg() engine.Config {
	c := engine.DefaultConfig()
	c.DiscoveryMS, c.OwnerTimeoutMS = 1000, 3000
	return c
}

func queueOf(n int) []queue.Entry {
	q := make([]queue.Entry, n)
	for i := range q {
		q[i] = queue.Entry{ContentID: fmt.Sprintf("b3:%02d", i), DurationMS: trackMS}
	}
	return q
}

// boot starts d, the first time or after a kill: its engine from its
// checkpoint, its state from what it saved.
func (s *sim) boot(d *device, first bool) {
	var err error
	if first {
		d.e, err = engine.New(d.id, "g", cfg(), s.clk)
		d.st = queue.DefaultState()
	} else {
		d.e, err = engine.Restore(d.cp, "g", cfg(), s.clk)
		d.st = d.saved.Clone()
		d.st.ResetAcks() // acks are the process's, as the app's storage keeps none
	}
	if err != nil {
		s.fail("boot %s: %v", d.id, err)
		return
	}
	d.up, d.frozen, d.rendering, d.outBehind, d.out = true, false, false, false, output{}
	d.pos.Load(s.clk.now)
	if s.opt.Rules.NoLoad {
		d.pos.Reset(s.clk.now)
	}
	d.pend, d.pendID = queue.Pending{}, nil
	d.heardFrom, d.heardHB, d.aliveAt, d.closingFrom, d.view, d.adopted = "", 0, 0, "", viewKey{}, false
	d.launch = 0
	d.holdUntil = 0
	if d.e.Owner() == d.id {
		d.holdUntil = s.clk.now + time.Duration(cfg().DiscoveryMS)*time.Millisecond
	}
	d.lastTick, d.lastHB = s.clk.now, 0
	s.transition(d, func(*txn) { d.e.RequestStartup() })
	// A member hands back what it holds of d: its last snapshot.
	if h, ok := s.held[d.id]; ok && !first {
		h.to = d.id
		s.send(h)
	}
	s.logf("%s boots (claim %v)", d.id, d.e.Claim())
}

// send queues m from its sender to m.to after a random delay, in order
// per link (a TCP stream).
func (s *sim) send(m msg) {
	k := [2]engine.DeviceID{m.from, m.to}
	m.at = max(s.clk.now+time.Duration(5+s.r.IntN(120))*time.Millisecond, s.link[k])
	s.link[k] = m.at
	s.queue(m)
}

func (s *sim) queue(m msg) {
	s.seq++
	m.seq = s.seq
	s.net = append(s.net, m)
	s.nextAt = min(s.nextAt, m.at)
}

func (s *sim) runFor(d time.Duration) {
	for end := s.clk.now + d; s.clk.now < end && s.err == nil; {
		s.clk.now += s.opt.Step
		s.res.Steps++
		for _, dv := range s.devs {
			if dv.frozen && s.clk.now >= dv.thaw {
				dv.frozen = false // its inbox first, then its late tick
			}
		}
		s.deliver()
		for _, dv := range s.devs {
			if !dv.up {
				continue
			}
			if dv.frozen {
				continue
			}
			s.outputTick(dv)
			if s.clk.now-dv.lastTick >= tick {
				s.tick(dv)
			}
		}
	}
}

// deliver hands over the messages due, in send order, to devices that
// run; a frozen device's wait in its inbox, a dead one's are lost.
func (s *sim) deliver() {
	if s.clk.now < s.nextAt {
		return
	}
	due, keep := s.due[:0], s.net[:0]
	s.nextAt = 1<<62 - 1
	for _, m := range s.net {
		switch d := s.dev(m.to); {
		case m.at <= s.clk.now && d.frozen && d.up:
			keep = append(keep, m) // waits in its inbox
			s.nextAt = min(s.nextAt, s.clk.now+s.opt.Step)
		case m.at <= s.clk.now:
			due = append(due, m)
		default:
			keep = append(keep, m)
			s.nextAt = min(s.nextAt, m.at)
		}
	}
	// In send order: each link is a stream, and an inbox keeps order.
	slices.SortFunc(due, func(x, y msg) int { return cmp.Compare(x.seq, y.seq) })
	clear(s.net[len(keep):])
	s.net, s.due = keep, due
	for i, m := range due {
		due[i] = msg{}
		d := s.dev(m.to)
		switch {
		case !d.up:
		case m.kind == snapshot:
			s.snapshot(d, m)
		default:
			s.command(d, m)
		}
	}
}

func (s *sim) dev(id engine.DeviceID) *device {
	for _, d := range s.devs {
		if d.id == id {
			return d
		}
	}
	panic("queuetest: no device " + string(id))
}

// event is one fault-phase event.
func (s *sim) event() {
	var live []*device
	for _, d := range s.devs {
		if d.up && !d.frozen {
			live = append(live, d)
		}
	}
	if len(live) == 0 {
		for _, x := range s.devs {
			if !x.up {
				s.boot(x, false)
				return
			}
		}
		return // all frozen: they thaw
	}
	d := live[s.r.IntN(len(live))]
	switch k := s.r.IntN(20); {
	case k < 11:
		s.control(d)
	case k < 15:
		to := s.devs[s.r.IntN(len(s.devs))]
		if to.up {
			s.transfer(d, to.id)
		}
	case k < 17:
		d.frozen, d.thaw = true, s.clk.now+time.Duration(500+s.r.IntN(6000))*time.Millisecond
		s.res.Freezes++
		s.logf("%s freezes until %.2fs", d.id, d.thaw.Seconds())
	case k < 19:
		s.kill(d)
	default:
		for _, x := range s.devs {
			if !x.up {
				s.boot(x, false)
			}
		}
	}
}

func (s *sim) kill(d *device) {
	s.played(d)
	d.up = false
	s.res.Kills++
	// What it sent and the network has not delivered yet may die with it
	// (its socket buffers): half the time it does, so an owner's
	// acknowledgement of a control it applied and saved can be lost.
	if !s.opt.OldControllers && s.r.IntN(2) == 0 {
		s.net = slices.DeleteFunc(s.net, func(m msg) bool { return m.from == d.id })
	}
	for _, c := range s.ctl {
		if c.from == d.id && c.done == "" {
			c.done = "sender died"
		}
	}
	s.logf("%s killed", d.id)
}

// txn is what a transition asks for after its commit.
type txn struct {
	ch        queue.Change
	publish   bool
	sends     []msg
	ownerLive bool
	jump      bool // a control moved the output on purpose (I5)
}

// transition runs f as the actor's run does: mutate, plan, persist,
// publish, apply, advance, then re-target pending controls.
func (s *sim) transition(d *device, f func(tx *txn)) {
	tx := &txn{ownerLive: d.e.Owner() != d.id && d.e.OwnerLive()}
	f(tx)
	effect := s.plan(d, tx)
	rd := engine.Ready{}
	has := d.e.HasReady()
	if has {
		rd = d.e.Ready()
	}
	// Persist: the checkpoint and the state, its position now.
	d.cp = d.e.Checkpoint()
	d.saved = d.st.Clone()
	d.saved.PositionMS = d.pos.Now(d.st, s.inputs(d))
	if (has && rd.Gossip) || tx.publish {
		s.publish(d)
	}
	for _, m := range tx.sends {
		s.send(m)
	}
	effect()
	if has {
		d.e.Advance()
	}
	s.retarget(d)
	s.observe(d)
}

func (s *sim) inputs(d *device) queue.Inputs {
	in := queue.Inputs{Now: s.clk.now, Heartbeat: heartbeat}
	switch o := d.e.Owner(); {
	case o == "":
		in.Owner = queue.OwnerNone
	case o == d.id:
		in.Owner = queue.OwnerSelf
	case s.ownerGone(d):
		in.Owner = queue.OwnerGone
	default:
		in.Owner = queue.OwnerLive
	}
	// The output's measurement counts while it plays the state's current
	// entry (caller's duty 2): not once a state adopted from another
	// owner names another one, before the effect stops the output.
	e, ok := d.st.Current()
	if d.rendering && (!d.outBehind || s.opt.Rules.NoOutputBehind) && d.out.on && ok && d.out.cid == e.ContentID && d.out.idx == d.st.Index {
		in.Measured, in.MeasuredMS = true, d.out.pos(s.clk.now)
	}
	return in
}

func (s *sim) ownerGone(d *device) bool {
	o := d.e.Owner()
	if o == "" || o == d.id {
		return false
	}
	if d.closingFrom == o {
		return true
	}
	return d.heardFrom == o && s.clk.now-d.aliveAt > 4*heartbeat || !d.e.OwnerView().Live
}

func (s *sim) anchor(d *device) { d.pos.Anchor(&d.st, s.inputs(d)) }

func (s *sim) anchorHeard(d *device) {
	if d.rendering || s.opt.Rules.NoHeardAt {
		s.anchor(d)
		return
	}
	d.pos.AnchorHeard(&d.st, s.clk.now)
}

func (s *sim) holding(d *device) bool { return d.holdUntil != 0 && s.clk.now < d.holdUntil }

// plan decides what the output does after the commit (app's plan).
func (s *sim) plan(d *device, tx *txn) func() {
	render := d.e.MayRender() && !s.holding(d)
	takeover := render && !d.rendering
	if !render {
		if d.rendering && d.st.Term.Owner == d.id {
			s.anchor(d)
		}
		return func() {
			if d.out.on {
				s.logf("%s stops at %d", d.id, d.out.pos(s.clk.now))
				s.played(d)
			}
			d.out, d.rendering = output{}, false
		}
	}
	if takeover {
		s.logf("%s takes over (owner live %v) from %s@%d playing %v", d.id, tx.ownerLive, cidOf(d.st), d.st.PositionMS, d.st.Playing)
		switch {
		case s.opt.Rules.NoHeardAt:
			s.anchor(d)
		case d.rendering:
			s.anchor(d)
		default:
			d.pos.TakeOver(&d.st, s.clk.now, heartbeat, tx.ownerLive)
		}
		if d.st.Term != d.e.Claim() {
			d.st.ResetAcks() // what it applied under its claim stays acked (C6)
		}
		d.st.Term = d.e.Claim()
		tx.publish = true
	}
	ch := tx.ch
	if ch.Track || ch.Seek || ch.Stopped {
		d.outBehind = true
	}
	st := d.st.Clone()
	want := takeover || ch.Track
	jump := tx.jump
	return func() {
		d.outBehind = false
		s.played(d)
		if !d.e.MayRender() {
			d.out, d.rendering = output{}, false
			return
		}
		d.rendering = true
		e, ok := st.Current()
		switch {
		case !ok || ch.Stopped:
			d.out = output{}
		case st.Playing && (want || !d.out.on || d.out.cid != e.ContentID || d.out.idx != st.Index):
			d.out = output{on: true, idx: st.Index, cid: e.ContentID, at: st.PositionMS, since: s.clk.now, playing: true}
			s.started(d, jump)
			s.logf("%s plays %s@%d (term %v)", d.id, e.ContentID, st.PositionMS, st.Term)
		case st.Playing:
			if ch.Seek {
				d.out.at, d.out.since = st.PositionMS, s.clk.now
				s.started(d, jump)
			}
			if !d.out.playing {
				d.out.at, d.out.since, d.out.playing = d.out.pos(s.clk.now), s.clk.now, true
			}
		default:
			if d.out.on && (ch.Track || d.out.cid != e.ContentID) {
				d.out = output{}
			}
			if d.out.on {
				if ch.Seek {
					d.out.at = st.PositionMS
				}
				if d.out.playing {
					d.out.at, d.out.playing = d.out.pos(s.clk.now), false
				}
			}
		}
	}
}

// played records how far d's output got on its entry (I5).
func (s *sim) played(d *device) {
	if !d.out.on {
		return
	}
	k := entryKey{d.out.idx, d.out.cid}
	s.furthest[k] = max(s.furthest[k], d.out.pos(s.clk.now))
}

// asked records the position a control on d asked for (I5).
func (s *sim) asked(d *device, ch queue.Change) {
	if e, ok := d.st.Current(); ok && (ch.Track || ch.Seek) {
		k := entryKey{d.st.Index, e.ContentID}
		s.furthest[k] = max(s.furthest[k], d.st.PositionMS)
	}
}

// started is I5: an output that starts other than by a control (a
// takeover, a handoff) starts no further than any output got or any
// control asked on that entry, give or take what a controller's view may
// run ahead (MaxLead): no music is skipped.
func (s *sim) started(d *device, jump bool) {
	k := entryKey{d.out.idx, d.out.cid}
	for _, x := range s.devs {
		if x != d {
			s.played(x) // outputs that play on (a frozen owner's) count too
		}
	}
	p, ok := s.furthest[k]
	if jump || !ok {
		s.furthest[k] = max(p, d.out.at)
		return
	}
	if d.out.at > p+queue.MaxLead(heartbeat).Milliseconds() {
		s.fail("I5: %s started %s at %d ms; no output got further than %d", d.id, k.cid, d.out.at, p)
	}
	s.furthest[k] = max(p, d.out.at)
}

// publish sends d's snapshot to every other device.
func (s *sim) publish(d *device) {
	st := d.st.Clone()
	if d.e.MayRender() {
		st.PositionMS = d.pos.Now(d.st, s.inputs(d))
		st.Term = d.e.Claim()
		st.Resuming = s.holding(d)
	}
	st.Launch = d.launch
	m := msg{kind: snapshot, from: d.id, sent: s.clk.now, coord: d.e.Announcement(), state: st}
	s.held[d.id] = m
	for _, x := range s.devs {
		if x != d {
			m.to = x.id
			s.send(m)
		}
	}
}

// outputTick ends a track that played out.
func (s *sim) outputTick(d *device) {
	if !d.rendering || !d.out.on || !d.out.playing || d.out.pos(s.clk.now) < trackMS {
		return
	}
	s.transition(d, func(tx *txn) {
		more := d.st.Advance()
		d.pos.Moved(s.clk.now)
		tx.publish = true
		d.out = output{}
		if more {
			tx.ch.Track = true
		} else {
			tx.ch.Stopped = true
		}
	})
}

func (s *sim) tick(d *device) {
	gap := s.clk.now - d.lastTick
	d.lastTick = s.clk.now
	s.transition(d, func(tx *txn) {
		if gap > 2*tick {
			d.e.Resumed(gap - tick) // it was frozen: not the owner's silence
		}
		if s.clk.now-d.lastHB >= heartbeat {
			if id := d.e.Heartbeat(engine.Output{Available: true, Playing: d.out.on && d.out.playing}); d.launch == 0 {
				d.launch = id
			}
			d.lastHB = s.clk.now
		}
		d.e.Tick()
		if d.e.MayRender() {
			tx.ownerLive = false
		}
	})
}

// control is a user's control on d: local on the owner, a stamped
// command otherwise.
func (s *sim) control(d *device) {
	var c queue.Control
	switch k := s.r.IntN(10); {
	case len(d.st.Queue) == 0 || k == 0:
		c = queue.Control{Op: queue.OpPlayTracks, Entries: queueOf(3 + s.r.IntN(5)), Index: 0}
	case k < 3:
		c = queue.Control{Op: queue.OpNext}
	case k < 4:
		c = queue.Control{Op: queue.OpPrev}
	case k < 6:
		c = queue.Control{Op: queue.OpSeek, PosMS: int64(s.r.IntN(trackMS))}
	case k < 8:
		c = queue.Control{Op: queue.OpToggle}
	default:
		c = queue.Control{Op: queue.OpJump, Index: s.r.IntN(len(d.st.Queue))}
	}
	if e, ok := d.st.Current(); ok && c.Op == queue.OpSeek && !s.opt.Rules.NoSeekID {
		c.IDs = []string{e.ContentID}
	}
	if c.Op == queue.OpToggle {
		c.Op = queue.OpResume
		if d.st.Playing {
			c.Op = queue.OpPause
		}
	}
	s.res.Controls++
	owner := d.e.Owner()
	s.logf("%s control %s (owner %s)", d.id, c.Op, owner)
	if owner == d.id || owner == "" {
		s.transition(d, func(tx *txn) {
			s.anchor(d)
			ch, err := d.st.Apply(c, d.st.PositionMS)
			if err != nil {
				return
			}
			d.pos.Moved(s.clk.now)
			tx.ch, tx.publish, tx.jump = ch, true, ch.Track || ch.Seek
			s.asked(d, ch)
			if owner == "" && d.st.Playing {
				_, _ = d.e.Transfer(d.id)
			}
		})
		return
	}
	s.transition(d, func(tx *txn) {
		s.anchor(d)
		ch, err := d.st.Apply(c, d.st.PositionMS)
		if err != nil {
			return
		}
		d.pos.Moved(s.clk.now)
		s.asked(d, ch)
		stamp, err := d.e.Stamp()
		if err != nil {
			return
		}
		d.pend.Address(&c, owner)
		if !s.opt.OldControllers {
			c.ID = stamp.Sequence // the same on every copy sent again (C7)
		}
		id := s.nextCtl
		s.nextCtl++
		s.ctl[id] = &ctlRec{from: d.id, op: c.Op, stamp: []engine.CommandStamp{stamp}, c: c,
			applied: map[engine.CommandStamp]bool{}, by: map[engine.Claim]int{}}
		d.pend.Remember(c, stamp, s.clk.now, false)
		d.pendID = append(d.pendID, id)
		tx.sends = append(tx.sends, msg{kind: command, from: d.id, to: owner, sent: s.clk.now, stamp: stamp, c: c, id: id})
	})
}

func (s *sim) transfer(d *device, to engine.DeviceID) {
	if to == d.e.Owner() {
		return
	}
	s.res.Transfers++
	s.logf("%s transfers to %s", d.id, to)
	s.transition(d, func(tx *txn) {
		if to == d.id && !d.e.OwnerLive() {
			s.anchorHeard(d)
		} else {
			s.anchor(d)
		}
		stop := d.out.pos(s.clk.now)
		stamp, err := d.e.Transfer(to)
		if err != nil || to == d.id {
			return
		}
		st := d.st.Clone()
		st.Acks, st.AckFrom = nil, nil
		m := msg{kind: command, from: d.id, to: to, sent: s.clk.now, stamp: stamp,
			handoff: true, c: queue.Control{Op: queue.OpHandoff, State: &st, Exact: d.rendering && d.out.on}, id: -1}
		if d.rendering && d.out.on && d.out.playing {
			m.state.PositionMS = stop // I1: where the source's output stopped
			m.state.Playing = true
		} else {
			m.state.PositionMS = -1
		}
		tx.sends = append(tx.sends, m)
	})
}
