package app

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/queue"
	"github.com/furudesk/furudesk/storage"
)

func queueOf(n int) []Entry {
	q := make([]Entry, n)
	for i := range q {
		q[i] = Entry{ContentID: fmt.Sprintf("b3:%02d", i), DurationMS: 200000}
	}
	return q
}

// playOut follows s from its current track to the end (or n steps) with
// Next, returning the queue indexes played.
func playOut(t *testing.T, s *PlayerState, n int) []int {
	t.Helper()
	got := []int{s.Index}
	for range n {
		ch, err := s.Apply(Control{Op: OpNext}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Stopped {
			break
		}
		got = append(got, s.Index)
	}
	return got
}

// Shuffle plays every track of the queue once, in an order that is not the
// queue's, starting with the track that was playing, and the same seed
// gives the same order.
func TestShuffleOrderIsAPermutationFromTheSeed(t *testing.T) {
	for _, seed := range []uint64{1, 2, 42, 1 << 40} {
		s := queue.DefaultState()
		s.Queue, s.Index, s.Playing = queueOf(20), 7, true
		if _, err := s.Apply(Control{Op: OpShuffle, On: true, Seed: seed}, 0); err != nil {
			t.Fatal(err)
		}
		if s.Index != 7 || s.Order[0] != 7 || !queue.IsPermutation(s.Order, 20) {
			t.Fatalf("seed %d: order %v index %d", seed, s.Order, s.Index)
		}
		played := playOut(t, &s, 100)
		if !slices.Equal(played, s.Order) {
			t.Fatalf("seed %d: Next played %v, order %v", seed, played, s.Order)
		}
		if slices.IsSorted(played[1:]) {
			t.Fatalf("seed %d: shuffled order %v is the queue order", seed, played)
		}
		if s.Playing {
			t.Fatalf("seed %d: still playing after the end of the order with repeat off", seed)
		}
		again := queue.DefaultState()
		again.Queue, again.Index = queueOf(20), 7
		_, _ = again.Apply(Control{Op: OpShuffle, On: true, Seed: seed}, 0)
		if !slices.Equal(again.Order, s.Order) {
			t.Fatalf("seed %d: orders differ: %v and %v", seed, again.Order, s.Order)
		}
	}
}

// Prev walks the shuffled order back; turning shuffle off keeps the track
// and plays on in queue order.
func TestShufflePrevAndOff(t *testing.T) {
	s := queue.DefaultState()
	s.Queue, s.Playing = queueOf(10), true
	_, _ = s.Apply(Control{Op: OpShuffle, On: true, Seed: 9}, 0)
	_, _ = s.Apply(Control{Op: OpNext}, 0)
	_, _ = s.Apply(Control{Op: OpNext}, 0)
	if s.Index != s.Order[2] {
		t.Fatalf("after two Next: index %d, order %v", s.Index, s.Order)
	}
	_, _ = s.Apply(Control{Op: OpPrev}, 0)
	if s.Index != s.Order[1] {
		t.Fatalf("Prev: index %d, want %d (order %v)", s.Index, s.Order[1], s.Order)
	}
	cur := s.Index
	ch, _ := s.Apply(Control{Op: OpShuffle, On: false}, 0)
	if s.Index != cur || ch.Track || ch.Stopped || len(s.Order) != 0 {
		t.Fatalf("shuffle off changed the track: index %d (was %d) change %+v", s.Index, cur, ch)
	}
	if cur+1 < 10 {
		_, _ = s.Apply(Control{Op: OpNext}, 0)
		if s.Index != cur+1 {
			t.Fatalf("Next without shuffle: %d, want %d", s.Index, cur+1)
		}
	}
}

// Repeat: one replays the track when it ends (Next still skips), all
// wraps around at the end, off stops at the end.
func TestRepeatModes(t *testing.T) {
	for _, shuffle := range []bool{false, true} {
		s := queue.DefaultState()
		s.Queue, s.Playing = queueOf(3), true
		if shuffle {
			_, _ = s.Apply(Control{Op: OpShuffle, On: true, Seed: 5}, 0)
		}
		last := s.Order
		if !shuffle {
			last = []int{0, 1, 2}
		}
		s.Index = last[2]

		s.Repeat = "one"
		if !s.Advance() || s.Index != last[2] || !s.Playing {
			t.Fatalf("shuffle %v repeat one: index %d playing %v", shuffle, s.Index, s.Playing)
		}
		s.Repeat = "all"
		// With shuffle each cycle has an order of its own (TestShuffleRepeatAllReshufflesEachCycle).
		if !s.Advance() || s.Index != s.At(0) || (!shuffle && s.Index != last[0]) {
			t.Fatalf("shuffle %v repeat all: wrapped to %d, want %d", shuffle, s.Index, s.At(0))
		}
		s.Index = s.At(2)
		if _, _ = s.Apply(Control{Op: OpNext}, 0); s.Index != s.At(0) || !s.Playing || (!shuffle && s.Index != last[0]) {
			t.Fatalf("shuffle %v repeat all Next: %d", shuffle, s.Index)
		}
		last = []int{0, 1, 2}
		if shuffle {
			last = s.Order
		}
		s.Index, s.Repeat = last[2], "off"
		if s.Advance() || s.Playing {
			t.Fatalf("shuffle %v repeat off: the end of the queue did not stop", shuffle)
		}
		s.Playing = true
		if ch, _ := s.Apply(Control{Op: OpNext}, 0); !ch.Stopped || s.Playing || s.Index != last[2] {
			t.Fatalf("shuffle %v Next at the end: %+v index %d", shuffle, ch, s.Index)
		}
	}
}

// Queue edits keep the shuffled order a permutation: tracks added next
// play next, appended ones come later, removed ones drop out, and the
// current track stays.
func TestShuffleOrderFollowsQueueEdits(t *testing.T) {
	s := queue.DefaultState()
	s.Queue, s.Index, s.Playing = queueOf(8), 3, true
	_, _ = s.Apply(Control{Op: OpShuffle, On: true, Seed: 77}, 0)
	_, _ = s.Apply(Control{Op: OpNext}, 0)
	cur := s.Queue[s.Index].ContentID
	check := func(what string) {
		t.Helper()
		if err := s.Validate(); err != nil {
			t.Fatalf("%s: %v (order %v, queue %d)", what, err, s.Order, len(s.Queue))
		}
		if s.Queue[s.Index].ContentID != cur {
			t.Fatalf("%s: current track changed to %s, want %s", what, s.Queue[s.Index].ContentID, cur)
		}
	}
	_, _ = s.Apply(Control{Op: OpEnqueue, Entries: []Entry{{ContentID: "b3:next"}}, Next: true}, 0)
	check("enqueue next")
	if i, _ := s.After(); s.Queue[i].ContentID != "b3:next" {
		t.Fatalf("a track added as next plays after %s", s.Queue[i].ContentID)
	}
	_, _ = s.Apply(Control{Op: OpEnqueue, Entries: []Entry{{ContentID: "b3:x"}, {ContentID: "b3:y"}}}, 0)
	check("append")
	pos := s.OrderPos()
	for _, id := range []string{"b3:x", "b3:y"} {
		i := slices.IndexFunc(s.Queue, func(e Entry) bool { return e.ContentID == id })
		if p := slices.Index(s.Order, i); p <= pos {
			t.Fatalf("appended %s at order position %d, before the current track's %d", id, p, pos)
		}
	}
	rm := s.Order[len(s.Order)-1]
	_, _ = s.Apply(Control{Op: OpRemove, Index: rm}, 0)
	check("remove another track")
	// Removing the current track moves on to the next in play order.
	want, _ := s.After()
	wantID := s.Queue[want].ContentID
	_, _ = s.Apply(Control{Op: OpRemove, Index: s.Index}, 0)
	if err := s.Validate(); err != nil || s.Queue[s.Index].ContentID != wantID || !s.Playing {
		t.Fatalf("removing the current track: now %s (want %s), playing %v, err %v", s.Queue[s.Index].ContentID, wantID, s.Playing, err)
	}
}

// The order survives storage: a restart plays the same order.
func TestShuffleOrderSurvivesStorage(t *testing.T) {
	s := queue.DefaultState()
	s.Queue, s.Index, s.Playing = queueOf(12), 4, true
	_, _ = s.Apply(Control{Op: OpShuffle, On: true, Seed: 1234}, 0)
	_, _ = s.Apply(Control{Op: OpNext}, 0)
	back := stateFromDurable(durable(s))
	if !slices.Equal(back.Order, s.Order) || back.Seed != s.Seed || back.Index != s.Index || !back.Shuffle {
		t.Fatalf("restored order %v seed %d index %d, want %v %d %d", back.Order, back.Seed, back.Index, s.Order, s.Seed, s.Index)
	}
	// The items carry display metadata only.
	for i, it := range durable(s).Items {
		if strings.Contains(string(it.Meta), "shuffle") || strings.Contains(string(it.Meta), "seed") {
			t.Fatalf("item %d metadata %s carries the play order", i, it.Meta)
		}
	}
	// An order that does not fit is generated again from the seed and the
	// queue, never rejected.
	q := durable(s)
	q.ShuffleOrder = []int{0, 0}
	r := stateFromDurable(q)
	if !queue.IsPermutation(r.Order, 12) || len(r.Queue) != 12 || r.Seed != s.Seed {
		t.Fatalf("damaged order not repaired: %v", r.Order)
	}
	if want := queue.ShuffledOrder(s.Seed, 12, s.Index); !slices.Equal(r.Order, want) {
		t.Fatalf("repaired order %v, want %v from the seed", r.Order, want)
	}
	// A queue stored by a build that kept the order in the items'
	// metadata resumes in that order.
	old := durable(s)
	old.ShuffleSeed, old.ShuffleOrder = 0, nil
	for pos, i := range s.Order {
		meta := fmt.Sprintf(`{"title":"t","shuffle_rank":%d}`, pos)
		if i == 0 {
			meta = fmt.Sprintf(`{"title":"t","shuffle_rank":%d,"shuffle_seed":%d}`, pos, s.Seed)
		}
		old.Items[i].Meta = json.RawMessage(meta)
	}
	if r := stateFromDurable(old); !slices.Equal(r.Order, s.Order) || r.Seed != s.Seed {
		t.Fatalf("legacy order %v seed %d, want %v %d", r.Order, r.Seed, s.Order, s.Seed)
	}
}

// diskQueueStore is the fake store with the queue and transport kept in a
// real database, so a restart reads them back from SQLite.
type diskQueueStore struct {
	*fakeStore
	db *storage.Store
}

func (s diskQueueStore) Commit(t storage.Transition) error {
	if t.Queue != nil || t.Transport != nil {
		if err := s.db.Commit(storage.Transition{Queue: t.Queue, Transport: t.Transport}); err != nil {
			return err
		}
	}
	return s.fakeStore.Commit(t)
}

func (s diskQueueStore) Queue() (storage.QueueState, error) { return s.db.Queue() }

// A restart resumes the same shuffled order from the database, also after
// "play next" and appended tracks changed it in ways the seed alone does
// not give, and the order is kept in the transport, not the items.
func TestShuffleRestartResumesSameOrderFromDisk(t *testing.T) {
	dir := t.TempDir()
	open := func() *storage.Store {
		db, err := storage.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	r := buildRig(t, self)
	for i := range 8 {
		r.store.addTrack(fmt.Sprintf("b3:%02d", i), 200*time.Second)
	}
	db := open()
	r.startWith(Options{Config: fastCfg()}, diskQueueStore{r.store, db})
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:00", "b3:01", "b3:02", "b3:03", "b3:04"}, 1); err != nil {
		t.Fatal(err)
	}
	if err := r.app.SetShuffle(true); err != nil {
		t.Fatal(err)
	}
	if err := r.app.Next(); err != nil {
		t.Fatal(err)
	}
	if err := r.app.Enqueue([]string{"b3:05"}, true); err != nil { // play next
		t.Fatal(err)
	}
	if err := r.app.Enqueue([]string{"b3:06", "b3:07"}, false); err != nil {
		t.Fatal(err)
	}
	before := r.app.Status()
	seed := r.st().Seed
	if fromSeed := queue.ShuffledOrder(seed, len(before.Queue), before.Order[0]); slices.Equal(fromSeed, before.Order) {
		t.Fatalf("order %v is the seed's own: the test would not tell a stored order from a derived one", before.Order)
	}
	stored, err := db.Queue()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(stored.ShuffleOrder, before.Order) || stored.ShuffleSeed != seed {
		t.Fatalf("stored order %v seed %d, want %v %d", stored.ShuffleOrder, stored.ShuffleSeed, before.Order, seed)
	}
	for i, it := range stored.Items {
		if strings.Contains(string(it.Meta), "shuffle") {
			t.Fatalf("item %d metadata %s carries the play order", i, it.Meta)
		}
	}

	// Restart: a new process opens the database again.
	_ = r.app.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open()
	t.Cleanup(func() { _ = db.Close() })
	r.out = newFakeOutput(r.j, r.clock)
	r.startWith(Options{Config: fastCfg()}, diskQueueStore{r.store, db})
	r.advance(500 * time.Millisecond)
	after := r.app.Status()
	if !slices.Equal(after.Order, before.Order) || after.Index != before.Index || !after.Shuffle || r.st().Seed != seed {
		t.Fatalf("after a restart: order %v index %d seed %d, want %v %d %d", after.Order, after.Index, r.st().Seed, before.Order, before.Index, seed)
	}
	// And it plays on along that order: the "play next" track comes next.
	if err := r.app.Next(); err != nil {
		t.Fatal(err)
	}
	if st := r.app.Status(); st.Queue[st.Index].ContentID != "b3:05" {
		t.Fatalf("after the restart Next played %s, want the play-next track b3:05 (order %v)", st.Queue[st.Index].ContentID, st.Order)
	}
}

// st is the actor's player state.
func (r *rig) st() PlayerState {
	var s PlayerState
	r.do(func(a *actor) { s = a.st.Clone() })
	return s
}

// A restarted owner, and a controller showing its snapshot, follow the
// same shuffled order; toggling shuffle keeps the current track playing.
func TestShuffleSameOrderAfterRestartAndOnControllers(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	for i := range 6 {
		r.store.addTrack(fmt.Sprintf("b3:%02d", i), 200*time.Second)
	}
	r.advance(1500 * time.Millisecond)
	ids := []string{"b3:00", "b3:01", "b3:02", "b3:03", "b3:04", "b3:05"}
	if err := r.app.PlayTracks(ids, 2); err != nil {
		t.Fatal(err)
	}
	r.j.reset()
	if err := r.app.SetShuffle(true); err != nil {
		t.Fatal(err)
	}
	st := r.app.Status()
	if st.Index != 2 || len(st.Order) != 6 || st.Order[0] != 2 || r.j.count("play") != 0 || r.j.count("stop") != 0 {
		t.Fatalf("shuffle on: index %d order %v, effects %q", st.Index, st.Order, r.j.list())
	}
	var snap PlayerState
	_ = json.Unmarshal(r.tr.lastSnap().State, &snap)
	if !slices.Equal(snap.Order, st.Order) || snap.Seed == 0 {
		t.Fatalf("snapshot order %v seed %d, status order %v", snap.Order, snap.Seed, st.Order)
	}
	if err := r.app.Next(); err != nil {
		t.Fatal(err)
	}
	if st := r.app.Status(); st.Index != st.Order[1] || r.j.first(fmt.Sprintf("play %s@0", ids[st.Order[1]])) < 0 {
		t.Fatalf("Next played index %d, order %v: %q", st.Index, st.Order, r.j.list())
	}
	order := r.app.Status().Order

	// Restart: the same order, the same place in it.
	_ = r.app.Close()
	r.out = newFakeOutput(r.j, r.clock)
	r.start(Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond) // past the discovery grace of a restarted owner
	st = r.app.Status()
	if !slices.Equal(st.Order, order) || st.Index != order[1] {
		t.Fatalf("after a restart: order %v index %d, want %v %d", st.Order, st.Index, order, order[1])
	}

	// A controller showing that snapshot moves along the same order.
	c := newRig(t, peerB, Options{Config: fastCfg()}, self)
	claim := engine.Claim{Counter: 5, Issuer: self, Owner: self}
	ps := snapOf(t, r)
	ps.Term = claim
	c.announce(self, claim, 1, true, &ps)
	if err := c.app.Next(); err != nil {
		t.Fatal(err)
	}
	if got := c.app.Status(); got.Index != order[2] {
		t.Fatalf("controller's Next shows index %d, want %d (order %v)", got.Index, order[2], order)
	}
	cmds := c.tr.sentCmds()
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: cmds[len(cmds)-1].Body,
		Stamp: engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: r.app.Status().Claim, Sequence: 1}})
	if got := r.app.Status(); got.Index != order[2] {
		t.Fatalf("owner applied Next to index %d, want %d", got.Index, order[2])
	}
}

func snapOf(t *testing.T, r *rig) PlayerState {
	t.Helper()
	var ps PlayerState
	if err := json.Unmarshal(r.tr.lastSnap().State, &ps); err != nil {
		t.Fatal(err)
	}
	return ps
}

// QA N9: shuffle with repeat all plays a new order each cycle, the same on
// every device: the new seed travels in the state, and what follows the
// last track (prepared for a gapless start) is what the cycle starts with.
func TestShuffleRepeatAllReshufflesEachCycle(t *testing.T) {
	s := queue.DefaultState()
	s.Queue, s.Playing, s.Repeat = queueOf(8), true, "all"
	_, _ = s.Apply(Control{Op: OpShuffle, On: true, Seed: 7}, 0)
	var cycles [][]int
	for range 3 {
		var played []int
		for range 8 {
			played = append(played, s.Index)
			next, _ := s.Following()
			remote := s.Clone() // a controller that adopted the snapshot
			if !s.Advance() || s.Index != next {
				t.Fatalf("advanced to %d, prepared %d", s.Index, next)
			}
			_ = remote.Advance()
			if remote.Index != s.Index || remote.Seed != s.Seed || !slices.Equal(remote.Order, s.Order) {
				t.Fatal("the next cycle differs between devices")
			}
		}
		if !queue.IsPermutation(played, 8) {
			t.Fatalf("cycle %v does not play each track once", played)
		}
		cycles = append(cycles, played)
	}
	if slices.Equal(cycles[0], cycles[1]) || slices.Equal(cycles[1], cycles[2]) {
		t.Fatalf("the same order every cycle (seed 7): %v", cycles)
	}
}
