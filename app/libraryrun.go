package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/furudesk/furudesk/library"
)

// libraryRun is the actor's view of the library's helper goroutines: the
// watcher of the music folders and the running scan. Generations tell the
// events of a replaced watcher or a cancelled scan from current ones.
type libraryRun struct {
	version uint64 // Status.LibraryVersion: bumped whenever the catalog changed
	scan    ScanStatus
	// stored is how many tracks the running scan had stored when the
	// version was last bumped for them, and storedAt when.
	stored   int
	storedAt time.Duration

	watchGen   uint64
	watchStop  context.CancelFunc
	watchReady chan struct{} // closed once the current watcher started (or failed to)
	scanGen    uint64
	scanStop   context.CancelFunc
	askedGen   uint64 // the scan the user asked for (a rescan, a folder added): its summary is always shown
	// watchRemoved counts the tracks the watcher removed while the scan
	// ran: the scan finds them gone already, its summary counts them.
	watchRemoved int
	wg           sync.WaitGroup // the helper goroutines, waited for on shutdown
}

// libraryEvent is one change the watcher reported.
type libraryEvent struct {
	gen uint64
	ev  library.Event
}

// watchFailed reports a watcher that could not start.
type watchFailed struct {
	gen uint64
	err error
}

// scanProgress says a newer progress of scan gen waits in feed.
type scanProgress struct {
	gen  uint64
	feed *scanFeed
}

type scanDone struct {
	gen uint64
	res library.ScanResult
	err error
}

// How often a running scan shows itself. Its progress reaches the actor
// at most every ScanShowEvery (a scan reports every file, thousands a
// second, and each shown change wakes the window), and the tracks it
// stored so far become a new LibraryVersion at most every ScanStoredEvery
// (a front end then reads the catalog again: the list fills while the
// scan runs).
const (
	ScanShowEvery   = 250 * time.Millisecond
	ScanStoredEvery = 2 * time.Second
)

// scanFeed hands the latest progress of a scan to the actor: the scan
// never waits, the actor reads only the newest value however many files
// went by since it last looked, and it is told at most every
// ScanShowEvery (a progress held back is sent when that time is up).
type scanFeed struct {
	mu      sync.Mutex
	latest  library.Progress
	pending bool // a scanProgress is in the inbox
	sentAt  time.Time
	timer   *time.Timer
	send    func() bool // posts the scanProgress without waiting; false: the inbox is full
}

// put stores p and tells the actor unless it was told already or lately.
func (f *scanFeed) put(p library.Progress) {
	f.mu.Lock()
	f.latest = p
	if f.pending || f.timer != nil {
		f.mu.Unlock()
		return
	}
	if wait := ScanShowEvery - time.Since(f.sentAt); wait > 0 {
		f.timer = time.AfterFunc(wait, f.tell)
		f.mu.Unlock()
		return
	}
	f.mu.Unlock()
	f.tell()
}

// tell sends the scanProgress, once.
func (f *scanFeed) tell() {
	f.mu.Lock()
	f.timer = nil
	if f.pending {
		f.mu.Unlock()
		return
	}
	f.pending, f.sentAt = true, time.Now()
	f.mu.Unlock()
	if !f.send() {
		f.mu.Lock()
		f.pending = false // the next progress tries again
		f.mu.Unlock()
	}
}

// stop ends the timer of a held-back progress.
func (f *scanFeed) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.timer != nil {
		f.timer.Stop()
		f.timer = nil
	}
}

func (f *scanFeed) take() library.Progress {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending = false
	return f.latest
}

func (i libraryEvent) handle(a *actor) {
	if i.gen == a.libRun.watchGen {
		a.libraryChanged(i.ev)
	}
}

func (i watchFailed) handle(a *actor) {
	if i.gen == a.libRun.watchGen {
		a.notice("error", "Could not watch the music folders for changes: "+i.err.Error())
	}
}

func (i scanProgress) handle(a *actor) {
	p := i.feed.take()
	if i.gen != a.libRun.scanGen || !a.libRun.scan.Running {
		return
	}
	s := &a.libRun.scan
	s.Done, s.Found, s.Current = p.Done, p.Found, p.Current
	r := &a.libRun
	if now := a.clock.Now(); p.Stored > r.stored && (r.stored == 0 || now-r.storedAt >= ScanStoredEvery) {
		r.stored, r.storedAt = p.Stored, now
		r.version++ // the tracks stored so far can be listed
		a.scanBatchListed()
	}
}

func (i scanDone) handle(a *actor) {
	if i.gen != a.libRun.scanGen {
		return // replaced by a newer scan
	}
	s := &a.libRun.scan
	s.Running, s.Current = false, ""
	s.Errors += i.res.Skipped + i.res.FolderErrors + i.res.RootsMissing
	// A scan that changed nothing (the launch's rescan of a known
	// library, most often) makes no new version: the window would list
	// the same tracks again and the group library read, hash and compare
	// its whole catalog (1.5 s of CPU at 100,000 tracks) to publish
	// nothing. The group library compares once at launch by itself.
	if i.err != nil || scanChanged(i.res) || a.libRun.stored > 0 {
		a.libRun.version++
	}
	if i.err != nil {
		if !errors.Is(i.err, context.Canceled) {
			a.notice("error", "Scan failed: "+i.err.Error())
		}
		return
	}
	s.Found, s.Done = i.res.Found, i.res.Found
	failed := scanFailures(i.res.Problems)
	for _, f := range s.Failed { // the watcher's, while the scan ran
		if len(failed) < MaxScanFailed && !slices.Contains(failed, f) {
			failed = append(failed, f)
		}
	}
	s.Failed, s.Missing = failed, missingFolders(i.res.Problems)
	res := i.res
	res.Removed += a.libRun.watchRemoved
	// The scan at launch says something only when the library changed:
	// files it cannot read are named in the sidebar, not on every launch.
	if res.Added > 0 || res.Removed > 0 || res.RootsMissing > 0 || i.gen == a.libRun.askedGen {
		a.notice(scanNotice(res, s.Failed, s.Missing))
	}
}

// scanChanged reports whether a finished scan changed the index.
func scanChanged(r library.ScanResult) bool {
	return r.Added+r.Updated+r.Moved+r.Removed > 0
}

// scanFailures lists the first problems of a scan for the user.
func scanFailures(ps []library.Problem) []ScanFailure {
	var out []ScanFailure
	for _, p := range ps {
		if len(out) == MaxScanFailed {
			break
		}
		if notRead(p.Err) {
			out = append(out, ScanFailure{Path: p.Path, Reason: fileReason(p.Path, p.Err)})
		}
	}
	return out
}

// missingFolders are the music folders a scan found gone or unreadable.
func missingFolders(ps []library.Problem) []string {
	var out []string
	for _, p := range ps {
		if errors.Is(p.Err, library.ErrRootUnavailable) {
			out = append(out, p.Path)
		}
	}
	return out
}

// notRead reports whether a scan problem left its file or folder out of
// the library; unreadable tags, say, do not (the track is indexed under
// its file name).
func notRead(err error) bool {
	for _, e := range []error{library.ErrNotAudio, library.ErrUnsupported, library.ErrNotRegular,
		library.ErrSymlinkLoop, library.ErrTooDeep, library.ErrRootUnavailable, fs.ErrNotExist, fs.ErrPermission} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// fileReason is why path could not be read or is not listed, in a few
// words and without the path itself (the caller names the file): "not
// audio", "DRM-protected", "Opus needs FFmpeg's libraries".
func fileReason(path string, err error) string {
	if err == nil {
		return "unknown error"
	}
	r := plain(library.Reason(err))
	r = strings.ReplaceAll(r, path+": ", "")
	r = strings.ReplaceAll(r, path, "the file")
	return r
}

// scanNotice sums up a finished scan: the tracks the library has from it
// (files that could not be read are not tracks), and the files that
// failed, by name.
func scanNotice(res library.ScanResult, failed []ScanFailure, missing []string) (level, text string) {
	tracks := max(res.Found-res.Skipped, 0)
	text = fmt.Sprintf("Library scanned: %s (%d added, %d removed)", plural(tracks, "track"), res.Added, res.Removed)
	level = "info"
	if len(missing) > 0 {
		level = "error"
		text += ". Missing: " + strings.Join(missing, ", ")
	}
	var files []ScanFailure
	for _, f := range failed {
		if !slices.Contains(missing, f.Path) {
			files = append(files, f)
		}
	}
	if res.Skipped == 0 || len(files) == 0 {
		return level, text
	}
	names := make([]string, 0, len(files))
	for _, f := range files[:min(len(files), 3)] {
		names = append(names, fmt.Sprintf("%s (%s)", filepath.Base(f.Path), f.Reason))
	}
	text += fmt.Sprintf(". Could not read %s: %s", plural(res.Skipped, "file"), strings.Join(names, ", "))
	if more := res.Skipped - len(names); more > 0 {
		text += fmt.Sprintf(" and %d more", more)
	}
	return "error", text
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// libraryChanged follows one change of the catalog. Queue entries name
// tracks by content id and paths are looked up when a track is played, so
// a moved file keeps its place in the queue; only a prepared next track
// opened from the old path is prepared again.
func (a *actor) libraryChanged(ev library.Event) {
	a.libRun.version++
	switch ev.Kind {
	case library.Failed:
		a.watchFailed(ev)
	case library.Removed:
		if a.libRun.scan.Running {
			a.libRun.watchRemoved++
		}
	case library.Rescanned:
		a.log.Info("library: events were lost; the folders were scanned again", "found", ev.Scan.Found)
	}
	if a.next.Seq == 0 {
		return
	}
	if ev.Kind == library.Rescanned || ev.Track.ContentID == a.nextCID ||
		ev.Track.Path != "" && ev.Track.Path == a.nextPath || ev.OldPath != "" && ev.OldPath == a.nextPath {
		a.nextCID = "" // prepare it again from where the file is now
		if a.e.MayRender() {
			a.syncPrepared(a.st)
		}
	}
}

// watchFailed names what the watcher could not read: a music folder that
// went gets a notice and its mark in the settings, a file joins the scan's
// list of files that could not be read (new slices: statuses hold the old).
func (a *actor) watchFailed(ev library.Event) {
	s := &a.libRun.scan
	p := ev.Track.Path
	a.log.Warn("library: watching", "path", p, "err", ev.Err)
	if errors.Is(ev.Err, library.ErrRootUnavailable) {
		if !slices.Contains(s.Missing, p) {
			s.Missing = append(slices.Clone(s.Missing), p)
			a.notice("error", "The music folder "+p+" is gone, and its tracks left the library. Put it back and choose Rescan in Settings, or remove the folder there.")
		}
		return
	}
	if p != "" && slices.ContainsFunc(s.Failed, func(f ScanFailure) bool { return f.Path == p }) {
		return // failed again
	}
	s.Errors++
	if p == "" || len(s.Failed) >= MaxScanFailed {
		return
	}
	s.Failed = append(slices.Clone(s.Failed), ScanFailure{Path: p, Reason: fileReason(p, ev.Err)})
}

// startLibrary (re)starts the watcher of the music folders and, when scan,
// then scans them: Watch first, so no change falls between the scan and
// the watch. Both run on helper goroutines.
func (a *actor) startLibrary(scan bool) error {
	if a.lib == nil {
		return errors.New("app: no library scanner")
	}
	a.launchHeld = false // a folder added meanwhile starts it too
	r := &a.libRun
	if r.watchStop != nil {
		r.watchStop() // the old watcher's goroutine closes it
	}
	r.watchGen++
	gen := r.watchGen
	ready := make(chan struct{})
	r.watchReady = ready
	if len(a.folders) == 0 {
		r.watchStop = nil
		close(ready)
	} else {
		ctx, cancel := context.WithCancel(context.Background())
		r.watchStop = cancel
		roots := slices.Clone(a.folders)
		lib, app := a.lib, a.app
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			forwardWatch(ctx, app, lib, roots, gen, ready)
		}()
	}
	if scan {
		return a.startScan()
	}
	return nil
}

// forwardWatch starts a watcher and forwards its events to the actor until
// ctx is done or the app quits. ready is closed once Watch returned.
func forwardWatch(ctx context.Context, app *App, lib Library, roots []string, gen uint64, ready chan struct{}) {
	w, err := lib.Watch(ctx, roots)
	close(ready)
	if err != nil {
		select {
		case app.inbox <- watchFailed{gen: gen, err: err}:
		case <-app.quit:
		}
		return
	}
	defer func() { _ = w.Close() }() // nothing to lose: the index is written before each event
	events := w.Events()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			select {
			case app.inbox <- libraryEvent{gen: gen, ev: ev}:
			case <-ctx.Done():
				return
			case <-app.quit:
				return
			}
		case <-ctx.Done():
			return
		case <-app.quit:
			return
		}
	}
}

// userScan is a scan the user asked for: its summary is shown even when
// nothing changed.
func (a *actor) userScan() error {
	err := a.startScan()
	if err == nil {
		a.libRun.askedGen = a.libRun.scanGen
	}
	return err
}

// startScan scans every folder on a helper goroutine, once the watcher
// started; a running scan is cancelled first.
func (a *actor) startScan() error {
	if a.lib == nil {
		return errors.New("app: no library scanner")
	}
	r := &a.libRun
	if r.scanStop != nil {
		r.scanStop()
	}
	r.scanGen++
	gen := r.scanGen
	ctx, cancel := context.WithCancel(context.Background())
	r.scanStop = cancel
	r.scan = ScanStatus{Running: true}
	r.stored, r.watchRemoved = 0, 0
	roots := slices.Clone(a.folders)
	lib, app, ready := a.lib, a.app, r.watchReady
	feed := &scanFeed{}
	feed.send = func() bool {
		select { // never block the scan: the actor reads the newest value later
		case app.inbox <- scanProgress{gen: gen, feed: feed}:
			return true
		default:
			return false
		}
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		if ready != nil {
			select {
			case <-ready:
			case <-ctx.Done():
			}
		}
		res, err := lib.Scan(ctx, roots, feed.put)
		feed.stop()
		select {
		case app.inbox <- scanDone{gen: gen, res: res, err: err}:
		case <-app.quit:
		}
	}()
	return nil
}

// stopLibrary cancels the watcher and the scan; shutdown then waits for
// their goroutines.
func (a *actor) stopLibrary() {
	a.launchHeld = false // a folder added meanwhile starts it too
	r := &a.libRun
	if r.watchStop != nil {
		r.watchStop()
		r.watchStop = nil
	}
	if r.scanStop != nil {
		r.scanStop()
		r.scanStop = nil
	}
	r.watchGen++
	r.scanGen++
}
