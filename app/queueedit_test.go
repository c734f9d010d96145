package app

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/queue"
)

var editSeed = flag.Uint64("edit-seed", 0, "seed of TestQueueEditsKeepTheStateValid (0: a new one)")

// ids lists the content ids of s's queue in queue order.
func ids(s PlayerState) []string {
	out := make([]string, len(s.Queue))
	for i, e := range s.Queue {
		out[i] = e.ContentID
	}
	return out
}

// playing lists the content ids in play order.
func playing(s PlayerState) []string {
	var out []string
	for _, i := range s.PlayOrder() {
		out = append(out, s.Queue[i].ContentID)
	}
	return out
}

func cids(ns ...int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = fmt.Sprintf("b3:%02d", n)
	}
	return out
}

// Dragging tracks reorders the queue; the track playing keeps playing
// (same entry, no track change) wherever it ends up.
func TestMoveReordersTheQueue(t *testing.T) {
	s := queue.DefaultState()
	s.Queue, s.Index, s.Playing, s.PositionMS = queueOf(10), 3, true, 42_000
	ch, err := s.Apply(Control{Op: OpMove, Indexes: []int{7}, Index: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(s), cids(0, 7, 1, 2, 3, 4, 5, 6, 8, 9); !slices.Equal(got, want) {
		t.Fatalf("queue %v, want %v", got, want)
	}
	if s.Queue[s.Index].ContentID != "b3:03" || ch.Track || ch.Seek || !s.Playing || s.PositionMS != 42_000 || s.Jumps != 0 {
		t.Fatalf("current %s, change %+v, playing %v at %d: want b3:03 playing on", s.Queue[s.Index].ContentID, ch, s.Playing, s.PositionMS)
	}
	if ch.Reindex[3] != 4 || ch.Reindex[7] != 1 || ch.Reindex[0] != 0 {
		t.Fatalf("reindex %v", ch.Reindex)
	}
	// Several at once, down past the current track: they keep their
	// order and follow each other.
	if _, err := s.Apply(Control{Op: OpMove, Indexes: []int{0, 1, 5}, IDs: cids(0, 7, 4), Index: 5}, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(s), cids(1, 2, 3, 5, 6, 0, 7, 4, 8, 9); !slices.Equal(got, want) {
		t.Fatalf("queue %v, want %v", got, want)
	}
	// The current track itself, to the end.
	if _, err := s.Apply(Control{Op: OpMove, Indexes: []int{2}, Index: 99}, 0); err != nil {
		t.Fatal(err)
	}
	if s.Queue[s.Index].ContentID != "b3:03" || s.Index != 9 {
		t.Fatalf("current moved to the end: index %d (%s)", s.Index, s.Queue[s.Index].ContentID)
	}
	if _, ok := s.After(); ok {
		t.Fatal("something follows the track moved to the end")
	}
}

// With shuffle on, the queue shows and edits the play order: a move puts
// tracks where they play, the queue's own order is untouched, and the
// order stays a permutation of the queue.
func TestMoveWhileShuffledChangesThePlayOrder(t *testing.T) {
	s := queue.DefaultState()
	s.Queue, s.Index, s.Playing = queueOf(12), 4, true
	if _, err := s.Apply(Control{Op: OpShuffle, On: true, Seed: 5}, 0); err != nil {
		t.Fatal(err)
	}
	queue := ids(s)
	last := s.Order[len(s.Order)-1]
	// "Play this next": to the place after the current track.
	if _, err := s.Apply(Control{Op: OpMove, Indexes: []int{last}, Index: s.OrderPos() + 1}, 0); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(s), queue) {
		t.Fatal("a move while shuffled changed the queue's own order")
	}
	if next, _ := s.After(); next != last || s.Index != 4 || s.Validate() != nil {
		t.Fatalf("after the move: next %d (want %d), current %d, order %v", next, last, s.Index, s.Order)
	}
	// Turning shuffle off plays on in queue order from the current track.
	if _, err := s.Apply(Control{Op: OpShuffle, On: false}, 0); err != nil {
		t.Fatal(err)
	}
	if next, _ := s.After(); next != 5 {
		t.Fatalf("shuffle off: next %d, want 5", next)
	}
}

// A move or removal that does not fit the queue is refused with a
// sentence and changes nothing: indexes out of range or twice, none, and
// entries that are not the ones meant any more (another device edited the
// queue in between).
func TestQueueEditsOutOfBoundsChangeNothing(t *testing.T) {
	base := queue.DefaultState()
	base.Queue, base.Index, base.Playing = queueOf(5), 2, true
	for _, c := range []Control{
		{Op: OpMove, Indexes: []int{5}, Index: 0},
		{Op: OpMove, Indexes: []int{-1}, Index: 0},
		{Op: OpMove, Indexes: []int{1, 1}, Index: 3},
		{Op: OpMove, Index: 2},
		{Op: OpMove, Indexes: []int{1, 2}, IDs: cids(1, 3), Index: 0},
		{Op: OpMove, Indexes: []int{1, 2}, IDs: cids(1), Index: 0},
		{Op: OpRemove, Indexes: []int{0, 9}},
		{Op: OpRemove, Indexes: []int{3}, IDs: cids(4)},
		{Op: OpRemove, Index: 5},
		{Op: OpRestore, Entries: queueOf(3), Index: 3},
		{Op: OpRestore, Entries: queueOf(3), Index: 0, Order: []int{0, 0, 1}},
		{Op: OpRestore, Entries: []Entry{{ContentID: "nope"}}},
		{Op: OpRestore},
	} {
		s := base.Clone()
		_, err := s.Apply(c, 0)
		if err == nil {
			t.Fatalf("%+v: accepted", c)
		}
		if msg := UserMessage(err); msg == "" {
			t.Fatalf("%+v: no message", c)
		}
		if !reflect.DeepEqual(s, base) {
			t.Fatalf("%+v: refused (%v) but changed the state", c, err)
		}
	}
	s := base.Clone()
	_, err := s.Apply(Control{Op: OpMove, Indexes: []int{0}, IDs: cids(1), Index: 3}, 0)
	if !errors.Is(err, ErrQueueChanged) {
		t.Fatalf("stale move: %v, want ErrQueueChanged", err)
	}
	empty := queue.DefaultState()
	if _, err := empty.Apply(Control{Op: OpMove, Indexes: []int{0}}, 0); !errors.Is(err, ErrQueueEmpty) {
		t.Fatalf("move in an empty queue: %v", err)
	}
}

// Removing several tracks, the current one among them, goes on with the
// next track of the play order that stays; removing every track after it
// stops on the last one left.
func TestRemoveSeveral(t *testing.T) {
	s := queue.DefaultState()
	s.Queue, s.Index, s.Playing, s.PositionMS = queueOf(8), 2, true, 5000
	ch, err := s.Apply(Control{Op: OpRemove, Indexes: []int{6, 2, 3, 0}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(s), cids(1, 4, 5, 7); !slices.Equal(got, want) {
		t.Fatalf("queue %v, want %v", got, want)
	}
	if s.Queue[s.Index].ContentID != "b3:04" || !ch.Track || !s.Playing || s.PositionMS != 0 {
		t.Fatalf("after removing the current track: %s, change %+v, playing %v", s.Queue[s.Index].ContentID, ch, s.Playing)
	}
	if ch.Reindex[1] != 0 || ch.Reindex[2] != -1 || ch.Reindex[7] != 3 {
		t.Fatalf("reindex %v", ch.Reindex)
	}
	// Removing tracks other than the current one leaves it playing.
	s.PositionMS = 9000
	ch, _ = s.Apply(Control{Op: OpRemove, Indexes: []int{0}}, 0)
	if s.Queue[s.Index].ContentID != "b3:04" || ch.Track || s.PositionMS != 9000 {
		t.Fatalf("removing an earlier track disturbed the current one: %+v", ch)
	}
	// The current track and everything after it: stop on the last left.
	ch, _ = s.Apply(Control{Op: OpRemove, Indexes: []int{0, 1, 2}}, 0)
	if len(s.Queue) != 0 || !ch.Stopped || s.Playing {
		t.Fatalf("removing all: queue %v, change %+v", ids(s), ch)
	}
	s.Queue, s.Index, s.Playing = queueOf(4), 1, true
	_, _ = s.Apply(Control{Op: OpRemove, Indexes: []int{1, 2, 3}}, 0)
	if s.Playing || s.Index != 0 || len(s.Queue) != 1 {
		t.Fatalf("nothing follows: index %d playing %v queue %v", s.Index, s.Playing, ids(s))
	}
}

// Undo of a clear or a removal puts the queue back as it was: entries,
// play order, current track and position, and a track still playing
// plays on without a restart.
func TestRestoreUndoesAClear(t *testing.T) {
	s := queue.DefaultState()
	s.Queue, s.Index, s.Playing = queueOf(9), 4, true
	_, _ = s.Apply(Control{Op: OpShuffle, On: true, Seed: 11}, 0)
	s.PositionMS = 61_000
	saved := Control{Op: OpRestore, Entries: slices.Clone(s.Queue), Order: slices.Clone(s.Order), Index: s.Index,
		PosMS: s.PositionMS, On: true}
	wantPlay := playing(s)
	if _, err := s.Apply(Control{Op: OpClear}, 0); err != nil {
		t.Fatal(err)
	}
	ch, err := s.Apply(saved, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(playing(s), wantPlay) || s.Index != 4 || s.PositionMS != 61_000 || !s.Playing || !ch.Track {
		t.Fatalf("restored: order %v (want %v), index %d, at %d, playing %v, change %+v",
			playing(s), wantPlay, s.Index, s.PositionMS, s.Playing, ch)
	}
	// Undo of a removal while the current track plays on: no restart.
	s.PositionMS = 70_000
	saved.PosMS = 65_000
	_, _ = s.Apply(Control{Op: OpRemove, Indexes: []int{0, 8}}, 0)
	cur := s.Index
	ch, err = s.Apply(saved, 0)
	if err != nil || ch.Track || s.PositionMS != 70_000 || ch.Reindex[cur] != 4 {
		t.Fatalf("undo of a removal: err %v, change %+v, position %d", err, ch, s.PositionMS)
	}
}

// Any sequence of edits keeps the state valid: the index in range, the
// shuffled order a permutation of the queue, and moves never change which
// track is current.
func TestQueueEditsKeepTheStateValid(t *testing.T) {
	seed := *editSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with -edit-seed=%d)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 1))
	s := queue.DefaultState()
	s.Queue, s.Playing = queueOf(30), true
	next := 30
	for step := range 3000 {
		before, hadCur := s.Current()
		var c Control
		n := len(s.Queue)
		pick := func(k int) []int {
			if n == 0 {
				return []int{r.IntN(3)}
			}
			return r.Perm(n)[:min(k, n)]
		}
		switch r.IntN(9) {
		case 0, 1, 2:
			c = Control{Op: OpMove, Indexes: pick(1 + r.IntN(4)), Index: r.IntN(n+2) - 1}
		case 3:
			c = Control{Op: OpRemove, Indexes: pick(1 + r.IntN(3))}
		case 4:
			k := 1 + r.IntN(3)
			es := make([]Entry, k)
			for i := range es {
				es[i] = Entry{ContentID: fmt.Sprintf("b3:n%d", next), DurationMS: 1000}
				next++
			}
			c = Control{Op: OpEnqueue, Entries: es, Next: r.IntN(2) == 0}
		case 5:
			c = Control{Op: OpShuffle, On: !s.Shuffle, Seed: r.Uint64() | 1}
		case 6:
			c = Control{Op: OpNext}
		case 7:
			c = Control{Op: OpJump, Index: r.IntN(n + 1)}
		case 8:
			if n < 5 {
				c = Control{Op: OpRestore, Entries: queueOf(10), Index: r.IntN(10), On: true}
			} else {
				c = Control{Op: OpRepeat, Repeat: []string{"off", "all", "one"}[r.IntN(3)]}
			}
		}
		prev := s.Clone()
		ch, err := s.Apply(c, 0)
		if err != nil {
			if !reflect.DeepEqual(prev.Queue, s.Queue) || !reflect.DeepEqual(prev.Order, s.Order) || prev.Index != s.Index {
				t.Fatalf("seed %d step %d: %+v refused (%v) but changed the queue", seed, step, c, err)
			}
			continue
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("seed %d step %d: after %+v: %v (index %d, order %v, queue %d)", seed, step, c, err, s.Index, s.Order, len(s.Queue))
		}
		if c.Op == OpMove {
			if cur, _ := s.Current(); hadCur && cur.ContentID != before.ContentID {
				t.Fatalf("seed %d step %d: move %+v changed the current track", seed, step, c)
			}
			if ch.Track || !slices.Equal(sortedIDs(prev), sortedIDs(s)) {
				t.Fatalf("seed %d step %d: move %+v changed the tracks or the current one", seed, step, c)
			}
		}
		if ch.Reindex != nil && hadCur && !ch.Track && !ch.Stopped {
			if j := ch.Reindex[prev.Index]; j < 0 || s.Queue[j].ContentID != before.ContentID {
				t.Fatalf("seed %d step %d: %+v: reindex sends the current track to %d", seed, step, c, j)
			}
		}
	}
}

func sortedIDs(s PlayerState) []string {
	out := ids(s)
	slices.Sort(out)
	return out
}

// On the owner, dragging a track around the one playing never restarts
// the output; a controller sends the move as a stamped command, and the
// owner applies it.
func TestMoveReachesTheOwnerAndKeepsPlaying(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb", "b3:cc"}, 1); err != nil {
		t.Fatal(err)
	}
	r.started()
	plays := r.j.count("play")
	if err := r.app.MoveInQueue([]int{2}, []string{"b3:cc"}, 0); err != nil {
		t.Fatal(err)
	}
	st := r.app.Status()
	if st.Queue[0].ContentID != "b3:cc" || st.Index != 2 || st.Track.ContentID != "b3:bb" {
		t.Fatalf("after the move: queue %v index %d", st.Queue, st.Index)
	}
	if err := r.app.RemoveQueueEntries([]int{0}, nil); err != nil {
		t.Fatal(err)
	}
	if n := r.j.count("play"); n != plays {
		t.Fatalf("moving and removing other tracks restarted the output: %q", r.j.list())
	}
	// A peer's stamped move is applied by the owner.
	claim := r.app.Status().Claim
	r.peer(devicesync.CommandReceived{From: peerB, Target: self, Body: mustJSON(Control{Op: OpMove, Indexes: []int{1}, IDs: []string{"b3:bb"}, Index: 0}),
		Stamp: engine.CommandStamp{Version: engine.EnvelopeVersion, Claim: claim, Sequence: 1}})
	st = r.app.Status()
	if st.Queue[0].ContentID != "b3:bb" || st.Index != 0 || r.j.count("play") != plays {
		t.Fatalf("peer's move: queue %v index %d journal %q", st.Queue, st.Index, r.j.list())
	}
}

// A controller's move is sent to the owner stamped, like any control, and
// shown at once.
func TestControllerSendsMove(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	owner := engine.Claim{Counter: 3, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: queueOf(4), Index: 0, Playing: true, Volume: 50, Repeat: "off", Term: owner}
	r.announce(peerB, owner, 1, true, &ps)
	if err := r.app.MoveInQueue([]int{3}, []string{"b3:03"}, 1); err != nil {
		t.Fatal(err)
	}
	cmds := r.tr.sentCmds()
	if len(cmds) != 1 {
		t.Fatalf("sent %d commands", len(cmds))
	}
	var c Control
	if err := json.Unmarshal(cmds[0].Body, &c); err != nil || c.Op != OpMove || c.Index != 1 || !slices.Equal(c.Indexes, []int{3}) {
		t.Fatalf("command %s (%v)", cmds[0].Body, err)
	}
	if cmds[0].Stamp.Claim != owner || cmds[0].Target != peerB {
		t.Fatalf("stamp %+v to %s", cmds[0].Stamp, cmds[0].Target)
	}
	if st := r.app.Status(); st.Queue[1].ContentID != "b3:03" {
		t.Fatalf("optimistic view %v", st.Queue)
	}
}
