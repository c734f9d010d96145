package grouplib

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
)

// Location is where a track is beyond this device's own files.
type Location struct {
	Cached  bool              // a verified copy is in the cache
	Holders []engine.DeviceID // other devices whose catalogs list it, by id
	Online  []engine.DeviceID // those of Holders a fetch can reach now
}

// Reachable reports whether this device can play the track without a
// file of its own: from the cache, or fetched from an online holder.
func (loc Location) Reachable() bool { return loc.Cached || len(loc.Online) > 0 }

// Locate returns where a track is beyond this device's own files.
func (l *Library) Locate(id string) Location {
	loc := Location{Cached: l.cache.Has(id)}
	l.mu.RLock()
	defer l.mu.RUnlock()
	for _, h := range l.union.Holders(id) {
		loc.Holders = append(loc.Holders, h.Device)
		if l.online[h.Device] {
			loc.Online = append(loc.Online, h.Device)
		}
	}
	return loc
}

// Entry returns what the union says about a track held elsewhere.
func (l *Library) Entry(id string) (Entry, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.union.Entry(id)
}

// Source says where a track this device has no file for plays from.
type Source string

// Sources of Open.
const (
	SourceCache  Source = "cache"
	SourceStream Source = "stream"
)

// Open opens a track this device has no file for: its cached copy, else
// a reader of a download from the online holders, which starts at once.
// Reads of bytes not there yet wait for them (the download fetches what a
// reader waits for first); when no holder is left a read of missing bytes
// fails with an *UnavailableError. The caller closes the reader.
func (l *Library) Open(id string) (io.ReadSeekCloser, Source, error) {
	if p, ok := l.cache.Path(id); ok {
		f, err := os.Open(p)
		if err == nil {
			return f, SourceCache, nil
		}
	}
	d, err := l.download(id, false)
	if err != nil {
		return nil, "", err
	}
	return d.newReader(), SourceStream, nil
}

// Prefetch starts fetching a track ahead of playing it (the queue's next
// one), unless it is cached or fetching already; the download runs to its
// end without readers. A track no online device holds is left alone.
func (l *Library) Prefetch(id string) {
	if l.cache.Has(id) {
		return
	}
	if _, err := l.download(id, true); err != nil && !errors.Is(err, ErrUnavailable) {
		l.log.Debug("grouplib: prefetch", "track", id, "err", err)
	}
}

// Pin names the tracks that must stay: the cache never evicts them and
// their downloads are never cut short for others (the track playing and
// the next one).
func (l *Library) Pin(ids ...string) {
	l.cache.Pin(ids)
	l.dmu.Lock()
	clear(l.pins)
	for _, id := range ids {
		l.pins[id] = true
	}
	l.dmu.Unlock()
}

// Streaming reports whether a track is being fetched now and from which
// holder (empty between holders).
func (l *Library) Streaming(id string) (holder engine.DeviceID, fetching bool) {
	l.dmu.Lock()
	d := l.downloads[id]
	l.dmu.Unlock()
	if d == nil {
		return "", false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.complete || d.err != nil {
		return "", false
	}
	return d.current, true
}

// maxDownloads is how many downloads run at once before the ones nobody
// reads and nobody pinned are cut for a new one.
const maxDownloads = 3

// download returns the running download of id, or starts one from the
// best online holder (its file's size decides which holders can take
// over later).
func (l *Library) download(id string, prefetch bool) (*download, error) {
	if l.ctx.Err() != nil {
		return nil, ErrClosed
	}
	l.dmu.Lock()
	defer l.dmu.Unlock()
	if d := l.downloads[id]; d != nil {
		d.mu.Lock()
		ok := d.err == nil
		if ok && prefetch {
			d.pinned = true
		}
		d.mu.Unlock()
		if ok {
			return d, nil
		}
		delete(l.downloads, id)
		l.retiring[d] = true
	}
	var cands []Candidate
	byDev := map[engine.DeviceID]Entry{}
	now := time.Now()
	for _, h := range l.holdings(id) {
		cands = append(cands, Candidate{Device: h.Device, Size: h.Item.Size, Online: l.isOnline(h.Device),
			Failures: l.failures(h.Device), Barred: l.barred(id, h.Device, now)})
		byDev[h.Device] = h.Item.Entry
	}
	dev, ok, wait := Choose(cands, 0, "", now)
	if !ok && !wait.IsZero() {
		// Every holder rests after a failure: take the first anyway, the
		// download's own backoff waits for it.
		for _, c := range cands {
			if c.Online && !c.Barred {
				dev, ok = c.Device, true
				break
			}
		}
	}
	if !ok {
		e, _ := l.Entry(id)
		return nil, &UnavailableError{ContentID: id, Title: e.Title}
	}
	l.limitDownloadsLocked()
	d, err := l.newDownload(id, byDev[dev])
	if err != nil {
		return nil, err
	}
	l.downloads[id] = d
	d.mu.Lock()
	d.pinned = prefetch
	d.kickLocked()
	d.mu.Unlock()
	l.log.Info("grouplib: fetching a track", "track", id, "title", d.entry.Title, "bytes", d.size, "holder", string(dev), "prefetch", prefetch)
	return d, nil
}

// limitDownloadsLocked cuts the oldest downloads nobody reads or pinned
// while maxDownloads or more run.
func (l *Library) limitDownloadsLocked() {
	var idle []*download
	running := 0
	for _, d := range l.downloads {
		d.mu.Lock()
		active := !d.complete && d.err == nil
		if active {
			running++
			if len(d.readers) == 0 && !l.pins[d.id] {
				idle = append(idle, d)
			}
		}
		d.mu.Unlock()
	}
	slices.SortFunc(idle, func(a, b *download) int { return a.started.Compare(b.started) })
	for _, d := range idle {
		if running < maxDownloads {
			break
		}
		d.mu.Lock()
		d.err = ErrClosed
		d.changedLocked()
		d.mu.Unlock()
		d.stop()
		delete(l.downloads, d.id)
		l.log.Debug("grouplib: fetch cut for a newer one", "track", d.id)
		go d.cleanup()
		running--
	}
}

// release forgets a download once nobody reads it and it is over:
// cached, refused or failed. Its file goes unless it is cached.
func (l *Library) release(d *download) {
	l.dmu.Lock()
	d.mu.Lock()
	over := len(d.readers) == 0 && (d.verified || d.refused || d.err != nil)
	d.mu.Unlock()
	if over {
		if l.downloads[d.id] == d {
			delete(l.downloads, d.id)
		}
		delete(l.retiring, d)
	}
	l.dmu.Unlock()
	if over {
		d.cleanup()
	}
}

// retry follows a download whose file did not match its content id: it
// is never cached, its readers keep what they read, and the track is
// fetched again from another holder when one is online.
func (l *Library) retry(d *download) {
	l.dmu.Lock()
	if l.downloads[d.id] == d {
		delete(l.downloads, d.id)
	}
	l.retiring[d] = true
	l.dmu.Unlock()
	d.mu.Lock()
	d.refused = true
	d.changedLocked()
	d.mu.Unlock()
	if l.ctx.Err() == nil {
		l.Prefetch(d.id)
	}
}

// Track is a track of the union: what its holders' catalogs say about
// it, and where it is.
type Track struct {
	Entry
	Holders []engine.DeviceID
	Online  bool // a holder is reachable now
	Cached  bool
}

// Version moves on whenever the union changed.
func (l *Library) Version() uint64 { return l.version.Load() }

// Tracks returns every track another device's catalog lists, in catalog
// order (library.Less); the caller leaves out the ones it has files for.
func (l *Library) Tracks() []Track {
	return l.collect(nil, 0)
}

// Search returns the tracks of Tracks whose title, artists or album match
// every word of query as the library's own search does, at most limit.
func (l *Library) Search(query string, limit int) []Track {
	terms := library.QueryTerms(query)
	if len(terms) == 0 {
		return nil
	}
	return l.collect(terms, limit)
}

func (l *Library) collect(terms []string, limit int) []Track {
	l.mu.RLock()
	out := make([]Track, 0, l.union.Len())
	l.union.Each(func(id string, hs []Holding) {
		e := hs[0].Item.Entry
		if terms != nil && !library.Matches(library.SearchText(e.Track()), terms) {
			return
		}
		t := Track{Entry: e}
		for _, h := range hs {
			t.Holders = append(t.Holders, h.Device)
			t.Online = t.Online || l.online[h.Device]
		}
		out = append(out, t)
	})
	l.mu.RUnlock()
	for i := range out {
		out[i].Cached = l.cache.Has(out[i].ContentID)
	}
	slices.SortFunc(out, func(a, b Track) int {
		ta, tb := a.Entry.Track(), b.Entry.Track()
		switch {
		case library.Less(ta, tb):
			return -1
		case library.Less(tb, ta):
			return 1
		}
		return strings.Compare(a.ContentID, b.ContentID)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// coverTimeout bounds the fetch of one cover.
const coverTimeout = 10 * time.Second

// maxCovers bounds the covers kept; beyond it the oldest go.
const maxCovers = 5000

// Cover returns the cover art of a track held elsewhere: fetched (small)
// from an online holder once, then from the covers folder.
func (l *Library) Cover(ctx context.Context, id string) ([]byte, error) {
	if !ValidContentID(id) {
		return nil, ErrNoCover
	}
	p := filepath.Join(l.covers, strings.TrimPrefix(id, library.ContentIDPrefix))
	if b, err := os.ReadFile(p); err == nil {
		now := time.Now()
		_ = os.Chtimes(p, now, now)
		return b, nil
	}
	loc := l.Locate(id)
	var errs []error
	ctx, cancel := context.WithTimeout(ctx, coverTimeout)
	defer cancel()
	for _, dev := range loc.Online {
		b, err := l.cl.fetchCover(ctx, dev, id)
		if errors.Is(err, ErrNoCover) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := writeFileAtomic(p, b); err != nil {
			l.log.Debug("grouplib: keeping a cover", "err", err)
		}
		l.trimCovers()
		return b, nil
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return nil, ErrNoCover
}

func writeFileAtomic(p string, b []byte) error {
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// trimCovers removes the least recently used covers beyond maxCovers.
func (l *Library) trimCovers() {
	des, err := os.ReadDir(l.covers)
	if err != nil || len(des) <= maxCovers {
		return
	}
	type f struct {
		name string
		at   time.Time
	}
	var fs []f
	for _, de := range des {
		if info, err := de.Info(); err == nil {
			fs = append(fs, f{de.Name(), info.ModTime()})
		}
	}
	slices.SortFunc(fs, func(a, b f) int { return a.at.Compare(b.at) })
	for _, x := range fs[:max(0, len(fs)-maxCovers*9/10)] {
		_ = os.Remove(filepath.Join(l.covers, x.name))
	}
}

// SetCacheLimit changes the track cache's size limit (bytes).
func (l *Library) SetCacheLimit(n int64) error {
	if err := l.cache.SetLimit(n); err != nil {
		return err
	}
	l.notify(changeCache)
	return nil
}

// CacheUsage reports the track cache's limit and content.
func (l *Library) CacheUsage() CacheUsage { return l.cache.Usage() }

// ClearCache empties the track cache but for what is pinned.
func (l *Library) ClearCache() {
	l.cache.Clear()
	l.notify(changeCache)
}

// SetUploadRate limits the bytes per second sent to other devices (0: no
// limit).
func (l *Library) SetUploadRate(bps int64) error {
	if bps < 0 {
		return fmt.Errorf("grouplib: upload rate %d B/s", bps)
	}
	l.srv.rate.set(bps)
	return nil
}
