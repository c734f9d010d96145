package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/grouplib"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/queue"
	"github.com/furudesk/furudesk/storage"
)

// Defaults of Options.
const (
	DefaultTick           = 250 * time.Millisecond
	DefaultHeartbeatEvery = 500 * time.Millisecond
	// DefaultPersistEvery is how often the owner saves the playing
	// position, without a disk flush (a kill -9 keeps it, a power cut may
	// not): a restart resumes within that of where it was.
	DefaultPersistEvery = 10 * time.Second
	// PendingHold is how long a controller ignores owner snapshots that do
	// not yet reflect its latest command, so the UI does not jump back.
	PendingHold = queue.PendingHold
	// CallTimeout bounds every App method's wait for the actor.
	CallTimeout = 10 * time.Second
	// MaxNotices is how many recent notices Status keeps.
	MaxNotices = 20
)

// Errors of the App methods.
var (
	ErrClosed  = errors.New("app: furudesk is shutting down")
	ErrTimeout = errors.New("app: furudesk did not answer in time")
)

// Options configure one device's App.
type Options struct {
	DataDir string
	Listen  string
	Peers   []string
	Music   []string // music folders to add at launch (kept if already known)
	Passive bool     // always-on profile: never claims by itself
	Box     bool     // no window (--headless): the group shows it as a box, not a computer
	Name    string   // device name to set at launch ("" keeps the stored one)
	// Config replaces the stored playback config at launch (tests, --config-json).
	Config *engine.Config

	// Clock is the monotonic clock of the engine and the actor; nil is the
	// process's monotonic clock.
	Clock engine.Clock
	// Ticks drives Tick; nil is a real ticker of TickInterval.
	Ticks          <-chan time.Time
	TickInterval   time.Duration // 0: DefaultTick
	HeartbeatEvery time.Duration // 0: DefaultHeartbeatEvery
	PersistEvery   time.Duration // position persistence while playing; 0: DefaultPersistEvery
	Logger         *slog.Logger
	// HoldLaunchScan, when positive, holds the launch's rescan of the
	// music folders (and their watch) until LibraryShown is called, or
	// this long at the latest: a window lists what the database knows
	// first, with the machine's cores to itself (a 100,000-track
	// library's list waited 10-16 s behind the rescan on 2 cores), and
	// the rescan updates it afterwards. 0 starts the rescan at once.
	HoldLaunchScan time.Duration
}

// Deps are the adapters the actor drives. Output and Library may be nil
// (no local audio endpoint; no scanning). OpLog carries playlists, likes
// and listens; nil takes the Transport when it is one, else the device has
// none.
type Deps struct {
	Store     Store
	Output    Output
	Transport Transport
	Library   Library
	OpLog     OpLog
	// GroupLib is the group library: the union of the group's libraries,
	// and the tracks this device lacks fetched from the devices that have
	// them. nil: this device plays its own files only.
	GroupLib GroupLibrary
	// PortMap maps this device's port on the router when the user turns
	// it on (outside.go); nil: this device cannot.
	PortMap PortMapper
}

// Invite is a pairing code for another device to join this group.
type Invite struct {
	Code    string    `json:"code"`
	Expires time.Time `json:"expires"`
}

// App is one running furudesk device. Its methods are safe from any
// goroutine: each sends a typed message to the actor and waits for its
// answer for at most CallTimeout.
type App struct {
	inbox  chan intent
	quit   chan struct{}
	done   chan struct{}
	status atomic.Pointer[Status]

	mu   sync.Mutex
	subs map[int]chan Status
	next int

	closeOnce sync.Once
	tr        Transport
	store     Store
	pm        PortMapper
	// catalog is the store without the loose tracks (openfiles.go).
	catalog Store
	loose   *looseTracks
	opts    Options
	actor   *actor
	// collection is the group's playlists, likes and history; nil without
	// an OpLog.
	collection *collection
	gl         GroupLibrary // nil: none
	// opsWatch, when set, hears every application op the log adds.
	opsWatch atomic.Pointer[func(group string, ops []devicesync.Op)]
}

// WatchOps has fn told of the application ops the group's log adds, from
// any device (this one's included), as the actor hears of them; fn runs
// on the actor's goroutine and must not block or call the App. Front ends
// that keep state of their own in the log (the web player's browsers)
// use it.
func (a *App) WatchOps(fn func(group string, ops []devicesync.Op)) {
	a.opsWatch.Store(&fn)
}

type monoClock struct{ start time.Time }

func (c monoClock) Now() time.Duration { return time.Since(c.start) }

// New restores the device's state, builds the engine and starts the actor.
// The transport must already be started (its group loaded). Call Close to
// stop it.
func New(opts Options, deps Deps) (*App, error) {
	if deps.Store == nil || deps.Transport == nil {
		return nil, errors.New("app: a store and a transport are required")
	}
	if opts.Clock == nil {
		opts.Clock = monoClock{start: time.Now()}
	}
	if opts.TickInterval <= 0 {
		opts.TickInterval = DefaultTick
	}
	if opts.HeartbeatEvery <= 0 {
		opts.HeartbeatEvery = DefaultHeartbeatEvery
	}
	if opts.PersistEvery <= 0 {
		opts.PersistEvery = DefaultPersistEvery
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	loose := newLooseTracks()
	catalog := deps.Store
	deps.Store = looseStore{Store: catalog, loose: loose}
	a := &App{
		catalog: catalog,
		loose:   loose,
		inbox:   make(chan intent, 64),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
		subs:    map[int]chan Status{},
		tr:      deps.Transport,
		store:   deps.Store,
		pm:      deps.PortMap,
		opts:    opts,
		gl:      deps.GroupLib,
	}
	if deps.OpLog == nil {
		deps.OpLog, _ = deps.Transport.(OpLog)
	}
	if deps.OpLog != nil {
		a.collection = newCollection(deps.OpLog, deps.Store, string(deps.Transport.ID()), opts.Logger)
	}
	ac, err := newActor(a, opts, deps)
	if err != nil {
		return nil, err
	}
	a.actor = ac
	ac.publishStatus()
	var ticks <-chan time.Time
	var stop func()
	if opts.Ticks != nil {
		ticks, stop = opts.Ticks, func() {}
	} else {
		t := time.NewTicker(opts.TickInterval)
		ticks, stop = t.C, t.Stop
	}
	go func() {
		defer close(a.done)
		defer stop()
		ac.loop(ticks)
	}()
	if c := a.collection; c != nil {
		go c.run(a.quit, func() { a.post(refreshIntent{}) })
	}
	if a.pm != nil {
		a.pm.OnChange(func() { a.post(refreshIntent{}) }) // what the router answered, in Status.Reach
	}
	if opts.HoldLaunchScan > 0 {
		time.AfterFunc(opts.HoldLaunchScan, a.LibraryShown)
	}
	if a.gl != nil {
		a.gl.OnChange(func(c grouplib.Change) { a.post(groupLibChanged{c}) })
	}
	a.restoreLoose() // openfiles.go
	return a, nil
}

// Close stops the actor after persisting the current position. It does
// not close the store, output or transport: their owner does.
func (a *App) Close() error {
	a.closeOnce.Do(func() { close(a.quit) })
	<-a.done
	if a.collection != nil {
		<-a.collection.stopped
	}
	return nil
}

// DataDir is the data dir of this device (Options.DataDir).
func (a *App) DataDir() string { return a.opts.DataDir }

// Done is closed when the actor has stopped.
func (a *App) Done() <-chan struct{} { return a.done }

// call sends in to the actor and waits for its answer.
func (a *App) call(in intent, reply chan error) error {
	t := time.NewTimer(CallTimeout)
	defer t.Stop()
	select {
	case a.inbox <- in:
	case <-a.done:
		return ErrClosed
	case <-t.C:
		return ErrTimeout
	}
	select {
	case err := <-reply:
		return err
	case <-a.done:
		return ErrClosed
	case <-t.C:
		return ErrTimeout
	}
}

// post sends in without waiting for an answer (events from helper
// goroutines); it gives up when the actor stopped.
func (a *App) post(in intent) {
	select {
	case a.inbox <- in:
	case <-a.done:
	}
}

func (a *App) control(c Control) error {
	r := make(chan error, 1)
	return a.call(controlIntent{c: c, reply: r}, r)
}

// Status returns the latest published status (a cheap copy).
func (a *App) Status() Status {
	if s := a.status.Load(); s != nil {
		return *s
	}
	return Status{}
}

// Subscribe returns a latest-value channel of Status: a newer status
// replaces one not read yet. A status is sent when it shows something new
// (see publishStatus): not for the position moving on while the music
// plays, which a front end extrapolates, nor for OwnerHeard alone; Status
// has those. cancel ends the subscription.
func (a *App) Subscribe() (<-chan Status, func()) {
	ch := make(chan Status, 1)
	a.mu.Lock()
	// The current status goes in before ch is registered, under the lock
	// setStatus holds: sent after, it would block for good on a channel a
	// concurrent setStatus had just filled.
	if s := a.status.Load(); s != nil {
		ch <- *s
	}
	id := a.next
	a.next++
	a.subs[id] = ch
	a.mu.Unlock()
	return ch, func() {
		a.mu.Lock()
		delete(a.subs, id)
		a.mu.Unlock()
	}
}

// setStatus makes s the status App.Status returns and, when notify, hands
// it to the subscribers.
func (a *App) setStatus(s Status, notify bool) {
	a.status.Store(&s)
	if !notify {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ch := range a.subs {
		select {
		case <-ch:
		default:
		}
		ch <- s
	}
}

// PlayTracks replaces the queue with contentIDs and plays from start.
func (a *App) PlayTracks(contentIDs []string, start int) error {
	es, err := a.entries(contentIDs)
	if err != nil {
		return err
	}
	return a.control(Control{Op: OpPlayTracks, Entries: es, Index: start})
}

// Enqueue appends contentIDs to the queue, or inserts them after the
// current track when next.
func (a *App) Enqueue(contentIDs []string, next bool) error {
	es, err := a.entries(contentIDs)
	if err != nil {
		return err
	}
	return a.control(Control{Op: OpEnqueue, Entries: es, Next: next})
}

func (a *App) entries(ids []string) ([]Entry, error) {
	if len(ids) == 0 {
		return nil, errors.New("app: no tracks given")
	}
	if len(ids) > MaxQueue {
		return nil, fmt.Errorf("app: at most %d tracks at once", MaxQueue)
	}
	es := make([]Entry, 0, len(ids))
	for _, id := range ids {
		e, err := a.entryByID(id)
		if err != nil {
			return nil, err
		}
		es = append(es, e)
	}
	return es, nil
}

// entryByID is the queue entry of a content id: from this device's
// library, else from the group's (another device has it), else, while
// another device owns the output, from the shared queue or as the bare
// id: the owner plays it if it can (and says so when it cannot).
func (a *App) entryByID(id string) (Entry, error) {
	if t, err := a.store.TrackByContentID(id); err == nil {
		return EntryOf(t), nil
	}
	if a.gl != nil {
		if e, ok := a.gl.Entry(id); ok {
			return EntryOf(e.Track()), nil // another device of the group has it
		}
	}
	st := a.Status()
	if st.Owner == "" || st.Owner == st.DeviceID || !validContentID(id) {
		return Entry{}, userErr(ErrNotInLibrary, "track %s is not in this device's library", id)
	}
	for _, it := range st.Queue {
		if it.ContentID == id {
			return Entry{ContentID: id, Title: it.Title, Artists: it.Artists, Album: it.Album, DurationMS: it.DurationMS}, nil
		}
	}
	return Entry{ContentID: id}, nil
}

func validContentID(id string) bool { return queue.ValidContentID(id) }

// ResolveEntry is Resolve returning the queue entry: for a file, the
// metadata of that file (two files with the same audio share a content id
// but keep their own titles); for a content id, as PlayTracks finds it.
func (a *App) ResolveEntry(idOrPath string) (Entry, error) {
	if !strings.HasPrefix(idOrPath, library.ContentIDPrefix) {
		if p, err := filepath.Abs(idOrPath); err == nil {
			if t, err := a.store.TrackByPath(p); err == nil {
				return EntryOf(t), nil
			}
		}
	}
	id, err := a.Resolve(idOrPath)
	if err != nil {
		return Entry{}, err
	}
	return a.entryByID(id)
}

// PlayEntries replaces the queue with es (from ResolveEntry) and plays from
// start.
func (a *App) PlayEntries(es []Entry, start int) error {
	if len(es) == 0 {
		return errors.New("app: no tracks given")
	}
	return a.control(Control{Op: OpPlayTracks, Entries: es, Index: start})
}

// EnqueueEntries appends es (from ResolveEntry) to the queue, or inserts
// them after the current track when next.
func (a *App) EnqueueEntries(es []Entry, next bool) error {
	if len(es) == 0 {
		return errors.New("app: no tracks given")
	}
	return a.control(Control{Op: OpEnqueue, Entries: es, Next: next})
}

// Resolve turns a content id or a file path of the catalog into a content
// id. For a file that is not in the catalog the error says why: not in a
// music folder, missing, or unreadable (ErrUnreadable, with the reason).
func (a *App) Resolve(idOrPath string) (string, error) {
	if strings.HasPrefix(idOrPath, library.ContentIDPrefix) {
		return idOrPath, nil
	}
	p, err := filepath.Abs(idOrPath)
	if err != nil {
		return "", err
	}
	switch t, err := a.store.TrackByPath(p); {
	case err == nil:
		return t.ContentID, nil
	case !errors.Is(err, storage.ErrNotFound):
		return "", err
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", userErr(ErrNotInLibrary, "%s does not exist", idOrPath)
	case err != nil:
		return "", userErr(ErrUnreadable, "could not read %s: %s", idOrPath, fileReason(p, err))
	case fi.IsDir():
		return "", userErr(ErrNotInLibrary, "%s is a folder: name its tracks, or add it with the music folders", idOrPath)
	}
	root := ""
	for _, f := range a.Folders() {
		if rel, err := filepath.Rel(f, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			root = f
			break
		}
	}
	if root == "" {
		return "", userErr(ErrNotInLibrary, "%s is not in the library: add its folder to the music folders", idOrPath)
	}
	// In a music folder but not in the catalog: the scan skipped it, or
	// has not reached it yet. Reading it once tells which.
	if _, err := library.AnalyzeFile(p, root); err != nil {
		return "", userErr(ErrUnreadable, "could not read %s: %s", idOrPath, fileReason(p, err))
	}
	return "", userErr(ErrNotInLibrary, "%s is not in the library yet: wait for the scan to finish", idOrPath)
}

// JumpTo plays the queue's track at index.
func (a *App) JumpTo(index int) error { return a.control(Control{Op: OpJump, Index: index}) }

// RemoveFromQueue removes the queue's track at index.
func (a *App) RemoveFromQueue(index int) error {
	return a.control(Control{Op: OpRemove, Index: index})
}

// MoveInQueue moves the queue entries at indexes (counting from 0, as in
// Status.Queue) so that they play one after the other from place to of
// the play order (Status.Order while shuffled, the queue's order
// otherwise). ids, when not nil, are the entries' content ids: the owner
// refuses the move (ErrQueueChanged) when another device changed the
// queue in between. Without shuffle the queue is reordered; with shuffle
// only the play order changes.
func (a *App) MoveInQueue(indexes []int, ids []string, to int) error {
	return a.control(Control{Op: OpMove, Indexes: slices.Clone(indexes), IDs: slices.Clone(ids), Index: to})
}

// RemoveQueueEntries removes the queue entries at indexes; ids as for
// MoveInQueue. Removing the current track plays on with the next one that
// stays.
func (a *App) RemoveQueueEntries(indexes []int, ids []string) error {
	return a.control(Control{Op: OpRemove, Indexes: slices.Clone(indexes), IDs: slices.Clone(ids)})
}

// SavedQueue is a queue as it was, to be put back (RestoreQueue): its
// items, play order (while shuffled), current entry, position and whether
// it played.
type SavedQueue struct {
	Items      []QueueItem
	Order      []int
	Index      int
	PositionMS int64
	Playing    bool
}

// SaveQueue is st's queue as RestoreQueue puts it back.
func SaveQueue(st Status) SavedQueue {
	return SavedQueue{Items: slices.Clone(st.Queue), Order: slices.Clone(st.Order), Index: st.Index,
		PositionMS: st.PositionMS, Playing: st.Playing}
}

// RestoreQueue replaces the queue with q (the undo of a removal or a
// clear). A track that plays now and is q's current one plays on.
func (a *App) RestoreQueue(q SavedQueue) error {
	es := make([]Entry, len(q.Items))
	for i, it := range q.Items {
		es[i] = Entry{ContentID: it.ContentID, Title: it.Title, Artists: it.Artists, Album: it.Album, DurationMS: it.DurationMS}
	}
	return a.control(Control{Op: OpRestore, Entries: es, Order: slices.Clone(q.Order), Index: q.Index,
		PosMS: q.PositionMS, On: q.Playing})
}

// ClearQueue empties the queue and stops.
func (a *App) ClearQueue() error { return a.control(Control{Op: OpClear}) }

// Pause pauses the group's playback.
func (a *App) Pause() error { return a.control(Control{Op: OpPause}) }

// Resume resumes the group's playback.
func (a *App) Resume() error { return a.control(Control{Op: OpResume}) }

// TogglePlay pauses or resumes.
func (a *App) TogglePlay() error { return a.control(Control{Op: OpToggle}) }

// Next skips to the next track.
func (a *App) Next() error { return a.control(Control{Op: OpNext}) }

// Prev goes back to the start of the track, or to the previous one.
func (a *App) Prev() error { return a.control(Control{Op: OpPrev}) }

// Seek moves within the current track.
func (a *App) Seek(pos time.Duration) error {
	return a.control(Control{Op: OpSeek, PosMS: pos.Milliseconds()})
}

// SetVolume sets the volume, 0..100.
func (a *App) SetVolume(v int) error {
	if v < 0 || v > 100 {
		return userErr(ErrBadArgument, "volume must be a whole number from 0 to 100, not %d", v)
	}
	return a.control(Control{Op: OpVolume, Volume: v})
}

// SetShuffle turns shuffle on or off.
// Turning it on draws the seed of the new play order here; the owner
// applies it, so the order is the same on every device.
func (a *App) SetShuffle(on bool) error {
	return a.control(Control{Op: OpShuffle, On: on, Seed: rand.Uint64() | 1})
}

// SetRepeat sets the repeat mode: "off", "all" or "one".
func (a *App) SetRepeat(mode string) error { return a.control(Control{Op: OpRepeat, Repeat: mode}) }

// Transfer moves playback (queue, track, position, play state) to device to.
func (a *App) Transfer(to engine.DeviceID) error {
	r := make(chan error, 1)
	return a.call(transferIntent{to: to, reply: r}, r)
}

// RequestStartup is the startup intent of a gateway's endpoint (the web
// hub's browser page opening as the output): the engine takes one per
// application instance, and a gateway's launch supplies none of its own.
func (a *App) RequestStartup() error {
	r := make(chan error, 1)
	return a.call(startupIntent{reply: r}, r)
}

// Invite creates a single-use pairing code for another device.
func (a *App) Invite() (Invite, error) {
	code, exp, err := a.tr.CreateInvite()
	if err != nil {
		return Invite{}, err
	}
	return Invite{Code: code, Expires: exp}, nil
}

// pairCheckWindow is how long Pair waits for the transport to refuse a
// code at once (malformed, expired, this device's own); accepting takes
// the other user's answer, which is much longer.
const pairCheckWindow = 500 * time.Millisecond

// Pair asks the device that created code to let this one into its group.
// A code the transport refuses at once (malformed, expired, this device's
// own invite) is an error; otherwise Pair returns once the request is on
// its way, and the outcome arrives as a notice and, when accepted, as the
// new group in Status.
func (a *App) Pair(code string) error {
	code = strings.TrimSpace(code)
	if !strings.HasPrefix(code, "frid://i/") {
		return devicesync.ErrInviteMalformed
	}
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), devicesync.PairRetryWindow)
		defer cancel()
		done <- a.tr.Pair(ctx, code)
	}()
	t := time.NewTimer(pairCheckWindow)
	defer t.Stop()
	select {
	case err := <-done:
		if err == nil {
			a.post(noticeIntent{level: "info", text: joinedText})
		}
		return err
	case <-t.C:
	}
	go func() {
		msg, level := joinedText, "info"
		if err := <-done; err != nil {
			msg, level = "Pairing failed: "+UserMessage(err), "error"
		}
		a.post(noticeIntent{level: level, text: msg})
	}()
	return nil
}

// Accept admits the device of a pending pairing request.
func (a *App) Accept(requestID string, joinTheirs bool) error {
	err := a.tr.Accept(requestID, joinTheirs)
	a.post(refreshIntent{})
	return err
}

// Deny refuses a pending pairing request.
func (a *App) Deny(requestID string) error {
	err := a.tr.Deny(requestID)
	a.post(refreshIntent{})
	return err
}

// Revoke removes a device from the group.
func (a *App) Revoke(device engine.DeviceID) error {
	err := a.tr.Revoke(device)
	a.post(refreshIntent{})
	return err
}

// Leave takes this device out of its group: the others remove it, and it
// is a group of its own (devicesync.Node.Leave).
func (a *App) Leave() error {
	err := a.tr.Leave()
	a.post(refreshIntent{})
	return err
}

// SetDeviceName renames this device.
func (a *App) SetDeviceName(name string) error {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > storage.MaxNameBytes {
		return userErr(ErrBadArgument, "a device name must be 1 to %d bytes long", storage.MaxNameBytes)
	}
	r := make(chan error, 1)
	return a.call(nameIntent{name: name, reply: r}, r)
}

// PlaybackConfig returns the stored playback config.
func (a *App) PlaybackConfig() engine.Config { return a.Status().Config }

// SetPlaybackConfig validates and stores cfg and applies it; on error
// nothing changes.
func (a *App) SetPlaybackConfig(cfg engine.Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	r := make(chan error, 1)
	return a.call(configIntent{cfg: cfg, reply: r}, r)
}

// SetPassive switches the always-on server profile on or off.
func (a *App) SetPassive(on bool) error {
	r := make(chan error, 1)
	return a.call(passiveIntent{on: on, reply: r}, r)
}

// LibraryShown tells that the window lists the library: the launch's
// rescan held by Options.HoldLaunchScan starts. It does not wait; later
// calls do nothing.
func (a *App) LibraryShown() { go a.post(launchIntent{}) }

// Tracks returns the union of the group's libraries in Library's order,
// without the places: tracks only other devices have come without a
// Path (EachTrack, read whole).
func (a *App) Tracks() ([]library.Track, error) {
	var out []library.Track
	err := a.EachTrack(func(t library.Track) error {
		out = append(out, t)
		return nil
	})
	return out, err
}

// EachTrack calls fn with the tracks of Tracks, in its order, one at a
// time: this device's as the database reads them, the tracks only other
// devices have merged in where they sort. Neither the catalog nor the
// union is held whole: the window builds its own copy of 100,000 tracks
// from this without a second, larger one beside it (issue 37). An error
// of fn stops it and is returned.
func (a *App) EachTrack(fn func(library.Track) error) error {
	rest, err := a.remoteOnlyTracks()
	if err != nil {
		return err
	}
	same := func(t library.Track) library.Track { return t }
	return eachMerged(a.store, rest, same, same, fn)
}

// Search finds tracks of the union matching query (SearchLibrary).
func (a *App) Search(query string, limit int) ([]library.Track, error) {
	ts, err := a.SearchLibrary(query, limit)
	if err != nil {
		return nil, err
	}
	out := make([]library.Track, len(ts))
	for i, t := range ts {
		out[i] = t.Track
	}
	return out, nil
}

// Folders returns the music folders.
func (a *App) Folders() []string { return a.Status().Folders }

// AddFolder adds a music folder and scans it.
func (a *App) AddFolder(path string) error {
	r := make(chan error, 1)
	return a.call(folderIntent{path: path, add: true, reply: r}, r)
}

// RemoveFolder removes a music folder and forgets its tracks.
func (a *App) RemoveFolder(path string) error {
	r := make(chan error, 1)
	return a.call(folderIntent{path: path, reply: r}, r)
}

// Rescan scans every music folder again.
func (a *App) Rescan() error {
	r := make(chan error, 1)
	return a.call(scanIntent{reply: r}, r)
}

// GenerateDemo writes demo tracks into <data-dir>/demo, adds the folder and
// scans it.
func (a *App) GenerateDemo() error {
	if a.opts.DataDir == "" {
		return errors.New("app: no data dir")
	}
	dir := filepath.Join(a.opts.DataDir, "demo")
	if _, err := library.GenerateDemo(dir); err != nil {
		return err
	}
	return a.AddFolder(dir)
}
