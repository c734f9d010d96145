package ui

import (
	"bytes"
	"container/list"
	"image"
	"image/draw"
	_ "image/gif"  // cover art decoders
	_ "image/jpeg" // cover art decoders
	_ "image/png"  // cover art decoders
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"

	"github.com/furudesk/furudesk/library"
)

// Limits of the cover cache: covers are decoded and shrunk off the UI
// goroutine, at most coverWorkers at a time; only the newest
// coverQueueMax requests wait (a fast scroll drops the ones scrolled past).
const (
	coverMaxPixels = 256
	coverWorkers   = 2
	coverQueueMax  = 64
	coverCacheMax  = 300
)

// coverCache loads album art lazily through Backend.Cover and keeps the
// most recently used coverCacheMax decoded images (a nil image records
// "no cover", so the backend is asked once). Its maps are touched only on
// the UI goroutine; the request queue is shared with the workers.
type coverCache struct {
	b     Backend
	spawn func(func())
	max   int

	lru     *list.List // of *coverEntry, most recent first
	entries map[string]*list.Element
	waiting map[string][]func(image.Image)

	mu      sync.Mutex
	queue   []string // LIFO: the newest request is what the user looks at
	running int
}

type coverEntry struct {
	id  string
	img image.Image
}

func newCoverCache(b Backend, spawn func(func()), max int) *coverCache {
	return &coverCache{b: b, spawn: spawn, max: max, lru: list.New(),
		entries: map[string]*list.Element{}, waiting: map[string][]func(image.Image){}}
}

// get returns the cover of contentID (or of an album: a library.AlbumID)
// if it is cached. Otherwise it queues a
// load and calls done (on the UI goroutine) when a cover arrives; done is
// not called when there is none.
func (c *coverCache) get(contentID string, done func(image.Image)) (image.Image, bool) {
	if contentID == "" {
		return nil, true
	}
	if el, ok := c.entries[contentID]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*coverEntry).img, true
	}
	if _, ok := c.waiting[contentID]; ok {
		if done != nil {
			c.waiting[contentID] = append(c.waiting[contentID], done)
		}
		return nil, false
	}
	var ws []func(image.Image)
	if done != nil {
		ws = append(ws, done)
	}
	c.waiting[contentID] = ws
	c.enqueue(contentID)
	return nil, false
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
		fyne.Do(func() { c.store(id, img) })
	}
}

func (c *coverCache) store(id string, img image.Image) {
	if el, ok := c.entries[id]; ok {
		c.lru.MoveToFront(el)
	} else {
		c.entries[id] = c.lru.PushFront(&coverEntry{id: id, img: img})
		for c.lru.Len() > c.max {
			last := c.lru.Back()
			c.lru.Remove(last)
			delete(c.entries, last.Value.(*coverEntry).id)
		}
	}
	ws := c.waiting[id]
	delete(c.waiting, id)
	if img == nil {
		return
	}
	for _, w := range ws {
		w(img)
	}
}

// coverView shows the cover of a key (a content id or an album id) in an
// image: a cached cover at once, else none until it has loaded, unless
// another key was shown meanwhile.
type coverView struct {
	img *canvas.Image
	key string
	set bool
}

// show shows the cover of key from the cache c.
func (v *coverView) show(c *coverCache, key string) {
	if v.set && key == v.key {
		return
	}
	v.key, v.set = key, true
	img, _ := c.get(key, func(img image.Image) {
		if v.key == key {
			v.img.Image = img
			v.img.Refresh()
		}
	})
	v.img.Image = img
	v.img.Refresh()
}

// decodeCover decodes image bytes and shrinks them to at most
// coverMaxPixels a side, so a 3000×3000 scan costs 256 KiB, not 36 MiB.
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
