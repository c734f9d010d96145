package grouplib

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/furudesk/furudesk/library"
)

// Cache keeps verified copies of tracks fetched from other devices in a
// folder of the data dir, bounded in bytes, least recently used first out,
// never what is pinned (the track playing and the next one). A cached
// track plays with no holder online.
//
// The folder is the whole state: a verified track is the file
// "<hash>.<ext>" (its content id without the prefix), its last use the
// file's modification time; downloads in progress are "*.part" files and
// are deleted when the cache opens, so nothing unverified ever counts as
// cached, even after a crash. Methods are safe for concurrent use.
type Cache struct {
	dir string

	mu    sync.Mutex
	limit int64
	total int64
	items map[string]*cached // by content id
	pins  map[string]bool
}

type cached struct {
	id   string
	path string
	size int64
	used time.Time
}

// DefaultCacheLimit is the cache's size limit unless the user sets one.
const DefaultCacheLimit = 2 << 30

// MinCacheLimit is the smallest limit allowed: one long lossless track.
const MinCacheLimit = 64 << 20

// ErrCacheLimit is returned for a limit out of range.
var ErrCacheLimit = errors.New("grouplib: cache size limit out of range")

// ValidateCacheLimit checks a limit in bytes.
func ValidateCacheLimit(n int64) error {
	if n < MinCacheLimit || n > 1<<50 {
		return fmt.Errorf("%w: %d MB, want at least %d MB", ErrCacheLimit, n>>20, MinCacheLimit>>20)
	}
	return nil
}

// OpenCache opens (creating it) the cache in dir with a limit in bytes,
// deletes unfinished downloads, and evicts down to the limit.
func OpenCache(dir string, limit int64) (*Cache, error) {
	if err := ValidateCacheLimit(limit); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("grouplib: cache folder: %w", err)
	}
	c := &Cache{dir: dir, limit: limit, items: map[string]*cached{}, pins: map[string]bool{}}
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("grouplib: cache folder: %w", err)
	}
	for _, de := range des {
		name := de.Name()
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, partSuffix) || strings.Contains(name, partSuffix+".") {
			_ = os.Remove(p) // an unverified download (or its check): never kept
			continue
		}
		id := library.ContentIDPrefix + strings.TrimSuffix(name, filepath.Ext(name))
		info, err := de.Info()
		if !de.Type().IsRegular() || err != nil || !ValidContentID(id) {
			continue
		}
		c.items[id] = &cached{id: id, path: p, size: info.Size(), used: info.ModTime()}
		c.total += info.Size()
	}
	c.mu.Lock()
	c.evictLocked(0)
	c.mu.Unlock()
	return c, nil
}

const partSuffix = ".part"

// partPath is where a new download of id writes: a name of its own, so
// a download that replaces one whose readers still read it never shares
// its file.
func (c *Cache) partPath(id string) string {
	return filepath.Join(c.dir, fmt.Sprintf("%s.%d%s", strings.TrimPrefix(id, library.ContentIDPrefix), partSeq.Add(1), partSuffix))
}

var partSeq atomic.Uint64

// finalPath is where the cached copy of id in format lives.
func (c *Cache) finalPath(id, format string) string {
	return filepath.Join(c.dir, strings.TrimPrefix(id, library.ContentIDPrefix)+Ext(format))
}

// Path returns the cached file of id and marks it used.
func (c *Cache) Path(id string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it := c.items[id]
	if it == nil {
		return "", false
	}
	if _, err := os.Stat(it.path); err != nil { // removed behind our back
		c.total -= it.size
		delete(c.items, id)
		return "", false
	}
	it.used = time.Now()
	_ = os.Chtimes(it.path, it.used, it.used) // the order survives a restart; best effort
	return it.path, true
}

// Has reports whether id is cached, without marking it used.
func (c *Cache) Has(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.items[id] != nil
}

// add moves a verified download at part into the cache, evicting the
// least recently used unpinned tracks to make room. It returns the file's
// new path, or false when it cannot be kept (larger than what may be
// freed): the file then stays at part for the caller to delete.
func (c *Cache) add(id, format, part string, size int64) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.items[id]; old != nil {
		return old.path, true, nil
	}
	if !c.evictLocked(size) {
		return "", false, nil
	}
	final := c.finalPath(id, format)
	if err := os.Rename(part, final); err != nil {
		return "", false, fmt.Errorf("grouplib: cache: %w", err)
	}
	now := time.Now()
	c.items[id] = &cached{id: id, path: final, size: size, used: now}
	c.total += size
	return final, true, nil
}

// evictLocked removes least recently used unpinned tracks until room more
// bytes fit; false when they cannot.
func (c *Cache) evictLocked(room int64) bool {
	if c.total+room <= c.limit {
		return true
	}
	its := make([]*cached, 0, len(c.items))
	var freeable int64
	for _, it := range c.items {
		if !c.pins[it.id] {
			its = append(its, it)
			freeable += it.size
		}
	}
	if room > 0 && c.total-freeable+room > c.limit {
		return false // it would not fit even alone: evict nothing for it
	}
	slices.SortFunc(its, func(a, b *cached) int { return a.used.Compare(b.used) })
	for _, it := range its {
		if c.total+room <= c.limit {
			break
		}
		if err := os.Remove(it.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue // open elsewhere (Windows): try the next one
		}
		c.total -= it.size
		delete(c.items, it.id)
	}
	return c.total+room <= c.limit
}

// Pin replaces the pinned set: those tracks are never evicted.
func (c *Cache) Pin(ids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.pins)
	for _, id := range ids {
		c.pins[id] = true
	}
}

// SetLimit changes the limit and evicts down to it.
func (c *Cache) SetLimit(n int64) error {
	if err := ValidateCacheLimit(n); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = n
	c.evictLocked(0)
	return nil
}

// CacheUsage is what the cache holds.
type CacheUsage struct {
	Limit  int64 `json:"limit_bytes"`
	Bytes  int64 `json:"bytes"`
	Tracks int   `json:"tracks"`
}

// Usage reports the limit, the bytes held and the number of tracks.
func (c *Cache) Usage() CacheUsage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheUsage{Limit: c.limit, Bytes: c.total, Tracks: len(c.items)}
}

// Clear removes every track that is not pinned.
func (c *Cache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	limit := c.limit
	c.limit = 0
	c.evictLocked(0)
	c.limit = limit
}
