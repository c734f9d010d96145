package storage

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"

	"github.com/furudesk/furudesk/engine"
)

// TestHelperProcess is not a test: it is the child process the
// multi-process tests start (see helperCmd). FURUDESK_STORAGE_HELPER
// selects the role.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv("FURUDESK_STORAGE_HELPER")
	if role == "" {
		t.Skip("helper process only")
	}
	dir := os.Getenv("FURUDESK_STORAGE_DIR")
	var err error
	switch role {
	case "hold":
		err = helperHold(dir)
	case "crash":
		err = helperCrash(dir)
	case "position":
		err = helperPosition(dir)
	default:
		err = fmt.Errorf("unknown helper role %q", role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// helperHold opens dir, says so, and keeps it open until stdin closes.
func helperHold(dir string) error {
	s, err := Open(dir)
	if err != nil {
		fmt.Println("error", err)
		return nil
	}
	fmt.Println("opened")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	return s.Close()
}

const (
	crashGroup  = "grp_crash"
	crashDevice = "dev_crash"
	crashPeer   = "dev_peer"
	crashBlock  = 1024
)

// helperCrash continues the checkpoint stored in dir and commits
// transitions in a loop, printing each committed checkpoint after Commit
// returned, until it is killed.
func helperCrash(dir string) error {
	s, err := Open(dir)
	if err != nil {
		return err
	}
	cp, ok, err := s.LoadCheckpoint(crashGroup)
	if err != nil {
		return err
	}
	if !ok {
		cp = engine.Checkpoint{Group: crashGroup, Device: crashDevice}
	}
	vec, err := s.OpVector()
	if err != nil {
		return err
	}
	seq := vec[crashDevice]
	seed, _ := strconv.ParseInt(os.Getenv("FURUDESK_STORAGE_SEED"), 10, 64)
	rng := rand.New(rand.NewSource(seed))
	fmt.Println("ready")
	for i := 0; i < 1_000_000; i++ {
		next := cp
		next.HeartbeatReserved += crashBlock
		if rng.Intn(3) == 0 {
			next.CommandReserved += crashBlock
		}
		if rng.Intn(4) == 0 {
			owner := engine.DeviceID(crashDevice)
			if rng.Intn(2) == 0 {
				owner = crashPeer
			}
			next.Claim = engine.Claim{Counter: cp.Claim.Counter + 1, Issuer: crashDevice, Owner: owner}
		}
		seq++
		q := QueueState{Transport: Transport{Volume: rng.Intn(101), Repeat: RepeatAll, PositionMS: int64(i)}}
		for j := 0; j < 1+rng.Intn(5); j++ {
			q.Items = append(q.Items, QueueItem{ContentID: fmt.Sprintf("b3:%064x", j), Meta: []byte(`{"title":"t"}`)})
		}
		op := Op{ID: OpID(crashDevice, seq), Origin: crashDevice, Seq: seq, HLCms: int64(seq), Kind: "playback_command", Body: []byte(`{"n":1}`)}
		if err := s.Commit(Transition{Checkpoint: &next, Queue: &q, Ops: []Op{op}}); err != nil {
			return err
		}
		cp = next
		fmt.Printf("C %d %q %q %d %d %d\n", cp.Claim.Counter, cp.Claim.Issuer, cp.Claim.Owner, cp.HeartbeatReserved, cp.CommandReserved, seq)
	}
	return s.Close()
}

// helperPosition stores a one-track queue, then commits the playing
// position without a flush (NoSync) in a loop, printing each position after
// Commit returned, until it is killed.
func helperPosition(dir string) error {
	s, err := Open(dir)
	if err != nil {
		return err
	}
	q := QueueState{Items: []QueueItem{{ContentID: "b3:aa", Meta: []byte(`{}`)}}, Transport: Transport{Playing: true, Volume: 100, Repeat: RepeatOff}}
	if err := s.Commit(Transition{Queue: &q}); err != nil {
		return err
	}
	fmt.Println("ready")
	for pos := int64(1); ; pos++ {
		tr := q.Transport
		tr.PositionMS = pos
		if err := s.Commit(Transition{Transport: &tr, NoSync: true}); err != nil {
			return err
		}
		fmt.Println(pos)
	}
}
