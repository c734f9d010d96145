package ui

import (
	"runtime"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/ui/internal/fakebackend"
)

// The benchmarks run on Fyne's test driver (software painter, no GL, no X):
// "frame" is a full software capture of the window, which costs more than
// a GL frame; the real window's figures are in the report.

const benchTracks = 10_000

func benchUI(b *testing.B, fa fyne.App, fb *fakebackend.Backend) *UI {
	u := newUI(fa, fb, Options{}, func(f func()) { f() })
	u.win.Resize(fyne.NewSize(1180, 760))
	return u
}

// BenchmarkColdStartToFirstFrame builds the window over a 10,000-track
// library (catalog load and indexing included) and paints its first frame.
func BenchmarkColdStartToFirstFrame(b *testing.B) {
	fa := test.NewTempApp(b)
	fb := fakebackend.New(fakebackend.MakeTracks(benchTracks))
	b.ResetTimer()
	for range b.N {
		u := benchUI(b, fa, fb)
		u.win.Canvas().Capture()
		b.StopTimer()
		u.Close()
		u.win.Close()
		b.StartTimer()
	}
}

// BenchmarkTrackListScroll moves the 10,000-track list by a screenful
// (rebinding the visible rows) without painting.
func BenchmarkTrackListScroll(b *testing.B) {
	fa := test.NewTempApp(b)
	u := benchUI(b, fa, fakebackend.New(fakebackend.MakeTracks(benchTracks)))
	defer u.Close()
	l := u.tracks.list.list
	u.win.Canvas().Capture()
	b.ResetTimer()
	for i := range b.N {
		l.ScrollToOffset(float32((i * 613 * 39) % (benchTracks * 39)))
	}
}

// BenchmarkTrackListFrame scrolls the 10,000-track list and paints the
// whole window in software.
func BenchmarkTrackListFrame(b *testing.B) {
	fa := test.NewTempApp(b)
	u := benchUI(b, fa, fakebackend.New(fakebackend.MakeTracks(benchTracks)))
	defer u.Close()
	l := u.tracks.list.list
	b.ResetTimer()
	for i := range b.N {
		l.ScrollToOffset(float32((i * 613 * 39) % (benchTracks * 39)))
		u.win.Canvas().Capture()
	}
}

// BenchmarkStatusUpdate applies a status that only moved the position: the
// common case while playing.
func BenchmarkStatusUpdate(b *testing.B) {
	fa := test.NewTempApp(b)
	fb := fakebackend.New(fakebackend.MakeTracks(benchTracks))
	u := benchUI(b, fa, fb)
	defer u.Close()
	ts, _ := fb.Tracks()
	ids := make([]string, 500)
	for i := range ids {
		ids[i] = ts[i].ContentID
	}
	if err := fb.PlayTracks(ids, 3); err != nil {
		b.Fatal(err)
	}
	st := fb.Status()
	u.apply(st)
	b.ResetTimer()
	for i := range b.N {
		st.PositionMS = int64(i)
		u.apply(st)
	}
}

// BenchmarkSearch10k filters 10,000 tracks for one keystroke.
func BenchmarkSearch10k(b *testing.B) {
	c := buildCatalog(fakebackend.MakeTracks(benchTracks))
	b.ResetTimer()
	for range b.N {
		c.search("night glass", searchLimit)
	}
}

// BenchmarkMemory10k reports the live heap of a window showing a
// 10,000-track library (catalog, indexes, visible rows).
func BenchmarkMemory10k(b *testing.B) {
	fa := test.NewTempApp(b)
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		fb := fakebackend.New(fakebackend.MakeTracks(benchTracks))
		u := benchUI(b, fa, fb)
		u.apply(fb.Status())
		u.win.Canvas().Capture()
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB-heap")
		runtime.KeepAlive(u)
		u.Close()
		u.win.Close()
	}
}

var _ = app.Status{}
var _ = time.Second

// openBench is a window on the Playlists page with a playlist of all
// 10,000 tracks; open switches to it from Liked.
func openBench(b *testing.B) (*UI, func()) {
	fa := test.NewTempApp(b)
	fb := fakebackend.New(fakebackend.MakeTracks(benchTracks))
	ts, _ := fb.Tracks()
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ContentID
	}
	id := fb.AddPlaylist("Everything", ids)
	u := benchUI(b, fa, fb)
	u.apply(fb.Status())
	u.showPage(PagePlaylists)
	return u, func() {
		u.playlists.openList(app.ListLiked)
		u.playlists.openList(id)
		if len(u.playlists.entries.items) != benchTracks {
			b.Fatalf("opened %d entries", len(u.playlists.entries.items))
		}
	}
}

// BenchmarkOpenPlaylist10k opens a 10,000-entry playlist: the backend's
// view (the fake's, see app.BenchmarkPlaylistView10k for the app's),
// header, entry list and its visible rows, without painting.
func BenchmarkOpenPlaylist10k(b *testing.B) {
	u, open := openBench(b)
	defer u.Close()
	b.ResetTimer()
	for range b.N {
		open()
	}
}

// BenchmarkOpenPlaylist10kFrame is BenchmarkOpenPlaylist10k with the
// window painted in software afterwards.
func BenchmarkOpenPlaylist10kFrame(b *testing.B) {
	u, open := openBench(b)
	defer u.Close()
	b.ResetTimer()
	for range b.N {
		open()
		u.win.Canvas().Capture()
	}
}
