package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/playlists"
)

// fakeOpLog is one device's operation log: its own ops numbered origin:seq,
// others' ops added by receive.
type fakeOpLog struct {
	mu     sync.Mutex
	origin engine.DeviceID
	group  string
	seq    uint64
	hlc    int64
	ops    []devicesync.Op
	fail   error
}

func newFakeOpLog(origin engine.DeviceID) *fakeOpLog {
	return &fakeOpLog{origin: origin, group: "grp_test", hlc: 1_000_000}
}

func (l *fakeOpLog) AppendOp(kind string, body json.RawMessage) (devicesync.Op, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail != nil {
		return devicesync.Op{}, l.fail
	}
	l.seq++
	l.hlc++
	o := devicesync.Op{ID: devicesync.OpID(l.origin, l.seq), Origin: l.origin, Seq: l.seq, HLCms: l.hlc, Kind: kind, Body: body}
	l.ops = append(l.ops, o)
	return o, nil
}

func (l *fakeOpLog) AppOps() (string, []devicesync.Op) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.group, slices.Clone(l.ops)
}

func (l *fakeOpLog) ForgetOps(ids []string) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	newest := map[engine.DeviceID]uint64{}
	for _, o := range l.ops {
		newest[o.Origin] = max(newest[o.Origin], o.Seq)
	}
	var gone []string
	l.ops = slices.DeleteFunc(l.ops, func(o devicesync.Op) bool {
		if slices.Contains(ids, o.ID) && o.Seq < newest[o.Origin] {
			gone = append(gone, o.ID)
			return true
		}
		return false
	})
	return gone, nil
}

func (l *fakeOpLog) receive(ops ...devicesync.Op) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range ops {
		l.hlc = max(l.hlc, o.HLCms)
	}
	l.ops = append(l.ops, ops...)
}

func (l *fakeOpLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ops)
}

// newPlaylistRig is a rig whose device has an op log.
func newPlaylistRig(t *testing.T, log *fakeOpLog) *rig {
	t.Helper()
	r := buildRig(t, self)
	opts := Options{Config: fastCfg(), Clock: r.clock, Ticks: r.ticks}
	a, err := New(opts, Deps{Store: r.store, Output: r.out, Transport: r.tr, OpLog: log})
	if err != nil {
		t.Fatal(err)
	}
	r.app = a
	t.Cleanup(func() { _ = a.Close() })
	return r
}

// collSync waits until the collection goroutine handled what was sent
// before.
func (r *rig) collSync() {
	done := make(chan struct{})
	r.app.collection.inbox <- collectionMsg{done: done}
	<-done
}

// deliver hands another device's ops to this one, as devicesync would.
func (r *rig) deliver(log *fakeOpLog, ops ...devicesync.Op) {
	log.receive(ops...)
	r.peer(devicesync.OpsAdded{Group: log.group, Ops: ops})
	r.collSync()
}

func entryIDsOf(v PlaylistView) []string {
	var out []string
	for _, e := range v.Entries {
		out = append(out, e.ContentID)
	}
	return out
}

func mustView(t *testing.T, a *App, id string) PlaylistView {
	t.Helper()
	v, err := a.Playlist(id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestPlaylistEditsAndBadInput(t *testing.T) {
	log := newFakeOpLog(self)
	r := newPlaylistRig(t, log)
	a := r.app
	p, err := a.CreatePlaylist("  Road trip  ")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Road trip" || p.Kind != KindPlaylist || !p.Editable() {
		t.Fatalf("created %+v", p)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.AddToPlaylist(p.ID, []string{"b3:aa", "b3:bb", "b3:cc", "b3:aa"}, -1))
	must(a.MoveInPlaylist(p.ID, 3, 0))
	must(a.RemoveFromPlaylist(p.ID, []int{2}))
	must(a.AddToPlaylist(p.ID, []string{"b3:cc"}, 1))
	must(a.RenamePlaylist(p.ID, "Summer"))
	v := mustView(t, a, p.ID)
	if got := entryIDsOf(v); !slices.Equal(got, []string{"b3:aa", "b3:cc", "b3:aa", "b3:cc"}) || v.Name != "Summer" {
		t.Fatalf("after edits: %q %v", v.Name, got)
	}
	if !v.Entries[0].Available || v.Entries[0].Path != "/music/b3:aa.wav" || v.DurationMS != 800_000 {
		t.Fatalf("entries not described from the library: %+v", v)
	}
	r.sync() // the edit's refresh was posted before
	if st := a.Status(); st.PlaylistsVersion == 0 {
		t.Fatal("Status.PlaylistsVersion did not move")
	}

	before, ops := mustView(t, a, p.ID), log.count()
	for _, c := range []struct {
		err  error
		want string
		do   func() error
	}{
		{ErrBadArgument, "a playlist needs a name", func() error { _, err := a.CreatePlaylist(" "); return err }},
		{ErrBadArgument, "at most 200 characters", func() error { return a.RenamePlaylist(p.ID, strings.Repeat("x", 201)) }},
		{ErrNoPlaylist, "no playlist with id nope:1", func() error { return a.AddToPlaylist("nope:1", []string{"b3:aa"}, -1) }},
		{ErrBadArgument, "position 9 is out of range", func() error { return a.AddToPlaylist(p.ID, []string{"b3:aa"}, 9) }},
		{ErrBadArgument, "there is no track 4", func() error { return a.RemoveFromPlaylist(p.ID, []int{4}) }},
		{ErrBadArgument, "there is no track -1", func() error { return a.MoveInPlaylist(p.ID, -1, 0) }},
		{ErrNotInLibrary, "b3:zz is in no library of the group", func() error { return a.AddToPlaylist(p.ID, []string{"b3:zz"}, -1) }},
		{ErrSmartList, "smart list", func() error { return a.AddToPlaylist(ListMostPlayed, []string{"b3:aa"}, -1) }},
		{ErrSmartList, "cannot be reordered", func() error { return a.MoveInPlaylist(ListLiked, 0, 1) }},
	} {
		err := c.do()
		if !errors.Is(err, c.err) || !strings.Contains(UserMessage(err), c.want) {
			t.Errorf("got %v (%q), want %v saying %q", err, UserMessage(err), c.err, c.want)
		}
	}
	if after := mustView(t, a, p.ID); !slices.Equal(entryIDsOf(after), entryIDsOf(before)) || log.count() != ops {
		t.Fatalf("a refused edit changed something: %v, %d ops (was %d)", entryIDsOf(after), log.count(), ops)
	}

	// A failing log saves nothing and says so.
	log.fail = errors.New("disk full")
	if err := a.AddToPlaylist(p.ID, []string{"b3:bb"}, -1); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("add with a failing log: %v", err)
	}
	log.fail = fmt.Errorf("%w: 100000 ops", devicesync.ErrLogFull)
	if _, err := a.CreatePlaylist("One more"); err == nil || !strings.Contains(UserMessage(err), "cannot take more changes") {
		t.Fatalf("create with a full log: %v", err)
	}
	log.fail = nil
	must(a.DeletePlaylist(p.ID))
	if _, err := a.Playlist(p.ID); !errors.Is(err, ErrNoPlaylist) || !strings.Contains(UserMessage(err), "was deleted") {
		t.Fatalf("deleted playlist: %v", err)
	}
}

// Ops from another device, and the log at startup, make the same
// playlists; a track this device lacks is listed as unavailable.
func TestPlaylistsFromOtherDevicesAndStartup(t *testing.T) {
	other := newFakeOpLog(peerB)
	st := playlists.New()
	var bops []devicesync.Op
	appendB := func(e playlists.Edit) {
		o, _ := other.AppendOp(e.Kind, e.Body)
		st.Apply(playlists.Op{ID: o.ID, Origin: string(o.Origin), Seq: o.Seq, HLCms: o.HLCms, Kind: o.Kind, Body: o.Body})
		bops = append(bops, o)
	}
	e, _ := st.PlanCreate("From B")
	appendB(e)
	id := bops[0].ID
	es, _ := st.PlanAdd(id, -1, []playlists.Track{{ContentID: "b3:aa"}, {ContentID: "b3:gone", Title: "Only on B", DurationMS: 5000}})
	for _, e := range es {
		appendB(e)
	}

	log := newFakeOpLog(self)
	r := newPlaylistRig(t, log)
	r.deliver(log, bops...)
	v := mustView(t, r.app, id)
	if len(v.Entries) != 2 || !v.Entries[0].Available || v.Entries[1].Available || v.Entries[1].Title != "Only on B" || v.Entries[0].Title != "T b3:aa" {
		t.Fatalf("view of B's playlist: %+v", v.Entries)
	}

	// A device starting with these ops in its log shows the same.
	r2 := newPlaylistRig(t, log)
	if got := mustView(t, r2.app, id); !slices.Equal(entryIDsOf(got), entryIDsOf(v)) {
		t.Fatalf("after a restart: %v, want %v", entryIDsOf(got), entryIDsOf(v))
	}
	found, err := r2.app.FindPlaylist("from b")
	if err != nil || found.ID != id {
		t.Fatalf("FindPlaylist by name: %+v %v", found, err)
	}
}

func TestLikesAndSmartLists(t *testing.T) {
	log := newFakeOpLog(self)
	r := newPlaylistRig(t, log)
	a := r.app
	r.advance(1500 * time.Millisecond)
	if err := a.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.SetLiked("b3:aa", true); err != nil {
		t.Fatal(err)
	}
	r.sync()
	if st := a.Status(); !st.TrackLiked {
		t.Fatal("the playing track is liked, Status.TrackLiked is false")
	}
	if err := a.AddToPlaylist(ListLiked, []string{"b3:cc"}, -1); err != nil {
		t.Fatal(err)
	}
	if got := entryIDsOf(mustView(t, a, ListLiked)); !slices.Equal(got, []string{"b3:cc", "b3:aa"}) {
		t.Fatalf("Liked, newest first: %v", got)
	}
	if err := a.RemoveFromPlaylist(ListLiked, []int{1}); err != nil {
		t.Fatal(err)
	}
	r.sync()
	if st := a.Status(); st.TrackLiked {
		t.Fatal("unliked from the Liked list, still liked")
	}
	all, err := a.Playlists()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range all {
		names = append(names, fmt.Sprintf("%s:%d", p.Name, p.Tracks))
	}
	if !slices.Equal(names, []string{"Liked:1", "Most played:0", "Recently played:0", "Recently added:3"}) {
		t.Fatalf("lists %v", names)
	}
}

// A play counts once more than half of the track (or four minutes) was
// really heard: seeking ahead does not count, replaying counts again.
func TestListenCountsOnceWhenHalfHeard(t *testing.T) {
	log := newFakeOpLog(self)
	r := newPlaylistRig(t, log)
	a := r.app
	r.advance(1500 * time.Millisecond)
	if err := a.PlayTracks([]string{"b3:aa"}, 0); err != nil { // 200 s
		t.Fatal(err)
	}
	r.audio(r.out.startedEv())
	r.advance(5 * time.Second)
	plays := func() uint64 {
		r.collSync()
		h, err := a.History(0)
		if err != nil {
			t.Fatal(err)
		}
		if len(h) == 0 {
			return 0
		}
		return h[0].Plays
	}
	if err := a.Seek(150 * time.Second); err != nil {
		t.Fatal(err)
	}
	r.advance(40 * time.Second) // 45 s heard, after a seek to 2:30: not half
	if n := plays(); n != 0 {
		t.Fatalf("after 5 s, a seek to 2:30 and 40 s: %d plays", n)
	}
	if err := a.Seek(0); err != nil {
		t.Fatal(err)
	}
	r.advance(50 * time.Second) // 95 s heard in all
	if n := plays(); n != 0 {
		t.Fatalf("after 95 s of 200: %d plays", n)
	}
	r.advance(10 * time.Second) // 105 s: more than half
	if n := plays(); n != 1 {
		t.Fatalf("after 105 s of 200: %d plays, want 1", n)
	}
	r.advance(30 * time.Second)
	if n := plays(); n != 1 {
		t.Fatalf("the same play counted again: %d plays", n)
	}
	if err := a.JumpTo(0); err != nil { // play it again from the start
		t.Fatal(err)
	}
	r.audio(r.out.startedEv())
	r.advance(101 * time.Second)
	if n := plays(); n != 2 {
		t.Fatalf("played twice, %d plays", n)
	}
	if h, _ := a.History(1); h[0].ContentID != "b3:aa" || h[0].LastPlayedMS == 0 {
		t.Fatalf("history %+v", h)
	}
	// The Plays column of the track lists.
	if pc, err := a.PlayCounts(); err != nil || len(pc) != 1 || pc["b3:aa"].Plays != 2 || pc["b3:aa"].LastMS == 0 {
		t.Fatalf("play counts %+v, %v", pc, err)
	}
}

func TestPlayPlaylistReplacesOrAppends(t *testing.T) {
	log := newFakeOpLog(self)
	r := newPlaylistRig(t, log)
	a := r.app
	r.advance(1500 * time.Millisecond)
	p, _ := a.CreatePlaylist("Mix")
	if err := a.AddToPlaylist(p.ID, []string{"b3:cc", "b3:bb"}, -1); err != nil {
		t.Fatal(err)
	}
	if err := a.PlayTracks([]string{"b3:aa"}, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.PlayPlaylist(p.ID, 0, true); err != nil {
		t.Fatal(err)
	}
	if st := a.Status(); st.QueueLen != 3 || st.Queue[1].ContentID != "b3:cc" {
		t.Fatalf("appended: %+v", st.Queue)
	}
	if err := a.PlayPlaylist(p.ID, 1, false); err != nil {
		t.Fatal(err)
	}
	if st := a.Status(); st.QueueLen != 2 || st.Index != 1 || st.Track.ContentID != "b3:bb" || !st.Playing {
		t.Fatalf("replaced: queue %+v index %d", st.Queue, st.Index)
	}
	empty, _ := a.CreatePlaylist("Empty")
	if err := a.PlayPlaylist(empty.ID, 0, false); err == nil || !strings.Contains(UserMessage(err), "“Empty” is empty") {
		t.Fatalf("playing an empty playlist: %v", err)
	}
}

// Joining another group loses nothing: the playlists come along.
func TestGroupChangeCarriesPlaylists(t *testing.T) {
	log := newFakeOpLog(self)
	r := newPlaylistRig(t, log)
	a := r.app
	p, _ := a.CreatePlaylist("Mine")
	if err := a.AddToPlaylist(p.ID, []string{"b3:aa", "b3:bb"}, -1); err != nil {
		t.Fatal(err)
	}
	if err := a.SetLiked("b3:cc", true); err != nil {
		t.Fatal(err)
	}
	v := a.Status().PlaylistsVersion
	log.mu.Lock()
	log.group, log.ops = "grp_other", nil
	log.mu.Unlock()
	r.peer(devicesync.GroupChanged{Group: "grp_other"})
	r.collSync()
	got := mustView(t, a, p.ID)
	if !slices.Equal(entryIDsOf(got), []string{"b3:aa", "b3:bb"}) || got.Name != "Mine" {
		t.Fatalf("after joining another group: %+v", got)
	}
	if liked, _ := a.LikedIDs(); !liked["b3:cc"] {
		t.Fatal("the like did not come along")
	}
	if _, ops := log.AppOps(); len(ops) != 3 {
		t.Fatalf("carried with %d ops, want create, add, like", len(ops))
	}
	r.sync()
	if a.Status().PlaylistsVersion <= v {
		t.Fatal("the version went back at the group change")
	}
}

// A device that left, on startup, a group whose history was not signed
// (devicesync.GroupLeft) keeps the playlists and likes that group held: the
// new group gets them, written in this device's name.
func TestPlaylistsOfAGroupLeftAtStartupAreCarried(t *testing.T) {
	old := newFakeOpLog(peerB) // the old group's ops, by another device
	a := newPlaylistRig(t, old).app
	p, _ := a.CreatePlaylist("Road trip")
	if err := a.AddToPlaylist(p.ID, []string{"b3:aa"}, -1); err != nil {
		t.Fatal(err)
	}
	if err := a.SetLiked("b3:cc", true); err != nil {
		t.Fatal(err)
	}
	_, legacy := old.AppOps()

	log := newFakeOpLog(self)
	log.group = "grp_new"
	r := newPlaylistRig(t, log)
	r.peer(devicesync.GroupLeft{Group: "grp_test", AppOps: legacy})
	r.collSync()
	got := mustView(t, r.app, p.ID)
	if !slices.Equal(entryIDsOf(got), []string{"b3:aa"}) || got.Name != "Road trip" {
		t.Fatalf("after leaving the old group: %+v", got)
	}
	if liked, _ := r.app.LikedIDs(); !liked["b3:cc"] {
		t.Fatal("the like did not come along")
	}
	_, ops := log.AppOps()
	if len(ops) != 3 || ops[0].Origin != self {
		t.Fatalf("carried with %d ops (%+v), want create, add, like of this device", len(ops), ops)
	}
}

// Upkeep forgets the ops that no longer matter, from the log too, and
// nothing shown changes.
func TestMaintainForgetsObsoleteOps(t *testing.T) {
	log := newFakeOpLog(self)
	r := newPlaylistRig(t, log)
	a := r.app
	for i := range 80 {
		if err := a.SetLiked("b3:aa", i%2 == 0); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := a.CreatePlaylist("Kept")
	if err := a.AddToPlaylist(p.ID, []string{"b3:bb"}, -1); err != nil {
		t.Fatal(err)
	}
	before, _ := a.LikedIDs()
	view := entryIDsOf(mustView(t, a, p.ID))
	n := log.count()
	a.collection.maintain()
	if got := log.count(); got != n-79 {
		t.Fatalf("log has %d ops after upkeep, want %d (79 superseded likes forgotten)", got, n-79)
	}
	after, _ := a.LikedIDs()
	if len(after) != len(before) || !slices.Equal(entryIDsOf(mustView(t, a, p.ID)), view) {
		t.Fatal("upkeep changed what is shown")
	}
	// A device starting from the tidied log shows the same.
	r2 := newPlaylistRig(t, log)
	if liked, _ := r2.app.LikedIDs(); liked["b3:aa"] {
		t.Fatal("the last unlike was lost")
	}
}

// A playlist's track that only another device has plays from there: it is
// not "available" (no file here to export) but playable, and says where;
// once no device that has it is online, it is neither.
func TestPlaylistTrackOfAnotherDevice(t *testing.T) {
	log := newFakeOpLog(self)
	r := buildRig(t, self, peerB)
	r.gl = newFakeGroupLib(r.j)
	r.gl.add(remoteID, "Elsewhere", peerB)
	r.gl.setOnline(peerB, true)
	a, err := New(Options{Config: fastCfg(), Clock: r.clock, Ticks: r.ticks},
		Deps{Store: r.store, Output: r.out, Transport: r.tr, OpLog: log, GroupLib: r.gl})
	if err != nil {
		t.Fatal(err)
	}
	r.app = a
	t.Cleanup(func() { _ = a.Close() })
	p, err := a.CreatePlaylist("Mixed")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AddToPlaylist(p.ID, []string{"b3:aa", remoteID}, -1); err != nil {
		t.Fatal(err)
	}
	v := mustView(t, a, p.ID)
	here, there := v.Entries[0], v.Entries[1]
	if !here.Available || !here.Playable || here.Where != "" {
		t.Fatalf("this device's track: %+v", here)
	}
	if there.Available || !there.Playable || there.Where != "On "+string(peerB) || there.Title != "Elsewhere" {
		t.Fatalf("another device's track: %+v", there)
	}
	r.gl.setOnline(peerB, false)
	if there := mustView(t, a, p.ID).Entries[1]; there.Playable || !strings.Contains(there.Where, "not online") {
		t.Fatalf("with its device offline: %+v", there)
	}
}
