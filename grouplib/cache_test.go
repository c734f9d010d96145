package grouplib

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// putCached writes a verified file of size bytes for id as a download
// would, and adds it.
func putCached(t *testing.T, c *Cache, id string, size int, used time.Time) bool {
	t.Helper()
	part := c.partPath(id)
	if err := os.WriteFile(part, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	p, kept, err := c.add(id, "flac", part, int64(size))
	if err != nil {
		t.Fatal(err)
	}
	if kept {
		_ = os.Chtimes(p, used, used)
		c.mu.Lock()
		c.items[id].used = used
		c.mu.Unlock()
	} else {
		_ = os.Remove(part)
	}
	return kept
}

// The cache keeps at most its limit: the least recently used track goes
// first, a pinned one never, one larger than what can be freed is not
// kept; the index survives a reopen, and unfinished downloads do not.
func TestCacheLimitAndLRU(t *testing.T) {
	dir := t.TempDir()
	c, err := OpenCache(dir, MinCacheLimit)
	if err != nil {
		t.Fatal(err)
	}
	c.limit = 100 // bytes, for the test
	t0 := time.Unix(1_700_000_000, 0)
	putCached(t, c, cid(1), 40, t0)
	putCached(t, c, cid(2), 40, t0.Add(time.Minute))
	c.Pin([]string{cid(1)})
	putCached(t, c, cid(3), 40, t0.Add(2*time.Minute))
	if c.Has(cid(2)) || !c.Has(cid(1)) || !c.Has(cid(3)) {
		t.Fatalf("after the third: 1=%v 2=%v 3=%v; want the unpinned least recent (2) evicted", c.Has(cid(1)), c.Has(cid(2)), c.Has(cid(3)))
	}
	if putCached(t, c, cid(4), 70, t0.Add(3*time.Minute)) {
		t.Fatal("a track larger than what may be freed was kept")
	}
	if _, ok := c.Path(cid(1)); !ok {
		t.Fatal("pinned track lost")
	}
	if err := os.WriteFile(filepath.Join(dir, "leftover.7.part"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := OpenCache(dir, MinCacheLimit)
	if err != nil {
		t.Fatal(err)
	}
	if u := again.Usage(); u.Tracks != 2 || u.Bytes != 80 {
		t.Fatalf("reopened: %+v", u)
	}
	if _, err := os.Stat(filepath.Join(dir, "leftover.7.part")); !os.IsNotExist(err) {
		t.Fatal("an unfinished download survived a reopen")
	}
	again.limit = 50
	again.mu.Lock()
	again.evictLocked(0)
	again.mu.Unlock()
	if !again.Has(cid(1)) || again.Has(cid(3)) {
		t.Fatal("reopened cache did not keep the most recently used (1, touched by Path)")
	}
	if err := again.SetLimit(MinCacheLimit - 1); err == nil {
		t.Fatal("a limit below the minimum was taken")
	}
}
