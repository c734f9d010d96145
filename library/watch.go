package library

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/furudesk/furudesk/internal/strpack"
)

// EventKind says what happened to a track.
type EventKind int

// Event kinds.
const (
	// Added: a new track at Track.Path.
	Added EventKind = iota + 1
	// Changed: the file at Track.Path was rewritten (tags or audio).
	Changed
	// Removed: the file at Track.Path is gone (Track carries Path and
	// ContentID only).
	Removed
	// Moved: the file at OldPath now lives at Track.Path with the same
	// content id; queue entries keep their place. When a move spans more
	// than one debounce period OldPath may already have been reported
	// Removed: treat Moved for an unknown OldPath as Added.
	Moved
	// Rescanned: events were lost (kernel queue overflow) and the watcher
	// ran a full Scan; reload the catalog. Scan holds its result.
	Rescanned
	// Failed: a file or folder could not be read or watched (Track.Path
	// names it); it is skipped, watching goes on. A music folder that is
	// gone itself fails with ErrRootUnavailable (its tracks are Removed).
	Failed
)

func (k EventKind) String() string {
	switch k {
	case Added:
		return "added"
	case Changed:
		return "changed"
	case Removed:
		return "removed"
	case Moved:
		return "moved"
	case Rescanned:
		return "rescanned"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one change of the catalog, reported after the Index was updated.
type Event struct {
	Kind    EventKind
	Track   Track
	OldPath string     // Moved
	Scan    ScanResult // Rescanned
	Err     error      // Failed
}

// WatchOptions configures Watch. The zero value is usable.
type WatchOptions struct {
	// Debounce is how long a burst of file system events must be quiet
	// before the watcher reads the files (default 150 ms): copying an album
	// is one update, not hundreds.
	Debounce time.Duration
	// MaxDelay bounds how long a never-ending burst delays an update
	// (default 2 s).
	MaxDelay time.Duration
	// MoveWindow is how long a removed or added file is remembered to pair
	// it with the other half of a move that arrives later, as a move across
	// file systems does (copy, then delete). Default 10 s.
	MoveWindow time.Duration
	// MaxPending bounds the paths waiting for a flush; beyond it the
	// watcher falls back to a full rescan. Default 100,000.
	MaxPending int
	// Settle is how recently a file must have been modified for a failed
	// read to count as "still being written": it is read again after
	// Debounce instead of being reported Failed, until it reads or has
	// been left alone for Settle. Default 1 s, at least Debounce.
	Settle time.Duration
	// Clock defaults to SystemClock.
	Clock Clock

	fsys fileSystem // tests inject faults; nil means the OS
	// handled, when set, is called on the watcher's goroutine after each
	// file system event was recorded, so a test on a fake clock can wait
	// for the real event instead of guessing when it arrived.
	handled func(fsnotify.Event)
}

// Watcher keeps an Index in step with the music folders using fsnotify and
// reports each change as an Event. Watches are not recursive, so the watcher
// adds every folder and subfolder itself, including new ones, and drops
// them when they are removed or moved away.
type Watcher struct {
	idx    Index
	roots  []string
	opts   WatchOptions
	fsys   fileSystem
	fsw    *fsnotify.Watcher
	events chan Event
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once

	// Owned by the loop goroutine.
	ctx      context.Context
	watched  map[string]string // watched folder -> its symlink-free path
	realDirs map[string]string // symlink-free path -> the folder watched for it
	pending  map[string]bool   // paths to look at in the next flush
	covers   map[string]bool   // folders whose cover file changed
	deb      debounce
	timer    Timer
	overflow bool
	removals []recent // unmatched removals, for late move pairing
	adds     []recent // recent additions, for late move pairing
}

type recent struct {
	at    time.Time
	path  string
	state FileState
}

// Watch starts watching roots and every folder below them. It does not scan:
// run Scan after Watch so no change falls between the two. Events arrive on
// Events until ctx is done or Close is called.
func Watch(ctx context.Context, idx Index, roots []string, opts WatchOptions) (*Watcher, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = 150 * time.Millisecond
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = 2 * time.Second
	}
	if opts.MaxDelay < opts.Debounce {
		opts.MaxDelay = opts.Debounce
	}
	if opts.MoveWindow <= 0 {
		opts.MoveWindow = 10 * time.Second
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = 100_000
	}
	if opts.Settle <= 0 {
		opts.Settle = time.Second
	}
	opts.Settle = max(opts.Settle, opts.Debounce)
	if opts.Clock == nil {
		opts.Clock = SystemClock{}
	}
	fsys := opts.fsys
	if fsys == nil {
		fsys = osFS{}
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("library: starting file watcher: %w", err)
	}
	w := &Watcher{
		idx:      idx,
		opts:     opts,
		fsys:     fsys,
		fsw:      fsw,
		events:   make(chan Event, 256),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		ctx:      ctx,
		watched:  make(map[string]string),
		realDirs: make(map[string]string),
		pending:  make(map[string]bool),
		covers:   make(map[string]bool),
		deb:      debounce{quiet: opts.Debounce, maxDelay: opts.MaxDelay},
	}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		w.roots = append(w.roots, abs)
	}
	var startErrs []Event
	var names strpack.Packer
	for _, r := range w.roots {
		startErrs = append(startErrs, w.addTree(r, nil, &names)...)
	}
	go w.loop(startErrs)
	return w, nil
}

// Events returns the channel of changes. It is closed when the watcher
// stops. The watcher waits for the reader (the kernel queues meanwhile, and
// an overflow turns into a rescan), so read it steadily.
func (w *Watcher) Events() <-chan Event { return w.events }

// Close stops the watcher and waits for its goroutine; Events is closed.
func (w *Watcher) Close() error {
	w.once.Do(func() { close(w.stop) })
	<-w.done
	return nil
}

// Roots returns the watched music folders.
func (w *Watcher) Roots() []string { return append([]string(nil), w.roots...) }

func (w *Watcher) loop(startErrs []Event) {
	defer close(w.done)
	defer close(w.events)
	defer w.fsw.Close()
	for _, e := range startErrs {
		if !w.emit(e) {
			return
		}
	}
	for {
		var timerC <-chan time.Time
		if w.timer != nil {
			timerC = w.timer.C()
		}
		select {
		case <-w.stop:
			return
		case <-w.ctx.Done():
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.handle(ev)
			if w.timer == nil && w.deb.pending() {
				w.timer = w.opts.Clock.NewTimer(w.opts.Debounce)
			}
			if w.opts.handled != nil {
				w.opts.handled(ev)
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.overflow = true
				w.deb.touch(w.opts.Clock.Now())
				if w.timer == nil {
					w.timer = w.opts.Clock.NewTimer(w.opts.Debounce)
				}
				continue
			}
			if !w.emit(Event{Kind: Failed, Err: fmt.Errorf("library: file watcher: %w", err)}) {
				return
			}
		case <-timerC:
			w.timer = nil
			flush, wait := w.deb.due(w.opts.Clock.Now())
			if !flush {
				if wait > 0 {
					w.timer = w.opts.Clock.NewTimer(wait)
				}
				continue
			}
			w.deb.reset()
			if !w.flush() {
				return
			}
			if w.timer == nil && w.deb.pending() {
				w.timer = w.opts.Clock.NewTimer(w.opts.Debounce) // files not settled yet
			}
		}
	}
}

// emit sends e unless the watcher is stopping.
func (w *Watcher) emit(e Event) bool {
	select {
	case w.events <- e:
		return true
	case <-w.stop:
		return false
	case <-w.ctx.Done():
		return false
	}
}

// handle records one file system event; the work happens in flush.
func (w *Watcher) handle(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod || ev.Name == "" {
		return
	}
	p := filepath.Clean(ev.Name)
	w.deb.touch(w.opts.Clock.Now())
	if _, ok := w.watched[p]; ok && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
		// A folder moved or deleted: its watches (and those below it) now
		// report stale paths or nothing; drop them. A folder that moved
		// inside the tree comes back as a Create of its new path.
		for d, real := range w.watched {
			if within(d, p) {
				_ = w.fsw.Remove(d)
				delete(w.watched, d)
				if w.realDirs[real] == d {
					delete(w.realDirs, real)
				}
			}
		}
	}
	if _, ok := w.watched[p]; ev.Has(fsnotify.Create) && !ok {
		// Watch a new folder at once, before files appear in it.
		if info, err := w.fsys.Stat(p); err == nil && info.IsDir() {
			for _, e := range w.addTree(p, w.pending, nil) {
				w.emit(e)
			}
		}
	}
	if isCoverName(filepath.Base(p)) {
		w.covers[filepath.Dir(p)] = true
	} else {
		w.pending[p] = true
	}
	if len(w.pending)+len(w.covers) > w.opts.MaxPending {
		w.overflow = true
		clear(w.pending)
		clear(w.covers)
	}
}

// maxWatchFailures bounds the Failed events one addTree reports.
const maxWatchFailures = 16

// addTree watches dir and every folder below it. When mark is not nil, the
// files found are marked pending (they may have appeared before the watch).
//
// A walk of a whole root passes names: the folders it watches are kept
// (here and in fsnotify) as copies packed into names' blocks rather than
// among the walk's garbage, which they would keep from going back to the
// system (10,000 folders: 5.3-5.7 MB of heap spans for 4.2 MB of objects
// unpacked, 3.7 for 3.3 packed, BenchmarkWatchTreeSpans10k; see strpack).
// A walk of one new folder passes nil: a block for it would be mostly
// empty.
func (w *Watcher) addTree(dir string, mark map[string]bool, names *strpack.Packer) []Event {
	var errs []Event
	fail := func(p string, err error) {
		if len(errs) < maxWatchFailures {
			errs = append(errs, Event{Kind: Failed, Track: Track{Path: p}, Err: err})
		}
	}
	seen := map[string]bool{}
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		if depth > DefaultMaxDepth {
			fail(d, ErrTooDeep)
			return
		}
		real, err := w.fsys.EvalSymlinks(d)
		if err != nil {
			fail(d, err)
			return
		}
		if seen[real] {
			return // a symlink loop or a second path to the same folder
		}
		seen[real] = true
		if other, ok := w.realDirs[real]; ok && other != d {
			return // already watched under another path (a link to it)
		}
		if _, ok := w.watched[d]; !ok {
			if names != nil {
				pd := names.Text(d)
				if real == d {
					real = pd
				} else {
					real = names.Text(real)
				}
				d = pd
			}
			if err := w.fsw.Add(d); err != nil {
				fail(d, fmt.Errorf("library: watching folder: %w", err))
				return
			}
			w.watched[d] = real
			w.realDirs[real] = d
		}
		entries, err := w.fsys.ReadDir(d)
		if err != nil {
			fail(d, err)
		}
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				if info, err := w.fsys.Stat(p); err == nil && info.IsDir() {
					target, err := w.fsys.EvalSymlinks(p)
					if err != nil || within(real, target) {
						continue // loop
					}
					isDir = true
				}
			}
			switch {
			case isDir:
				walk(p, depth+1)
			case mark != nil && isAudioName(p):
				mark[p] = true
			}
		}
	}
	walk(dir, 0)
	return errs
}

// rootOf returns the music folder holding p (the longest match).
func (w *Watcher) rootOf(p string) string {
	best := ""
	for _, r := range w.roots {
		if within(p, r) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

type change struct {
	track   Track
	existed bool
}

// flush reads every pending path, updates the index and emits events. It
// returns false when the watcher is stopping.
func (w *Watcher) flush() bool {
	now := w.opts.Clock.Now()
	w.expire(now)
	if w.overflow {
		w.overflow = false
		clear(w.pending)
		clear(w.covers)
		res, err := Scan(w.ctx, w.idx, w.roots, ScanOptions{fsys: w.fsys})
		var names strpack.Packer
		for _, r := range w.roots {
			for _, e := range w.addTree(r, nil, &names) {
				if !w.emit(e) {
					return false
				}
			}
		}
		if err != nil {
			return w.emit(Event{Kind: Failed, Err: err})
		}
		return w.emit(Event{Kind: Rescanned, Scan: res})
	}
	if len(w.pending) == 0 && len(w.covers) == 0 {
		return true
	}
	known, err := w.idx.Known(w.ctx)
	if err != nil {
		clear(w.pending)
		return w.emit(Event{Kind: Failed, Err: fmt.Errorf("library: reading index: %w", err)})
	}
	paths := make([]string, 0, len(w.pending))
	for p := range w.pending {
		paths = append(paths, p)
	}
	force := map[string]bool{}
	if len(w.covers) > 0 {
		// A cover file changed: re-read the tracks of that folder.
		for kp := range known {
			if w.covers[filepath.Dir(kp)] {
				force[kp] = true
				paths = append(paths, kp)
			}
		}
	}
	clear(w.pending)
	clear(w.covers)
	sort.Strings(paths)

	var (
		changes  []change
		removed  []recent
		gone     = map[string]bool{}
		failures []Event
		covers   = map[string]string{}
		goneDirs []string
		retry    []string
	)
	markGone := func(p string) {
		if st, ok := known[p]; ok && !gone[p] {
			gone[p] = true
			removed = append(removed, recent{at: now, path: p, state: st})
		}
	}
	for i, p := range paths {
		if i > 0 && paths[i-1] == p {
			continue
		}
		info, err := w.fsys.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			markGone(p)
			goneDirs = append(goneDirs, p)
			continue
		}
		if err != nil {
			failures = append(failures, Event{Kind: Failed, Track: Track{Path: p}, Err: err})
			continue
		}
		if info.IsDir() || !isAudioName(p) || !info.Mode().IsRegular() {
			continue
		}
		if st, ok := known[p]; ok && st.Unchanged(info.Size(), info.ModTime()) && !force[p] {
			continue
		}
		dir := filepath.Dir(p)
		cover, ok := covers[dir]
		if !ok {
			cover = coverBeside(w.fsys, dir)
			covers[dir] = cover
		}
		a, err := analyzeFile(w.fsys, p, w.rootOf(p), cover)
		if errors.Is(err, fs.ErrNotExist) {
			markGone(p)
			continue
		}
		if err != nil {
			if w.unsettled(now, info.ModTime()) {
				retry = append(retry, p) // still being written: read it again
				continue
			}
			failures = append(failures, Event{Kind: Failed, Track: Track{Path: p}, Err: err})
			continue
		}
		_, existed := known[p]
		changes = append(changes, change{track: a.track, existed: existed})
	}
	// A music folder itself that went is said (its files go with it).
	for _, d := range goneDirs {
		if slices.Contains(w.roots, d) {
			failures = append(failures, Event{Kind: Failed, Track: Track{Path: d}, Err: fmt.Errorf("%w: %s is gone", ErrRootUnavailable, d)})
		}
	}
	// Files under a removed or moved-away folder.
	if len(goneDirs) > 0 {
		for kp := range known {
			for _, d := range goneDirs {
				if kp != d && within(kp, d) {
					if _, err := w.fsys.Lstat(kp); errors.Is(err, fs.ErrNotExist) {
						markGone(kp)
					}
					break
				}
			}
		}
		sort.Slice(removed, func(i, j int) bool { return removed[i].path < removed[j].path })
	}
	for _, p := range retry {
		w.pending[p] = true
	}
	if len(retry) > 0 {
		w.deb.touch(now)
	}
	return w.apply(now, changes, removed, failures)
}

// unsettled reports whether a file modified at mod may still be being
// written: its modification time is within Settle of now (either way, so a
// clock a little behind the file system's does not matter).
func (w *Watcher) unsettled(now, mod time.Time) bool {
	d := now.Sub(mod)
	return d < w.opts.Settle && d > -w.opts.Settle
}

// apply pairs removals with additions of the same content into moves, writes
// the index (moves, then puts, then deletes) and emits the events.
func (w *Watcher) apply(now time.Time, changes []change, removed []recent, failures []Event) bool {
	var (
		events  []Event
		puts    []Track
		deletes []string
		used    = make([]bool, len(removed))
	)
	for _, c := range changes {
		t := c.track
		puts = append(puts, t)
		if c.existed {
			events = append(events, Event{Kind: Changed, Track: t})
			continue
		}
		old := ""
		for i, r := range removed {
			if !used[i] && r.state.ContentID == t.ContentID && r.state.Size == t.Size {
				used[i], old = true, r.path
				break
			}
		}
		if old != "" {
			if err := w.idx.Move(old, t.Path); err != nil {
				return w.emit(Event{Kind: Failed, Track: t, Err: fmt.Errorf("library: moving %s: %w", old, err)})
			}
			events = append(events, Event{Kind: Moved, Track: t, OldPath: old})
			continue
		}
		if i := w.findRecent(w.removals, t); i >= 0 {
			events = append(events, Event{Kind: Moved, Track: t, OldPath: w.removals[i].path})
			w.removals = append(w.removals[:i], w.removals[i+1:]...)
			continue
		}
		events = append(events, Event{Kind: Added, Track: t})
		w.adds = append(w.adds, recent{at: now, path: t.Path, state: StateOf(t)})
	}
	for i, r := range removed {
		if used[i] {
			continue
		}
		deletes = append(deletes, r.path)
		gone := Track{Path: r.path, ContentID: r.state.ContentID, Size: r.state.Size}
		if j := w.findRecent(w.adds, gone); j >= 0 {
			// The copy arrived first (a move across file systems).
			events = append(events, Event{Kind: Moved, Track: Track{Path: w.adds[j].path, ContentID: r.state.ContentID, Size: r.state.Size}, OldPath: r.path})
			w.adds = append(w.adds[:j], w.adds[j+1:]...)
			continue
		}
		events = append(events, Event{Kind: Removed, Track: gone})
		w.removals = append(w.removals, r)
	}
	if len(puts) > 0 {
		if err := w.idx.Put(puts); err != nil {
			return w.emit(Event{Kind: Failed, Err: fmt.Errorf("library: storing tracks: %w", err)})
		}
	}
	if len(deletes) > 0 {
		if err := w.idx.Delete(deletes); err != nil {
			return w.emit(Event{Kind: Failed, Err: fmt.Errorf("library: deleting tracks: %w", err)})
		}
	}
	for _, e := range failures {
		if !w.emit(e) {
			return false
		}
	}
	for _, e := range events {
		if !w.emit(e) {
			return false
		}
	}
	return true
}

// maxRecent bounds the removals and additions remembered for move pairing.
const maxRecent = 4096

func (w *Watcher) findRecent(list []recent, t Track) int {
	for i, r := range list {
		if r.state.ContentID == t.ContentID && r.state.Size == t.Size && r.path != t.Path {
			return i
		}
	}
	return -1
}

// expire forgets removals and additions older than MoveWindow.
func (w *Watcher) expire(now time.Time) {
	keep := func(list []recent) []recent {
		out := list[:0]
		for _, r := range list {
			if now.Sub(r.at) < w.opts.MoveWindow {
				out = append(out, r)
			}
		}
		if len(out) > maxRecent {
			out = append(out[:0], out[len(out)-maxRecent:]...)
		}
		return out
	}
	w.removals = keep(w.removals)
	w.adds = keep(w.adds)
}

// debounce decides when a burst of events is over: after quiet time without
// events, or maxDelay after the first event of the burst.
type debounce struct {
	quiet, maxDelay time.Duration
	first, last     time.Time
	active          bool
}

func (d *debounce) touch(now time.Time) {
	if !d.active {
		d.first, d.active = now, true
	}
	d.last = now
}

func (d *debounce) pending() bool { return d.active }

// due reports whether to flush now; if not, how long until it may be due.
func (d *debounce) due(now time.Time) (bool, time.Duration) {
	if !d.active {
		return false, 0
	}
	quietAt := d.last.Add(d.quiet)
	capAt := d.first.Add(d.maxDelay)
	if !now.Before(quietAt) || !now.Before(capAt) {
		return true, 0
	}
	next := quietAt
	if capAt.Before(next) {
		next = capAt
	}
	return false, next.Sub(now)
}

func (d *debounce) reset() { d.active = false }
