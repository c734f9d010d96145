package ui

import (
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/ui/internal/fakebackend"
)

// readsBackend counts the reads of the whole catalog, and the tracks the
// window took from them.
type readsBackend struct {
	*fakebackend.Backend
	reads, taken atomic.Int64
}

func (b *readsBackend) EachTrack(fn func(library.Track) error) error {
	b.reads.Add(1)
	return b.Backend.EachTrack(func(t library.Track) error {
		err := fn(t)
		if err == nil {
			b.taken.Add(1)
		}
		return err
	})
}

// While a scan stores tracks the list fills: the first batch is read at
// once, later ones no sooner than scanReloadGap after the last read (the
// version moves every few seconds; a large catalog takes a while to
// read), and the end of the scan is read at once. The artist chosen and
// the album open stay chosen and open across the reads.
func TestListFillsWhileScanning(t *testing.T) {
	fa := test.NewTempApp(t)
	all := fakebackend.MakeTracks(60)
	b := &readsBackend{Backend: fakebackend.New(nil)}
	u := newUI(fa, b, Options{}, func(f func()) { f() })
	u.win.Resize(fyne.NewSize(860, 520))
	t.Cleanup(func() { u.Close(); u.win.Close() })
	apply := func(f func(*app.Status)) {
		b.Update(f)
		u.apply(b.Status())
	}
	apply(func(st *app.Status) { st.Scan = app.ScanStatus{Running: true, Found: 60, Done: 10} })
	reads := b.reads.Load()
	b.SetTracks(all[:20])
	apply(func(st *app.Status) { st.Scan.Done = 20; st.LibraryVersion++ })
	if b.reads.Load() != reads+1 || len(u.cat.tracks) != 20 {
		t.Fatalf("the first batch of a scan: %d reads, %d tracks listed; want it read at once", b.reads.Load()-reads, len(u.cat.tracks))
	}
	u.artists.list.Select(3)
	artist := u.artists.selected
	u.albums.openAlbum(u.cat.albums[1])
	album := u.albums.open.title
	b.SetTracks(all[:40])
	apply(func(st *app.Status) { st.Scan.Done = 40; st.LibraryVersion++ })
	if b.reads.Load() != reads+1 {
		t.Fatalf("a second batch right after: %d reads; want it held back", b.reads.Load()-reads)
	}
	u.loadLibrary() // as the held-back read does when its time is up
	if u.artists.selected != artist || u.albums.open == nil || u.albums.open.title != album {
		t.Fatalf("after a read: artist %q (was %q), album open %v", u.artists.selected, artist, u.albums.open != nil)
	}
	b.SetTracks(all[:50])
	apply(func(st *app.Status) { st.Scan.Done = 50; st.LibraryVersion++ })
	if b.reads.Load() != reads+2 || u.reload == nil {
		t.Fatalf("another batch right after: %d reads, held back %v; want it held back", b.reads.Load()-reads, u.reload != nil)
	}
	b.SetTracks(all)
	apply(func(st *app.Status) { st.Scan = app.ScanStatus{Found: 60, Done: 60}; st.LibraryVersion++ })
	if b.reads.Load() != reads+3 || len(u.cat.tracks) != 60 || u.reload != nil {
		t.Fatalf("the scan ended: %d reads, %d tracks; want the whole catalog read at once", b.reads.Load()-reads, len(u.cat.tracks))
	}
}

// The read when a scan ends does not wait for a read begun while the scan
// ran (which lacks the last batches): it begins at once, beside it, and
// the older read, ending later, does not replace what it shows.
func TestScanEndReadBeginsAtOnce(t *testing.T) {
	fa := test.NewTempApp(t)
	all := fakebackend.MakeTracks(60)
	b := &readsBackend{Backend: fakebackend.New(nil)}
	var queued []func()
	u := newUI(fa, b, Options{}, func(f func()) { queued = append(queued, f) })
	t.Cleanup(func() { u.Close(); u.win.Close() })
	apply := func(f func(*app.Status)) {
		b.Update(f)
		u.apply(b.Status())
	}
	runAll := func() {
		for len(queued) > 0 {
			f := queued[0]
			queued = queued[1:]
			f()
		}
	}
	runAll() // the first read, of an empty library
	apply(func(st *app.Status) { st.Scan = app.ScanStatus{Running: true, Found: 60, Done: 10} })
	runAll()
	b.SetTracks(all[:20])
	apply(func(st *app.Status) { st.Scan.Done = 20; st.LibraryVersion++ })
	if len(queued) != 1 || u.loads != 1 {
		t.Fatalf("a first batch: %d reads under way; want 1", u.loads)
	}
	during := queued[0]
	queued = nil
	b.SetTracks(all)
	apply(func(st *app.Status) { st.Scan = app.ScanStatus{Found: 60, Done: 60}; st.LibraryVersion++ })
	if len(queued) != 1 || u.loads != 2 {
		t.Fatalf("the scan ended while a read was under way: %d reads under way, %d queued; want the last read begun at once", u.loads, len(queued))
	}
	runAll() // the read after the scan ends first
	if u.cat == nil || len(u.cat.tracks) != 60 {
		t.Fatalf("after the read at the scan's end: %v tracks listed, want 60", u.cat)
	}
	shown := u.cat
	taken := b.taken.Load()
	during() // the read begun while scanning ends last
	runAll()
	if u.cat != shown || u.loads != 0 || u.loadAgain {
		t.Fatalf("the older read replaced the newer one (%v), or reads are left: %d under way, again %v", u.cat != shown, u.loads, u.loadAgain)
	}
	if n := b.taken.Load() - taken; n != 0 {
		t.Errorf("the older read went on reading %d tracks after a newer one began; want it stopped", n)
	}
}

// A read of the catalog that ends after the window was closed (quitting)
// shows nothing: once Fyne's loop ended its callbacks would run on the
// reading goroutine, racing with the quit.
func TestReadEndingAfterCloseShowsNothing(t *testing.T) {
	fa := test.NewTempApp(t)
	b := &readsBackend{Backend: fakebackend.New(fakebackend.MakeTracks(30))}
	var queued []func()
	u := newUI(fa, b, Options{}, func(f func()) { queued = append(queued, f) })
	t.Cleanup(func() { u.win.Close() })
	if len(queued) == 0 {
		t.Fatal("the window did not ask for the catalog")
	}
	u.Close()
	for len(queued) > 0 {
		f := queued[0]
		queued = queued[1:]
		f()
	}
	if u.cat != nil {
		t.Fatalf("a read ending after the window closed showed %d tracks", len(u.cat.tracks))
	}
}

// While a scan runs, reads of the catalog take at most about a ninth of
// the time: the next waits scanReloadShare times the last one's length,
// and never less than scanReloadGap, from the last one's start.
func TestScanReloadWaitKeepsReadsAShareOfTheTime(t *testing.T) {
	s := time.Second
	for _, c := range []struct{ took, since, want time.Duration }{
		{0, 0, scanReloadGap},
		{100 * time.Millisecond, 0, scanReloadGap},
		{s, s, scanReloadShare*s - s},
		{s, scanReloadShare * s, 0},
		{s / 2, 10 * s, scanReloadShare*s/2 - 10*s}, // overdue: at once
	} {
		if got := scanReloadWait(c.took, c.since); got != c.want {
			t.Errorf("scanReloadWait(%v, %v) = %v, want %v", c.took, c.since, got, c.want)
		}
	}
}

// A batch stored while a read of the scan's tracks is under way is not
// read right after it, back to back, but after scanReloadWait.
func TestABatchDuringAReadWaitsItsTurn(t *testing.T) {
	fa := test.NewTempApp(t)
	all := fakebackend.MakeTracks(60)
	b := &readsBackend{Backend: fakebackend.New(nil)}
	var queued []func()
	u := newUI(fa, b, Options{}, func(f func()) { queued = append(queued, f) })
	t.Cleanup(func() { u.Close(); u.win.Close() })
	apply := func(f func(*app.Status)) {
		b.Update(f)
		u.apply(b.Status())
	}
	runAll := func() {
		for len(queued) > 0 {
			f := queued[0]
			queued = queued[1:]
			f()
		}
	}
	runAll()
	apply(func(st *app.Status) { st.Scan = app.ScanStatus{Running: true, Found: 60, Done: 10} })
	runAll()
	b.SetTracks(all[:20])
	apply(func(st *app.Status) { st.Scan.Done = 20; st.LibraryVersion++ })
	runAll() // the first batch, at once
	b.SetTracks(all[:30])
	apply(func(st *app.Status) { st.Scan.Done = 30; st.LibraryVersion++ })
	if len(queued) != 0 || u.reload == nil {
		t.Fatalf("a batch right after a read: %d reads queued, held back %v; want it held back", len(queued), u.reload != nil)
	}
	u.reload.Stop()
	u.reload = nil
	u.loadLibrary() // its time is up
	during := queued[0]
	queued = nil
	reads := b.reads.Load()
	b.SetTracks(all[:40])
	apply(func(st *app.Status) { st.Scan.Done = 40; st.LibraryVersion++ })
	if len(queued) != 0 {
		t.Fatalf("a batch during a read: %d reads queued beside it", len(queued))
	}
	during()
	runAll()
	if b.reads.Load() != reads+1 || u.reload == nil || u.loadAgain {
		t.Fatalf("after the read: %d reads, held back %v; want that read alone and the next held back",
			b.reads.Load()-reads, u.reload != nil)
	}
}
