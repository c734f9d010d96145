package library

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

const (
	// MaxProblems bounds ScanResult.Problems; the counters keep counting.
	MaxProblems = 100
	// DefaultMaxDepth bounds folder nesting below a music folder.
	DefaultMaxDepth = 64
	// putBatch is how many tracks go to Index.Put at once.
	putBatch = 256
	// tickEvery is how often (in files) the walker reports progress for
	// files that need no analysis.
	tickEvery = 256
)

// Progress is a snapshot of a running scan, for the UI.
type Progress struct {
	Found   int    // audio files found so far (the walk is still running while Found grows)
	Done    int    // files finished: unchanged, analyzed or skipped
	Current string // the file finished last
	// Stored counts the tracks this scan has written to the index so far
	// (batch by batch): a front end that shows the catalog can read it
	// again while the scan runs.
	Stored int
}

// ScanOptions configures Scan. The zero value is usable.
type ScanOptions struct {
	// Workers is the number of files analyzed in parallel; 0 picks a
	// default from GOMAXPROCS (between 2 and 8).
	Workers int
	// Progress, if set, is called from Scan's goroutine after every file
	// (and every few hundred unchanged files). It must return quickly, for
	// example by storing the value for the UI to pick up.
	Progress func(Progress)
	// MaxDepth bounds folder nesting; 0 means DefaultMaxDepth.
	MaxDepth int

	fsys fileSystem // tests inject faults; nil means the OS
}

// Problem is one file or folder a scan skipped, and why.
type Problem struct {
	Path string
	Err  error
}

// ScanResult counts what a scan did. Skipped files are never fatal: the scan
// goes on, and an indexed entry for a file that still exists is kept even if
// the file could not be read this time.
type ScanResult struct {
	Found     int // audio files (by extension) found
	Unchanged int // skipped because size and modification time matched the index
	Added     int // new tracks
	Updated   int // tracks re-read because their file changed
	Moved     int // tracks whose file moved (same content id, old path gone)
	Removed   int // index entries whose file is gone

	Skipped     int // files not indexed this time; the sum of the next five
	NotAudio    int // not audio of the extension's format, or audio too damaged to start playing
	Unsupported int // audio furudesk does not play: WMA and the like, DRM-protected, needs FFmpeg in a build without it
	NotRegular  int // FIFOs, devices, sockets named like audio files
	Vanished    int // files that disappeared between listing and reading
	Unreadable  int // permission denied and other read errors

	BrokenTags      int // indexed with names from the file name because tags were unreadable
	NonUTF8Names    int // paths that are not valid UTF-8 (indexed; shown with U+FFFD)
	SymlinkLoops    int // symbolic links leading back to an enclosing folder
	FolderErrors    int // folders that could not be listed (their entries are kept)
	RootsMissing    int // music folders that do not exist or cannot be read
	ProblemsDropped int // problems beyond MaxProblems, counted but not listed

	Problems []Problem // the first MaxProblems problems
}

func (r *ScanResult) problem(path string, err error) {
	if len(r.Problems) < MaxProblems {
		r.Problems = append(r.Problems, Problem{Path: path, Err: err})
	} else {
		r.ProblemsDropped++
	}
}

// skip counts a file that could not be indexed.
func (r *ScanResult) skip(path string, err error) {
	r.Skipped++
	switch {
	case errors.Is(err, ErrNotAudio):
		r.NotAudio++
	case errors.Is(err, ErrUnsupported):
		r.Unsupported++
	case errors.Is(err, ErrNotRegular):
		r.NotRegular++
	case errors.Is(err, fs.ErrNotExist):
		r.Vanished++
	default:
		r.Unreadable++
	}
	r.problem(path, err)
}

type scanJob struct {
	path, root, cover string
}

type outcomeKind int

const (
	outTrack       outcomeKind = iota // analysis succeeded
	outSkip                           // a file could not be indexed
	outLoop                           // a symlink loop
	outFolder                         // a folder could not be listed
	outRootMissing                    // a music folder is unavailable
	outTick                           // progress only
)

type outcome struct {
	kind outcomeKind
	path string
	a    analysis
	err  error
}

type scanner struct {
	ctx      context.Context
	fsys     fileSystem
	known    map[string]FileState
	maxDepth int
	jobs     chan scanJob
	out      chan outcome

	found, done atomic.Int64

	// Owned by the walker until it finishes.
	seen        map[string]struct{}
	failedDirs  []string
	missing     []string
	unchanged   int
	nonUTF8     int
	sinceTick   int
	walkAborted bool
}

// Scan walks roots (recursively, following symbolic links to folders but not
// loops), analyzes new and changed audio files in parallel, and brings idx up
// to date: Put for new and changed tracks, Move for files moved since the
// last scan (same content id, old path gone), Delete for files that are gone.
//
// Bad input (unreadable files, broken tags, non-UTF-8 names, symlink loops,
// files vanishing mid-scan, folders that cannot be listed) is counted in the
// result and skipped. Entries are deleted only for files that are really gone:
// never under a folder that could not be listed, never under a music folder
// that is missing (an unmounted disk).
//
// Cancelling ctx stops the scan: tracks already analyzed are kept in idx,
// nothing is deleted, and Scan returns the partial result with ctx.Err().
// An error from idx stops the scan and is returned.
func Scan(ctx context.Context, idx Index, roots []string, opts ScanOptions) (ScanResult, error) {
	var res ScanResult
	known, err := idx.Known(ctx)
	if err != nil {
		return res, fmt.Errorf("library: reading index: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &scanner{
		ctx:      ctx,
		fsys:     opts.fsys,
		known:    known,
		maxDepth: opts.MaxDepth,
		jobs:     make(chan scanJob, 64),
		out:      make(chan outcome, 64),
		seen:     make(map[string]struct{}),
	}
	if s.fsys == nil {
		s.fsys = osFS{}
	}
	if s.maxDepth <= 0 {
		s.maxDepth = DefaultMaxDepth
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = min(max(2, 2*runtime.GOMAXPROCS(0)), 8)
	}
	clean := make([]string, 0, len(roots))
	for _, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			clean = append(clean, abs)
		}
	}

	var wg sync.WaitGroup
	wg.Add(1 + workers)
	go func() {
		defer wg.Done()
		defer close(s.jobs)
		s.walk(clean)
	}()
	for range workers {
		go func() {
			defer wg.Done()
			for j := range s.jobs {
				if ctx.Err() != nil {
					continue
				}
				a, err := analyzeFile(s.fsys, j.path, j.root, j.cover)
				if err != nil {
					s.out <- outcome{kind: outSkip, path: j.path, err: err}
					continue
				}
				s.out <- outcome{kind: outTrack, path: j.path, a: a}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(s.out)
	}()

	c := collector{s: s, idx: idx, res: &res, roots: clean, moved: map[string]bool{}, vanished: map[string]bool{},
		w: startWriter(idx)}
	var idxErr error
	for o := range s.out {
		if idxErr != nil {
			continue // drain
		}
		if err := c.take(o); err != nil {
			idxErr = err
			cancel()
			continue
		}
		if opts.Progress != nil && o.kind != outFolder && o.kind != outRootMissing {
			opts.Progress(Progress{Found: int(s.found.Load()), Done: int(s.done.Load()), Current: o.path,
				Stored: int(c.w.stored.Load())})
		}
	}
	if idxErr == nil {
		idxErr = c.flush()
	}
	if err := c.w.finish(); idxErr == nil {
		idxErr = err
	}
	res.Found = int(s.found.Load())
	res.Unchanged = s.unchanged
	res.NonUTF8Names = s.nonUTF8
	if idxErr != nil {
		return res, idxErr
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if err := c.removeGone(); err != nil {
		return res, err
	}
	if opts.Progress != nil {
		opts.Progress(Progress{Found: res.Found, Done: int(s.done.Load()), Stored: int(c.w.stored.Load())})
	}
	return res, nil
}

// writer stores the collector's batches on a goroutine of its own, so
// the next files are analyzed while a batch is written (one transaction
// each): the database and the analysis use a core each instead of taking
// turns. At most one batch waits.
type writer struct {
	idx    Index
	in     chan []Track
	done   chan struct{}
	stored atomic.Int64
	mu     sync.Mutex
	err    error
}

func startWriter(idx Index) *writer {
	w := &writer{idx: idx, in: make(chan []Track, 1), done: make(chan struct{})}
	in := w.in // finish sets w.in to nil, maybe before this goroutine ranges over it
	go func() {
		defer close(w.done)
		for b := range in {
			if w.failed() != nil {
				continue
			}
			if err := idx.Put(b); err != nil {
				w.mu.Lock()
				w.err = fmt.Errorf("library: storing tracks: %w", err)
				w.mu.Unlock()
				continue
			}
			w.stored.Add(int64(len(b)))
		}
	}()
	return w
}

// put hands b to the writer; the caller must not touch b afterwards. It
// returns the error of an earlier batch, if any.
func (w *writer) put(b []Track) error {
	if err := w.failed(); err != nil {
		return err
	}
	w.in <- b
	return nil
}

func (w *writer) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// finish waits until every batch was written and returns the first error.
func (w *writer) finish() error {
	if w.in != nil {
		close(w.in)
		w.in = nil
		<-w.done
	}
	return w.failed()
}

func (s *scanner) send(o outcome) { s.out <- o }

func (s *scanner) walk(roots []string) {
	visited := make(map[string]bool)
	for _, root := range roots {
		info, err := s.fsys.Stat(root)
		if err == nil && !info.IsDir() {
			err = errors.New("not a folder")
		}
		if err != nil {
			s.missing = append(s.missing, root)
			s.send(outcome{kind: outRootMissing, path: root, err: fmt.Errorf("%w: %v", ErrRootUnavailable, err)})
			continue
		}
		real, err := s.fsys.EvalSymlinks(root)
		if err != nil {
			real = root
		}
		if !s.walkDir(root, root, real, 0, visited) {
			s.walkAborted = true
			return
		}
	}
}

// walkDir lists dir (whose symlink-free path is real) and queues its audio
// files; it returns false when the scan was cancelled.
func (s *scanner) walkDir(root, dir, real string, depth int, visited map[string]bool) bool {
	if s.ctx.Err() != nil {
		return false
	}
	if visited[real] {
		return true // reached twice through links: scanned under the first path
	}
	visited[real] = true
	entries, err := s.fsys.ReadDir(dir)
	if err != nil {
		s.failedDirs = append(s.failedDirs, dir)
		s.send(outcome{kind: outFolder, path: dir, err: err})
		if len(entries) == 0 {
			return true
		}
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && isCoverName(e.Name()) {
			names = append(names, e.Name())
		}
	}
	cover := coverIn(dir, names)
	for _, e := range entries {
		if s.ctx.Err() != nil {
			return false
		}
		name := e.Name()
		p := filepath.Join(dir, name)
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			info, err := s.fsys.Stat(p)
			if err != nil {
				if isAudioName(name) {
					s.fileSeen(p)
					s.send(outcome{kind: outSkip, path: p, err: err})
				}
				continue
			}
			if info.IsDir() {
				target, err := s.fsys.EvalSymlinks(p)
				if err != nil || within(real, target) {
					s.send(outcome{kind: outLoop, path: p, err: fmt.Errorf("%w: %s", ErrSymlinkLoop, p)})
					continue
				}
				if !s.descend(root, p, target, depth, visited) {
					return false
				}
				continue
			}
			if isAudioName(name) {
				s.file(root, p, info, cover)
			}
		case e.IsDir():
			if !s.descend(root, p, filepath.Join(real, name), depth, visited) {
				return false
			}
		case isAudioName(name):
			if _, known := s.known[p]; !known && e.Type().IsRegular() {
				// A new file: its analysis reads size and time from the
				// open file, so no stat here (one system call per file
				// of a first scan).
				s.fileSeen(p)
				s.jobs <- scanJob{path: p, root: root, cover: cover}
				continue
			}
			info, err := e.Info()
			if err != nil {
				s.send(outcome{kind: outSkip, path: p, err: err})
				continue
			}
			s.file(root, p, info, cover)
		}
	}
	return true
}

func (s *scanner) descend(root, dir, real string, depth int, visited map[string]bool) bool {
	if depth+1 > s.maxDepth {
		s.failedDirs = append(s.failedDirs, dir)
		s.send(outcome{kind: outFolder, path: dir, err: ErrTooDeep})
		return true
	}
	return s.walkDir(root, dir, real, depth+1, visited)
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

func (s *scanner) fileSeen(p string) {
	s.seen[p] = struct{}{}
	s.found.Add(1)
	if !utf8.ValidString(p) {
		s.nonUTF8++
	}
}

func (s *scanner) file(root, p string, info fs.FileInfo, cover string) {
	s.fileSeen(p)
	if !info.Mode().IsRegular() {
		s.send(outcome{kind: outSkip, path: p, err: ErrNotRegular})
		return
	}
	if k, ok := s.known[p]; ok && k.Unchanged(info.Size(), info.ModTime()) && (k.Cover == CoverEmbedded || k.Cover == cover) {
		s.unchanged++
		s.done.Add(1)
		s.sinceTick++
		if s.sinceTick >= tickEvery {
			s.sinceTick = 0
			s.send(outcome{kind: outTick, path: p})
		}
		return
	}
	s.jobs <- scanJob{path: p, root: root, cover: cover}
}

// collector applies outcomes to the index on Scan's goroutine.
type collector struct {
	s         *scanner
	idx       Index
	w         *writer
	res       *ScanResult
	roots     []string
	batch     []Track
	byContent map[string][]string // content id -> known paths, built on first need
	moved     map[string]bool     // old paths already moved
	vanished  map[string]bool     // listed, then gone before they were read
}

func (c *collector) take(o outcome) error {
	switch o.kind {
	case outTick:
		return nil
	case outSkip:
		c.s.done.Add(1)
		c.res.skip(o.path, o.err)
		if errors.Is(o.err, fs.ErrNotExist) {
			c.vanished[o.path] = true
		}
		return nil
	case outLoop:
		c.res.SymlinkLoops++
		c.res.problem(o.path, o.err)
		return nil
	case outFolder:
		c.res.FolderErrors++
		c.res.problem(o.path, o.err)
		return nil
	case outRootMissing:
		c.res.RootsMissing++
		c.res.problem(o.path, o.err)
		return nil
	}
	c.s.done.Add(1)
	t := o.a.track
	if o.a.brokenTags != nil {
		c.res.BrokenTags++
		c.res.problem(t.Path, o.a.brokenTags)
	}
	if _, ok := c.s.known[t.Path]; ok {
		c.res.Updated++
	} else if old := c.movedFrom(t); old != "" {
		if err := c.idx.Move(old, t.Path); err != nil {
			return fmt.Errorf("library: moving %s: %w", old, err)
		}
		c.moved[old] = true
		c.res.Moved++
	} else {
		c.res.Added++
	}
	c.batch = append(c.batch, t)
	if len(c.batch) >= putBatch {
		return c.flush()
	}
	return nil
}

// movedFrom returns a known path holding the same content that no longer
// exists: the file was moved or renamed since the last scan.
func (c *collector) movedFrom(t Track) string {
	if c.byContent == nil {
		c.byContent = make(map[string][]string)
		for p, st := range c.s.known {
			c.byContent[st.ContentID] = append(c.byContent[st.ContentID], p)
		}
	}
	for _, old := range c.byContent[t.ContentID] {
		if c.moved[old] || c.s.known[old].Size != t.Size {
			continue
		}
		if _, err := c.s.fsys.Lstat(old); errors.Is(err, fs.ErrNotExist) {
			return old
		}
	}
	return ""
}

// flush hands the batch to the writer.
func (c *collector) flush() error {
	if len(c.batch) == 0 {
		return nil
	}
	b := c.batch
	c.batch = make([]Track, 0, putBatch)
	return c.w.put(b)
}

// removeGone deletes index entries under the scanned roots whose files are
// gone. It runs only after a complete walk.
func (c *collector) removeGone() error {
	s := c.s
	// A folder that could not be listed protects its entries, unless it is
	// gone itself (removed while the scan ran).
	var protected []string
	for _, d := range s.failedDirs {
		if _, err := s.fsys.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			protected = append(protected, d)
		}
	}
	var gone []string
	for p := range s.known {
		if _, ok := s.seen[p]; (ok && !c.vanished[p]) || c.moved[p] {
			continue
		}
		if !c.underAny(p, c.roots) || c.underAny(p, s.missing) || c.underAny(p, protected) {
			continue
		}
		if _, err := s.fsys.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			gone = append(gone, p)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	if err := c.idx.Delete(gone); err != nil {
		return fmt.Errorf("library: deleting gone tracks: %w", err)
	}
	c.res.Removed = len(gone)
	return nil
}

func (c *collector) underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if within(p, d) {
			return true
		}
	}
	return false
}
