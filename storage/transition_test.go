package storage

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/furudesk/furudesk/engine"
)

func testCheckpoint(counter, hb uint64) *engine.Checkpoint {
	return &engine.Checkpoint{
		Group: "grp_a", Device: "dev_a",
		Claim:             engine.Claim{Counter: counter, Issuer: "dev_a", Owner: "dev_b"},
		HeartbeatReserved: hb, CommandReserved: hb / 2,
	}
}

func testQueue(n int) *QueueState {
	// The seed has its high bit set: SQLite's integers are signed.
	q := &QueueState{Transport: Transport{Index: n - 1, PositionMS: 1234, Playing: true, Volume: 70, Shuffle: true, Repeat: RepeatOne,
		ShuffleSeed: 0xfedcba9876543210}}
	for i := 0; i < n; i++ {
		q.ShuffleOrder = append(q.ShuffleOrder, n-1-i)
		q.Items = append(q.Items, QueueItem{ContentID: "b3:" + string(rune('a'+i)), Meta: json.RawMessage(`{"title":"Jóga","artists":["Björk"],"duration_ms":305000}`)})
	}
	return q
}

func testOp(origin string, seq uint64) Op {
	return Op{ID: OpID(origin, seq), Origin: origin, Seq: seq, HLCms: int64(1000 + seq), Kind: "playback_command", Body: json.RawMessage(`{"command":"pause"}`),
		Sig: bytes.Repeat([]byte{byte(seq)}, 64)}
}

func testDevice(id string) Device {
	return Device{DeviceID: id, Name: "Laptop " + id, PublicKey: testKey(byte(len(id))).Public().(ed25519.PublicKey), Addresses: []string{"192.168.1.2:7700"}, Trusted: true, UpdatedHLCms: 5}
}

func TestCommitRoundTrip(t *testing.T) {
	s, dir := openTemp(t)
	tr := Transition{
		Checkpoint: testCheckpoint(3, 1024),
		Queue:      testQueue(3),
		Ops:        []Op{testOp("dev_a", 1), testOp("dev_a", 2)},
		Devices:    []Device{testDevice("dev_b")},
	}
	if err := s.Commit(tr); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cp, ok, err := s.LoadCheckpoint("grp_a")
	if err != nil || !ok || cp != *tr.Checkpoint {
		t.Fatalf("checkpoint %+v %v %v, want %+v", cp, ok, err, *tr.Checkpoint)
	}
	q, err := s.Queue()
	if err != nil || !reflect.DeepEqual(q, *tr.Queue) {
		t.Fatalf("queue %+v %v\nwant %+v", q, err, *tr.Queue)
	}
	ops, err := s.OpsAfter(nil, 0)
	if err != nil || !reflect.DeepEqual(ops, tr.Ops) {
		t.Fatalf("ops %+v %v", ops, err)
	}
	d, err := s.Device("dev_b")
	if err != nil || !reflect.DeepEqual(d, tr.Devices[0]) {
		t.Fatalf("device %+v %v", d, err)
	}
	// The checkpoint of one group is never restored for another.
	if _, ok, err := s.LoadCheckpoint("grp_other"); ok || err != nil {
		t.Fatalf("checkpoint of grp_a returned for grp_other: %v %v", ok, err)
	}
}

func TestEmptyCommitWritesNothing(t *testing.T) {
	s, _ := openTemp(t)
	s.FailNextCommit(nil)
	if err := s.Commit(Transition{}); err != nil {
		t.Fatal(err)
	}
	if s.Writes() != 0 {
		t.Fatalf("empty commit wrote")
	}
}

// TestFailedCommitLeavesDatabaseUnchanged: a commit that fails after doing
// all its writes leaves the database exactly as before (compared by dump).
func TestFailedCommitLeavesDatabaseUnchanged(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.PutTracks(manyTracks(20)); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(Transition{Checkpoint: testCheckpoint(1, 1024), Queue: testQueue(2), Ops: []Op{testOp("dev_a", 1)}}); err != nil {
		t.Fatal(err)
	}
	before := dump(t, s.db)
	big := Transition{
		Checkpoint: testCheckpoint(9, 9*1024),
		Queue:      testQueue(5),
		Ops:        []Op{testOp("dev_a", 2), testOp("dev_b", 1)},
		Devices:    []Device{testDevice("dev_b"), testDevice("dev_cc")},
	}

	s.FailNextCommit(nil)
	if err := s.Commit(big); !errors.Is(err, ErrInjected) {
		t.Fatalf("Commit = %v, want ErrInjected", err)
	}
	if after := dump(t, s.db); after != before {
		t.Fatalf("failed commit changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	boom := errors.New("disk on fire")
	calls := 0
	s.SetCommitFault(func(tr Transition) error {
		calls++
		if tr.Checkpoint == nil {
			t.Errorf("fault did not see the transition")
		}
		return boom
	})
	if err := s.Commit(big); !errors.Is(err, boom) {
		t.Fatalf("Commit = %v, want the injected error", err)
	}
	if after := dump(t, s.db); after != before || calls != 1 {
		t.Fatalf("failed commit changed the database (calls %d)", calls)
	}

	// A commit that fails on its own (a backwards checkpoint after the
	// queue was already rewritten) is also all or nothing.
	back := big
	back.Checkpoint = testCheckpoint(0, 0)
	s.SetCommitFault(nil)
	if err := s.Commit(back); !errors.Is(err, ErrBackwards) {
		t.Fatalf("backwards commit = %v", err)
	}
	if after := dump(t, s.db); after != before {
		t.Fatalf("refused commit changed the database")
	}

	// With the fault removed the same transition commits.
	if err := s.Commit(big); err != nil {
		t.Fatal(err)
	}
	if dump(t, s.db) == before {
		t.Fatalf("commit changed nothing")
	}
}

func TestCheckpointNeverGoesBackwards(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.Commit(Transition{Checkpoint: testCheckpoint(5, 2048)}); err != nil {
		t.Fatal(err)
	}
	lowerClaim := testCheckpoint(4, 4096)
	lowerHB := testCheckpoint(6, 1024)
	otherIssuer := testCheckpoint(5, 2048)
	otherIssuer.Claim.Issuer = "dev_0" // same counter, smaller issuer
	for name, cp := range map[string]*engine.Checkpoint{"claim": lowerClaim, "heartbeat": lowerHB, "issuer": otherIssuer} {
		if err := s.Commit(Transition{Checkpoint: cp}); !errors.Is(err, ErrBackwards) {
			t.Errorf("%s: Commit = %v, want ErrBackwards", name, err)
		}
	}
	same := testCheckpoint(5, 2048)
	if err := s.Commit(Transition{Checkpoint: same}); err != nil {
		t.Fatalf("unchanged checkpoint: %v", err)
	}
	if cp, _, _ := s.LoadCheckpoint("grp_a"); cp != *same {
		t.Fatalf("stored %+v", cp)
	}
}

func TestTransitionValidation(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.Commit(Transition{Queue: testQueue(2)}); err != nil {
		t.Fatal(err)
	}
	bad := []Transition{
		{Transport: &Transport{Index: 2, Volume: 50, Repeat: RepeatOff}},  // beyond the stored queue
		{Transport: &Transport{Index: 0, Volume: 101, Repeat: RepeatOff}}, // volume
		{Transport: &Transport{Index: 0, Volume: 1, Repeat: "sometimes"}},
		{Transport: &Transport{Index: 0, Volume: 1, Repeat: RepeatOff, PositionMS: -1}},
		{Queue: &QueueState{Items: []QueueItem{{ContentID: ""}}, Transport: DefaultTransport()}},
		{Queue: &QueueState{Items: []QueueItem{{ContentID: "x", Meta: json.RawMessage(`{bad`)}}, Transport: DefaultTransport()}},
		{Queue: testQueue(1), Transport: &Transport{Volume: 1, Repeat: RepeatOff}},
		{Transport: &Transport{Index: 0, Volume: 1, Repeat: RepeatOff, ShuffleOrder: []int{0}}},    // order shorter than the stored queue
		{Transport: &Transport{Index: 0, Volume: 1, Repeat: RepeatOff, ShuffleOrder: []int{1, 1}}}, // not a permutation
		{Transport: &Transport{Index: 0, Volume: 1, Repeat: RepeatOff, ShuffleOrder: []int{0, 2}}}, // out of range
		{Queue: &QueueState{Items: testQueue(2).Items, Transport: Transport{Volume: 1, Repeat: RepeatOff, ShuffleOrder: []int{0, 1, 2}}}},
		{Transport: &Transport{Index: 0, Volume: 1, Repeat: RepeatOff, Applied: json.RawMessage(`{"dev_a":`)}},                                      // applied marks not JSON
		{Transport: &Transport{Index: 0, Volume: 1, Repeat: RepeatOff, Applied: json.RawMessage(`"` + strings.Repeat("x", MaxAppliedBytes) + `"`)}}, // too long
		{Ops: []Op{{ID: "dev_a:2", Origin: "dev_a", Seq: 1, Kind: "k", Body: json.RawMessage(`{}`)}}},
		{Ops: []Op{{ID: "dev_a:0", Origin: "dev_a", Seq: 0, Kind: "k", Body: json.RawMessage(`{}`)}}},
		{Ops: []Op{{ID: "dev_a:1", Origin: "dev_a", Seq: 1, Kind: "k", Body: json.RawMessage(`nope`)}}},
		{Checkpoint: &engine.Checkpoint{Group: "", Device: "dev_a"}},
		{Devices: []Device{{DeviceID: "dev_x", PublicKey: []byte{1, 2}}}},
	}
	before := dump(t, s.db)
	for i, tr := range bad {
		if err := s.Commit(tr); !errors.Is(err, ErrInvalid) {
			t.Errorf("%d: Commit = %v, want ErrInvalid", i, err)
		}
	}
	if dump(t, s.db) != before {
		t.Fatalf("an invalid transition changed the database")
	}
	// Transport alone moves position within the stored queue.
	tp := Transport{Index: 1, PositionMS: 99, Volume: 0, Repeat: RepeatAll}
	if err := s.Commit(Transition{Transport: &tp}); err != nil {
		t.Fatal(err)
	}
	q, _ := s.Queue()
	if !q.Transport.Equal(tp) || len(q.Items) != 2 {
		t.Fatalf("queue after transport commit: %+v", q)
	}
	// ... and carries the shuffle seed and order, and the controls it
	// contains.
	tp = Transport{Index: 1, Volume: 3, Repeat: RepeatOff, Shuffle: true, ShuffleSeed: 1<<63 | 5, ShuffleOrder: []int{1, 0},
		Applied: json.RawMessage(`{"dev_b":{"top":18446744073709551615,"bits":5}}`)}
	if err := s.Commit(Transition{Transport: &tp}); err != nil {
		t.Fatal(err)
	}
	if q, _ := s.Queue(); !q.Transport.Equal(tp) || len(q.Items) != 2 {
		t.Fatalf("queue after a shuffled transport commit: %+v, want %+v", q.Transport, tp)
	}
}

func TestQueueDefaults(t *testing.T) {
	s, _ := openTemp(t)
	q, err := s.Queue()
	if err != nil || len(q.Items) != 0 || !q.Transport.Equal(DefaultTransport()) {
		t.Fatalf("fresh queue %+v %v", q, err)
	}
}

// A position committed without a flush survives the process being killed:
// after SIGKILL and a reopen the stored position is at least the last one
// the child printed after Commit returned. Such commits never weaken the
// ones that must be flushed: the pool's connections stay synchronous=FULL,
// and a NoSync transition may carry nothing but a transport.
func TestNoSyncPositionSurvivesKill(t *testing.T) {
	dir := t.TempDir()
	cmd := helperCmd(t, "position", dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var last int64
	for sc.Scan() {
		if n, err := strconv.ParseInt(sc.Text(), 10, 64); err == nil {
			last = n
			if n >= 200 {
				break
			}
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if last < 200 {
		t.Fatalf("child stopped at position %d", last)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q, err := s.Queue()
	if err != nil {
		t.Fatal(err)
	}
	if q.PositionMS < last {
		t.Fatalf("after kill -9 the stored position is %d, the child had committed %d", q.PositionMS, last)
	}
	if s.FlushedWrites() != 0 {
		t.Fatalf("%d flushed writes from reading", s.FlushedWrites())
	}

	tr := q.Transport
	if err := s.Commit(Transition{Transport: &tr, NoSync: true}); err != nil {
		t.Fatal(err)
	}
	if s.Writes() != 1 || s.FlushedWrites() != 0 {
		t.Fatalf("writes %d flushed %d, want 1 and 0", s.Writes(), s.FlushedWrites())
	}
	for i := range maxOpenConns + 1 {
		var mode int
		if err := s.db.QueryRow("PRAGMA synchronous").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if mode != 2 {
			t.Fatalf("connection %d left at synchronous=%d after a NoSync commit, want 2 (FULL)", i, mode)
		}
	}
	for _, bad := range []Transition{
		{Checkpoint: testCheckpoint(1, 1024), NoSync: true},
		{Queue: testQueue(1), NoSync: true},
		{Transport: &tr, Ops: []Op{testOp("dev_a", 1)}, NoSync: true},
	} {
		if err := s.Commit(bad); !errors.Is(err, ErrInvalid) {
			t.Fatalf("NoSync %+v: %v, want ErrInvalid", bad, err)
		}
	}
}
