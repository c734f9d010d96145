package app

import (
	"sync"
	"testing"
	"time"

	"github.com/furudesk/furudesk/library"
)

// A scan reports every file, thousands a second: the actor is told at
// most every ScanShowEvery, and the newest progress still reaches it,
// also one held back when the reports stop.
func TestScanProgressThrottled(t *testing.T) {
	var mu sync.Mutex
	var told []library.Progress
	f := &scanFeed{}
	f.send = func() bool {
		p := f.take()
		mu.Lock()
		told = append(told, p)
		mu.Unlock()
		return true
	}
	t0 := time.Now()
	n := 0
	for time.Since(t0) < 700*time.Millisecond {
		n++
		f.put(library.Progress{Found: 1 << 20, Done: n})
	}
	took := time.Since(t0)
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		k, last := len(told), library.Progress{}
		if k > 0 {
			last = told[k-1]
		}
		mu.Unlock()
		if last.Done == n {
			if most := int(took/ScanShowEvery) + 2; k > most {
				t.Fatalf("%d reports in %v told the actor %d times, want at most %d", n, took, k, most)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the newest progress (%d) never reached the actor; last told %+v", n, last)
		}
		time.Sleep(10 * time.Millisecond) // waiting for the held-back report's timer
	}
}

// The tracks a scan has stored make a new LibraryVersion while it runs,
// so the window lists them before the scan ends: at once for the first
// batch, then at most every ScanStoredEvery. The group library publishes
// the catalog once, when the scan is done, not for every batch.
func TestScanStoredTracksBumpTheLibraryVersion(t *testing.T) {
	gate := make(chan struct{})
	r := buildRig(t, self)
	r.gl = newFakeGroupLib(r.j)
	published := func() int {
		r.gl.mu.Lock()
		defer r.gl.mu.Unlock()
		return r.gl.locals
	}
	r.lib = &fakeLibrary{j: r.j, gate: gate, progress: []library.Progress{{Found: 600, Done: 100}, {Found: 600, Done: 300, Stored: 256}}}
	r.start(Options{Config: fastCfg(), Music: []string{"/music"}})
	st := r.waitStatus("the first batch listed", func(s Status) bool { return s.Scan.Running && s.Scan.Done == 300 })
	if st.LibraryVersion == 0 {
		t.Fatal("256 tracks stored, the library version did not move while the scan runs")
	}
	v := st.LibraryVersion
	r.do(func(a *actor) {
		scanProgress{gen: a.libRun.scanGen, feed: feedOf(library.Progress{Found: 600, Done: 500, Stored: 512})}.handle(a)
	})
	if st := r.app.Status(); st.LibraryVersion != v {
		t.Fatalf("a second batch right after the first bumped the version (%d -> %d): at most every %v", v, st.LibraryVersion, ScanStoredEvery)
	}
	r.clock.add(ScanStoredEvery)
	r.do(func(a *actor) {
		scanProgress{gen: a.libRun.scanGen, feed: feedOf(library.Progress{Found: 600, Done: 550, Stored: 512})}.handle(a)
	})
	if st := r.app.Status(); st.LibraryVersion == v {
		t.Fatal("more tracks stored after ScanStoredEvery: the version did not move")
	}
	if n := published(); n != 0 {
		t.Fatalf("the group library was told of the scan's batches %d times while it runs", n)
	}
	close(gate)
	r.waitStatus("scan done", func(s Status) bool { return !s.Scan.Running })
	if n := published(); n != 1 {
		t.Fatalf("the group library was told of the finished scan %d times, want once", n)
	}
}

func feedOf(p library.Progress) *scanFeed {
	f := &scanFeed{latest: p}
	return f
}

// A rescan that changes nothing makes no new LibraryVersion and does not
// have the group library publish its catalog again (issue 37: reading
// and comparing 100,000 tracks after every launch's rescan); one that
// adds a track does both.
func TestAnUnchangedRescanPublishesNothing(t *testing.T) {
	r := buildRig(t, self)
	r.gl = newFakeGroupLib(r.j)
	lib := &fakeLibrary{j: r.j, result: library.ScanResult{Found: 600, Unchanged: 600}}
	r.lib = lib
	r.start(Options{Config: fastCfg(), Music: []string{"/music"}})
	st := r.waitStatus("the launch's scan done", func(s Status) bool { return !s.Scan.Running && s.Scan.Found == 600 })
	told := func() int {
		r.gl.mu.Lock()
		defer r.gl.mu.Unlock()
		return r.gl.locals
	}
	v, before := st.LibraryVersion, told()
	for _, tc := range []struct {
		res  library.ScanResult
		want bool
	}{
		{library.ScanResult{Found: 600, Unchanged: 600}, false},
		{library.ScanResult{Found: 600, Unchanged: 598, Skipped: 2}, false},
		{library.ScanResult{Found: 601, Unchanged: 600, Added: 1}, true},
		{library.ScanResult{Found: 600, Unchanged: 599, Updated: 1}, true},
		{library.ScanResult{Found: 599, Unchanged: 599, Removed: 1}, true},
		{library.ScanResult{Found: 600, Unchanged: 599, Moved: 1}, true},
	} {
		r.do(func(a *actor) {
			a.libRun.scanGen++
			a.libRun.scan.Running = true
			scanDone{gen: a.libRun.scanGen, res: tc.res}.handle(a)
			a.noteLibrary()
		})
		st := r.app.Status()
		if moved := st.LibraryVersion != v; moved != tc.want {
			t.Errorf("%+v: library version moved %v, want %v", tc.res, moved, tc.want)
		}
		if published := told() != before; published != tc.want {
			t.Errorf("%+v: the group library told %v, want %v", tc.res, published, tc.want)
		}
		v, before = st.LibraryVersion, told()
	}
}
