package ui

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"sync"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/furudesk/furudesk/ui/internal/fakebackend"
)

// bigCovers answers every cover with a 1000×800 JPEG and records what was
// asked.
type bigCovers struct {
	*fakebackend.Backend
	mu    sync.Mutex
	asked []string
}

func (b *bigCovers) Cover(id string) ([]byte, error) {
	b.mu.Lock()
	b.asked = append(b.asked, id)
	b.mu.Unlock()
	img := image.NewRGBA(image.Rect(0, 0, 1000, 800))
	for y := range 800 {
		for x := range 1000 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(len(id)), 255})
		}
	}
	var buf bytes.Buffer
	err := jpeg.Encode(&buf, img, nil)
	return buf.Bytes(), err
}

// Covers are decoded off the UI goroutine into thumbnails of at most
// coverMaxPixels a side; a cover nobody waits for any more (its card
// scrolled away and shows another album) leaves the queue undecoded; the
// thumbnails kept stay within the cache's bytes.
func TestCoversThumbnailCancelAndBound(t *testing.T) {
	test.NewTempApp(t)
	b := &bigCovers{Backend: fakebackend.New(nil)}
	var work []func()
	c := newCoverCache(b, func(f func()) { work = append(work, f) }, 3*coverMaxPixels*coverMaxPixels*4)
	var got []string
	_, ok, cancelA := c.get("b3:a", func(image.Image) { got = append(got, "a") })
	if ok {
		t.Fatal("a cover not loaded yet was there")
	}
	_, _, _ = c.get("b3:b", func(image.Image) { got = append(got, "b") })
	if c.queued() != 2 || len(work) != coverWorkers {
		t.Fatalf("%d loads queued, %d workers started", c.queued(), len(work))
	}
	runWork := func() {
		for len(work) > 0 {
			f := work[0]
			work = work[1:]
			f()
		}
	}
	cancelA() // a's card now shows another album
	if c.queued() != 1 {
		t.Fatalf("a cancelled load is still queued (%d waiting)", c.queued())
	}
	runWork() // the workers run; fyne.Do runs the stores inline in the test app
	if len(b.asked) != 1 || b.asked[0] != "b3:b" || len(got) != 1 || got[0] != "b" {
		t.Fatalf("decoded %v, delivered %v: want only b", b.asked, got)
	}
	img, ok, _ := c.get("b3:b", nil)
	if !ok || img == nil || img.Bounds().Dx() > coverMaxPixels || img.Bounds().Dy() > coverMaxPixels {
		t.Fatalf("b's thumbnail: %v, cached %v", img.Bounds(), ok)
	}
	for _, id := range []string{"b3:c", "b3:d", "b3:e", "b3:f", "b3:g"} {
		c.get(id, func(image.Image) {})
	}
	runWork()
	if c.bytes > c.max || c.lru.Len() > 3 {
		t.Fatalf("%d thumbnails of %d bytes kept, the cache holds at most %d", c.lru.Len(), c.bytes, c.max)
	}
	if _, ok, _ := c.get("b3:g", nil); !ok {
		t.Fatal("the newest cover is not kept")
	}
}
