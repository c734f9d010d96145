package app

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/library"
)

// The actor starts the watcher before the scan, and scan progress and the
// result reach Status.Scan.
func TestLibraryWatchThenScanWithProgress(t *testing.T) {
	gate := make(chan struct{})
	r := buildRig(t, self)
	j := r.j
	r.lib = &fakeLibrary{j: j, gate: gate,
		progress: []library.Progress{{Found: 3, Done: 1, Current: "/music/a.flac"}, {Found: 5, Done: 2, Current: "/music/b.flac"}},
		result:   library.ScanResult{Found: 5, Added: 4, Skipped: 1}}
	r.start(Options{Config: fastCfg(), Music: []string{"/music"}})
	st := r.waitStatus("scan progress", func(s Status) bool { return s.Scan.Running && s.Scan.Done == 2 })
	if st.Scan.Found != 5 || st.Scan.Current != "/music/b.flac" {
		t.Fatalf("scan progress: %+v", st.Scan)
	}
	if w, s := j.first("watch [/music]"), j.first("scan [/music]"); w < 0 || s < w {
		t.Fatalf("want watch before scan: %q", j.list())
	}
	v := st.LibraryVersion
	close(gate)
	st = r.waitStatus("scan done", func(s Status) bool { return !s.Scan.Running })
	if st.Scan.Found != 5 || st.Scan.Done != 5 || st.Scan.Errors != 1 || st.Scan.Current != "" || st.LibraryVersion == v {
		t.Fatalf("after the scan: %+v version %d (was %d)", st.Scan, st.LibraryVersion, v)
	}
}

// Watcher events bump LibraryVersion; failures count as scan errors.
func TestLibraryEventsReachStatus(t *testing.T) {
	r := newLibRig(t, Options{Config: fastCfg()})
	st := r.waitStatus("first scan", func(s Status) bool { return !s.Scan.Running })
	w := r.lib.watcher(0)
	for i, kind := range []library.EventKind{library.Added, library.Changed, library.Removed, library.Rescanned} {
		v := st.LibraryVersion
		w.events <- library.Event{Kind: kind, Track: library.Track{ContentID: fmt.Sprintf("b3:n%d", i), Path: "/music/n.wav"}}
		st = r.waitStatus(kind.String()+" bumps the library version", func(s Status) bool { return s.LibraryVersion > v })
	}
	w.events <- library.Event{Kind: library.Failed, Track: library.Track{Path: "/music/locked"}, Err: fmt.Errorf("permission denied")}
	r.waitStatus("a watch failure counted", func(s Status) bool { return s.Scan.Errors == 1 })
}

// A moved file keeps its identity and its place in the queue: the queue
// does not change, the prepared next track is prepared again from the new
// path, and playing it opens the new path.
func TestLibraryMovedTrackKeepsItsPlace(t *testing.T) {
	r := newLibRig(t, Options{Config: fastCfg()})
	r.waitStatus("first scan", func(s Status) bool { return !s.Scan.Running })
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb", "b3:cc"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	if r.out.nextSrc.Path != "/music/b3:bb.wav" {
		t.Fatalf("prepared %q", r.out.nextSrc.Path)
	}
	before := r.app.Status()
	// The library updates the index, then reports the move.
	moved := library.Track{ContentID: "b3:bb", Path: "/music/renamed/bb.wav", Title: "T b3:bb", Duration: 200 * time.Second}
	r.store.mu.Lock()
	r.store.tracks["b3:bb"] = moved
	r.store.mu.Unlock()
	r.lib.watcher(0).events <- library.Event{Kind: library.Moved, Track: moved, OldPath: "/music/b3:bb.wav"}
	st := r.waitStatus("the move", func(s Status) bool { return s.LibraryVersion > before.LibraryVersion })
	if st.QueueLen != 3 || st.Queue[1].ContentID != "b3:bb" || st.Index != 0 {
		t.Fatalf("queue changed by a move: %+v", st.Queue)
	}
	r.sync()
	if r.out.nextSrc.Path != moved.Path {
		t.Fatalf("prepared track not moved along: %q", r.out.nextSrc.Path)
	}
	if err := r.app.Next(); err != nil {
		t.Fatal(err)
	}
	if r.out.path != moved.Path {
		t.Fatalf("played %q, want the new path %q", r.out.path, moved.Path)
	}
	if st := r.app.Status(); st.Track == nil || st.Track.Path != moved.Path {
		t.Fatalf("status path: %+v", st.Track)
	}
}

// Adding or removing a folder restarts the watcher on the new set (and
// ignores the old one); Close stops the watcher and cancels the scan.
func TestLibraryWatcherRestartsAndStops(t *testing.T) {
	r := newLibRig(t, Options{Config: fastCfg()})
	r.waitStatus("first scan", func(s Status) bool { return !s.Scan.Running })
	if err := r.app.AddFolder("/more"); err != nil {
		t.Fatal(err)
	}
	r.waitStatus("second scan", func(s Status) bool { return !s.Scan.Running })
	old := r.lib.watcher(0)
	waitClosed(t, old, "the old watcher")
	if r.j.first("watch [/music /more]") < 0 || r.j.first("scan [/music /more]") < r.j.first("watch [/music /more]") {
		t.Fatalf("no new watcher before the scan: %q", r.j.list())
	}
	if err := r.app.RemoveFolder("/more"); err != nil {
		t.Fatal(err)
	}
	r.sync()
	waitClosed(t, r.lib.watcher(1), "the watcher of both folders")
	var third *fakeWatcher
	for deadline := time.Now().Add(30 * time.Second); third == nil; r.sync() {
		if time.Now().After(deadline) {
			t.Fatalf("watcher not restarted on the remaining folder: %q", r.j.list())
		}
		third = r.lib.watcher(2)
	}
	if n := r.j.count("watch [/music]"); n != 2 {
		t.Fatalf("%d watchers of /music alone, want 2: %q", n, r.j.list())
	}
	// A scan in progress and the watcher stop on Close.
	r.lib.mu.Lock()
	r.lib.gate = make(chan struct{})
	r.lib.mu.Unlock()
	if err := r.app.Rescan(); err != nil {
		t.Fatal(err)
	}
	r.waitStatus("scan running", func(s Status) bool { return s.Scan.Running })
	if err := r.app.Close(); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, third, "the watcher on Close")
	if r.j.count("scan cancelled") != 1 {
		t.Fatalf("scan not cancelled by Close: %q", r.j.list())
	}
}

func waitClosed(t *testing.T, w *fakeWatcher, what string) {
	t.Helper()
	select {
	case <-w.closed:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s was not closed", what)
	}
}

// Files the watcher cannot read are named, not only counted; a music
// folder that goes says so and is marked missing; tracks the watcher
// removed while a scan ran are counted in its summary (it said "0
// removed" for a folder deleted during a scan).
func TestWatcherNamesWhatWentAndWhatItCannotRead(t *testing.T) {
	gate := make(chan struct{})
	r := buildRig(t, self)
	r.lib = &fakeLibrary{j: r.j, gate: gate, progress: []library.Progress{{Found: 3, Done: 1}},
		result: library.ScanResult{Found: 3, Added: 3}}
	r.start(Options{Config: fastCfg(), Music: []string{"/music"}})
	r.waitStatus("scan running after the watcher started", func(s Status) bool { return s.Scan.Running && s.Scan.Done == 1 })
	w := r.lib.watcher(0)
	for _, p := range []string{"/music/old/a.flac", "/music/old/b.flac"} {
		w.events <- library.Event{Kind: library.Removed, Track: library.Track{Path: p, ContentID: "b3:" + p}}
	}
	w.events <- library.Event{Kind: library.Failed, Track: library.Track{Path: "/music/locked.flac"}, Err: fmt.Errorf("open: %w", fs.ErrPermission)}
	w.events <- library.Event{Kind: library.Failed, Track: library.Track{Path: "/music/locked.flac"}, Err: fmt.Errorf("open: %w", fs.ErrPermission)}
	r.waitStatus("the events (in order) reached the actor", func(s Status) bool { return len(s.Scan.Failed) == 1 })
	close(gate)
	st := r.waitStatus("scan done", func(s Status) bool { return !s.Scan.Running })
	if n := st.Notices[len(st.Notices)-1].Text; !strings.Contains(n, "2 removed") {
		t.Fatalf("summary %q, want the 2 tracks the watcher removed during the scan", n)
	}
	w.events <- library.Event{Kind: library.Failed, Track: library.Track{Path: "/music/locked.flac"}, Err: fmt.Errorf("open: %w", fs.ErrPermission)}
	st = r.waitStatus("named", func(s Status) bool { return len(s.Scan.Failed) == 1 })
	if f := st.Scan.Failed[0]; f.Path != "/music/locked.flac" || f.Reason != "permission denied" || st.Scan.Errors != 1 {
		t.Fatalf("failed %+v, %d errors", st.Scan.Failed, st.Scan.Errors)
	}

	w.events <- library.Event{Kind: library.Failed, Track: library.Track{Path: "/music"}, Err: fmt.Errorf("%w: /music is gone", library.ErrRootUnavailable)}
	st = r.waitStatus("missing", func(s Status) bool { return len(s.Scan.Missing) == 1 })
	if st.Scan.Missing[0] != "/music" {
		t.Fatalf("missing %q", st.Scan.Missing)
	}
	if n := st.Notices[len(st.Notices)-1]; n.Level != "error" || !strings.Contains(n.Text, "/music is gone") {
		t.Fatalf("notice %+v", n)
	}
}

// A window's launch holds the rescan and the watch of the music folders
// until it listed the library (LibraryShown), then starts them once.
func TestLaunchScanWaitsForTheList(t *testing.T) {
	r := newLibRig(t, Options{Config: fastCfg(), HoldLaunchScan: time.Hour})
	if n := r.j.count("scan") + r.j.count("watch"); n != 0 || r.app.Status().Scan.Running {
		t.Fatalf("the launch scanned before the list was shown: %q", r.j.list())
	}
	r.app.LibraryShown()
	r.waitStatus("the held scan ran", func(s Status) bool { return r.j.count("scan") == 1 && !s.Scan.Running })
}
