package ui

import (
	"bytes"
	"container/list"
	"image"
	"image/draw"
	_ "image/gif"  // cover art decoders
	_ "image/jpeg" // cover art decoders
	_ "image/png"  // cover art decoders
	"slices"
	"strings"
	"sync"

	"fyne.io/fyne/v2/canvas"

	"github.com/furudesk/furudesk/internal/framegov"
	"github.com/furudesk/furudesk/library"
)

// Limits of the cover cache. Covers are decoded and shrunk to thumbnails
// (coverMaxPixels a side: the album grid's cards are 164 points, the
// now-playing cover smaller) off the UI goroutine, at most coverWorkers at
// a time; only the newest coverQueueMax requests wait, and a request no
// card wants any more (scrolled away) is dropped from the queue. The
// decoded thumbnails kept take at most coverCacheBytes (about 55 covers
// of 192×192 at 4 bytes a pixel: two screens of the album grid at the
// window's default size, so scrolling back a little shows covers at
// once), the least recently used going first. The covers on screen are
// held by their cards besides.
const (
	coverMaxPixels  = 192
	coverWorkers    = 2
	coverQueueMax   = 64
	coverCacheBytes = 8 << 20
)

// coverCache loads album art lazily through Backend.Cover and keeps the
// most recently used thumbnails (a nil image records "no cover", so the
// backend is asked once). Its maps are touched only on the UI goroutine;
// the request queue is shared with the workers.
type coverCache struct {
	b     Backend
	spawn func(func())
	max   int // bytes of thumbnails kept

	lru     *list.List // of *coverEntry, most recently asked for first
	entries map[string]*list.Element
	bytes   int
	waiting map[string][]*coverWaiter
	asked   map[string]uint64 // when a cover still loading was last asked for
	seq     uint64

	mu      sync.Mutex
	queue   []string // LIFO: the newest request is what the user looks at
	running int
}

type coverEntry struct {
	id    string
	img   image.Image
	bytes int
	seq   uint64 // when it was last asked for
}

// coverWaiter is one request for a cover that is not loaded yet.
type coverWaiter struct{ done func(image.Image) }

func newCoverCache(b Backend, spawn func(func()), maxBytes int) *coverCache {
	return &coverCache{b: b, spawn: spawn, max: maxBytes, lru: list.New(),
		entries: map[string]*list.Element{}, waiting: map[string][]*coverWaiter{}, asked: map[string]uint64{}}
}

// get returns the cover of contentID (or of an album: a library.AlbumID)
// if it is cached. Otherwise it queues a
// load and calls done (on the UI goroutine) when a cover arrives; done is
// not called when there is none, nor after cancel, which the caller calls
// when it no longer wants it (a card bound to another album): a load
// nobody waits for any more leaves the queue.
func (c *coverCache) get(contentID string, done func(image.Image)) (img image.Image, ok bool, cancel func()) {
	cancel = func() {}
	if contentID == "" {
		return nil, true, cancel
	}
	c.seq++
	if el, ok := c.entries[contentID]; ok {
		el.Value.(*coverEntry).seq = c.seq
		c.lru.MoveToFront(el)
		return el.Value.(*coverEntry).img, true, cancel
	}
	c.asked[contentID] = c.seq
	var w *coverWaiter
	if done != nil {
		w = &coverWaiter{done: done}
		cancel = func() { c.cancel(contentID, w) }
	}
	if ws, ok := c.waiting[contentID]; ok {
		if w != nil {
			c.waiting[contentID] = append(ws, w)
		}
		return nil, false, cancel
	}
	var ws []*coverWaiter
	if w != nil {
		ws = append(ws, w)
	}
	c.waiting[contentID] = ws
	c.enqueue(contentID)
	return nil, false, cancel
}

// cancel takes w off contentID's waiters; with none left the load leaves
// the queue (unless a worker took it already).
func (c *coverCache) cancel(contentID string, w *coverWaiter) {
	ws, ok := c.waiting[contentID]
	if !ok {
		return
	}
	i := slices.Index(ws, w)
	if i < 0 {
		return // loaded already, or dropped from the queue
	}
	ws = slices.Delete(ws, i, i+1)
	if len(ws) > 0 {
		c.waiting[contentID] = ws
		return
	}
	delete(c.waiting, contentID)
	delete(c.asked, contentID)
	c.mu.Lock()
	for i := len(c.queue) - 1; i >= 0; i-- {
		if c.queue[i] == contentID {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			break
		}
	}
	c.mu.Unlock()
}

// queued is how many loads wait (tests).
func (c *coverCache) queued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

func (c *coverCache) enqueue(id string) {
	c.mu.Lock()
	c.queue = append(c.queue, id)
	var dropped []string
	if len(c.queue) > coverQueueMax {
		dropped = append(dropped, c.queue[:len(c.queue)-coverQueueMax]...)
		c.queue = append(c.queue[:0], c.queue[len(c.queue)-coverQueueMax:]...)
	}
	start := c.running < coverWorkers
	if start {
		c.running++
	}
	c.mu.Unlock()
	for _, d := range dropped {
		delete(c.waiting, d) // asked again when it scrolls back into view
		delete(c.asked, d)
	}
	if start {
		c.spawn(c.work)
	}
}

func (c *coverCache) work() {
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			c.running--
			c.mu.Unlock()
			return
		}
		id := c.queue[len(c.queue)-1]
		c.queue = c.queue[:len(c.queue)-1]
		c.mu.Unlock()

		var img image.Image
		fetch := c.b.Cover
		if strings.HasPrefix(id, library.AlbumIDPrefix) {
			fetch = c.b.AlbumCover
		}
		if data, err := fetch(id); err == nil {
			img = decodeCover(data)
		}
		framegov.Do(func() { c.store(id, img) })
	}
}

// imageBytes is what a thumbnail holds in memory.
func imageBytes(img image.Image) int {
	if img == nil {
		return 0
	}
	b := img.Bounds()
	return b.Dx() * b.Dy() * 4
}

func (c *coverCache) store(id string, img image.Image) {
	if _, ok := c.entries[id]; !ok {
		// In the order covers were asked for, not decoded: the workers
		// take the newest request first, and the covers asked for
		// earlier (scrolled past) must not push it out.
		e := &coverEntry{id: id, img: img, bytes: imageBytes(img) + 64, seq: c.asked[id]}
		at := c.lru.Front()
		for at != nil && at.Value.(*coverEntry).seq > e.seq {
			at = at.Next()
		}
		if at == nil {
			c.entries[id] = c.lru.PushBack(e)
		} else {
			c.entries[id] = c.lru.InsertBefore(e, at)
		}
		c.bytes += e.bytes
		for c.bytes > c.max && c.lru.Len() > 1 {
			last := c.lru.Back()
			c.lru.Remove(last)
			le := last.Value.(*coverEntry)
			delete(c.entries, le.id)
			c.bytes -= le.bytes
		}
	}
	ws := c.waiting[id]
	delete(c.waiting, id)
	delete(c.asked, id)
	if img == nil {
		return
	}
	for _, w := range ws {
		w.done(img)
	}
}

// coverView shows the cover of a key (a content id or an album id) in an
// image: a cached cover at once, else none until it has loaded, unless
// another key was shown meanwhile. A view shown another key gives up the
// cover it was waiting for: a card scrolled onto another album leaves
// that load off the queue.
type coverView struct {
	img    *canvas.Image
	key    string
	set    bool
	cancel func() // gives up the load of key, when it is still waited for
}

// show shows the cover of key from the cache c.
func (v *coverView) show(c *coverCache, key string) {
	if v.set && key == v.key {
		return
	}
	if v.cancel != nil {
		v.cancel()
		v.cancel = nil
	}
	v.key, v.set = key, true
	img, ok, cancel := c.get(key, func(img image.Image) {
		if v.key == key {
			v.cancel = nil
			v.img.Image = img
			v.img.Refresh()
		}
	})
	if !ok {
		v.cancel = cancel
	}
	if v.img.Image == nil && img == nil {
		return // nothing shown, nothing to show yet: no redraw
	}
	v.img.Image = img
	v.img.Refresh()
}

// decodeCover decodes image bytes and shrinks them to at most
// coverMaxPixels a side, so a 3000×3000 scan costs 144 KiB, not 36 MiB.
// Undecodable data is no cover.
func decodeCover(data []byte) image.Image {
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return nil
	}
	if w <= coverMaxPixels && h <= coverMaxPixels {
		dst := image.NewNRGBA(image.Rect(0, 0, w, h))
		draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Src)
		return dst
	}
	scale := float64(coverMaxPixels) / float64(max(w, h))
	dw, dh := max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))
	return boxShrink(src, dw, dh)
}

// boxShrink averages the source pixels that fall into each destination
// pixel: good enough for artwork and free of dependencies.
func boxShrink(src image.Image, dw, dh int) *image.NRGBA {
	b := src.Bounds()
	sw, sh := b.Dx(), b.Dy()
	dst := image.NewNRGBA(image.Rect(0, 0, dw, dh))
	for y := 0; y < dh; y++ {
		y0, y1 := b.Min.Y+y*sh/dh, b.Min.Y+(y+1)*sh/dh
		if y1 <= y0 {
			y1 = y0 + 1
		}
		for x := 0; x < dw; x++ {
			x0, x1 := b.Min.X+x*sw/dw, b.Min.X+(x+1)*sw/dw
			if x1 <= x0 {
				x1 = x0 + 1
			}
			var r, g, bl, a, n uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					cr, cg, cb, ca := src.At(sx, sy).RGBA()
					r, g, bl, a = r+uint64(cr), g+uint64(cg), bl+uint64(cb), a+uint64(ca)
					n++
				}
			}
			i := dst.PixOffset(x, y)
			if a == 0 {
				continue
			}
			// un-premultiply the averaged colour
			dst.Pix[i+0] = uint8((r * 255 / a))
			dst.Pix[i+1] = uint8((g * 255 / a))
			dst.Pix[i+2] = uint8((bl * 255 / a))
			dst.Pix[i+3] = uint8(a / n >> 8)
		}
	}
	return dst
}
