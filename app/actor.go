package app

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/queue"
	"github.com/furudesk/furudesk/storage"
)

// settingPassive is the settings key of the always-on profile.
const settingPassive = "passive"

// actor is the one goroutine that owns the engine and the player state.
// Nothing else touches its fields.
type actor struct {
	app   *App
	opts  Options
	log   *slog.Logger
	store Store
	out   Output
	tr    Transport
	lib   Library
	clock engine.Clock

	e       *engine.Engine
	self    engine.DeviceID
	group   string
	name    string
	cfg     engine.Config // stored config (Passive adjusts the effective one)
	passive bool
	rg      replayGain // this device's ReplayGain mode (replaygain.go)
	// launchHeld: the launch's rescan waits for the window's list
	// (Options.HoldLaunchScan).
	launchHeld bool

	st PlayerState // the shared state as this device knows it
	// pos is where st.PositionMS stands in time: when it was true and
	// when its source last confirmed it (queue.Position).
	pos queue.Position
	// aliveAt is when the owner was last heard at all, heardFrom: also
	// by a snapshot whose state is not news (a restarted owner that is
	// resuming), which says it lives but confirms no position.
	aliveAt   time.Duration
	heardFrom engine.DeviceID            // the owner heard at aliveAt
	heardHB   uint64                     // its heartbeat id then: older snapshots are stale
	boxes     map[engine.DeviceID]bool   // the devices whose snapshots say they have no window
	outLabels map[engine.DeviceID]string // the endpoints the devices' snapshots say they play through
	shownFrom string                     // the last shared notice shown: owner, id and text

	answered bool // the intent being handled published and replied (answer)

	persisted   storage.QueueState // last committed queue/transport
	persistedAt time.Duration
	// What was derived from the state, kept until it changes (memo.go).
	items     storedItems
	published encodedState

	// What the local output is doing.
	cur        audio.Track
	curCID     string
	curIdx     int
	curStarted bool // the output reported Started for cur
	curEnded   bool // cur finished (or failed) and the prepared track follows
	paused     bool
	// outBehind is set between a transition that moved the state to
	// another track or position and the effect that tells the output:
	// the output's report is of the old place, not of st.
	outBehind   bool
	rendering   bool      // MayRender as last applied to the output
	renderSince time.Time // wall clock when MayRender last turned true

	// The track prepared to follow cur without a gap (zero: none), and
	// the queue entry it stands for.
	next       audio.Track
	nextCID    string
	nextIdx    int
	nextPath   string
	nextLib    uint64 // the library version it was prepared at (libraryRun)
	nextFailed string // content id and index of a prepared track that failed

	lastOut     engine.Output
	lastHB      time.Duration
	heartbeated bool

	holdUntil time.Duration // a restarted owner holds its output until then (resume.go)
	echoHB    uint64        // heartbeat id of the own snapshot it resumed from

	lastTick  time.Duration // when the last tick was handled (liveness.go)
	ticked    bool
	resumedAt time.Duration // when this device last woke from a pause

	pending     queue.Pending // our controls the owner has not acknowledged (pending.go)
	launch      uint64        // this process's first heartbeat id (State.Launch)
	retargeting bool

	notices  []Notice
	noticeID uint64
	folders  []string
	libRun   libraryRun
	strm     streamState // tracks of other devices (stream.go)

	// outputNotice is the ID of the "no sound device" notice shown, 0 when
	// none: it is withdrawn when the output works again.
	outputNotice uint64

	// The owner as this device presents it (observeOwner): the owner seen
	// after the last transition and since when, an owner whose last
	// snapshot said it is closing, and the notices about a condition that
	// are withdrawn once it is over.
	ownerSeen   engine.DeviceID
	ownerSince  time.Duration
	closingFrom engine.DeviceID
	closing     bool                    // this device is shutting down: its last snapshot says so
	handedTo    engine.DeviceID         // the target of our last transfer: it has its notice already
	goneNotice  uint64                  // "<owner> stopped responding", 0 when none
	condNotices []uint64                // "... has no file ...: paused": withdrawn once music plays
	sharedText  string                  // the text of the missing-file notice this device shared last
	heardCount  uint64                  // snapshots adopted from the owner (Status.OwnerHeard)
	lastDevices []devicesync.DeviceInfo // as last shown: names of devices that left
	joined      bool                    // a join was noticed by its group change
	shown       shown                   // the status last handed to subscribers (statusbuild.go)
}

// intent is one typed message of the actor's inbox.
type intent interface{ handle(a *actor) }

type controlIntent struct {
	c     Control
	reply chan error
}
type transferIntent struct {
	to    engine.DeviceID
	reply chan error
}
type configIntent struct {
	cfg   engine.Config
	reply chan error
}
type passiveIntent struct {
	on    bool
	reply chan error
}
type nameIntent struct {
	name  string
	reply chan error
}
type folderIntent struct {
	path  string
	add   bool
	reply chan error
}
type scanIntent struct{ reply chan error }
type startupIntent struct{ reply chan error }
type noticeIntent struct{ level, text string }
type refreshIntent struct{}
type launchIntent struct{} // the launch's held rescan may start (LibraryShown)

// answer publishes the status the intent produced, then replies, so a
// caller that reads Status after the reply sees its effect. It is the
// intent's last step: the loop does not publish again, so the actor is
// idle once the caller has its reply (a second publish would read the
// clock and the transport's device list while the caller goes on).
func (a *actor) answer(reply chan error, err error) {
	a.publishStatus()
	a.answered = true
	reply <- err
}

func (i controlIntent) handle(a *actor)  { a.answer(i.reply, a.control(i.c)) }
func (i transferIntent) handle(a *actor) { a.answer(i.reply, a.transfer(i.to)) }
func (i configIntent) handle(a *actor)   { a.answer(i.reply, a.setConfig(i.cfg, a.passive)) }
func (i passiveIntent) handle(a *actor)  { a.answer(i.reply, a.setConfig(a.cfg, i.on)) }
func (i nameIntent) handle(a *actor) {
	err := a.store.SetDeviceName(i.name)
	if err == nil {
		a.name = i.name
	}
	a.answer(i.reply, err)
}
func (i folderIntent) handle(a *actor) { a.answer(i.reply, a.folder(i.path, i.add)) }
func (i scanIntent) handle(a *actor)   { a.answer(i.reply, a.userScan()) }
func (i noticeIntent) handle(a *actor) {
	if i.text == joinedText && a.joined {
		a.joined = false // the group change said it already
		return
	}
	a.notice(i.level, i.text)
}
func (refreshIntent) handle(*actor) {}
func (launchIntent) handle(a *actor) {
	if a.launchHeld {
		_ = a.startLibrary(true)
	}
}
func (i startupIntent) handle(a *actor) {
	a.answer(i.reply, a.run(func(*txn) error {
		a.e.RequestStartup()
		return nil
	}))
}

func newActor(app *App, opts Options, deps Deps) (*actor, error) {
	a := &actor{app: app, opts: opts, log: opts.Logger, store: deps.Store, out: deps.Output,
		tr: deps.Transport, lib: deps.Library, clock: opts.Clock}
	a.self = a.tr.ID()
	a.group = a.tr.Group()
	a.name = opts.Name
	for _, d := range a.tr.Devices() {
		if d.Self && a.name == "" {
			a.name = d.Name
		}
	}

	cfg, err := a.store.PlaybackConfig()
	if err != nil {
		a.notice("error", "Stored playback settings are invalid, using the defaults: "+err.Error())
		cfg = engine.DefaultConfig()
	}
	if opts.Config != nil {
		if err := a.store.SetPlaybackConfig(*opts.Config); err != nil {
			return nil, err
		}
		cfg = *opts.Config
	}
	a.cfg = cfg
	if v, ok, err := a.store.Setting(settingPassive); err == nil && ok {
		a.passive = v == "true"
	}
	a.loadReplayGain()
	if opts.Passive && !a.passive {
		if err := a.store.SetSetting(settingPassive, "true"); err != nil {
			return nil, err
		}
		a.passive = true
	}
	if opts.Name != "" {
		if err := a.store.SetDeviceName(opts.Name); err != nil {
			return nil, err
		}
	}
	if err := a.store.SetGroup(a.group); err != nil {
		return nil, err
	}
	a.e, err = a.engineFor(a.group)
	if err != nil {
		return nil, err
	}
	q, err := a.store.Queue()
	if err != nil {
		return nil, err
	}
	a.st = stateFromDurable(q)
	if n := a.st.Trim(); n > 0 {
		a.notice("info", fmt.Sprintf("The saved queue was longer than the queue holds: %d tracks from the current one are kept, %d dropped", len(a.st.Queue), n))
	}
	a.persisted = durable(a.st)
	a.pos.Load(a.clock.Now())
	a.persistedAt = a.clock.Now()
	a.holdResume()
	if a.folders, err = a.store.LibraryFolders(); err != nil {
		return nil, err
	}
	for _, m := range opts.Music {
		if err := a.addFolder(m); err != nil {
			return nil, err
		}
	}
	// Step 1 of the driver contract: one startup intent per launch. A
	// gateway's launch is none: its endpoint's real start is
	// (App.RequestStartup, the web hub's page opening as the output).
	if !a.relays() {
		if err := a.run(func(*txn) error {
			a.e.RequestStartup()
			return nil
		}); err != nil {
			return nil, err
		}
	}
	if a.lib != nil && len(a.folders) > 0 {
		if opts.HoldLaunchScan > 0 {
			a.launchHeld = true // until LibraryShown (launchIntent)
		} else {
			_ = a.startLibrary(true)
		}
	}
	return a, nil
}

// effective is the config the engine runs with: the stored one, with
// startup claims and failover off for the passive profile.
func (a *actor) effective() engine.Config {
	c := a.cfg
	if a.passive {
		c.ClaimOnStartup, c.AutomaticFailover = false, false
	}
	return c
}

// engineFor restores the checkpoint of group, or starts a new engine.
func (a *actor) engineFor(group string) (*engine.Engine, error) {
	cp, ok, err := a.store.LoadCheckpoint(group)
	if err != nil {
		return nil, err
	}
	if ok && cp.Device == a.self {
		return engine.Restore(cp, group, a.effective(), a.clock)
	}
	return engine.New(a.self, group, a.effective(), a.clock)
}

func (a *actor) loop(ticks <-chan time.Time) {
	var trEv <-chan devicesync.Event = a.tr.Events()
	var outEv <-chan audio.Event
	if a.out != nil {
		outEv = a.out.Events()
	}
	for {
		select {
		case <-a.app.quit:
			a.shutdown()
			return
		case in := <-a.app.inbox:
			in.handle(a)
		case ev, ok := <-trEv:
			if !ok {
				trEv = nil
				continue
			}
			a.peerEvent(ev)
		case ev, ok := <-outEv:
			if !ok {
				outEv = nil
				continue
			}
			a.audioEvent(ev)
		case <-ticks:
			a.tick()
		}
		if a.answered {
			a.answered = false // published by answer
			continue
		}
		a.publishStatus()
	}
}

// shutdown persists the position and, while this device renders, publishes
// a last snapshot with the exact position, so the device that takes over
// resumes where this one stopped instead of guessing.
func (a *actor) shutdown() {
	a.stopLibrary()
	a.closing = true
	_ = a.run(func(tx *txn) error {
		tx.persistPos = true
		tx.publish = a.e.MayRender()
		return nil
	})
	if a.out != nil {
		a.out.Stop()
	}
	a.libRun.wg.Wait()
}

// txn collects what one transition wants to do after its commit.
type txn struct {
	persistPos bool
	noSync     bool // the position is all there is to save: no disk flush needed
	publish    bool
	sends      []send
	ch         queue.Change
	fence      *engine.CommandStamp // an accepted command's stamp, rechecked before effects
	ownerLive  bool                 // another device owned the output and was live before the transition
}

type send struct {
	to      engine.DeviceID
	stamp   engine.CommandStamp
	handoff bool
	body    json.RawMessage
}

// run is one transition, following engine/doc.go: mutate (engine and
// state), persist the durable changes in one commit, publish, apply the
// audio effects after rechecking fences, Advance. When the mutation or the
// commit fails, the engine and the state are restored and nothing is
// executed or sent.
func (a *actor) run(f func(tx *txn) error) error {
	prevE, prevSt, prevPos := a.e.Clone(), a.st.Clone(), a.pos
	restore := func() { a.e, a.st, a.pos = prevE, prevSt, prevPos }
	tx := &txn{ownerLive: a.e.Owner() != a.self && a.e.OwnerLive()}
	if err := f(tx); err != nil {
		restore()
		return err
	}
	effect := a.plan(tx)

	var rd engine.Ready
	has := a.e.HasReady()
	if has {
		rd = a.e.Ready()
	}
	// 3a. Persist.
	t := storage.Transition{}
	if has && rd.PersistCheckpoint {
		cp := rd.Checkpoint
		t.Checkpoint = &cp
	}
	now := a.clock.Now()
	q := durableOf(a.st, &a.items)
	q.PositionMS = a.persisted.PositionMS
	if tx.persistPos || !a.sameTransport(q.Transport) || !sameItems(q.Items, a.persisted.Items) {
		q.PositionMS = a.posNow()
	}
	switch {
	case !sameItems(q.Items, a.persisted.Items):
		t.Queue = &q
	case !q.Transport.Equal(a.persisted.Transport):
		tr := q.Transport
		t.Transport = &tr
		t.NoSync = tx.noSync && t.Checkpoint == nil && a.sameTransport(tr)
	}
	if !t.Empty() {
		if err := a.store.Commit(t); err != nil {
			restore()
			a.notice("error", "Could not save the player state: "+err.Error())
			return fmt.Errorf("app: could not save: %w", err)
		}
		if t.Queue != nil || t.Transport != nil {
			a.persisted, a.persistedAt = q, now
		}
	}
	// 3b. Publish: the announcement (with our snapshot), then commands.
	if (has && rd.Gossip) || tx.publish {
		a.publishSnapshot()
	}
	for _, s := range tx.sends {
		if _, err := a.tr.SendCommand(s.to, s.stamp, s.handoff, s.body); err != nil {
			a.notice("error", "Could not reach "+a.deviceName(s.to)+": "+err.Error())
		}
	}
	// 3c. Apply.
	effect()
	// 3d. Advance.
	if has {
		a.e.Advance()
	}
	a.retargetPending()
	return nil
}

func (a *actor) sameTransport(t storage.Transport) bool {
	p := a.persisted.Transport
	p.PositionMS, t.PositionMS = 0, 0
	return p.Equal(t)
}

func sameItems(x, y []storage.QueueItem) bool {
	return slices.EqualFunc(x, y, func(a, b storage.QueueItem) bool {
		return a.ContentID == b.ContentID && string(a.Meta) == string(b.Meta)
	})
}

// posNow is the position of the current track now: measured at the output
// while it renders it, else extrapolated from the last known state
// (queue.Position).
func (a *actor) posNow() int64 { return a.pos.Now(a.st, a.posInputs()) }

// posInputs are the position rules' inputs now.
func (a *actor) posInputs() queue.Inputs {
	in := queue.Inputs{Now: a.clock.Now(), Heartbeat: a.opts.HeartbeatEvery}
	switch o := a.e.Owner(); {
	case o == "":
		in.Owner = queue.OwnerNone
	case o == a.self:
		in.Owner = queue.OwnerSelf
	case a.ownerGone():
		in.Owner = queue.OwnerGone
	default:
		in.Owner = queue.OwnerLive
	}
	// The output's report counts once the effect of the last change
	// reached it (outBehind): before, it is of the old place. And only
	// while it plays the state's current entry: a state adopted from
	// another owner may name another one before the effect stops it.
	e, ok := a.st.Current()
	if a.rendering && !a.outBehind && a.out != nil && a.cur.Seq != 0 && ok && e.ContentID == a.curCID && a.st.Index == a.curIdx {
		if r := a.out.Report(); r.Track == a.cur {
			in.Measured, in.MeasuredMS = true, r.Pos.Milliseconds()
		}
	}
	return in
}

// anchor makes st.PositionMS the position now.
func (a *actor) anchor() { a.pos.Anchor(&a.st, a.posInputs()) }

// anchorHeard is anchor for taking over from an owner that is not known
// live (queue.Position.AnchorHeard), measured while this device renders.
func (a *actor) anchorHeard() {
	if a.rendering {
		a.anchor()
		return
	}
	a.pos.AnchorHeard(&a.st, a.clock.Now())
}

// relays reports whether the output is a gateway's (Relay): then only its
// audio.Relayed events reach the engine.
func (a *actor) relays() bool {
	r, ok := a.out.(Relay)
	return ok && r.Relays()
}

// outputLabel names the endpoint the output plays through (Labeled), ""
// when it plays here.
func (a *actor) outputLabel() string {
	if l, ok := a.out.(Labeled); ok {
		return l.OutputLabel()
	}
	return ""
}

// heartbeat feeds the output's real report to the engine; never a
// gateway's cached one.
func (a *actor) heartbeat() {
	if a.out == nil || a.relays() {
		return
	}
	r := a.out.Report()
	o := engine.Output{Available: r.Available, Playing: r.Playing}
	if id := a.e.Heartbeat(o); a.launch == 0 {
		a.launch = id // State.Launch: this process's first heartbeat
	}
	a.lastOut, a.lastHB, a.heartbeated = o, a.clock.Now(), true
}

func (a *actor) tick() {
	away := a.away()
	_ = a.run(func(tx *txn) error {
		now := a.clock.Now()
		if away > 0 {
			a.resumed(away)
		}
		if a.out != nil {
			r := a.out.Report()
			changed := r.Available != a.lastOut.Available || r.Playing != a.lastOut.Playing
			if changed || !a.heartbeated || now-a.lastHB >= a.opts.HeartbeatEvery {
				a.heartbeat()
			}
		}
		a.e.Tick()
		// A takeover on a tick is a failover or a startup decision, never a
		// handoff from a live, playing owner: resume where the owner was
		// last heard even if it still counted as live when this
		// transition began (its timeout may expire between that check and
		// the engine's own clock read).
		if a.e.MayRender() {
			tx.ownerLive = false
		}
		if a.e.MayRender() && a.st.Playing && now-a.persistedAt >= a.opts.PersistEvery {
			tx.persistPos, tx.noSync = true, true
		}
		return nil
	})
	a.collectionTick()
}

// publishSnapshot sends our state and the engine's announcement.
func (a *actor) publishSnapshot() {
	st := a.st.Clone()
	if a.e.MayRender() {
		st.PositionMS = a.posNow()
		st.Term = a.e.Claim()
		st.Closing = a.closing
		st.Resuming = a.holding()
	}
	st.Box = a.opts.Box
	st.Output = a.outputLabel()
	st.Launch = a.launch
	b, err := a.published.encode(st)
	if err != nil {
		return
	}
	if err := a.tr.PublishSnapshot(b, a.e.Announcement()); err != nil {
		a.log.Debug("publish snapshot", "err", err)
	}
}
