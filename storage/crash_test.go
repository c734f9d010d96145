package storage

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// crashLine is one checkpoint the child printed after its Commit returned.
type crashLine struct {
	cp  engine.Checkpoint
	seq uint64
}

func parseCrashLine(s string) (crashLine, error) {
	var l crashLine
	var issuer, owner string
	_, err := fmt.Sscanf(s, "C %d %q %q %d %d %d", &l.cp.Claim.Counter, &issuer, &owner,
		&l.cp.HeartbeatReserved, &l.cp.CommandReserved, &l.seq)
	l.cp.Claim.Issuer, l.cp.Claim.Owner = engine.DeviceID(issuer), engine.DeviceID(owner)
	return l, err
}

// TestCrashSafety kills a committing child process with SIGKILL at seeded
// random moments, reopens the database each time, and checks that the
// stored claim never went backwards and that the stored heartbeat/command
// reservations and op log are never below anything the child printed after
// a commit. FURUDESK_CRASH_SEED reproduces a failing run.
func TestCrashSafety(t *testing.T) {
	if os.Getenv("FURUDESK_STORAGE_HELPER") != "" {
		t.Skip("in helper")
	}
	seed := time.Now().UnixNano()
	if v := os.Getenv("FURUDESK_CRASH_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("FURUDESK_CRASH_SEED: %v", err)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("reproduce with FURUDESK_CRASH_SEED=%d", seed)
		}
	})
	rng := rand.New(rand.NewSource(seed))
	dir := t.TempDir()
	const kills = 50
	var stored engine.Checkpoint // what the last reopen found
	var storedSeq uint64
	committedLines := 0
	for round := 0; round < kills; round++ {
		cmd := helperCmd(t, "crash", dir, "FURUDESK_STORAGE_SEED="+strconv.FormatInt(rng.Int63(), 10))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Kill at once (during Open), right after "ready", or after the
		// wait-th committed line: the child is then somewhere in its next
		// commit.
		wait := rng.Intn(30) - 3
		var printed []crashLine
		record := func(s string) {
			if strings.HasPrefix(s, "C ") {
				l, err := parseCrashLine(s)
				if err != nil {
					t.Fatalf("round %d: bad line %q: %v", round, s, err)
				}
				printed = append(printed, l)
			}
		}
		deadline := time.After(20 * time.Second)
		if wait >= 0 {
		read:
			for {
				select {
				case s, ok := <-lines:
					if !ok {
						t.Fatalf("round %d: child exited early: %v", round, cmd.Wait())
					}
					record(s)
					if s == "ready" && wait == 0 || len(printed) >= wait && wait > 0 {
						break read
					}
				case <-deadline:
					_ = cmd.Process.Kill()
					t.Fatalf("round %d: no output from the child within 20 s", round)
				}
			}
		}
		if err := cmd.Process.Kill(); err != nil { // SIGKILL on unix
			t.Fatalf("round %d: kill: %v", round, err)
		}
		// Lines written before the kill count too.
		for s := range lines {
			record(s)
		}
		_ = cmd.Wait()
		committedLines += len(printed)

		s, err := Open(dir)
		if err != nil {
			t.Fatalf("round %d: reopen after SIGKILL: %v", round, err)
		}
		cp, ok, err := s.LoadCheckpoint(crashGroup)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		vec, err := s.OpVector()
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		q, err := s.Queue()
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if len(printed) > 0 && !ok {
			t.Fatalf("round %d: child printed %d checkpoints, none stored", round, len(printed))
		}
		if ok {
			if cp.Claim.Compare(stored.Claim) < 0 || cp.HeartbeatReserved < stored.HeartbeatReserved || cp.CommandReserved < stored.CommandReserved {
				t.Fatalf("round %d: stored checkpoint went backwards: %+v after %+v", round, cp, stored)
			}
			if vec[crashDevice] < storedSeq {
				t.Fatalf("round %d: op log went backwards: seq %d after %d", round, vec[crashDevice], storedSeq)
			}
			if len(q.Items) == 0 {
				t.Fatalf("round %d: checkpoint stored without its queue", round)
			}
		}
		for _, l := range printed {
			if cp.Claim.Compare(l.cp.Claim) < 0 {
				t.Fatalf("round %d: stored claim %+v is below the printed %+v", round, cp.Claim, l.cp.Claim)
			}
			if cp.HeartbeatReserved < l.cp.HeartbeatReserved || cp.CommandReserved < l.cp.CommandReserved {
				t.Fatalf("round %d: stored reservations %d/%d are below the printed %d/%d", round,
					cp.HeartbeatReserved, cp.CommandReserved, l.cp.HeartbeatReserved, l.cp.CommandReserved)
			}
			if vec[crashDevice] < l.seq {
				t.Fatalf("round %d: op seq %d printed, stored only up to %d", round, l.seq, vec[crashDevice])
			}
		}
		// Checkpoint and op are one transaction: the op seq tracks the
		// number of commits and so does the heartbeat reservation.
		if ok && cp.HeartbeatReserved != vec[crashDevice]*crashBlock {
			t.Fatalf("round %d: checkpoint (heartbeat %d) and op log (seq %d) disagree: not one transaction", round, cp.HeartbeatReserved, vec[crashDevice])
		}
		stored, storedSeq = cp, vec[crashDevice]
	}
	t.Logf("%d SIGKILLs, %d commits printed, final %+v, seed %d", kills, committedLines, stored, seed)
}
