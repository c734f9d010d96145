package grouplib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
)

// Network is the group's transport as the library needs it.
// *devicesync.Node implements it.
type Network interface {
	DialFetch(ctx context.Context, peer engine.DeviceID) (net.Conn, error)
	Devices() []devicesync.DeviceInfo
}

// OpLog carries the catalog heads: each device signs its own in an op
// of kind KindHead, which the group's log relays to every member.
// *devicesync.Node implements it.
type OpLog interface {
	AppendOp(kind string, body json.RawMessage) (devicesync.Op, error)
	AppOps() (group string, ops []devicesync.Op)
	ForgetOps(ids []string) ([]string, error)
}

// Files is this device's own library. Its methods are called from any
// goroutine.
type Files interface {
	// EachTrack calls fn with each of the library's tracks, one at a
	// time (the library is not held whole: it may hold 100,000 tracks);
	// an error of fn stops it and is returned. It gives up with ctx's
	// error once ctx is done (the library is closing).
	EachTrack(ctx context.Context, fn func(library.Track) error) error
	// File returns the path of this device's file of a content id.
	File(contentID string) (path string, ok bool)
	// Cover returns the cover art of one of this device's tracks.
	Cover(contentID string) ([]byte, error)
}

// Config configures a Library. Net, Log, Store, Files and Dir are
// required; zero values of the rest mean the documented defaults.
type Config struct {
	Self  engine.DeviceID
	Net   Network
	Log   OpLog
	Store Store
	Files Files
	// Dir is the folder of the caches (tracks and covers).
	Dir string
	// CacheLimit bounds the track cache in bytes (0: DefaultCacheLimit).
	CacheLimit int64
	// UploadsPerPeer and UploadsTotal bound concurrent uploads (0: the
	// defaults); UploadRate bounds the bytes per second sent to other
	// devices (0: no limit).
	UploadsPerPeer, UploadsTotal int
	UploadRate                   int64
	// Verify returns the content id of a file (nil: as the library scan
	// computes it).
	Verify func(path string) (string, error)
	// PublishDelay is how long a change of the own library waits before it
	// is published, so a scan or a copy publishes once (0: 2 s).
	PublishDelay time.Duration
	// Stall is the stall timeout of fetches (0: StallTimeout).
	Stall  time.Duration
	Logger *slog.Logger
}

// Change says what changed (a bit set).
type Change uint8

// Kinds of change.
const (
	ChangeCatalog Change = 1 << iota // the union: tracks or holders
	ChangeOnline                     // which holders can be reached
	ChangeCache                      // what is cached
)

const (
	changeCatalog = ChangeCatalog
	changeOnline  = ChangeOnline
	changeCache   = ChangeCache
)

// Library is the group library of one device: it publishes this device's
// catalog, keeps the other devices' (verified against their signed heads)
// and their union, serves this device's files to the group, and fetches
// and caches the tracks this device lacks. Its methods are safe for
// concurrent use.
type Library struct {
	cfg    Config
	self   engine.DeviceID
	log    *slog.Logger
	cache  *Cache
	covers string // folder of fetched covers
	cl     *client
	srv    *server
	verify func(string) (string, error)

	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	wake     chan struct{}
	notes    chan struct{}
	noted    atomic.Uint32 // Change bits waiting for onChange
	onChange atomic.Pointer[func(Change)]

	mu       sync.RWMutex
	catalogs map[engine.DeviceID]*Catalog // this device's too
	union    *Union
	heads    map[engine.DeviceID]headOp // newest head op of each origin, in the current group
	group    string
	members  map[engine.DeviceID]bool
	online   map[engine.DeviceID]bool
	stale    []string // head op ids superseded: to forget
	regroup  bool     // ops of another group arrived: read the log again
	dirty    bool     // the own library changed and is not published yet
	dirtyAt  time.Time
	retryAt  map[engine.DeviceID]time.Time // catalog syncs in backoff
	retryN   map[engine.DeviceID]int
	// version is the union's, moved on every change under mu; Version
	// reads it without mu, which the stored catalogs' load holds for a
	// second or more at launch while every status asks for it.
	version atomic.Uint64
	loadErr error // why the stored catalogs could not be read (load, loadOwn)
	ownLoad sync.Once

	dmu       sync.Mutex
	downloads map[string]*download
	retiring  map[*download]bool // replaced downloads that still have readers
	pins      map[string]bool

	smu   sync.Mutex // leaf lock: holder statistics and bars
	stats map[engine.DeviceID]int
	bars  map[string]map[engine.DeviceID]time.Time // content id → holders barred until

	c counters
}

type headOp struct {
	id   string
	seq  uint64
	head Head
}

type counters struct {
	served, servedBytes, fetchedBytes, wireBytes, mismatches, stalls, holderErrors atomic.Uint64
	busy, notHere, catalogSyncs, catalogBytes, badCatalogs                         atomic.Uint64
}

// Counters are totals for tests, benchmarks and status.
type Counters struct {
	Served       uint64 // ranges sent to other devices
	ServedBytes  uint64
	FetchedBytes uint64 // track bytes received
	WireBytes    uint64 // all bytes read on fetch connections
	Mismatches   uint64 // fetched files refused: not their content id
	Stalls       uint64 // holders that stopped sending
	HolderErrors uint64 // failed fetches of any kind
	Busy         uint64 // requests this device answered "busy"
	NotHere      uint64 // requests this device answered "not here"
	CatalogSyncs uint64 // catalogs received and verified
	CatalogBytes uint64 // compressed catalog bytes received
	BadCatalogs  uint64 // catalogs refused: malformed or not matching their head
}

// Counters returns the totals so far.
func (l *Library) Counters() Counters {
	return Counters{Served: l.c.served.Load(), ServedBytes: l.c.servedBytes.Load(), FetchedBytes: l.c.fetchedBytes.Load(),
		WireBytes: l.c.wireBytes.Load(), Mismatches: l.c.mismatches.Load(), Stalls: l.c.stalls.Load(),
		HolderErrors: l.c.holderErrors.Load(), Busy: l.c.busy.Load(), NotHere: l.c.notHere.Load(),
		CatalogSyncs: l.c.catalogSyncs.Load(), CatalogBytes: l.c.catalogBytes.Load(), BadCatalogs: l.c.badCatalogs.Load()}
}

// New checks cfg, opens the caches and loads the stored catalogs. Call
// Start, then Close.
func New(cfg Config) (*Library, error) {
	switch {
	case cfg.Net == nil || cfg.Log == nil || cfg.Store == nil || cfg.Files == nil:
		return nil, errors.New("grouplib: Config needs Net, Log, Store and Files")
	case cfg.Dir == "":
		return nil, errors.New("grouplib: Config.Dir is empty")
	case !devicesync.ValidDeviceID(cfg.Self):
		return nil, fmt.Errorf("grouplib: Config.Self %q is not a device id", cfg.Self)
	case cfg.UploadsPerPeer < 0 || cfg.UploadsTotal < 0 || cfg.UploadRate < 0:
		return nil, fmt.Errorf("grouplib: upload limits %d per device, %d in all, %d B/s", cfg.UploadsPerPeer, cfg.UploadsTotal, cfg.UploadRate)
	}
	if cfg.CacheLimit == 0 {
		cfg.CacheLimit = DefaultCacheLimit
	}
	if cfg.PublishDelay == 0 {
		cfg.PublishDelay = 2 * time.Second
	}
	if cfg.Stall == 0 {
		cfg.Stall = StallTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Verify == nil {
		cfg.Verify = verifyFile
	}
	cache, err := OpenCache(filepath.Join(cfg.Dir, "tracks"), cfg.CacheLimit)
	if err != nil {
		return nil, err
	}
	covers := filepath.Join(cfg.Dir, "covers")
	if err := os.MkdirAll(covers, 0o700); err != nil {
		return nil, fmt.Errorf("grouplib: covers folder: %w", err)
	}
	l := &Library{cfg: cfg, self: cfg.Self, log: cfg.Logger, cache: cache, covers: covers, verify: cfg.Verify,
		wake: make(chan struct{}, 1), notes: make(chan struct{}, 1),
		catalogs: map[engine.DeviceID]*Catalog{}, union: NewUnion(), heads: map[engine.DeviceID]headOp{},
		members: map[engine.DeviceID]bool{}, online: map[engine.DeviceID]bool{},
		retryAt: map[engine.DeviceID]time.Time{}, retryN: map[engine.DeviceID]int{},
		downloads: map[string]*download{}, retiring: map[*download]bool{}, pins: map[string]bool{},
		stats: map[engine.DeviceID]int{}, bars: map[string]map[engine.DeviceID]time.Time{}}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.cl = newClient(cfg.Net.DialFetch, cfg.Stall, &l.c.wireBytes)
	l.srv = &server{l: l, perPeer: cfg.UploadsPerPeer, total: cfg.UploadsTotal, uploads: map[engine.DeviceID]int{}, rate: &uploadRate{}}
	if l.srv.perPeer == 0 {
		l.srv.perPeer = DefaultUploadsPerPeer
	}
	if l.srv.total == 0 {
		l.srv.total = DefaultUploadsTotal
	}
	l.srv.rate.set(cfg.UploadRate)
	// The other devices' stored catalogs are read beside the caller's own
	// start, a window's first list: every reader of the catalogs waits
	// for them on l.mu, held until they are in. This device's own (it
	// lists every track: 100,000 items took a second of CPU to read and
	// restore, as long as the window's own read of its list) is read by
	// the first syncOnce, after Start, which a window calls once its list
	// is shown (issue 37); until then it is nil: fetchers of it are told
	// to ask again (catalogDelta).
	l.mu.Lock()
	go l.load()
	return l, nil
}

// load reads the other devices' stored catalogs; New locked l.mu for it.
// Where they cannot be read the library holds none and publishes nothing
// (that would replace what is stored), and says why.
func (l *Library) load() {
	defer l.mu.Unlock()
	stored, err := l.cfg.Store.LoadCatalogs(l.self)
	if err != nil {
		l.loadFailed(err)
		return
	}
	for _, sc := range stored {
		if sc.Origin == l.self {
			continue // read by loadOwn
		}
		c, err := Restore(sc.Origin, sc.Version, sc.Floor, sc.Items, sc.Gone)
		if err != nil {
			l.log.Warn("grouplib: a stored catalog is damaged: fetched again", "device", string(sc.Origin), "err", err)
			continue
		}
		l.union.Follow(nil, c, Delta{})
		l.catalogs[sc.Origin] = c
	}
	l.dirty = true // compare the library with the stored catalog once
}

// loadFailed keeps why the stored catalogs could not be read: this
// device's catalog is never published over them. l.mu held.
func (l *Library) loadFailed(err error) {
	l.log.Error("grouplib: the stored catalogs could not be read: this device's is not published this time", "err", err)
	l.catalogs[l.self] = NewCatalog(l.self).Lean()
	l.loadErr = err
}

// loadOwn reads this device's stored catalog, once, before the first
// publication (syncOnce); without l.mu while it reads.
func (l *Library) loadOwn() {
	sc, ok, err := l.cfg.Store.LoadCatalog(l.self)
	c := NewCatalog(l.self).Lean()
	if err == nil && ok {
		if r, rerr := Restore(sc.Origin, sc.Version, sc.Floor, sc.Items, sc.Gone); rerr != nil {
			l.log.Warn("grouplib: this device's stored catalog is damaged: published anew", "err", rerr)
		} else {
			c = r.Lean()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err != nil:
		l.loadFailed(err)
	case l.catalogs[l.self] == nil: // load failed: it stays empty
		l.catalogs[l.self] = c
	}
}

// verifyFile is the content id of a file as the library scan computes it.
func verifyFile(path string) (string, error) {
	t, err := library.AnalyzeFile(path, filepath.Dir(path))
	if err != nil {
		return "", err
	}
	return t.ContentID, nil
}

// OnChange sets the function called, on a goroutine of the library's,
// after the union (what the group holds), the holders' reachability or
// the cache changed. It may block; changes meanwhile are merged.
func (l *Library) OnChange(f func(Change)) { l.onChange.Store(&f) }

// Start runs the library: its catalog publisher and syncer.
func (l *Library) Start() {
	l.wg.Add(2)
	go l.syncLoop()
	go l.notifyLoop()
	l.Refresh()
}

// Close stops the library: fetches end, readers get ErrClosed. It does
// not close the network.
func (l *Library) Close() error {
	l.cancel()
	l.cl.close()
	l.dmu.Lock()
	ds := make([]*download, 0, len(l.downloads)+len(l.retiring))
	for _, d := range l.downloads {
		ds = append(ds, d)
	}
	for d := range l.retiring {
		ds = append(ds, d)
	}
	l.dmu.Unlock()
	for _, d := range ds {
		d.mu.Lock()
		if d.err == nil {
			d.err = ErrClosed
		}
		d.changedLocked()
		d.mu.Unlock()
	}
	l.wg.Wait()
	for _, d := range ds {
		d.cleanup()
	}
	return nil
}

// Refresh makes the library look again at the group: who is a member and
// online, the heads in the log. Call it after the transport reported a
// change (a peer online or offline, the group changed, ops added).
func (l *Library) Refresh() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// PeerOffline drops the connections to a device that went offline, so
// fetches from it fail over at once.
func (l *Library) PeerOffline(id engine.DeviceID) {
	l.mu.Lock()
	was := l.online[id]
	delete(l.online, id)
	l.mu.Unlock()
	l.cl.drop(id)
	if was {
		l.notify(changeOnline)
	}
	l.Refresh()
}

// LocalChanged says this device's library changed: the catalog is
// published again after the publish delay.
func (l *Library) LocalChanged() {
	l.mu.Lock()
	if !l.dirty {
		l.dirty, l.dirtyAt = true, time.Now()
	}
	l.mu.Unlock()
	l.Refresh()
}

// OpsAdded hands the library the application ops a transport added: the
// catalog heads among them.
func (l *Library) OpsAdded(group string, ops []devicesync.Op) {
	l.mu.Lock()
	changed := group == l.group && l.takeHeadsLocked(ops)
	if group != l.group {
		l.regroup, changed = true, true
	}
	l.mu.Unlock()
	if changed {
		l.Refresh()
	}
}

// takeHeadsLocked keeps the newest head of each origin among ops.
func (l *Library) takeHeadsLocked(ops []devicesync.Op) bool {
	changed := false
	for _, o := range ops {
		if o.Kind != KindHead {
			continue
		}
		var h Head
		if json.Unmarshal(o.Body, &h) != nil || h.Count < 0 || h.Count > MaxCatalogItems || len(h.Digest) != 64 {
			continue
		}
		old, ok := l.heads[o.Origin]
		if ok && old.seq >= o.Seq {
			if old.id != o.ID {
				l.stale = append(l.stale, o.ID)
			}
			continue
		}
		if ok {
			l.stale = append(l.stale, old.id)
		}
		l.heads[o.Origin] = headOp{id: o.ID, seq: o.Seq, head: h}
		changed = true
	}
	return changed
}

func (l *Library) notify(c Change) {
	l.noted.Or(uint32(c))
	select {
	case l.notes <- struct{}{}:
	default:
	}
}

func (l *Library) notifyLoop() {
	defer l.wg.Done()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-l.notes:
		}
		if c := Change(l.noted.Swap(0)); c != 0 {
			if f := l.onChange.Load(); f != nil {
				(*f)(c)
			}
		}
	}
}

// syncInterval is how often the syncer looks without being woken: the
// online flags age without an event.
const syncInterval = 5 * time.Second

// syncLoop publishes this device's catalog, follows the group and fetches
// the catalogs that changed.
func (l *Library) syncLoop() {
	defer l.wg.Done()
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-l.wake:
		case <-t.C:
		}
		next := l.syncOnce()
		t.Reset(min(next, syncInterval))
	}
}

// syncOnce does what is due and returns how soon to look again.
func (l *Library) syncOnce() time.Duration {
	l.ownLoad.Do(l.loadOwn)
	next := syncInterval
	l.followGroup()
	l.mu.Lock()
	publish := l.dirty && l.loadErr == nil && time.Since(l.dirtyAt) >= l.cfg.PublishDelay
	if l.dirty && !publish && l.loadErr == nil {
		next = min(next, l.cfg.PublishDelay-time.Since(l.dirtyAt))
	}
	l.mu.Unlock()
	if publish {
		if err := l.publishOwn(); err != nil && l.ctx.Err() == nil {
			l.log.Warn("grouplib: publishing this device's catalog", "err", err)
			next = min(next, time.Second)
		}
	}
	l.ensureOwnHead()
	if d := l.syncRemotes(); d > 0 {
		next = min(next, d)
	}
	l.forgetStale()
	return max(next, 10*time.Millisecond)
}

// followGroup reads membership and reachability from the transport,
// re-reads the heads after a change of group, and drops the catalogs of
// devices that left.
func (l *Library) followGroup() {
	devs := l.cfg.Net.Devices()
	group, ops := "", []devicesync.Op(nil)
	l.mu.Lock()
	regroup := l.group == "" || l.regroup
	l.regroup = false
	l.mu.Unlock()
	if regroup || !l.sameMembers(devs) {
		group, ops = l.cfg.Log.AppOps()
	}
	var dropped []*Catalog
	l.mu.Lock()
	if group != "" && group != l.group {
		l.group = group
		clear(l.heads)
		l.stale = nil
	}
	if ops != nil {
		l.takeHeadsLocked(ops)
	}
	members, online := map[engine.DeviceID]bool{}, map[engine.DeviceID]bool{}
	for _, d := range devs {
		if d.Self {
			continue
		}
		members[d.ID] = true
		if d.Online && !d.Relayed {
			online[d.ID] = true
		}
	}
	onlineChanged := !mapsEqual(online, l.online)
	l.members, l.online = members, online
	for origin, c := range l.catalogs {
		if origin != l.self && !members[origin] && len(devs) > 0 {
			delete(l.catalogs, origin)
			delete(l.heads, origin)
			l.union.Follow(c, nil, Delta{})
			dropped = append(dropped, c)
		}
	}
	if len(dropped) > 0 {
		l.version.Add(1)
	}
	l.mu.Unlock()
	for _, c := range dropped {
		if err := l.cfg.Store.DeleteCatalog(c.Origin); err != nil {
			l.log.Warn("grouplib: forgetting a catalog", "device", string(c.Origin), "err", err)
		}
		l.log.Info("grouplib: forgot the catalog of a device that left the group", "device", string(c.Origin), "tracks", c.Len())
	}
	if len(dropped) > 0 {
		l.notify(changeCatalog)
	}
	if onlineChanged {
		l.notify(changeOnline)
	}
}

// sameMembers reports whether devs lists the members this library knows.
func (l *Library) sameMembers(devs []devicesync.DeviceInfo) bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	n := 0
	for _, d := range devs {
		if !d.Self {
			if !l.members[d.ID] {
				return false
			}
			n++
		}
	}
	return n == len(l.members)
}

func mapsEqual(a, b map[engine.DeviceID]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// publishOwn makes the own catalog the library's tracks now, stores what
// changed and signs the new head. Closing the library stops it between
// its steps (reading 100,000 tracks, comparing, storing take a while):
// nothing is stored then, and the next launch publishes again.
func (l *Library) publishOwn() error {
	l.mu.Lock()
	l.dirty = false
	l.mu.Unlock()
	entries, err := ownEntries(l.ctx, l.cfg.Files)
	if err == nil {
		err = l.ctx.Err()
	}
	if err != nil {
		l.LocalChanged()
		return err
	}
	l.mu.RLock()
	next := l.catalogs[l.self].Clone()
	l.mu.RUnlock()
	d, err := next.Publish(entries)
	if err != nil {
		return err
	}
	if d.Empty() {
		return nil
	}
	if err := l.cfg.Store.SaveDelta(l.ctx, d, next.Floor); err != nil {
		return fmt.Errorf("grouplib: store this device's catalog: %w", err)
	}
	l.mu.Lock()
	l.catalogs[l.self] = next
	l.mu.Unlock()
	l.log.Info("grouplib: this device's catalog changed", "version", next.Version, "tracks", next.Len(),
		"changed", len(d.Items), "removed", len(d.Gone))
	return nil
}

// ownEntries reads this device's library a track at a time into the
// entries of its catalog, in the order read: of several files of one
// recording, the first valid one by path is the one published. Only the
// entries and their paths are kept while reading, not the tracks
// (100,000 of them, read whole beside the window's own catalog, were the
// window's highest memory; issue 37).
func ownEntries(ctx context.Context, files Files) ([]Entry, error) {
	var entries []Entry
	var paths []string
	at := map[string]int{} // index in entries, by content id
	err := files.EachTrack(ctx, func(t library.Track) error {
		if !ValidContentID(t.ContentID) || Ext(t.Format) == "" {
			return nil
		}
		i, dup := at[t.ContentID]
		if dup && paths[i] <= t.Path {
			return nil
		}
		e := EntryOf(t)
		if e.validate() != nil {
			return nil
		}
		if dup {
			entries[i], paths[i] = e, t.Path
			return nil
		}
		at[t.ContentID] = len(entries)
		entries, paths = append(entries, e), append(paths, t.Path)
		return nil
	})
	return entries, err
}

// ensureOwnHead signs the own catalog's head into the log when the log's
// newest head of this device says something else (after a publish, a
// restart between the two, or in a group just joined).
func (l *Library) ensureOwnHead() {
	l.mu.RLock()
	own := l.catalogs[l.self]
	h := own.Head()
	cur, ok := l.heads[l.self]
	l.mu.RUnlock()
	if ok && cur.head == h || own.Version == 0 {
		return
	}
	b, _ := json.Marshal(h)
	op, err := l.cfg.Log.AppendOp(KindHead, b)
	if err != nil {
		l.log.Warn("grouplib: signing this device's catalog head", "err", err)
		return
	}
	l.mu.Lock()
	l.takeHeadsLocked([]devicesync.Op{op})
	l.mu.Unlock()
}

// forgetStale drops superseded heads from the log.
func (l *Library) forgetStale() {
	l.mu.Lock()
	ids := l.stale
	if len(ids) < 8 {
		l.mu.Unlock()
		return
	}
	l.stale = nil
	l.mu.Unlock()
	if _, err := l.cfg.Log.ForgetOps(ids); err != nil {
		l.log.Debug("grouplib: forgetting old catalog heads", "err", err)
	}
}

// catalogTimeout bounds one catalog fetch.
const catalogTimeout = 2 * time.Minute

// syncRemotes fetches the catalogs whose heads say more than what is
// held, from the device itself or any online member that holds them. It
// returns when to try again (0: nothing waits).
func (l *Library) syncRemotes() time.Duration {
	type job struct {
		origin engine.DeviceID
		head   Head
		have   *Catalog
	}
	var jobs []job
	var wait time.Duration
	now := time.Now()
	l.mu.RLock()
	for origin, h := range l.heads {
		if origin == l.self || !l.members[origin] {
			continue
		}
		c := l.catalogs[origin]
		if c != nil && (c.Version > h.head.Version || c.Matches(h.head)) {
			continue
		}
		if at := l.retryAt[origin]; now.Before(at) {
			if d := at.Sub(now); wait == 0 || d < wait {
				wait = d
			}
			continue
		}
		jobs = append(jobs, job{origin, h.head, c})
	}
	l.mu.RUnlock()
	slices.SortFunc(jobs, func(a, b job) int { return strings.Compare(string(a.origin), string(b.origin)) })
	for _, j := range jobs {
		if l.ctx.Err() != nil {
			return 0
		}
		if err := l.syncCatalog(j.origin, j.head, j.have); err != nil {
			l.mu.Lock()
			l.retryN[j.origin]++
			d := min(time.Second<<min(l.retryN[j.origin]-1, 6), time.Minute)
			l.retryAt[j.origin] = time.Now().Add(d)
			l.mu.Unlock()
			if wait == 0 || d < wait {
				wait = d
			}
			l.log.Debug("grouplib: catalog not fetched", "device", string(j.origin), "err", err, "retry", d)
		} else {
			l.mu.Lock()
			delete(l.retryN, j.origin)
			delete(l.retryAt, j.origin)
			l.mu.Unlock()
		}
	}
	return wait
}

// syncCatalog fetches origin's catalog at head from the online devices
// that may hold it: origin first, then the others by id.
func (l *Library) syncCatalog(origin engine.DeviceID, head Head, have *Catalog) error {
	l.mu.RLock()
	var sources []engine.DeviceID
	if l.online[origin] {
		sources = append(sources, origin)
	}
	for id := range l.online {
		if id != origin {
			sources = append(sources, id)
		}
	}
	l.mu.RUnlock()
	slices.SortFunc(sources[min(1, len(sources)):], func(a, b engine.DeviceID) int { return strings.Compare(string(a), string(b)) })
	if len(sources) == 0 {
		return errors.New("no device online")
	}
	var errs []error
	for _, src := range sources {
		err := l.syncFrom(src, origin, head, have)
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", src, err))
		if l.ctx.Err() != nil {
			break
		}
	}
	return errors.Join(errs...)
}

// syncFrom fetches origin's catalog from src: what changed since the
// version held, or the whole of it when that does not give the head's
// digest.
func (l *Library) syncFrom(src, origin engine.DeviceID, head Head, have *Catalog) error {
	since := uint64(0)
	if have != nil {
		since = have.Version
	}
	for {
		next, d, err := l.fetchCatalog(src, origin, head, have, since)
		if err != nil {
			return err
		}
		if !next.Matches(head) {
			l.c.badCatalogs.Add(1)
			if since != 0 {
				since = 0 // our copy may have drifted: take the whole catalog
				continue
			}
			return fmt.Errorf("%w (from %s)", ErrDigest, src)
		}
		if err := l.cfg.Store.SaveDelta(l.ctx, d, next.Floor); err != nil {
			return fmt.Errorf("grouplib: store the catalog of %s: %w", origin, err)
		}
		l.mu.Lock()
		old := l.catalogs[origin]
		if !l.members[origin] || old != have && old != nil && old.Version >= next.Version {
			l.mu.Unlock()
			return nil // left the group meanwhile, or someone was faster
		}
		l.catalogs[origin] = next
		l.union.Follow(old, next, d)
		l.version.Add(1)
		l.mu.Unlock()
		l.c.catalogSyncs.Add(1)
		l.log.Info("grouplib: catalog received", "device", string(origin), "from", string(src), "version", next.Version,
			"tracks", next.Len(), "changed", len(d.Items), "removed", len(d.Gone), "full", d.Full)
		l.notify(changeCatalog)
		return nil
	}
}

func (l *Library) fetchCatalog(src, origin engine.DeviceID, head Head, have *Catalog, since uint64) (*Catalog, Delta, error) {
	ctx, cancel := context.WithTimeout(l.ctx, catalogTimeout)
	defer cancel()
	var d Delta
	err := l.cl.do(ctx, src, request{Op: opCatalog, Origin: origin, Since: since, Want: head.Version}, func(r response, body io.Reader) error {
		if r.Len > maxCatalogBytes {
			return fmt.Errorf("%w: catalog of %d bytes", errProtocol, r.Len)
		}
		l.c.catalogBytes.Add(uint64(r.Len))
		var err error
		d, err = decodeDelta(body, origin)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, body)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrBadEntry) || errors.Is(err, errProtocol) {
			l.c.badCatalogs.Add(1)
		}
		return nil, Delta{}, err
	}
	next := NewCatalog(origin)
	if have != nil && !d.Full {
		next = have.Clone()
	}
	if err := next.Apply(d); err != nil {
		l.c.badCatalogs.Add(1)
		return nil, Delta{}, err
	}
	return next, d, nil
}

// holdings are the devices whose catalogs list id.
func (l *Library) holdings(id string) []Holding {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.union.Holders(id)
}

func (l *Library) isOnline(id engine.DeviceID) bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.online[id]
}

// failures, succeeded and failed keep each holder's recent failures across
// downloads.
func (l *Library) failures(id engine.DeviceID) int {
	l.smu.Lock()
	defer l.smu.Unlock()
	return l.stats[id]
}

func (l *Library) succeeded(id engine.DeviceID) {
	l.smu.Lock()
	delete(l.stats, id)
	l.smu.Unlock()
}

func (l *Library) failed(id engine.DeviceID) {
	l.smu.Lock()
	l.stats[id] = min(l.stats[id]+1, 100)
	l.smu.Unlock()
}

// barTime is how long a holder whose bytes did not match a track is not
// asked for it again.
const barTime = 30 * time.Minute

func (l *Library) bar(id string, dev engine.DeviceID) {
	l.smu.Lock()
	defer l.smu.Unlock()
	if l.bars[id] == nil {
		if len(l.bars) > 10_000 {
			clear(l.bars)
		}
		l.bars[id] = map[engine.DeviceID]time.Time{}
	}
	l.bars[id][dev] = time.Now().Add(barTime)
}

func (l *Library) barred(id string, dev engine.DeviceID, now time.Time) bool {
	l.smu.Lock()
	defer l.smu.Unlock()
	return now.Before(l.bars[id][dev])
}
