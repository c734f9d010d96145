package app

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"time"

	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
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

	st   PlayerState   // the shared state as this device knows it
	stAt time.Duration // when st.PositionMS was true
	// heardAt is when st was last confirmed by its source: the owner's
	// latest snapshot, or the stored state at launch. A takeover without
	// a handoff extrapolates the position only up to then, never across
	// the silence of an owner that stopped reporting.
	heardAt   time.Duration
	heardFrom engine.DeviceID // the owner heard at heardAt
	heardHB   uint64          // its heartbeat id then: older snapshots are stale
	shownFrom string          // the last shared notice shown: owner, id and text
	floor     posFloor        // least position shown on the current track (liveness.go)

	answered bool // the intent being handled published and replied (answer)

	persisted   storage.QueueState // last committed queue/transport
	persistedAt time.Duration

	// What the local output is doing.
	cur         audio.Track
	curCID      string
	curIdx      int
	curStarted  bool // the output reported Started for cur
	curEnded    bool // cur finished (or failed) and the prepared track follows
	paused      bool
	rendering   bool      // MayRender as last applied to the output
	renderSince time.Time // wall clock when MayRender last turned true

	// The track prepared to follow cur without a gap (zero: none), and
	// the queue entry it stands for.
	next       audio.Track
	nextCID    string
	nextIdx    int
	nextPath   string
	nextFailed string // content id and index of a prepared track that failed

	lastOut     engine.Output
	lastHB      time.Duration
	heartbeated bool

	holdUntil time.Duration // a restarted owner holds its output until then (resume.go)
	echoHB    uint64        // heartbeat id of the own snapshot it resumed from

	lastTick  time.Duration // when the last tick was handled (liveness.go)
	ticked    bool
	resumedAt time.Duration // when this device last woke from a pause

	pending     []pendingCtl  // our controls the owner has not acknowledged (pending.go)
	pendingAt   time.Duration // when the latest was sent
	retargeting bool

	notices  []Notice
	noticeID uint64
	folders  []string
	libRun   libraryRun

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
type noticeIntent struct{ level, text string }
type refreshIntent struct{}

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
func (i scanIntent) handle(a *actor)   { a.answer(i.reply, a.startScan()) }
func (i noticeIntent) handle(a *actor) {
	if i.text == joinedText && a.joined {
		a.joined = false // the group change said it already
		return
	}
	a.notice(i.level, i.text)
}
func (refreshIntent) handle(*actor) {}

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
	a.persisted = a.st.durable()
	a.stAt, a.persistedAt, a.heardAt = a.clock.Now(), a.clock.Now(), a.clock.Now()
	a.holdResume()
	if a.folders, err = a.store.LibraryFolders(); err != nil {
		return nil, err
	}
	for _, m := range opts.Music {
		if err := a.addFolder(m); err != nil {
			return nil, err
		}
	}
	// Step 1 of the driver contract: one startup intent per launch.
	if err := a.run(func(*txn) error {
		a.e.RequestStartup()
		return nil
	}); err != nil {
		return nil, err
	}
	if a.lib != nil && len(a.folders) > 0 {
		_ = a.startLibrary(true)
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
	ch         change
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
	prevE, prevSt, prevStAt := a.e.Clone(), a.st.clone(), a.stAt
	restore := func() { a.e, a.st, a.stAt = prevE, prevSt, prevStAt }
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
	q := a.st.durable()
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
// while it renders it, else extrapolated from the last known state.
func (a *actor) posNow() int64 {
	if a.rendering && a.out != nil && a.cur.Seq != 0 {
		r := a.out.Report()
		if r.Track == a.cur {
			return r.Pos.Milliseconds()
		}
	}
	return a.floored(a.st.extrapolate(a.extrapolateUntil() - a.stAt))
}

// anchor makes st.PositionMS the position now.
func (a *actor) anchor() {
	a.st.PositionMS = a.posNow()
	a.stAt = a.clock.Now()
}

// anchorHeard is anchor for taking over from an owner that is not known
// live (failover, a restart, picking this device after the owner went
// quiet): the position is extrapolated only up to when the owner was last
// heard, so no music is skipped for the time it was silent. A handoff's
// state is exact: it was anchored when it arrived.
func (a *actor) anchorHeard() {
	if a.rendering {
		a.anchor()
		return
	}
	now := a.clock.Now()
	a.st.PositionMS = a.st.extrapolate(min(now, a.heardAt) - a.stAt)
	a.stAt = now
}

// plan decides, before the commit, what the output must do after it, so
// any state it changes (skipping tracks this device lacks) is committed
// with the transition. The returned effect runs after the commit.
func (a *actor) plan(tx *txn) func() {
	render := a.e.MayRender() && !a.holding()
	takeover := render && !a.rendering
	if !render {
		if a.rendering && a.st.Term.Owner == a.self {
			// Keep the exact position the output stopped at (unless the
			// new owner's state replaced ours already): the device that
			// took over may be behind it, and should this one take over
			// again it resumes from there.
			a.anchor()
			tx.persistPos = true
		}
		return func() {
			if a.rendering || a.cur.Seq != 0 {
				a.stopAudio()
			}
			a.rendering = false
		}
	}
	if takeover {
		if tx.ownerLive {
			a.anchor()
		} else {
			a.anchorHeard()
		}
		a.st.Term = a.e.Claim()
		clear(a.st.Acks)
		tx.publish = true
	}
	ch := tx.ch
	wantTrack := takeover || ch.track || (a.st.Playing && a.cur.Seq == 0)
	if wantTrack && a.st.Playing {
		a.skipMissing(tx)
	}
	if a.out == nil {
		return func() { a.rendering = a.e.MayRender() }
	}
	st := a.st.clone()
	fence := tx.fence
	return func() {
		// Rechecked right before the effect reaches the output.
		if !a.e.MayRender() {
			a.stopAudio()
			a.rendering = false
			return
		}
		if fence != nil && !a.e.Fence(*fence) {
			return
		}
		a.rendering = true
		if takeover || ch.volume {
			a.out.SetVolume(st.Volume)
		}
		e, ok := st.current()
		switch {
		case !ok || ch.stopped:
			a.stopAudio()
		case st.Playing && (wantTrack || a.curCID != e.ContentID || a.curIdx != st.Index):
			a.playEntry(st, e)
		case st.Playing:
			if ch.seek {
				a.out.Seek(time.Duration(st.PositionMS) * time.Millisecond)
			}
			if a.paused {
				a.out.Resume()
				a.paused = false
			}
		default: // paused
			if a.cur.Seq != 0 && (ch.track || a.curCID != e.ContentID) {
				a.stopAudio()
			}
			if a.cur.Seq != 0 {
				if ch.seek {
					a.out.Seek(time.Duration(st.PositionMS) * time.Millisecond)
				}
				if !a.paused {
					a.out.Pause()
					a.paused = true
				}
			}
		}
		a.syncPrepared(st)
	}
}

func (a *actor) playEntry(st PlayerState, e Entry) {
	t, err := a.store.TrackByContentID(e.ContentID)
	if err != nil {
		a.stopAudio()
		return
	}
	a.cur = a.out.Play(audio.FileSource(e.ContentID, t.Path), time.Duration(st.PositionMS)*time.Millisecond)
	a.curCID, a.curIdx, a.paused = e.ContentID, st.Index, false
	a.curStarted, a.curEnded = false, false
	a.next, a.nextCID, a.nextIdx, a.nextFailed = audio.Track{}, "", -1, "" // Play dropped it
}

func (a *actor) stopAudio() {
	if a.out != nil && a.cur.Seq != 0 {
		a.out.Stop()
	}
	a.cur, a.curCID, a.curIdx, a.paused = audio.Track{}, "", -1, false
	a.curStarted, a.curEnded = false, false
	a.next, a.nextCID, a.nextIdx = audio.Track{}, "", -1 // Stop dropped it
}

func nextKey(cid string, idx int) string { return fmt.Sprintf("%d:%s", idx, cid) }

// syncPrepared makes the output's prepared track the queue entry that
// follows the current one in st (play order, repeat mode), replacing or
// dropping a prepared track that no longer fits. It prepares only once the
// current track started, so a queue changed in between prepares once.
func (a *actor) syncPrepared(st PlayerState) {
	if a.out == nil || a.cur.Seq == 0 || !a.curStarted || a.curEnded {
		return
	}
	i, ok := st.following()
	var path string
	if ok {
		t, err := a.store.TrackByContentID(st.Queue[i].ContentID)
		ok = err == nil && a.nextFailed != nextKey(st.Queue[i].ContentID, i)
		path = t.Path
	}
	if !ok {
		if a.next.Seq != 0 {
			a.out.ClearNext()
			a.next, a.nextCID, a.nextIdx = audio.Track{}, "", -1
		}
		return
	}
	cid := st.Queue[i].ContentID
	if a.next.Seq != 0 && a.nextCID == cid && a.nextIdx == i {
		return
	}
	a.next = a.out.PrepareNext(audio.FileSource(cid, path))
	a.nextCID, a.nextIdx, a.nextPath = cid, i, path
}

// skipMissing runs when this device is about to play the current entry.
// When it has no file for it, it moves forward in play order to the next
// entry it has. When it has none of the remaining ones it keeps the index
// and the position (the group's listening position must survive a device
// that lacks the files) and pauses. Either way every device is told.
func (a *actor) skipMissing(tx *txn) {
	e, ok := a.st.current()
	if !ok || a.hasFile(e.ContentID) {
		return
	}
	probe := a.st.clone()
	for range len(probe.Queue) - 1 {
		i, ok := probe.after()
		if !ok || i == a.st.Index {
			break
		}
		probe.moveTo(i)
		if a.hasFile(probe.Queue[i].ContentID) {
			a.st.Index, a.st.Seed, a.st.Order = i, probe.Seed, slices.Clone(probe.Order)
			a.st.PositionMS, a.stAt = 0, a.clock.Now()
			tx.ch.track = true
			a.shareNotice(tx, fmt.Sprintf("%s has no file for %q: skipped to %q", a.deviceName(a.self), e.name(), probe.Queue[i].name()), false)
			return
		}
	}
	// PositionMS is current here: anchored by the takeover, or set by the
	// control or the track change that led here.
	a.st.Playing, a.stAt = false, a.clock.Now()
	tx.ch.stopped, tx.persistPos = true, true
	a.shareNotice(tx, fmt.Sprintf("%s has no file for %q or the tracks after it: paused", a.deviceName(a.self), e.name()), true)
}

func (a *actor) hasFile(contentID string) bool {
	_, err := a.store.TrackByContentID(contentID)
	return err == nil
}

// shareNotice tells the user here and, through the snapshot, on every
// device.
// A paused one (paused) lasts until the music plays again: it is withdrawn
// then, and the same condition found again (a handoff repeating what its
// announcement started) keeps its one notice.
func (a *actor) shareNotice(tx *txn, text string, paused bool) {
	if !paused || text != a.sharedText || len(a.condNotices) == 0 {
		a.notice("error", text)
		if paused {
			a.sharedText = text
			a.condNotices = append(a.condNotices, a.noticeID)
		}
	}
	a.st.Notice = &SharedNotice{ID: a.noticeID, Text: text}
	if paused {
		a.st.Notice.ID = a.condNotices[len(a.condNotices)-1]
	}
	a.shownFrom = sharedKey(a.self, a.st.Notice)
	tx.publish = true
}

func sharedKey(from engine.DeviceID, n *SharedNotice) string {
	return fmt.Sprintf("%s/%d/%s", from, n.ID, n.Text)
}

// control runs a transport intent: locally when this device renders (or
// nobody owns the output yet), else as a stamped command to the owner.
func (a *actor) control(c Control) error {
	if c.Op == OpToggle {
		c.Op = OpResume
		if a.st.Playing {
			c.Op = OpPause
		}
	}
	owner := a.e.Owner()
	if owner == a.self || owner == "" {
		return a.run(func(tx *txn) error {
			a.anchor()
			ch, err := a.st.apply(c, a.st.PositionMS)
			if err != nil {
				return err
			}
			tx.ch, tx.publish = ch, true
			if ch.pause || ch.stopped || ch.track {
				tx.persistPos = true
			}
			if owner == "" && a.st.Playing {
				// Nobody owns the output yet: pressing play here selects it.
				if _, err := a.e.Transfer(a.self); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return a.run(func(tx *txn) error {
		a.anchor()
		body, err := json.Marshal(c)
		if err != nil {
			return err
		}
		// Optimistic: show the effect now; the owner's snapshot confirms it.
		if _, err := a.st.apply(c, a.st.PositionMS); err != nil {
			return err
		}
		stamp, err := a.e.Stamp()
		if err != nil {
			return err
		}
		a.remember(c, stamp)
		tx.sends = append(tx.sends, send{to: owner, stamp: stamp, body: body})
		return nil
	})
}

// transfer hands the output to device to with the queue, track, position
// and play state.
func (a *actor) transfer(to engine.DeviceID) error {
	if to == "" {
		return userErr(ErrBadArgument, "no device given")
	}
	if to == a.e.Owner() {
		return nil
	}
	if to != a.self {
		d, ok := a.device(to)
		if !ok {
			return userErr(ErrNotMember, "%s is not a device of this group", to)
		}
		// Front-end validation only: Online never feeds ownership. A
		// transfer to a device that cannot answer would stop the music
		// until the owner timeout.
		if !d.Online {
			return userErr(ErrOffline, "%s is offline", a.deviceName(to))
		}
	}
	return a.run(func(tx *txn) error {
		if to == a.self && !a.e.OwnerLive() {
			a.anchorHeard()
		} else {
			a.anchor()
		}
		stamp, err := a.e.Transfer(to)
		if err != nil {
			return err
		}
		if to == a.self {
			return nil
		}
		st := a.st.clone()
		st.Acks = nil
		body, err := json.Marshal(Control{Op: OpHandoff, State: &st})
		if err != nil {
			return err
		}
		tx.sends = append(tx.sends, send{to: to, stamp: stamp, handoff: true, body: body})
		a.handedTo = to
		a.notice("info", "Playing on "+a.deviceName(to))
		return nil
	})
}

func (a *actor) device(id engine.DeviceID) (devicesync.DeviceInfo, bool) {
	for _, d := range a.tr.Devices() {
		if d.ID == id {
			return d, true
		}
	}
	return devicesync.DeviceInfo{}, false
}

func (a *actor) deviceName(id engine.DeviceID) string {
	if id == a.self && a.name != "" {
		return a.name
	}
	for _, d := range a.tr.Devices() {
		if d.ID == id && d.Name != "" {
			return d.Name
		}
	}
	return string(id)
}

func (a *actor) peerEvent(ev devicesync.Event) {
	switch ev := ev.(type) {
	case devicesync.SnapshotReceived:
		a.snapshot(ev)
	case devicesync.CommandReceived:
		a.command(ev)
	case devicesync.GroupChanged:
		a.groupChanged(ev)
		a.collectionEvent(ev)
	case devicesync.OpsAdded, devicesync.GroupLeft:
		a.collectionEvent(ev)
	case devicesync.PairingRequest:
		a.notice("info", fmt.Sprintf("%s asks to join this group (request %s)", ev.Name, ev.ID))
	case devicesync.Notice:
		a.notice("error", ev.Text)
	case devicesync.PeerOnline, devicesync.PeerOffline:
	}
}

func (a *actor) snapshot(ev devicesync.SnapshotReceived) {
	if ev.From == a.self {
		a.ownEcho(ev)
		return
	}
	_ = a.run(func(tx *txn) error {
		// From is the device that made it (relayed snapshots are signed
		// by it); Age is how long ago, when it waited at a relay.
		if err := a.e.AnnounceAged(ev.From, ev.Coordination, ev.Age); err != nil {
			return nil // rejected: dropped and counted by the engine
		}
		if ev.From != a.e.Owner() || a.e.MayRender() {
			return nil
		}
		var ps PlayerState
		if err := json.Unmarshal(ev.State, &ps); err != nil {
			return nil
		}
		ps.normalize()
		if ps.validate() != nil {
			return nil
		}
		hb := ev.Coordination.Heartbeat
		if ev.From == a.heardFrom && hb < a.heardHB {
			return nil // older than a snapshot already seen
		}
		now, shown := a.clock.Now(), a.posNow()
		heard := now - max(ev.Age, 0) // when the owner said it
		if ps.Resuming {
			// A restarted owner still learning its own newest state:
			// heard, but its state is not news.
			a.heardAt, a.heardFrom, a.heardHB = heard, ev.From, hb
			return nil
		}
		a.heardAt, a.heardFrom, a.heardHB = heard, ev.From, hb
		a.heardCount++
		if ps.Closing {
			a.closingFrom = ev.From
		} else if a.closingFrom == ev.From {
			a.closingFrom = ""
		}
		ps.Closing = false // ours to say, should this device take over
		if ps.Notice != nil {
			if k := sharedKey(ev.From, ps.Notice); k != a.shownFrom {
				a.shownFrom = k
				a.notice("error", ps.Notice.Text)
				if !ps.Playing { // the owner paused for it: withdrawn once music plays
					a.condNotices = append(a.condNotices, a.noticeID)
				}
			}
		}
		if a.holdView(ps, ev.From) {
			return nil // does not reflect our controls yet: keep our view
		}
		a.keepFloor(ps, heard, shown)
		a.st, a.stAt = ps, heard
		return nil
	})
}

func (a *actor) command(ev devicesync.CommandReceived) {
	_ = a.run(func(tx *txn) error {
		if a.e.Receive(ev.From, ev.Stamp, ev.Handoff) != engine.Accepted {
			return nil
		}
		var c Control
		if err := json.Unmarshal(ev.Body, &c); err != nil {
			return nil
		}
		if ev.Handoff != (c.Op == OpHandoff) {
			return nil
		}
		a.anchor()
		if c.Op == OpHandoff && c.State != nil {
			// Already playing that track close to that position (we
			// learned the claim from an announcement first): no restart.
			if e, ok := c.State.current(); ok && a.curCID == e.ContentID && a.curIdx == c.State.Index &&
				abs(a.posNow()-c.State.PositionMS) < 1500 && a.cur.Seq != 0 {
				c.State.PositionMS = a.posNow()
				ch, err := a.st.apply(c, a.st.PositionMS)
				if err == nil {
					ch.track = false
					tx.ch = ch
				}
				return a.ack(tx, ev)
			}
		}
		a.describe(c.Entries)
		ch, err := a.st.apply(c, a.st.PositionMS)
		if err != nil {
			a.notice("error", "A command from "+a.deviceName(ev.From)+" failed: "+err.Error())
			return a.ack(tx, ev)
		}
		tx.ch = ch
		if ch.pause || ch.stopped || ch.track {
			tx.persistPos = true
		}
		if c.Op == OpHandoff {
			a.notice("info", "Playing here (from "+a.deviceName(ev.From)+")")
		}
		return a.ack(tx, ev)
	})
}

// describe gives entries a controller sent by content id alone (a track
// its library lacks) the metadata of this device's copy.
func (a *actor) describe(es []Entry) {
	for i, e := range es {
		if e.Title != "" {
			continue
		}
		if t, err := a.store.TrackByContentID(e.ContentID); err == nil {
			es[i] = EntryOf(t)
		}
	}
}

func (a *actor) ack(tx *txn, ev devicesync.CommandReceived) error {
	if a.st.Acks == nil || a.st.Term != ev.Stamp.Claim {
		a.st.Acks = map[engine.DeviceID]uint64{}
		a.st.Term = ev.Stamp.Claim
	}
	if len(a.st.Acks) < engine.MaxSendersPerTerm || a.st.Acks[ev.From] != 0 {
		a.st.Acks[ev.From] = ev.Stamp.Sequence
	}
	s := ev.Stamp
	tx.fence = &s
	tx.publish = true
	return nil
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// groupChanged follows the transport into a new group: one this device
// joined, or a group of its own after another device revoked it. The old
// group's engine state stays with that group's checkpoint; after a
// revocation the old group's owner and queue are dropped as well (this
// device is idle and alone, its controls act locally).
func (a *actor) groupChanged(ev devicesync.GroupChanged) {
	if ev.Group == "" || ev.Group == a.group {
		return
	}
	var others []devicesync.DeviceInfo
	for _, d := range ev.Devices {
		if d.ID != a.self {
			others = append(others, d)
		}
	}
	var before []devicesync.DeviceInfo
	for _, d := range a.lastDevices {
		if d.ID != a.self {
			before = append(before, d)
		}
	}
	// A new group of this device alone: devicesync founds one only when
	// this device was revoked from its group.
	revoked := len(others) == 0
	err := a.run(func(*txn) error {
		if err := a.store.SetGroup(ev.Group); err != nil {
			return err
		}
		e, err := a.engineFor(ev.Group)
		if err != nil {
			return err
		}
		a.e, a.group = e, ev.Group
		a.pending = a.pending[:0]
		if revoked {
			vol := a.st.Volume
			a.st, a.stAt = defaultState(), a.clock.Now()
			a.st.Volume = vol
			a.heardFrom, a.heardHB, a.closingFrom = "", 0, ""
		}
		return nil
	})
	if err != nil {
		return
	}
	a.withdraw(&a.goneNotice)
	switch {
	case revoked && len(before) == 1:
		a.notice("error", a.knownName(before[0].ID)+" removed this device from the group")
	case revoked:
		a.notice("error", "Another device removed this device from the group")
	case len(others) > 0:
		a.notices = slices.DeleteFunc(a.notices, func(n Notice) bool { return n.Text == joinedText })
		a.joined = true
		name := others[0].Name
		if name == "" {
			name = string(others[0].ID)
		}
		a.notice("info", "Joined "+name+"'s group")
	}
}

// joinedText is Pair's notice once the other device accepted; the group
// change names the group instead when it comes first.
const joinedText = "Joined the group"

func (a *actor) audioEvent(ev audio.Event) {
	switch ev := ev.(type) {
	case audio.Activity, audio.Availability:
		_ = a.run(func(*txn) error {
			a.heartbeat()
			return nil
		})
		if av, ok := ev.(audio.Availability); ok {
			switch {
			case !av.Available && av.Err != nil && a.outputNotice == 0:
				a.log.Warn("audio output unavailable", "err", av.Err)
				a.notice("error", "No sound device is working: "+audio.Reason(av.Err))
				a.outputNotice = a.noticeID
			case av.Available && a.outputNotice != 0:
				a.notices = slices.DeleteFunc(a.notices, func(n Notice) bool { return n.ID == a.outputNotice })
				a.outputNotice = 0
				a.notice("info", "Audio output is working again")
			}
		}
	case audio.Started:
		switch {
		case ev.Track == a.cur && a.cur.Seq != 0:
			a.curStarted = true
			if a.e.MayRender() {
				a.syncPrepared(a.st)
			}
		case ev.Track == a.next && a.next.Seq != 0:
			a.nextStarted(ev)
		}
	case audio.Finished:
		if ev.Track != a.cur || a.cur.Seq == 0 {
			return
		}
		if a.next.Seq != 0 {
			a.curEnded = true // the prepared track follows: its Started moves the queue
			return
		}
		a.trackEnded(-1)
	case audio.DecodeError:
		switch {
		case ev.Track == a.cur && a.cur.Seq != 0:
			e, _ := a.st.current()
			a.notice("error", fmt.Sprintf("Could not play %q: %v", e.Title, ev.Err))
			if a.next.Seq != 0 {
				a.curEnded = true // the output moves on to the prepared track
				return
			}
			a.trackEnded(-1)
		case ev.Track == a.next && a.next.Seq != 0:
			// Not prepared again; playing it later reports the error.
			a.nextFailed = nextKey(a.nextCID, a.nextIdx)
			idx := a.nextIdx
			a.next, a.nextCID, a.nextIdx = audio.Track{}, "", -1
			if !a.curEnded {
				return
			}
			// The output went silent after the current track: go on
			// after the one that failed.
			if idx >= 0 && idx < len(a.st.Queue) {
				a.notice("error", fmt.Sprintf("Could not play %q: %v", a.st.Queue[idx].Title, ev.Err))
			}
			a.trackEnded(idx)
		}
	}
}

// nextStarted moves the queue on when the output ran into the prepared
// track without a gap: the device consumed its first frame.
func (a *actor) nextStarted(ev audio.Started) {
	a.cur, a.curCID, a.curIdx = a.next, a.nextCID, a.nextIdx
	a.curStarted, a.curEnded, a.paused = true, false, false
	a.next, a.nextCID, a.nextIdx, a.nextFailed = audio.Track{}, "", -1, ""
	_ = a.run(func(tx *txn) error {
		if !a.e.MayRender() {
			return nil
		}
		if a.curIdx >= 0 && a.curIdx < len(a.st.Queue) && a.st.Queue[a.curIdx].ContentID == a.curCID {
			if i, ok := a.st.following(); ok && i == a.curIdx && a.st.Repeat != "one" {
				a.st.moveTo(i) // a new cycle's order when it wrapped around
			} else {
				a.st.Index = a.curIdx
			}
		}
		a.st.PositionMS, a.stAt = ev.At.Milliseconds(), a.clock.Now()
		a.st.Playing = true
		tx.publish, tx.persistPos = true, true
		return nil
	})
}

// trackEnded moves the owner's queue on after a finished (or failed) track:
// the current one, or the queue entry at index ended when it is >= 0.
func (a *actor) trackEnded(ended int) {
	_ = a.run(func(tx *txn) error {
		if !a.e.MayRender() {
			return nil
		}
		if ended >= 0 && ended < len(a.st.Queue) {
			a.st.Index = ended
		}
		a.cur = audio.Track{}
		more := a.st.advance()
		a.stAt = a.clock.Now()
		tx.publish, tx.persistPos = true, true
		if more {
			tx.ch.track = true
		} else {
			tx.ch.stopped = true
		}
		return nil
	})
}

// heartbeat feeds the output's real report to the engine.
func (a *actor) heartbeat() {
	if a.out == nil {
		return
	}
	r := a.out.Report()
	o := engine.Output{Available: r.Available, Playing: r.Playing}
	a.e.Heartbeat(o)
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
	st := a.st.clone()
	if a.e.MayRender() {
		st.PositionMS = a.posNow()
		st.Term = a.e.Claim()
		st.Closing = a.closing
		st.Resuming = a.holding()
	}
	b, err := json.Marshal(st)
	if err != nil {
		return
	}
	if err := a.tr.PublishSnapshot(b, a.e.Announcement()); err != nil {
		a.log.Debug("publish snapshot", "err", err)
	}
}

func (a *actor) setConfig(cfg engine.Config, passive bool) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	old, oldPassive := a.cfg, a.passive
	a.cfg, a.passive = cfg, passive
	if err := a.e.SetConfig(a.effective()); err != nil {
		a.cfg, a.passive = old, oldPassive
		return err
	}
	if err := a.store.SetPlaybackConfig(cfg); err != nil {
		a.cfg, a.passive = old, oldPassive
		_ = a.e.SetConfig(a.effective())
		return err
	}
	if passive != oldPassive {
		v := "false"
		if passive {
			v = "true"
		}
		if err := a.store.SetSetting(settingPassive, v); err != nil {
			return err
		}
	}
	return nil
}

func (a *actor) addFolder(p string) error {
	abs, err := filepath.Abs(p)
	if err != nil {
		return err
	}
	if slices.Contains(a.folders, abs) {
		return nil
	}
	if len(a.folders) >= storage.MaxLibraryFolders {
		return fmt.Errorf("app: at most %d music folders", storage.MaxLibraryFolders)
	}
	next := append(slices.Clone(a.folders), abs)
	if err := a.store.SetLibraryFolders(next); err != nil {
		return err
	}
	a.folders = next
	return nil
}

func (a *actor) folder(p string, add bool) error {
	if add {
		if err := a.addFolder(p); err != nil {
			return err
		}
		return a.startLibrary(true)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return err
	}
	i := slices.Index(a.folders, abs)
	if i < 0 {
		return fmt.Errorf("app: %s is not a music folder", p)
	}
	next := slices.Delete(slices.Clone(a.folders), i, i+1)
	if err := a.store.SetLibraryFolders(next); err != nil {
		return err
	}
	a.folders = next
	if _, err := a.store.DeleteTracksUnder(abs); err != nil {
		return err
	}
	a.libRun.version++
	if a.lib != nil {
		return a.startLibrary(false)
	}
	return nil
}

// notice adds a message for the user. The same text shown before is
// moved to the end as the newest instead of being listed twice.
func (a *actor) notice(level, text string) {
	a.notices = slices.DeleteFunc(a.notices, func(n Notice) bool { return n.Level == level && n.Text == text })
	a.noticeID++
	a.notices = append(a.notices, Notice{ID: a.noticeID, Level: level, Text: text})
	if len(a.notices) > MaxNotices {
		a.notices = slices.Delete(a.notices, 0, len(a.notices)-MaxNotices)
	}
	if level == "error" {
		a.log.Warn(text)
	} else {
		a.log.Info(text)
	}
}
