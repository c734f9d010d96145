package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/grouplib"
	"github.com/furudesk/furudesk/library"
)

// fakeGroupLib is the group library with tracks of other devices set by
// the test: who holds them, who is online, what is cached and streaming.
type fakeGroupLib struct {
	mu         sync.Mutex
	j          *journal
	entries    map[string]grouplib.Entry
	holders    map[string][]engine.DeviceID
	online     map[engine.DeviceID]bool
	cached     map[string]bool
	streaming  map[string]engine.DeviceID
	pins       []string
	prefetched []string
	locals     int // LocalChanged calls
	version    uint64
}

func newFakeGroupLib(j *journal) *fakeGroupLib {
	return &fakeGroupLib{j: j, entries: map[string]grouplib.Entry{}, holders: map[string][]engine.DeviceID{},
		online: map[engine.DeviceID]bool{}, cached: map[string]bool{}, streaming: map[string]engine.DeviceID{}}
}

// add makes id a track of holders, titled title.
func (g *fakeGroupLib) add(id, title string, holders ...engine.DeviceID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.entries[id] = grouplib.Entry{ContentID: id, Title: title, Format: "flac", Size: 1000, DurationMS: 200_000}
	g.holders[id] = holders
	g.version++
}

func (g *fakeGroupLib) setOnline(id engine.DeviceID, on bool) {
	g.mu.Lock()
	g.online[id] = on
	g.mu.Unlock()
}

func (g *fakeGroupLib) Locate(id string) grouplib.Location {
	g.mu.Lock()
	defer g.mu.Unlock()
	loc := grouplib.Location{Cached: g.cached[id], Holders: g.holders[id]}
	for _, h := range g.holders[id] {
		if g.online[h] {
			loc.Online = append(loc.Online, h)
		}
	}
	return loc
}

func (g *fakeGroupLib) Entry(id string) (grouplib.Entry, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.entries[id]
	return e, ok
}

func (g *fakeGroupLib) Open(id string) (io.ReadSeekCloser, grouplib.Source, error) {
	loc := g.Locate(id)
	if !loc.Reachable() {
		return nil, "", &grouplib.UnavailableError{ContentID: id}
	}
	g.j.add("open " + id)
	if loc.Cached {
		return nopReader{bytes.NewReader(nil)}, grouplib.SourceCache, nil
	}
	g.mu.Lock()
	g.streaming[id] = loc.Online[0]
	g.mu.Unlock()
	return nopReader{bytes.NewReader(nil)}, grouplib.SourceStream, nil
}

type nopReader struct{ *bytes.Reader }

func (nopReader) Close() error { return nil }

func (g *fakeGroupLib) Prefetch(id string) {
	g.mu.Lock()
	g.prefetched = append(g.prefetched, id)
	g.mu.Unlock()
}
func (g *fakeGroupLib) Pin(ids ...string) {
	g.mu.Lock()
	g.pins = slices.Clone(ids)
	g.mu.Unlock()
}
func (g *fakeGroupLib) Streaming(id string) (engine.DeviceID, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	h, ok := g.streaming[id]
	return h, ok
}
func (g *fakeGroupLib) Version() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.version
}
func (g *fakeGroupLib) Tracks() []grouplib.Track {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []grouplib.Track
	for id, e := range g.entries {
		t := grouplib.Track{Entry: e, Holders: g.holders[id], Cached: g.cached[id]}
		for _, h := range g.holders[id] {
			t.Online = t.Online || g.online[h]
		}
		out = append(out, t)
	}
	// In catalog order, as grouplib's union is.
	slices.SortFunc(out, func(a, b grouplib.Track) int {
		if library.Less(a.Entry.Track(), b.Entry.Track()) {
			return -1
		}
		return 1
	})
	return out
}
func (g *fakeGroupLib) Search(string, int) []grouplib.Track { return nil }
func (g *fakeGroupLib) Cover(context.Context, string) ([]byte, error) {
	return nil, grouplib.ErrNoCover
}
func (g *fakeGroupLib) OnChange(func(grouplib.Change))   {}
func (g *fakeGroupLib) Refresh()                         {}
func (g *fakeGroupLib) PeerOffline(engine.DeviceID)      {}
func (g *fakeGroupLib) OpsAdded(string, []devicesync.Op) {}
func (g *fakeGroupLib) SetCacheLimit(int64) error        { return nil }
func (g *fakeGroupLib) CacheUsage() grouplib.CacheUsage  { return grouplib.CacheUsage{} }
func (g *fakeGroupLib) ClearCache()                      {}
func (g *fakeGroupLib) SetUploadRate(int64) error        { return nil }
func (g *fakeGroupLib) LocalChanged() {
	g.mu.Lock()
	g.locals++
	g.mu.Unlock()
}

const remoteID = "b3:remote"

// newStreamRig is a rig whose group library has remoteID, a track only
// peerB holds (online).
func newStreamRig(t *testing.T) *rig {
	t.Helper()
	r := buildRig(t, self, peerB)
	r.gl = newFakeGroupLib(r.j)
	r.gl.add(remoteID, "Elsewhere", peerB)
	r.gl.setOnline(peerB, true)
	r.start(Options{Config: fastCfg()})
	return r
}

// A device handed a track it has no file for plays it from the device
// that has it, at the handed-over position, and says it streams from it.
func TestHandoffOfATrackHeldElsewherePlays(t *testing.T) {
	r := newStreamRig(t)
	state := PlayerState{Queue: []Entry{{ContentID: remoteID, Title: "Elsewhere", DurationMS: 200_000}},
		PositionMS: 42_000, Playing: true, Volume: 80, Repeat: "off"}
	handoffTo(r, state)
	if r.j.first("play "+remoteID+"@42000") < 0 {
		t.Fatalf("not played from the handed-over position: %q", r.j.list())
	}
	r.started()
	st := r.app.Status()
	if !st.Playing || !st.Rendering || st.Source != SourceStream || st.Holder != peerB || st.HolderName != string(peerB) {
		t.Fatalf("status: playing %v rendering %v source %q holder %q", st.Playing, st.Rendering, st.Source, st.Holder)
	}
	for _, n := range st.Notices {
		if strings.Contains(n.Text, "no file") {
			t.Fatalf("notice %q for a track another device streams", n.Text)
		}
	}
}

// With the only holder offline, the missing-file pause stays and says
// that no online device has the track.
func TestNoOnlineHolderPausesAndSaysSo(t *testing.T) {
	r := newStreamRig(t)
	r.gl.setOnline(peerB, false)
	state := PlayerState{Queue: []Entry{{ContentID: remoteID, Title: "Elsewhere"}}, PositionMS: 5000, Playing: true, Volume: 80, Repeat: "off"}
	handoffTo(r, state)
	st := r.app.Status()
	last := st.Notices[len(st.Notices)-1]
	if st.Playing || r.j.count("play") != 0 || !strings.Contains(last.Text, `no file for "Elsewhere"`) ||
		!strings.Contains(last.Text, "no online device has") || !strings.Contains(last.Text, "paused") {
		t.Fatalf("playing %v, plays %d, notice %q", st.Playing, r.j.count("play"), last.Text)
	}
}

// The holder goes mid-track and no other online device has the track: the
// track stops where its bytes ran out and pauses, with a notice naming
// the track and the device, shared with the group.
func TestLostHolderPausesWithANotice(t *testing.T) {
	r := newStreamRig(t)
	handoffTo(r, PlayerState{Queue: []Entry{{ContentID: remoteID, Title: "Elsewhere"}}, Playing: true, Volume: 80, Repeat: "off"})
	r.started()
	r.advance(3 * time.Second)
	cur := r.out.Report().Track
	r.gl.setOnline(peerB, false)
	r.audio(audio.DecodeError{Track: cur, Err: &grouplib.UnavailableError{ContentID: remoteID, Title: "Elsewhere", Device: peerB}})
	st := r.app.Status()
	if st.Playing || st.PositionMS < 2500 || st.PositionMS > 3500 {
		t.Fatalf("after the holder went: playing %v at %d ms, want paused near 3 s", st.Playing, st.PositionMS)
	}
	if !strings.Contains(st.OwnerNotice, `"Elsewhere" paused`) || !strings.Contains(st.OwnerNotice, string(peerB)) {
		t.Fatalf("notice %q, want the track and the device named", st.OwnerNotice)
	}
	// Back online and resumed: it plays again from there.
	r.gl.setOnline(peerB, true)
	r.j.reset()
	if err := r.app.Resume(); err != nil {
		t.Fatal(err)
	}
	if r.j.first("play "+remoteID+"@") < 0 {
		t.Fatalf("resume did not play the track again: %q", r.j.list())
	}
}

// The holder goes, but another online device has another copy: the track
// plays on from where it stopped, no pause.
func TestLostHolderPlaysOnFromAnotherCopy(t *testing.T) {
	r := newStreamRig(t)
	r.gl.add(remoteID, "Elsewhere", peerB, "dev_cccccccccccccccccccccccc")
	r.gl.setOnline("dev_cccccccccccccccccccccccc", true)
	handoffTo(r, PlayerState{Queue: []Entry{{ContentID: remoteID, Title: "Elsewhere"}}, Playing: true, Volume: 80, Repeat: "off"})
	r.started()
	r.advance(3 * time.Second)
	cur := r.out.Report().Track
	r.gl.setOnline(peerB, false)
	r.j.reset()
	r.audio(audio.DecodeError{Track: cur, Err: &grouplib.UnavailableError{ContentID: remoteID, Device: peerB}})
	if i := r.j.first("play " + remoteID + "@3"); i < 0 {
		t.Fatalf("not played on from about 3 s: %q", r.j.list())
	}
	if st := r.app.Status(); !st.Playing || st.OwnerNotice != "" {
		t.Fatalf("playing %v, notice %q", st.Playing, st.OwnerNotice)
	}
}

// The next track of the queue, held elsewhere, is prepared and fetched
// ahead while the current one plays, and both are pinned in the cache.
func TestNextTrackHeldElsewhereIsPreparedAndPinned(t *testing.T) {
	r := newStreamRig(t)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", remoteID}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	if r.j.first("prepare "+remoteID) < 0 {
		t.Fatalf("the next track was not prepared: %q", r.j.list())
	}
	r.gl.mu.Lock()
	pins, pre := slices.Clone(r.gl.pins), slices.Clone(r.gl.prefetched)
	r.gl.mu.Unlock()
	if !slices.Equal(pins, []string{"b3:aa", remoteID}) || !slices.Contains(pre, remoteID) {
		t.Fatalf("pins %v, prefetched %v", pins, pre)
	}
	if st := r.app.Status(); st.Source != SourceLocal {
		t.Fatalf("source of a local track: %q", st.Source)
	}
	for _, ev := range r.out.end() {
		r.audio(ev)
	}
	if st := r.app.Status(); st.Index != 1 || st.Source != SourceStream {
		t.Fatalf("after the change: index %d source %q", st.Index, st.Source)
	}
}

// The union: every local track with this device among its holders, and
// the tracks only other devices have, with where they are and whether they
// play now.
func TestLibraryIsTheUnion(t *testing.T) {
	r := newStreamRig(t)
	r.gl.add("b3:zz", "Far", "dev_cccccccccccccccccccccccc")
	r.sync()
	ts, err := r.app.Library()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]LibraryTrack{}
	for _, tr := range ts {
		got[tr.ContentID] = tr
	}
	if len(ts) != 5 || !got["b3:aa"].Local || !slices.Equal(got["b3:aa"].Holders, []engine.DeviceID{self}) {
		t.Fatalf("union of %d: %+v", len(ts), got["b3:aa"])
	}
	if tr := got[remoteID]; tr.Local || !tr.Playable || tr.Path != "" || tr.Where != "On "+string(peerB) {
		t.Fatalf("B's track: %+v", tr.Place)
	}
	if tr := got["b3:zz"]; tr.Playable || !strings.Contains(tr.Where, "not online") {
		t.Fatalf("C's track: %+v", tr.Place)
	}
	if _, err := r.app.entries([]string{remoteID}); err != nil {
		t.Fatalf("a track of the union cannot be queued: %v", err)
	}
}

// ctl tracks streams the union (App.EachLibraryTrack): the same tracks
// with the same places, in the same order, as Library, a window of them
// with offset and limit; the window's Tracks is the same union.
func TestEachLibraryTrackStreamsTheUnion(t *testing.T) {
	r := newStreamRig(t)
	r.gl.add("b3:zz", "Far", "dev_cccccccccccccccccccccccc")
	r.gl.add("A first", "Before all", peerB)
	r.gl.add("b3:aa", "Held here too", peerB) // a file of this device: listed once, as local
	r.sync()
	key := func(tr LibraryTrack) string { return fmt.Sprint(tr.ContentID, " ", tr.Where, " ", tr.Holders) }
	var want []string
	ts, err := r.app.Library()
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		want = append(want, key(tr))
	}
	if len(want) != 6 || !slices.Contains(want, fmt.Sprint("b3:aa This device ", []engine.DeviceID{self, peerB})) {
		t.Fatalf("the union has %d tracks: %q", len(want), want)
	}
	page := func(off, lim int) []string {
		var got []string
		if err := r.app.EachLibraryTrack(off, lim, func(tr LibraryTrack) error {
			got = append(got, key(tr))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, w := range []struct{ off, lim, from, to int }{
		{0, -1, 0, 6}, {0, 3, 0, 3}, {2, 3, 2, 5}, {4, 100, 4, 6}, {9, -1, 6, 6}, {1, 0, 1, 1},
	} {
		if got := page(w.off, w.lim); !slices.Equal(got, want[w.from:w.to]) {
			t.Errorf("offset %d limit %d: %q, want %q", w.off, w.lim, got, want[w.from:w.to])
		}
	}
	tracks, err := r.app.Tracks()
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range tracks {
		if tr.ContentID != ts[i].ContentID {
			t.Fatalf("Tracks()[%d] is %s, Library()[%d] %s", i, tr.ContentID, i, ts[i].ContentID)
		}
	}
	var each []string
	if err := r.app.EachTrack(func(t library.Track) error { each = append(each, t.ContentID); return nil }); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tr := range ts {
		ids = append(ids, tr.ContentID)
	}
	if !slices.Equal(each, ids) {
		t.Errorf("EachTrack gives %q, want Library's %q", each, ids)
	}
	stop := errors.New("enough")
	n := 0
	if err := r.app.EachTrack(func(library.Track) error { n++; return map[bool]error{true: stop}[n == 4] }); !errors.Is(err, stop) || n != 4 {
		t.Fatalf("EachTrack stopped with %v after %d tracks, want the function's error after 4", err, n)
	}
	n = 0
	if err := r.app.EachLibraryTrack(0, -1, func(LibraryTrack) error { n++; return map[bool]error{true: stop}[n == 4] }); !errors.Is(err, stop) || n != 4 {
		t.Fatalf("stopped with %v after %d tracks, want the function's error after 4", err, n)
	}
}

// A change of this device's library reaches the group library, so it
// publishes its catalog again.
func TestLocalChangeIsPublished(t *testing.T) {
	r := buildRig(t, self)
	r.gl = newFakeGroupLib(r.j)
	r.lib = &fakeLibrary{j: r.j}
	r.start(Options{Config: fastCfg(), Music: []string{"/music"}})
	r.gl.mu.Lock()
	before := r.gl.locals
	r.gl.mu.Unlock()
	r.do(func(a *actor) {
		a.libraryChanged(library.Event{Kind: library.Added, Track: library.Track{ContentID: "b3:new", Path: "/music/x.flac"}})
	})
	r.gl.mu.Lock()
	after := r.gl.locals
	r.gl.mu.Unlock()
	if after <= before {
		t.Fatal("the group library was not told of the change")
	}
}

// The window's places are those of the tracks only other devices have: a
// track with a file here is on this device, whatever other devices (even
// none online) have it too.
func TestPlacesLeaveOutTracksHere(t *testing.T) {
	r := newStreamRig(t)
	r.gl.add("b3:aa", "Here too", "dev_cccccccccccccccccccccccc") // b3:aa has a file here
	places, err := r.app.Places()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := places["b3:aa"]; ok {
		t.Fatalf("a track with a file here has a place elsewhere: %+v", places["b3:aa"])
	}
	if p, ok := places[remoteID]; !ok || !p.Playable || p.Where != "On "+string(peerB) {
		t.Fatalf("the track only B has: %+v (listed %v)", p, ok)
	}
}
