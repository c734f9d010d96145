package grouplib

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// A download fetches one track this device lacks into a file of the cache
// folder, from whichever online device holds it, while readers play it.
// The file is cut in blocks; workers fetch runs of missing blocks with
// range requests, the runs the readers wait for first (a seek anywhere
// fetches from there at once), then the rest in order, so the whole file
// arrives for the cache. A worker whose holder fails (a broken or stalled
// connection, "busy", "not here", bytes that do not fit) takes another
// holder of a file of the same size and goes on at the same offset; with
// none left, the readers get what is there and then an UnavailableError
// naming the device that had it. Once every block is there the file is
// checked against the content id; only then does it enter the cache, and
// a file that does not match is never kept: its holders are barred from
// that track and another one is asked.

// Download tuning.
const (
	blockSize   = 64 << 10
	chunkBlocks = 16 // one range request: 1 MiB
	// workersPerDownload fetch in order from the readers' positions: one,
	// so a slow link's whole bandwidth goes to the bytes played next
	// (two workers on two ranges would each fill theirs at half speed,
	// slower than the music plays on a link barely faster than it).
	workersPerDownload = 1
	// maxHolderFailures bars a holder from one download after this many
	// failures in a row.
	maxHolderFailures = 3
	// readTimeout bounds how long a read waits for its bytes.
	readTimeout = 30 * time.Second
)

// Errors of reading a track from other devices.
var (
	// ErrUnavailable: no online device holds the track (any more).
	ErrUnavailable = errors.New("grouplib: no online device has the track")
	ErrClosed      = errors.New("grouplib: closed")
	// ErrMismatch: what a holder sent does not match the content id.
	ErrMismatch = errors.New("grouplib: the bytes a device sent do not match the track")
)

// UnavailableError says that a track could not be fetched any further:
// Device is the holder it was coming from when it went (empty when none
// was ever reached). It wraps ErrUnavailable.
type UnavailableError struct {
	ContentID string
	Title     string
	Device    engine.DeviceID
}

func (e *UnavailableError) Error() string {
	if e.Device == "" {
		return fmt.Sprintf("grouplib: no online device has %q", e.Title)
	}
	return fmt.Sprintf("grouplib: %s, which had %q, went offline and no other online device has it", e.Device, e.Title)
}

func (e *UnavailableError) Unwrap() error { return ErrUnavailable }

type download struct {
	l     *Library
	id    string
	entry Entry // of the holder first chosen: size, format, title
	size  int64
	n     int // blocks
	ctx   context.Context
	stop  context.CancelFunc

	fdMu sync.RWMutex // readers' ReadAt against the swap into the cache
	f    *os.File
	path string

	mu       sync.Mutex
	have     []bool
	nhave    int
	inflight []bool
	readers  map[*reader]int64 // each open reader's position
	changed  chan struct{}     // closed and replaced on every change
	err      error             // terminal: no holder left
	workers  int
	current  engine.DeviceID // the holder bytes come from now, "" between holders
	lost     engine.DeviceID // the holder that failed last
	holders  map[engine.DeviceID]*holderState
	used     map[engine.DeviceID]bool // holders that supplied bytes
	complete bool
	verified bool
	refused  bool // its bytes did not match the content id
	cached   bool
	pinned   bool      // asked for ahead of playing (Prefetch): kept running without readers
	started  time.Time // for the soft limit on downloads
}

type holderState struct {
	failures int
	until    time.Time
	barred   bool
}

func (l *Library) newDownload(id string, e Entry) (*download, error) {
	path := l.cache.partPath(id)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("grouplib: cache file: %w", err)
	}
	if err := f.Truncate(e.Size); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("grouplib: cache file of %d bytes: %w", e.Size, err)
	}
	n := int((e.Size + blockSize - 1) / blockSize)
	ctx, stop := context.WithCancel(l.ctx)
	d := &download{l: l, id: id, entry: e, size: e.Size, n: n, ctx: ctx, stop: stop, f: f, path: path,
		have: make([]bool, n), inflight: make([]bool, n), readers: map[*reader]int64{}, changed: make(chan struct{}),
		holders: map[engine.DeviceID]*holderState{}, used: map[engine.DeviceID]bool{}, started: time.Now()}
	return d, nil
}

// changedLocked wakes everyone waiting on d.
func (d *download) changedLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// kickLocked starts workers while bytes are missing: workersPerDownload,
// and one more while a reader waits for a block nobody fetches (a seek
// far ahead of the others) so it does not wait behind their ranges.
func (d *download) kickLocked() {
	for !d.complete && d.err == nil && d.ctx.Err() == nil && d.unclaimedLocked() &&
		(d.workers < workersPerDownload || d.workers == workersPerDownload && d.starvedLocked()) {
		d.workers++
		d.l.wg.Add(1)
		go d.work()
	}
}

// starvedLocked reports a reader positioned on a block that is neither
// there nor being fetched.
func (d *download) starvedLocked() bool {
	for _, pos := range d.readers {
		if b := int(pos / blockSize); b < d.n && !d.have[b] && !d.inflight[b] {
			return true
		}
	}
	return false
}

func (d *download) unclaimedLocked() bool {
	for b := range d.n {
		if !d.have[b] && !d.inflight[b] {
			return true
		}
	}
	return false
}

// nextRangeLocked picks the next run of missing blocks: after the
// position of a reader that waits (or reads) first, else from the start.
func (d *download) nextRangeLocked() (start, count int) {
	start = -1
	for _, pos := range d.readers {
		if b := d.firstFreeLocked(int(pos / blockSize)); b >= 0 && (start < 0 || b < start) {
			start = b
		}
	}
	if start < 0 {
		start = d.firstFreeLocked(0)
	}
	if start < 0 {
		return 0, 0
	}
	for count = 0; start+count < d.n && count < chunkBlocks && !d.have[start+count] && !d.inflight[start+count]; count++ {
	}
	return start, count
}

func (d *download) firstFreeLocked(from int) int {
	for b := from; b < d.n; b++ {
		if !d.have[b] && !d.inflight[b] {
			return b
		}
	}
	return -1
}

// candidatesLocked are the holders of the track as the choice sees them.
func (d *download) candidatesLocked() []Candidate {
	var out []Candidate
	now := time.Now()
	for _, h := range d.l.holdings(d.id) {
		c := Candidate{Device: h.Device, Size: h.Item.Size, Online: d.l.isOnline(h.Device)}
		c.Failures = d.l.failures(h.Device)
		if d.l.barred(d.id, h.Device, now) {
			c.Barred = true
		}
		if s := d.holders[h.Device]; s != nil {
			c.Failures += s.failures
			c.Until = s.until
			c.Barred = c.Barred || s.barred
		}
		out = append(out, c)
	}
	return out
}

// work is one worker: it fetches runs of missing blocks until none is
// left unclaimed, the download fails or stops.
func (d *download) work() {
	defer d.l.wg.Done()
	defer func() {
		d.mu.Lock()
		d.workers--
		d.mu.Unlock()
	}()
	for {
		d.mu.Lock()
		if d.complete || d.err != nil || d.ctx.Err() != nil ||
			d.workers > workersPerDownload && !d.starvedLocked() { // an extra worker's seek is served
			d.mu.Unlock()
			return
		}
		start, count := d.nextRangeLocked()
		if count == 0 {
			d.mu.Unlock()
			return
		}
		holder, ok, wait := Choose(d.candidatesLocked(), d.size, d.current, time.Now())
		if !ok && wait.IsZero() {
			d.failLocked()
			d.mu.Unlock()
			return
		}
		if !ok {
			ch := d.changed
			d.mu.Unlock()
			t := time.NewTimer(time.Until(wait))
			select {
			case <-t.C:
			case <-ch:
			case <-d.ctx.Done():
			}
			t.Stop()
			continue
		}
		for b := start; b < start+count; b++ {
			d.inflight[b] = true
		}
		d.mu.Unlock()
		err := d.fetch(holder, start, count)
		d.mu.Lock()
		for b := start; b < start+count; b++ {
			d.inflight[b] = false
		}
		if err != nil && d.ctx.Err() == nil {
			d.holderFailedLocked(holder, err)
		} else if err == nil {
			if s := d.holders[holder]; s != nil {
				s.failures, s.until = 0, time.Time{}
			}
			d.l.succeeded(holder)
			d.current = holder
		}
		d.changedLocked()
		d.mu.Unlock()
	}
}

// failLocked ends the download: no online holder is left. Readers get
// what is there, then the error.
func (d *download) failLocked() {
	last := d.lost
	if last == "" {
		last = d.current
	}
	d.err = &UnavailableError{ContentID: d.id, Title: d.entry.Title, Device: last}
	d.l.log.Info("grouplib: track unavailable", "track", d.id, "title", d.entry.Title, "last_holder", string(last))
	d.changedLocked()
}

// holderFailedLocked records a failed fetch from holder.
func (d *download) holderFailedLocked(holder engine.DeviceID, err error) {
	s := d.holders[holder]
	if s == nil {
		s = &holderState{}
		d.holders[holder] = s
	}
	s.failures++
	s.until = time.Now().Add(backoff(s.failures))
	switch {
	case errors.Is(err, ErrNotHere), errors.Is(err, errLayout), errors.Is(err, errProtocol), s.failures >= maxHolderFailures:
		s.barred = true
	}
	if errors.Is(err, ErrStalled) {
		d.l.c.stalls.Add(1)
	}
	d.l.c.holderErrors.Add(1)
	d.l.failed(holder)
	d.lost = holder
	if d.current == holder {
		d.current = "" // a switch goes to the best other holder
	}
	d.l.log.Info("grouplib: fetch failed", "track", d.id, "holder", string(holder), "err", err, "barred", s.barred)
}

// errLayout is a holder whose file is not the one this download fetches
// (another size): its bytes cannot continue it.
var errLayout = errors.New("grouplib: the device's file is another version of the track")

// fetch gets blocks [start, start+count) from holder, marking each one as
// it arrives.
func (d *download) fetch(holder engine.DeviceID, start, count int) error {
	off := int64(start) * blockSize
	end := min(off+int64(count)*blockSize, d.size)
	return d.l.cl.do(d.ctx, holder, request{Op: opGet, ID: d.id, Off: off, Len: end - off}, func(r response, body io.Reader) error {
		switch {
		case r.Size != d.size:
			return fmt.Errorf("%w: %d bytes, this download has %d", errLayout, r.Size, d.size)
		case r.Off != off || r.Len != end-off:
			return fmt.Errorf("%w: sent [%d, +%d), asked [%d, +%d)", errProtocol, r.Off, r.Len, off, end-off)
		}
		buf := make([]byte, blockSize)
		for b, pos := start, off; pos < end; b++ {
			k := min(int64(blockSize), end-pos)
			if _, err := io.ReadFull(body, buf[:k]); err != nil {
				return err
			}
			d.fdMu.RLock()
			_, err := d.f.WriteAt(buf[:k], pos)
			d.fdMu.RUnlock()
			if err != nil {
				d.mu.Lock()
				d.err = fmt.Errorf("grouplib: writing the cache file: %w", err)
				d.changedLocked()
				d.mu.Unlock()
				return nil // the disk's fault, not the holder's
			}
			pos += k
			d.mu.Lock()
			d.inflight[b] = false
			if !d.have[b] {
				d.have[b] = true
				d.nhave++
			}
			d.used[holder] = true
			d.current = holder
			done := d.nhave == d.n && !d.complete
			if done {
				d.complete = true
			}
			d.changedLocked()
			d.mu.Unlock()
			d.l.c.fetchedBytes.Add(uint64(k))
			if done {
				d.l.wg.Add(1)
				go d.finish()
			}
		}
		return nil
	})
}

// finish checks the whole file against the content id and moves it into
// the cache; a file that does not match is refused.
func (d *download) finish() {
	defer d.l.wg.Done()
	id, err := d.check()
	if err != nil || id != d.id {
		d.l.c.mismatches.Add(1)
		d.mu.Lock()
		used := make([]engine.DeviceID, 0, len(d.used))
		for dev := range d.used {
			used = append(used, dev)
		}
		d.mu.Unlock()
		d.l.log.Warn("grouplib: fetched file does not match its content id: not cached", "track", d.id, "title", d.entry.Title,
			"holders", used, "got", id, "err", err)
		for _, dev := range used {
			d.l.bar(d.id, dev)
		}
		d.l.retry(d)
		d.l.release(d)
		return
	}
	d.fdMu.Lock()
	_ = d.f.Close()
	final, kept, err := d.l.cache.add(d.id, d.entry.Format, d.path, d.size)
	if err != nil || !kept {
		final = d.path // too large for the cache, or the rename failed: it goes with its readers
	}
	f, ferr := os.Open(final)
	if ferr == nil {
		d.f, d.path = f, final
	}
	d.fdMu.Unlock()
	d.mu.Lock()
	d.verified, d.cached = true, kept && err == nil && ferr == nil
	if ferr != nil {
		d.err = fmt.Errorf("grouplib: reopening the cached file: %w", ferr)
	}
	d.changedLocked()
	d.mu.Unlock()
	d.l.log.Info("grouplib: track fetched", "track", d.id, "title", d.entry.Title, "bytes", d.size, "cached", d.cached,
		"seconds", time.Since(d.started).Seconds())
	d.l.notify(changeCache)
	d.l.release(d)
}

// check returns the content id of the downloaded file. The library reads
// a file by its extension: the check reads it through a link (or a
// copy) named like the track's format.
func (d *download) check() (string, error) {
	named := d.path + ".check" + Ext(d.entry.Format)
	if err := os.Link(d.path, named); err != nil {
		if err := copyFile(d.path, named); err != nil {
			return "", err
		}
	}
	defer os.Remove(named)
	return d.l.verify(named)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// cleanup closes the file and deletes it unless it is cached.
func (d *download) cleanup() {
	d.stop()
	d.fdMu.Lock()
	_ = d.f.Close()
	if !d.cached {
		_ = os.Remove(d.path)
	}
	d.fdMu.Unlock()
}

// reader reads a download as it fills: a read of bytes not there yet
// waits for them (at most readTimeout), asking the workers for them first.
type reader struct {
	d      *download
	pos    int64
	closed chan struct{}
	once   sync.Once
}

func (d *download) newReader() *reader {
	r := &reader{d: d, closed: make(chan struct{})}
	d.mu.Lock()
	d.readers[r] = 0
	d.kickLocked()
	d.mu.Unlock()
	return r
}

// Read implements io.Reader.
func (r *reader) Read(p []byte) (int, error) {
	d := r.d
	if len(p) == 0 {
		return 0, nil
	}
	if r.pos >= d.size {
		return 0, io.EOF
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-r.closed:
			return 0, ErrClosed
		default:
		}
		d.mu.Lock()
		d.readers[r] = r.pos
		b := int(r.pos / blockSize)
		if d.have[b] {
			end := int64(b+1) * blockSize
			for nb := b + 1; nb < d.n && d.have[nb] && end < r.pos+int64(len(p)); nb++ {
				end += blockSize
			}
			end = min(end, d.size, r.pos+int64(len(p)))
			d.mu.Unlock()
			d.fdMu.RLock()
			n, err := d.f.ReadAt(p[:end-r.pos], r.pos)
			d.fdMu.RUnlock()
			r.pos += int64(n)
			if errors.Is(err, io.EOF) && n > 0 {
				err = nil
			}
			return n, err
		}
		if d.err != nil {
			err := d.err
			d.mu.Unlock()
			return 0, err
		}
		d.kickLocked()
		ch := d.changed
		d.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(readTimeout)
		}
		select {
		case <-ch:
		case <-r.closed:
			return 0, ErrClosed
		case <-timer.C:
			return 0, fmt.Errorf("%w: nothing of %q arrived for %v", ErrStalled, d.entry.Title, readTimeout)
		}
	}
}

// Seek implements io.Seeker; it only moves the position (the next read
// asks for the bytes there).
func (r *reader) Seek(off int64, whence int) (int64, error) {
	var pos int64
	switch whence {
	case io.SeekStart:
		pos = off
	case io.SeekCurrent:
		pos = r.pos + off
	case io.SeekEnd:
		pos = r.d.size + off
	default:
		return r.pos, fmt.Errorf("grouplib: seek whence %d", whence)
	}
	if pos < 0 {
		return r.pos, fmt.Errorf("grouplib: seek to %d", pos)
	}
	r.pos = pos
	d := r.d
	d.mu.Lock()
	d.readers[r] = pos
	d.mu.Unlock()
	return pos, nil
}

// Close releases the reader; a blocked Read returns ErrClosed.
func (r *reader) Close() error {
	r.once.Do(func() {
		close(r.closed)
		d := r.d
		d.mu.Lock()
		delete(d.readers, r)
		d.mu.Unlock()
		d.l.release(d)
	})
	return nil
}

// Interrupt ends a read that waits (audio.Interrupter): the output calls
// it when it drops the track.
func (r *reader) Interrupt() { _ = r.Close() }
