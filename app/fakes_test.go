package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/storage"
)

// journal records the order of effects across the fakes.
type journal struct {
	mu  sync.Mutex
	log []string
}

func (j *journal) add(s string) {
	j.mu.Lock()
	j.log = append(j.log, s)
	j.mu.Unlock()
}

func (j *journal) list() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.log...)
}

func (j *journal) reset() {
	j.mu.Lock()
	j.log = nil
	j.mu.Unlock()
}

func (j *journal) first(prefix string) int {
	for i, s := range j.list() {
		if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
			return i
		}
	}
	return -1
}

func (j *journal) count(prefix string) int {
	n := 0
	for _, s := range j.list() {
		if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
			n++
		}
	}
	return n
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Duration
}

func (c *fakeClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t += d
	c.mu.Unlock()
}

type fakeStore struct {
	mu       sync.Mutex
	j        *journal
	failNext int
	commits  int
	lookups  int // TrackByContentID calls
	noSync   int // of commits, those without a disk flush
	cps      map[string]engine.Checkpoint
	queue    storage.QueueState
	settings map[string]string
	cfg      *engine.Config
	tracks   map[string]library.Track
	folders  []string
	group    string
}

func newFakeStore(j *journal) *fakeStore {
	return &fakeStore{j: j, cps: map[string]engine.Checkpoint{}, settings: map[string]string{},
		tracks: map[string]library.Track{}, queue: storage.QueueState{Transport: storage.DefaultTransport()}}
}

func (s *fakeStore) Commit(t storage.Transition) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.Empty() {
		return nil
	}
	if s.failNext > 0 {
		s.failNext--
		s.j.add("commit-failed")
		return storage.ErrInjected
	}
	if t.Checkpoint != nil {
		s.cps[t.Checkpoint.Group] = *t.Checkpoint
	}
	if t.Queue != nil {
		s.queue = *t.Queue
	}
	if t.Transport != nil {
		s.queue.Transport = *t.Transport
	}
	s.commits++
	if t.NoSync {
		s.noSync++
	}
	s.j.add(fmt.Sprintf("commit cp=%v queue=%v transport=%v", t.Checkpoint != nil, t.Queue != nil, t.Transport != nil))
	return nil
}

func (s *fakeStore) LoadCheckpoint(g string) (engine.Checkpoint, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cp, ok := s.cps[g]
	return cp, ok, nil
}
func (s *fakeStore) Queue() (storage.QueueState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queue, nil
}
func (s *fakeStore) PlaybackConfig() (engine.Config, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg == nil {
		return engine.DefaultConfig(), nil
	}
	return *s.cfg, nil
}
func (s *fakeStore) SetPlaybackConfig(c engine.Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg = &c
	return nil
}
func (s *fakeStore) Setting(k string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.settings[k]
	return v, ok, nil
}
func (s *fakeStore) SetSetting(k, v string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settings[k] = v
	return nil
}
func (s *fakeStore) SetGroup(g string) error           { s.group = g; return nil }
func (s *fakeStore) SetDeviceName(string) error        { return nil }
func (s *fakeStore) LibraryFolders() ([]string, error) { return s.folders, nil }
func (s *fakeStore) SetLibraryFolders(f []string) error {
	s.folders = f
	return nil
}
func (s *fakeStore) DeleteTracksUnder(string) (int64, error) { return 0, nil }
func (s *fakeStore) TrackByContentID(id string) (library.Track, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lookups++
	t, ok := s.tracks[id]
	if !ok {
		return t, storage.ErrNotFound
	}
	return t, nil
}
func (s *fakeStore) TracksByContentIDs(ids []string) (map[string]library.Track, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]library.Track{}
	for _, id := range ids {
		if t, ok := s.tracks[id]; ok {
			out[id] = t
		}
	}
	return out, nil
}
func (s *fakeStore) EachTrack(offset, limit int, fn func(library.Track) error) error {
	ts, _ := s.Tracks()
	for i, t := range ts {
		if i < offset || limit >= 0 && i >= offset+limit {
			continue
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}
func (s *fakeStore) TrackCount() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tracks), nil
}
func (s *fakeStore) TrackByPath(p string) (library.Track, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tracks {
		if t.Path == p {
			return t, nil
		}
	}
	return library.Track{}, storage.ErrNotFound
}
func (s *fakeStore) AlbumCoverTrack(artist, title string) (library.Track, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tracks {
		if t.Cover != "" && t.Album == title && t.AlbumArtistOrFirst() == artist {
			return t, nil
		}
	}
	return library.Track{}, storage.ErrNotFound
}
func (s *fakeStore) Tracks() ([]library.Track, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []library.Track
	for _, t := range s.tracks {
		out = append(out, t)
	}
	// In catalog order, as storage reads them.
	slices.SortFunc(out, func(a, b library.Track) int {
		if library.Less(a, b) {
			return -1
		}
		return 1
	})
	return out, nil
}
func (s *fakeStore) Search(string, int) ([]library.Track, error) { return nil, nil }

func (s *fakeStore) addTrack(id string, dur time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tracks[id] = library.Track{ContentID: id, Path: "/music/" + id + ".wav", Title: "T " + id, Duration: dur}
}

// fakeOutput is an audio endpoint whose position follows the fake clock.
type fakeOutput struct {
	mu      sync.Mutex
	j       *journal
	clock   *fakeClock
	events  chan audio.Event
	seq     uint64
	track   audio.Track
	at      time.Duration // position at startedAt
	started time.Duration
	playing bool
	avail   bool
	next    audio.Track // prepared
	nextSrc audio.Source
	path    string  // of the track playing
	gainDB  float64 // of the track playing, as Play got it
}

func newFakeOutput(j *journal, c *fakeClock) *fakeOutput {
	return &fakeOutput{j: j, clock: c, events: make(chan audio.Event), avail: true}
}

func (o *fakeOutput) Play(src audio.Source, at time.Duration) audio.Track {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seq++
	o.track = audio.Track{ID: src.ID, Seq: o.seq}
	o.at, o.started, o.playing = at, o.clock.Now(), true
	o.next, o.path, o.gainDB = audio.Track{}, src.Path, src.GainDB
	o.j.add(fmt.Sprintf("play %s@%d", src.ID, at.Milliseconds()))
	if src.Open != nil {
		opens(src) // the real output opens what it plays at once
	}
	return o.track
}
func (o *fakeOutput) PrepareNext(src audio.Source) audio.Track {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seq++
	o.next, o.nextSrc = audio.Track{ID: src.ID, Seq: o.seq}, src
	o.j.add("prepare " + src.ID)
	return o.next
}
func (o *fakeOutput) ClearNext() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.next, o.nextSrc = audio.Track{}, audio.Source{}
	o.j.add("clear next")
}

// started is the Started event of the track playing.
func (o *fakeOutput) startedEv() audio.Started {
	o.mu.Lock()
	defer o.mu.Unlock()
	return audio.Started{Track: o.track, At: o.at}
}

// end plays the current track to its end as the mixer does: Finished, then
// the prepared track starts without a gap (a track that fails to open
// leaves silence).
func (o *fakeOutput) end() []audio.Event {
	o.mu.Lock()
	defer o.mu.Unlock()
	evs := []audio.Event{audio.Finished{Track: o.track}}
	o.track, o.at, o.started = o.next, 0, o.clock.Now()
	o.path = o.nextSrc.Path
	switch {
	case o.next.Seq == 0:
		o.playing = false
	case o.nextSrc.Open != nil && !opens(o.nextSrc):
		o.track, o.playing, o.path = audio.Track{}, false, ""
	default:
		evs = append(evs, audio.Started{Track: o.next})
	}
	o.next, o.nextSrc = audio.Track{}, audio.Source{}
	return evs
}

// opens reports whether src opens (as the real output's stream would).
func opens(src audio.Source) bool {
	f, err := src.Open()
	if err == nil {
		_ = f.Close()
	}
	return err == nil
}

func (o *fakeOutput) pos() time.Duration {
	if o.playing {
		return o.at + o.clock.Now() - o.started
	}
	return o.at
}
func (o *fakeOutput) Pause() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.at, o.playing = o.pos(), false
	o.j.add("pause")
}
func (o *fakeOutput) Resume() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.started, o.playing = o.clock.Now(), true
	o.j.add("resume")
}
func (o *fakeOutput) Stop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.track, o.playing, o.at, o.next = audio.Track{}, false, 0, audio.Track{}
	o.j.add("stop")
}
func (o *fakeOutput) Seek(d time.Duration) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.at, o.started = d, o.clock.Now()
	o.j.add(fmt.Sprintf("seek %d", d.Milliseconds()))
	return true
}
func (o *fakeOutput) SetVolume(v int) { o.j.add(fmt.Sprintf("volume %d", v)) }
func (o *fakeOutput) SetGain(t audio.Track, db float64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if t != o.track && t != o.next {
		return false
	}
	o.j.add(fmt.Sprintf("gain %s %+.2f", t.ID, db))
	return true
}
func (o *fakeOutput) Report() audio.Report {
	o.mu.Lock()
	defer o.mu.Unlock()
	return audio.Report{Available: o.avail, Playing: o.avail && o.playing, Track: o.track, Pos: o.pos()}
}
func (o *fakeOutput) Events() <-chan audio.Event { return o.events }

type fakeTransport struct {
	mu     sync.Mutex
	j      *journal
	id     engine.DeviceID
	group  string
	events chan devicesync.Event
	peers  []engine.DeviceID
	snaps  []devicesync.SnapshotReceived
	sent   []devicesync.CommandReceived
	seq    uint64
	// offline peers (presentation only, as devicesync's Online)
	offline map[engine.DeviceID]bool
	pairErr error // what Pair returns at once (nil: "fake")
	pending []devicesync.PairingRequest
}

func (t *fakeTransport) setOffline(id engine.DeviceID, off bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.offline == nil {
		t.offline = map[engine.DeviceID]bool{}
	}
	t.offline[id] = off
}

func newFakeTransport(j *journal, id engine.DeviceID, peers ...engine.DeviceID) *fakeTransport {
	return &fakeTransport{j: j, id: id, group: "grp_test", events: make(chan devicesync.Event), peers: peers}
}

func (t *fakeTransport) ID() engine.DeviceID             { return t.id }
func (t *fakeTransport) Group() string                   { return t.group }
func (t *fakeTransport) Addr() net.Addr                  { return nil }
func (t *fakeTransport) Events() <-chan devicesync.Event { return t.events }
func (t *fakeTransport) PublishSnapshot(state json.RawMessage, c engine.Coordination) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.snaps = append(t.snaps, devicesync.SnapshotReceived{From: t.id, Coordination: c, State: state})
	t.j.add("publish")
	return nil
}
func (t *fakeTransport) SendCommand(to engine.DeviceID, s engine.CommandStamp, h bool, body json.RawMessage) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	t.sent = append(t.sent, devicesync.CommandReceived{From: t.id, Target: to, Stamp: s, Handoff: h, Body: body})
	t.j.add(fmt.Sprintf("send %s handoff=%v", to, h))
	return fmt.Sprint(t.seq), nil
}
func (t *fakeTransport) Devices() []devicesync.DeviceInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []devicesync.DeviceInfo{{ID: t.id, Name: "self", Fingerprint: "fp-" + string(t.id), Self: true, Online: true}}
	for _, p := range t.peers {
		out = append(out, devicesync.DeviceInfo{ID: p, Name: string(p), Online: !t.offline[p]})
	}
	return out
}
func (t *fakeTransport) CreateInvite() (string, time.Time, error) {
	return "", time.Time{}, errors.New("fake")
}
func (t *fakeTransport) Pair(context.Context, string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pairErr != nil {
		return t.pairErr
	}
	return errors.New("fake")
}
func (t *fakeTransport) Pending() []devicesync.PairingRequest {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pending
}
func (t *fakeTransport) Accept(string, bool) error    { return nil }
func (t *fakeTransport) Deny(string) error            { return nil }
func (t *fakeTransport) Revoke(engine.DeviceID) error { return nil }
func (t *fakeTransport) Leave() error                 { return nil }

func (t *fakeTransport) lastSnap() devicesync.SnapshotReceived {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snaps[len(t.snaps)-1]
}

func (t *fakeTransport) sentCmds() []devicesync.CommandReceived {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]devicesync.CommandReceived(nil), t.sent...)
}

// rig is one device with fakes, driven by a fake clock and manual ticks.
type rig struct {
	t     testing.TB
	j     *journal
	clock *fakeClock
	store *fakeStore
	out   *fakeOutput
	tr    *fakeTransport
	ticks chan time.Time
	lib   *fakeLibrary  // nil: no library
	gl    *fakeGroupLib // nil: no group library
	app   *App
}

type barrier struct{ reply chan error }

func (b barrier) handle(a *actor) { a.answer(b.reply, nil) }

type inActor struct {
	f     func(a *actor)
	reply chan error
}

func (i inActor) handle(a *actor) { i.f(a); a.answer(i.reply, nil) }

func newRig(t *testing.T, id engine.DeviceID, opts Options, peers ...engine.DeviceID) *rig {
	return newRigTB(t, id, opts, peers...)
}

func newRigTB(t testing.TB, id engine.DeviceID, opts Options, peers ...engine.DeviceID) *rig {
	t.Helper()
	r := buildRig(t, id, peers...)
	r.start(opts)
	return r
}

// newLibRig is a rig with a fake library, its music folder /music.
func newLibRig(t *testing.T, opts Options) *rig {
	t.Helper()
	r := buildRig(t, self)
	r.lib = &fakeLibrary{j: r.j}
	opts.Music = append(opts.Music, "/music")
	r.start(opts)
	return r
}

func buildRig(t testing.TB, id engine.DeviceID, peers ...engine.DeviceID) *rig {
	j := &journal{}
	c := &fakeClock{}
	r := &rig{t: t, j: j, clock: c, store: newFakeStore(j), out: newFakeOutput(j, c),
		tr: newFakeTransport(j, id, peers...), ticks: make(chan time.Time)}
	r.store.addTrack("b3:aa", 200*time.Second)
	r.store.addTrack("b3:bb", 200*time.Second)
	r.store.addTrack("b3:cc", 200*time.Second)
	return r
}

func (r *rig) start(opts Options) { r.startWith(opts, r.store) }

// startWith starts the app with store in place of the rig's fake store.
func (r *rig) startWith(opts Options, store Store) {
	opts.Clock, opts.Ticks = r.clock, r.ticks
	deps := Deps{Store: store, Output: r.out, Transport: r.tr}
	if r.lib != nil {
		deps.Library = r.lib
	}
	if r.gl != nil {
		deps.GroupLib = r.gl
	}
	a, err := New(opts, deps)
	if err != nil {
		r.t.Fatal(err)
	}
	r.app = a
	r.t.Cleanup(func() { _ = a.Close() })
}

// sync waits until the actor handled everything sent before.
func (r *rig) sync() {
	ch := make(chan error, 1)
	if err := r.app.call(barrier{reply: ch}, ch); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) do(f func(a *actor)) {
	ch := make(chan error, 1)
	if err := r.app.call(inActor{f: f, reply: ch}, ch); err != nil {
		r.t.Fatal(err)
	}
}

// advance moves the fake clock in steps of one tick, ticking each time.
func (r *rig) advance(d time.Duration) {
	for step := DefaultTick; d > 0; d -= step {
		r.clock.add(min(step, d))
		r.tick()
	}
}

// tick delivers one tick and waits until the actor handled it, so the
// whole transition runs at the time the tick was sent for: the clock must
// not move on while the actor is still in it (a tick that read the owner
// live at its start and timed out at engine.Tick would take over as if the
// owner had been live and resume at the position extrapolated up to now).
func (r *rig) tick() {
	r.ticks <- time.Time{}
	r.sync()
}

func (r *rig) peer(ev devicesync.Event) {
	// The channel is unbuffered: the send returns once the actor took the
	// event, so no other message (a barrier, which refreshes the device
	// list the event is judged against) is handled between the test's
	// set-up and the event; the barrier after it waits for its handling.
	r.tr.events <- ev
	r.sync()
}

func (r *rig) audio(ev audio.Event) {
	r.out.events <- ev // unbuffered, as peer's
	r.sync()
}

// started tells the actor that the output took the first samples of the
// track it plays (audio.Started), as the real output does shortly after
// Play.
func (r *rig) started() { r.audio(r.out.startedEv()) }

// announce feeds a peer's snapshot with state st.
func (r *rig) announce(from engine.DeviceID, claim engine.Claim, hb uint64, playing bool, st *PlayerState) {
	var b []byte
	if st != nil {
		b, _ = json.Marshal(st)
	} else {
		b = []byte("{}")
	}
	r.peer(devicesync.SnapshotReceived{From: from, State: b, Coordination: engine.Coordination{
		Version: engine.EnvelopeVersion, Device: from, Claim: claim, Heartbeat: hb,
		Output: engine.Output{Available: true, Playing: playing}}})
}

// fakeLibrary scans and watches nothing real: tests feed watcher events and
// release scans by hand. Watch and Scan are journaled in call order.
type fakeLibrary struct {
	j        *journal
	mu       sync.Mutex
	watchers []*fakeWatcher
	gate     chan struct{} // a scan waits for it after its progress (nil: no wait)
	progress []library.Progress
	result   library.ScanResult
}

func (l *fakeLibrary) Watch(_ context.Context, roots []string) (Watcher, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := &fakeWatcher{j: l.j, events: make(chan library.Event, 16), closed: make(chan struct{})}
	l.watchers = append(l.watchers, w)
	l.j.add(fmt.Sprintf("watch %v", roots))
	return w, nil
}

func (l *fakeLibrary) Scan(ctx context.Context, roots []string, progress func(library.Progress)) (library.ScanResult, error) {
	l.mu.Lock()
	gate, ps, res := l.gate, l.progress, l.result
	l.mu.Unlock()
	l.j.add(fmt.Sprintf("scan %v", roots))
	for _, p := range ps {
		progress(p)
	}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			l.j.add("scan cancelled")
			return library.ScanResult{}, ctx.Err()
		}
	}
	return res, nil
}

// watcher returns the i-th watcher started.
func (l *fakeLibrary) watcher(i int) *fakeWatcher {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i >= len(l.watchers) {
		return nil
	}
	return l.watchers[i]
}

type fakeWatcher struct {
	j      *journal
	events chan library.Event
	closed chan struct{}
	once   sync.Once
}

func (w *fakeWatcher) Events() <-chan library.Event { return w.events }
func (w *fakeWatcher) Close() error {
	w.once.Do(func() {
		close(w.closed)
		w.j.add("watch closed")
	})
	return nil
}

// waitStatus waits (with a generous deadline) for a published status that
// satisfies cond: for effects of the library's helper goroutines.
func (r *rig) waitStatus(what string, cond func(Status) bool) Status {
	r.t.Helper()
	ch, cancel := r.app.Subscribe()
	defer cancel()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case st := <-ch:
			if cond(st) {
				return st
			}
		case <-deadline.C:
			r.t.Fatalf("timed out waiting for %s; status %+v; journal %q", what, r.app.Status(), r.j.list())
		}
	}
}
