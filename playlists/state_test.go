package playlists_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/furudesk/furudesk/playlists"
)

// device is one replica in these tests: its own ops get ids origin:seq and
// a clock that the test sets.
type device struct {
	t      testing.TB
	origin string
	seq    uint64
	now    int64
	last   int64
	st     *playlists.State
	ops    []playlists.Op // every op this device made
}

func newDevice(t testing.TB, origin string) *device {
	return &device{t: t, origin: origin, now: 1_000, st: playlists.New()}
}

// op turns an edit into this device's next op and applies it here.
func (d *device) op(e playlists.Edit) playlists.Op {
	d.seq++
	d.last = max(d.now, d.last+1)
	o := playlists.Op{ID: fmt.Sprintf("%s:%d", d.origin, d.seq), Origin: d.origin, Seq: d.seq, HLCms: d.last, Kind: e.Kind, Body: e.Body}
	d.st.Apply(o)
	d.ops = append(d.ops, o)
	return o
}

func (d *device) do(es []playlists.Edit, err error) []playlists.Op {
	d.t.Helper()
	if err != nil {
		d.t.Fatal(err)
	}
	var out []playlists.Op
	for _, e := range es {
		out = append(out, d.op(e))
	}
	return out
}

func (d *device) create(name string) string {
	d.t.Helper()
	e, err := d.st.PlanCreate(name)
	if err != nil {
		d.t.Fatal(err)
	}
	return d.op(e).ID
}

// recv applies another device's ops here, as the log would deliver them.
func (d *device) recv(ops ...playlists.Op) {
	for _, o := range ops {
		d.last = max(d.last, o.HLCms)
	}
	d.st.Apply(ops...)
}

func tracks(ids ...string) []playlists.Track {
	var out []playlists.Track
	for _, id := range ids {
		out = append(out, playlists.Track{ContentID: "b3:" + id, Title: "Song " + id, DurationMS: 1000})
	}
	return out
}

// titles lists the content ids of playlist id as "x y z".
func titles(t *testing.T, s *playlists.State, id string) string {
	t.Helper()
	p, ok := s.Playlist(id)
	if !ok {
		return "<none>"
	}
	var out []string
	for _, e := range p.Entries {
		out = append(out, strings.TrimPrefix(e.Track.ContentID, "b3:"))
	}
	return strings.Join(out, " ")
}

func TestCreateAddMoveRemove(t *testing.T) {
	a := newDevice(t, "A")
	id := a.create("  Road trip ")
	a.do(a.st.PlanAdd(id, -1, tracks("1", "2", "3")))
	a.do(a.st.PlanAdd(id, 1, tracks("x", "y")))
	if got := titles(t, a.st, id); got != "1 x y 2 3" {
		t.Fatalf("after inserting at 1: %q", got)
	}
	a.do(a.st.PlanMove(id, 0, 4))
	if got := titles(t, a.st, id); got != "x y 2 3 1" {
		t.Fatalf("after moving 0 to 4: %q", got)
	}
	a.do(a.st.PlanMove(id, 3, 0))
	a.do(a.st.PlanRemove(id, []int{1, 1, 4}))
	if got := titles(t, a.st, id); got != "3 y 2" {
		t.Fatalf("after moving 3 to 0 and removing 1 and 4: %q", got)
	}
	a.do(a.st.PlanAdd(id, -1, tracks("2")))
	sum := a.st.Playlists()
	if len(sum) != 1 || sum[0].Name != "Road trip" || sum[0].Entries != 4 || sum[0].DurationMS != 4000 {
		t.Fatalf("summary %+v, want Road trip with 4 entries (a duplicate track allowed), 4 s", sum)
	}

	// Another device gets the ops in reverse order, twice: same playlist.
	b := newDevice(t, "B")
	for range 2 {
		for i := len(a.ops) - 1; i >= 0; i-- {
			b.recv(a.ops[i])
		}
	}
	if got, want := titles(t, b.st, id), titles(t, a.st, id); got != want {
		t.Fatalf("B has %q, A has %q", got, want)
	}
}

func TestBadEditsChangeNothing(t *testing.T) {
	a := newDevice(t, "A")
	id := a.create("Mix")
	a.do(a.st.PlanAdd(id, -1, tracks("1", "2")))
	v := a.st.Version()
	long := strings.Repeat("é", playlists.MaxNameRunes+1)
	cases := []struct {
		err  error
		want string
		plan func() error
	}{
		{playlists.ErrName, "a playlist needs a name", func() error { _, err := a.st.PlanCreate("   "); return err }},
		{playlists.ErrName, "at most 200 characters; this one has 201", func() error { _, err := a.st.PlanCreate(long); return err }},
		{playlists.ErrName, "control characters", func() error { _, err := a.st.PlanRename(id, "a\nb"); return err }},
		{playlists.ErrNotFound, "no playlist with id nope", func() error { _, err := a.st.PlanRename("nope", "x"); return err }},
		{playlists.ErrIndex, "position 3 is out of range: “Mix” has 2 tracks", func() error { _, err := a.st.PlanAdd(id, 3, tracks("3")); return err }},
		{playlists.ErrIndex, "there is no track 2 in “Mix”", func() error { _, err := a.st.PlanRemove(id, []int{0, 2}); return err }},
		{playlists.ErrIndex, "there is no track -1 in “Mix”", func() error { _, err := a.st.PlanMove(id, 0, -1); return err }},
		{playlists.ErrTrack, "no tracks to add", func() error { _, err := a.st.PlanAdd(id, -1, nil); return err }},
		{playlists.ErrTrack, "no valid content id", func() error {
			_, err := a.st.PlanAdd(id, -1, []playlists.Track{{ContentID: "b3:ok"}, {ContentID: ""}})
			return err
		}},
	}
	for _, c := range cases {
		err := c.plan()
		var pe *playlists.Error
		if !errors.Is(err, c.err) || !errors.As(err, &pe) || !strings.Contains(pe.Text, c.want) {
			t.Errorf("got %v, want %v saying %q", err, c.err, c.want)
		}
	}
	a.do(nil, func() error { e, err := a.st.PlanDelete(id); a.op(e); return err }())
	if _, err := a.st.PlanAdd(id, -1, tracks("3")); !errors.Is(err, playlists.ErrNotFound) || !strings.Contains(err.Error(), "was deleted") {
		t.Errorf("adding to a deleted playlist: %v", err)
	}
	if a.st.Version() == v {
		t.Error("the delete did not change the version")
	}
}

func TestEntryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a playlist of 100,000 entries")
	}
	a := newDevice(t, "A")
	id := a.create("Everything")
	many := make([]playlists.Track, playlists.MaxEntries)
	for i := range many {
		many[i] = playlists.Track{ContentID: fmt.Sprintf("b3:%06d", i)}
	}
	ops := a.do(a.st.PlanAdd(id, -1, many))
	if len(ops) != playlists.MaxEntries/playlists.MaxItemsPerOp {
		t.Errorf("100,000 tracks took %d ops, want %d", len(ops), playlists.MaxEntries/playlists.MaxItemsPerOp)
	}
	_, err := a.st.PlanAdd(id, 0, tracks("one more"))
	if !errors.Is(err, playlists.ErrLimit) || !strings.Contains(err.Error(), "limit of 100000 tracks") {
		t.Fatalf("one entry past the limit: %v", err)
	}

	for a.st.Live() < playlists.MaxPlaylists {
		a.create(fmt.Sprint("List ", a.st.Live()))
	}
	if _, err := a.st.PlanCreate("One too many"); !errors.Is(err, playlists.ErrLimit) || !strings.Contains(err.Error(), "already 10000 playlists") {
		t.Fatalf("one playlist past the limit: %v", err)
	}
}

func TestConcurrentEdits(t *testing.T) {
	a, b := newDevice(t, "A"), newDevice(t, "B")
	id := a.create("Shared")
	base := a.do(a.st.PlanAdd(id, -1, tracks("1", "2", "3")))
	b.recv(a.ops...)

	// Both insert at the same spot, rename, and move the same entry.
	a.now, b.now = 5_000, 5_000
	a.do(a.st.PlanAdd(id, 1, tracks("a")))
	b.do(b.st.PlanAdd(id, 1, tracks("b")))
	a.do(a.st.PlanRename(id, "From A"))
	b.now = 6_000
	b.do(b.st.PlanRename(id, "From B"))
	a.do(a.st.PlanMove(id, 3, 0)) // A moves "3" to the top
	b.do(b.st.PlanMove(id, 3, 2)) // B, later, moves it after "b"
	a.recv(b.ops...)
	b.recv(a.ops[len(base)+1:]...)
	if ta, tb := titles(t, a.st, id), titles(t, b.st, id); ta != tb {
		t.Fatalf("A %q, B %q", ta, tb)
	}
	// The two concurrent inserts share a key; ties go by entry id (A's
	// first). B's move, the later one, put "3" right after "b".
	if got := titles(t, a.st, id); got != "1 a b 3 2" {
		t.Errorf("merged order %q, want 1 a b 3 2", got)
	}
	pa, _ := a.st.Playlist(id)
	if pa.Name != "From B" {
		t.Errorf("name %q, want the later rename From B", pa.Name)
	}

	// Inserting or moving between the tied entries still lands where asked.
	a.do(a.st.PlanAdd(id, 2, tracks("c")))
	if got := titles(t, a.st, id); got != "1 a c b 3 2" {
		t.Errorf("after inserting between tied entries: %q", got)
	}
	b.recv(a.ops...)
	b.do(b.st.PlanMove(b.st.Playlists()[0].ID, 5, 1))
	b.do(b.st.PlanMove(id, 4, 2))
	if got := titles(t, b.st, id); got != "1 2 b a c 3" {
		t.Errorf("after moving between entries: %q", got)
	}
	a.recv(b.ops...)

	// A delete wins over a concurrent add, and stays: re-applying the
	// playlist's create does not bring it back.
	dl, _ := b.st.PlanDelete(id)
	b.op(dl)
	a.do(a.st.PlanAdd(id, -1, tracks("late")))
	a.recv(b.ops...)
	b.recv(a.ops...)
	for _, d := range []*device{a, b} {
		if _, ok := d.st.Playlist(id); ok || len(d.st.Playlists()) != 0 {
			t.Errorf("%s still shows the deleted playlist", d.origin)
		}
	}
}

func TestMalformedOpsAreIgnored(t *testing.T) {
	s := playlists.New()
	bad := []string{
		`{"name":""}`, `{"name":" padded "}`, `{"name":"x","id":"has space"}`, `not json`, `{"name":1}`,
	}
	for i, b := range bad {
		s.Apply(playlists.Op{ID: fmt.Sprintf("X:%d", i+1), Origin: "X", Seq: uint64(i + 1), HLCms: 1, Kind: playlists.KindPlaylistCreated, Body: json.RawMessage(b)})
	}
	s.Apply(playlists.Op{ID: "X:9", Origin: "X", Seq: 9, HLCms: 1, Kind: playlists.KindTrackAdded,
		Body: json.RawMessage(`{"playlist":"p","entries":[{"pos":"a0","track":{"id":"b3:1"}},{"pos":"a00","track":{"id":"b3:2"}}]}`)})
	s.Apply(playlists.Op{ID: "X:10", Origin: "X", Seq: 10, HLCms: 1, Kind: "some_future_kind", Body: json.RawMessage(`{}`)})
	if s.Ignored() != len(bad)+1 || len(s.Playlists()) != 0 || s.Applied() != 0 {
		t.Errorf("ignored %d, playlists %d, applied %d; want %d ignored, nothing applied", s.Ignored(), len(s.Playlists()), s.Applied(), len(bad)+1)
	}
}

func TestLikesAndListens(t *testing.T) {
	a, b := newDevice(t, "A"), newDevice(t, "B")
	song := tracks("1")[0]
	if es, _ := b.st.PlanLike(song, false); len(es) != 0 {
		t.Errorf("unliking a track nobody liked made %d ops", len(es))
	}
	a.do(a.st.PlanLike(song, true))
	b.recv(a.ops...)
	// Concurrently: A unlikes at 3 s; B (its clock behind) unlikes and
	// likes again at 2 s.
	a.now, b.now = 3_000, 2_000
	a.do(a.st.PlanLike(song, false))
	b.do(b.st.PlanLike(song, false))
	b.do(b.st.PlanLike(song, true))
	b.do(b.st.PlanLike(song, true)) // already liked there: no op
	if len(b.ops) != 2 {
		t.Errorf("unlike, like, like made %d ops, want 2", len(b.ops))
	}
	for range 3 {
		e, _ := a.st.PlanListen("A", song)
		a.op(e)
	}
	e, _ := b.st.PlanListen("B", song)
	b.op(e)
	a.recv(b.ops...)
	b.recv(a.ops...)
	b.recv(a.ops...)
	for _, d := range []*device{a, b} {
		if d.st.IsLiked(song.ContentID) || len(d.st.Liked()) != 0 {
			t.Errorf("%s: the later unlike lost", d.origin)
		}
		if p := d.st.Plays(song.ContentID); p.Plays != 4 || p.LastMS != a.ops[len(a.ops)-1].HLCms {
			t.Errorf("%s: plays %+v, want 4 plays, the last at A's third", d.origin, p)
		}
	}
}

// Forgetting what Obsolete names, then rebuilding from what is left, gives
// the same views; a device that only ever sees what is left agrees too.
func TestObsoleteOpsCanBeForgotten(t *testing.T) {
	a := newDevice(t, "A")
	keep := a.create("Keep")
	gone := a.create("Gone")
	a.do(a.st.PlanAdd(keep, -1, tracks("1", "2", "3", "4")))
	a.do(a.st.PlanAdd(gone, -1, tracks("5")))
	a.do(a.st.PlanAdd(keep, -1, tracks("6", "7")))
	a.do(a.st.PlanRemove(keep, []int{4, 5}))
	a.do(a.st.PlanMove(keep, 0, 3))
	a.do(a.st.PlanMove(keep, 2, 0))
	a.do(a.st.PlanMove(keep, 0, 1))
	a.do(a.st.PlanRename(keep, "Kept"))
	a.do(a.st.PlanRename(keep, "Kept!"))
	e, _ := a.st.PlanDelete(gone)
	a.op(e)
	song := tracks("1")[0]
	a.do(a.st.PlanLike(song, true))
	a.do(a.st.PlanLike(song, false))
	a.do(a.st.PlanLike(song, true))
	for range 3 {
		e, _ := a.st.PlanListen("A", song)
		a.op(e)
	}
	// The delete makes Gone's create and add obsolete; the removes make
	// the add of 6 and 7 obsolete; the third move supersedes the second
	// (same entry); the second rename the first; the last like the first
	// two; the third listen the first two.
	obs := a.st.Obsolete()
	if want := []string{"A:10", "A:13", "A:14", "A:16", "A:17", "A:2", "A:4", "A:5", "A:8"}; !slices.Equal(obs, want) {
		t.Fatalf("obsolete %v, want %v", obs, want)
	}
	var left []playlists.Op
	for _, o := range a.ops {
		if !slices.Contains(obs, o.ID) {
			left = append(left, o)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(left), func(i, j int) { left[i], left[j] = left[j], left[i] })
	fresh := playlists.New()
	fresh.Apply(left...)
	if got, want := dump(fresh), dump(a.st); got != want {
		t.Fatalf("rebuilt from %d of %d ops:\n%s\nwant\n%s", len(left), len(a.ops), got, want)
	}
	if again := fresh.Obsolete(); len(again) != 0 {
		t.Errorf("after forgetting, still obsolete: %v", again)
	}
}

func TestCarryOver(t *testing.T) {
	a := newDevice(t, "A")
	id := a.create("Old group list")
	a.do(a.st.PlanAdd(id, -1, tracks("1", "2")))
	a.do(a.st.PlanLike(tracks("1")[0], true))
	e, _ := a.st.PlanListen("A", tracks("2")[0])
	a.op(e)

	// A joins B's group: its old state comes along.
	b := newDevice(t, "B")
	b.create("B's list")
	a2 := newDevice(t, "A")
	a2.seq, a2.now = 100, 10_000
	a2.recv(b.ops...)
	a2.do(playlists.CarryOver(a.st, a2.st, "A"), nil)
	b.recv(a2.ops...)
	if got := titles(t, b.st, id); got != "1 2" {
		t.Errorf("carried playlist on B: %q", got)
	}
	if !b.st.IsLiked("b3:1") || b.st.Plays("b3:2").Plays != 1 || len(b.st.Playlists()) != 2 {
		t.Errorf("carried likes or plays missing on B: liked %v, plays %+v, %d playlists", b.st.IsLiked("b3:1"), b.st.Plays("b3:2"), len(b.st.Playlists()))
	}
	// Carrying the same state again (A rejoins) adds nothing.
	if again := playlists.CarryOver(a.st, b.st, "A"); len(again) != 0 {
		t.Errorf("carrying into a group that has it all: %d ops", len(again))
	}
}

// dump is every view of s as text, for comparisons.
func dump(s *playlists.State) string {
	var b strings.Builder
	for _, sum := range s.Playlists() {
		p, _ := s.Playlist(sum.ID)
		fmt.Fprintf(&b, "%s %q %d:", p.ID, p.Name, p.DurationMS)
		for _, e := range p.Entries {
			fmt.Fprintf(&b, " %s=%s", e.ID, e.Track.ContentID)
		}
		b.WriteByte('\n')
	}
	for _, l := range s.Liked() {
		fmt.Fprintf(&b, "liked %s %d\n", l.Track.ContentID, l.AtMS)
	}
	for _, p := range s.History() {
		fmt.Fprintf(&b, "played %s %d %d\n", p.Track.ContentID, p.Plays, p.LastMS)
	}
	return b.String()
}
