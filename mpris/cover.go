package mpris

import (
	"cmp"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Limits of CoverCache.
const (
	// MaxCoverBytes is the largest cover written; larger ones get no art.
	MaxCoverBytes = 16 << 20
	// MaxCoverFiles is how many covers the directory keeps; the oldest
	// are removed.
	MaxCoverFiles = 32
	coverPrefix   = "cover-"
)

// CoverCache writes track covers into a directory so MPRIS clients, which
// read art by URL, can show them. Its ArtURL method is an Options.ArtURL.
type CoverCache struct {
	dir   string
	cover func(contentID string) ([]byte, error)
	log   *slog.Logger
	mu    sync.Mutex
}

// NewCoverCache keeps covers in dir (created when needed; a directory of
// its own, such as <data-dir>/mpris-covers, since old covers are deleted
// from it). cover returns a track's image bytes or an error when it has
// none: app.App.Cover. log may be nil.
func NewCoverCache(dir string, cover func(contentID string) ([]byte, error), log *slog.Logger) *CoverCache {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &CoverCache{dir: dir, cover: cover, log: log}
}

// ArtURL writes the cover of contentID and returns its file:// URL, or ""
// when the track has no cover or it could not be written (logged).
func (c *CoverCache) ArtURL(contentID string) string {
	img, err := c.cover(contentID)
	if err != nil || len(img) == 0 || len(img) > MaxCoverBytes {
		return ""
	}
	ext := ".img"
	switch http.DetectContentType(img) {
	case "image/jpeg":
		ext = ".jpg"
	case "image/png":
		ext = ".png"
	case "image/gif":
		ext = ".gif"
	case "image/webp":
		ext = ".webp"
	case "image/bmp":
		ext = ".bmp"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	path, err := c.write(idElement(contentID)+ext, img)
	if err != nil {
		c.log.Warn("mpris: cover not written", "content_id", contentID, "err", err)
		return ""
	}
	c.prune(path)
	return FileURL(path)
}

// FileURL is the file:// URL of an absolute path. A Windows path
// (C:\Music\x.jpg) gets the slash before its drive letter
// (file:///C:/Music/x.jpg), without which the drive would read as a host.
func FileURL(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// write puts img at dir/cover-<name> through a rename, so a client never
// reads half a file, and returns the absolute path.
func (c *CoverCache) write(name string, img []byte) (string, error) {
	dir, err := filepath.Abs(c.dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return "", err
	}
	_, werr := f.Write(img)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("write %s: %w", f.Name(), cmp.Or(werr, cerr))
	}
	path := filepath.Join(dir, coverPrefix+name)
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return path, nil
}

// prune keeps the MaxCoverFiles newest covers, keep among them (file
// times are coarse: several covers may share one).
func (c *CoverCache) prune(keep string) {
	dir := filepath.Dir(keep)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		mod  int64
	}
	var covers []file
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), coverPrefix) || path == keep {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		covers = append(covers, file{path, info.ModTime().UnixNano()})
	}
	if len(covers) < MaxCoverFiles {
		return
	}
	slices.SortFunc(covers, func(a, b file) int { return cmp.Compare(b.mod, a.mod) })
	for _, f := range covers[MaxCoverFiles-1:] {
		if err := os.Remove(f.path); err != nil {
			c.log.Debug("mpris: old cover not removed", "path", f.path, "err", err)
		}
	}
}
