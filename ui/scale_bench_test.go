package ui

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/furudesk/furudesk/ui/internal/fakebackend"
)

// The scale of issue 17: a collector's library of 100,000 tracks
// (fakebackend.MakeTracks: 10,000 albums of 2,000 artists). The window
// runs on Fyne's test driver (software painter, no GL): "frame" is a full
// software capture of the window, which costs more than a GL frame.
// Latencies that matter per keystroke or click are reported as metrics
// (p95-ms and the like) next to ns/op.

const scaleTracks = 100_000

var scaleLib = fakebackend.MakeTracks(scaleTracks)

func scaleUI(b *testing.B) (*UI, *fakebackend.Backend) {
	fa := test.NewTempApp(b)
	fb := fakebackend.New(scaleLib)
	u := benchUI(b, fa, fb)
	b.Cleanup(func() { u.Close(); u.win.Close() })
	u.win.Canvas().Capture()
	return u, fb
}

// BenchmarkScaleCatalog100k builds the window's catalog of 100,000 tracks
// (collation ranks, search text, albums, artists): off the UI goroutine,
// the bulk of "launch to interactive" after reading the tracks.
func BenchmarkScaleCatalog100k(b *testing.B) {
	for b.Loop() {
		buildCatalog(scaleLib)
	}
}

// BenchmarkScaleCatalogLive100k reports what the window's catalog of
// 100,000 tracks keeps (live-MB: the Go heap it holds once the tracks it
// was built from are gone), what the window holds for as long as it is
// open.
func BenchmarkScaleCatalogLive100k(b *testing.B) {
	var live float64
	for b.Loop() {
		before := heapLive()
		ts := slices.Clone(scaleLib) // the copy Backend.Tracks returns
		c := buildCatalog(ts)
		ts = nil
		live = float64(heapLive()-before) / (1 << 20)
		runtime.KeepAlive(c)
	}
	b.ReportMetric(live, "live-MB")
}

// heapLive is the Go heap's live bytes after a collection.
func heapLive() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkScaleOpen100k opens the window over 100,000 tracks and paints
// its first frame (catalog included): the window's share of launch to
// interactive (cmd/furudesk's launch benchmark measures the whole).
func BenchmarkScaleOpen100k(b *testing.B) {
	fa := test.NewTempApp(b)
	fb := fakebackend.New(scaleLib)
	for b.Loop() {
		u := benchUI(b, fa, fb)
		u.win.Canvas().Capture()
		b.StopTimer()
		u.Close()
		u.win.Close()
		b.StartTimer()
	}
}

// BenchmarkScaleScrollFrame100k scrolls the Tracks list of 100,000 by a
// screen and paints the whole window in software: one frame.
func BenchmarkScaleScrollFrame100k(b *testing.B) {
	u, _ := scaleUI(b)
	l := u.tracks.list.list
	step := u.tracks.list.rowH + 4
	i := 0
	for b.Loop() {
		i++
		l.ScrollToOffset(float32((i*613)%scaleTracks) * step)
		u.win.Canvas().Capture()
	}
}

// BenchmarkScaleScrollRebind100k scrolls by a screen without painting:
// the rows the list rebinds, the UI goroutine's work per scroll step.
func BenchmarkScaleScrollRebind100k(b *testing.B) {
	u, _ := scaleUI(b)
	l := u.tracks.list.list
	step := u.tracks.list.rowH + 4
	i := 0
	for b.Loop() {
		i++
		l.ScrollToOffset(float32((i*613)%scaleTracks) * step)
	}
}

// BenchmarkScaleSort100k sorts the Tracks list of 100,000 by each sortable
// column as a click on its header does (the sort, the selection kept,
// the list redrawn); max-ms is the slowest column.
func BenchmarkScaleSort100k(b *testing.B) {
	u, fb := scaleUI(b)
	ts, _ := fb.Tracks()
	plays := map[string]playStats{}
	for i := 0; i < len(ts); i += 7 {
		plays[ts[i].ContentID] = playStats{plays: uint64(i % 50), lastMS: int64(i)}
	}
	u.plays = plays
	tl := u.tracks.list
	for _, c := range []column{colYear, colGenre, colDisc, colAdded, colPlays, colLast} {
		tl.setVisible(c, true)
	}
	cols := []column{colTitle, colArtist, colAlbum, colTrackNo, colYear, colGenre, colDisc, colAdded, colPlays, colLast, colTime}
	worst := map[column]time.Duration{}
	for b.Loop() {
		for _, c := range cols {
			t0 := time.Now()
			tl.sortBy(c)
			worst[c] = max(worst[c], time.Since(t0))
		}
	}
	var m time.Duration
	for c, d := range worst {
		b.ReportMetric(float64(d.Microseconds())/1000, colDefs[c].key+"-ms")
		m = max(m, d)
	}
	b.ReportMetric(float64(m.Microseconds())/1000, "max-ms")
}

// BenchmarkScaleSearchTyping100k types queries into the search field
// over 100,000 tracks, keystroke by keystroke (the list filtered and
// redrawn each time), and reports the 95th percentile and the slowest
// keystroke.
func BenchmarkScaleSearchTyping100k(b *testing.B) {
	u, _ := scaleUI(b)
	var lat []time.Duration
	queries := []string{"glass", "night river", "blue lights summer", "velvet 12", "quiet"}
	for b.Loop() {
		for _, q := range queries {
			for i := 1; i <= len(q); i++ {
				t0 := time.Now()
				u.search.SetText(q[:i])
				lat = append(lat, time.Since(t0))
			}
			for i := len(q) - 1; i >= 0; i-- { // backspace to empty
				t0 := time.Now()
				u.search.SetText(q[:i])
				lat = append(lat, time.Since(t0))
			}
		}
	}
	slices.Sort(lat)
	p := func(q int) float64 { return float64(lat[(len(lat)-1)*q/100].Microseconds()) / 1000 }
	b.ReportMetric(p(50), "p50-ms")
	b.ReportMetric(p(95), "p95-ms")
	b.ReportMetric(p(100), "max-ms")
}

// BenchmarkScaleAlbumGridScroll scrolls the grid of 10,000 albums while
// no cover has arrived yet (each loads on a worker goroutine, here held
// back): the UI goroutine's time per scroll step (binding the cards,
// asking for covers) never waits for a cover. pending-loads is how many
// loads were asked for: the scrolled-past ones are dropped (the queue is
// bounded), the cache holds at most coverCacheMax.
func BenchmarkScaleAlbumGridScroll(b *testing.B) {
	fa := test.NewTempApp(b)
	fb := fakebackend.New(scaleLib)
	var pending []func()
	u := newUI(fa, fb, Options{}, func(f func()) { pending = append(pending, f) })
	u.win.Resize(fyne.NewSize(1180, 760))
	b.Cleanup(func() { u.Close(); u.win.Close() })
	u.setCatalog(buildCatalog(scaleLib))
	u.showPage(PageAlbums)
	u.win.Canvas().Capture()
	g := u.albums.grid
	var worst time.Duration
	i := 0
	for b.Loop() {
		i++
		t0 := time.Now()
		g.ScrollToOffset(float32((i * 977) % 400000))
		worst = max(worst, time.Since(t0))
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-step-ms")
	u.covers.mu.Lock()
	b.ReportMetric(float64(len(u.covers.queue)), "queued-loads")
	u.covers.mu.Unlock()
}
