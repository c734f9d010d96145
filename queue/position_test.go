package queue

import (
	"testing"
	"time"
)

const hb = 500 * time.Millisecond

func playing(ms int64) State {
	s := DefaultState()
	s.Queue = []Entry{{ContentID: "b3:aa", DurationMS: 200_000}, {ContentID: "b3:bb", DurationMS: 34_000}}
	s.PositionMS, s.Playing = ms, true
	return s
}

func live(now time.Duration) Inputs { return Inputs{Now: now, Owner: OwnerLive, Heartbeat: hb} }

// P1: between a control and its effect the state's own position counts;
// the caller tells Position so by not setting Measured.
func TestMeasuredCountsOnlyWhenSet(t *testing.T) {
	var p Position
	p.Reset(0)
	s := playing(60_000)
	if got := p.Now(s, Inputs{Now: time.Second, Owner: OwnerSelf, Measured: true, MeasuredMS: 61_000}); got != 61_000 {
		t.Fatalf("measured: %d", got)
	}
	if _, err := s.Apply(Control{Op: OpNext}, 60_000); err != nil {
		t.Fatal(err)
	}
	p.Moved(time.Second)
	if got := p.Now(s, Inputs{Now: time.Second, Owner: OwnerSelf}); got != 0 {
		t.Fatalf("after Next, before its effect: %d, want 0", got)
	}
}

// P2: a controller extrapolates two heartbeats past what the owner
// confirmed, not past its own control.
func TestControllerRunsTwoHeartbeatsPastTheOwner(t *testing.T) {
	var p Position
	p.Reset(0)
	s := playing(10_000)
	if got := p.Now(s, live(5*time.Second)); got != 11_000 {
		t.Fatalf("5 s after the owner was heard: %d, want 11000", got)
	}
	p.Anchor(&s, live(5*time.Second))
	if _, err := s.Apply(Control{Op: OpSeek, PosMS: 3_000}, s.PositionMS); err != nil {
		t.Fatal(err)
	}
	p.Moved(5 * time.Second)
	if got := p.Now(s, live(8*time.Second)); got != 3_000 {
		t.Fatalf("a seek the owner did not confirm ran on to %d", got)
	}
	if got := p.Now(s, Inputs{Now: 8 * time.Second, Owner: OwnerGone, Heartbeat: hb}); got != 3_000 {
		t.Fatalf("gone owner: %d", got)
	}
}

// P4 (issue 32, major 4): a view far ahead of the owner gives way; a
// little ahead it is kept until the owner catches up; a jump ends it.
func TestFloorBridgesOnlyJitter(t *testing.T) {
	for _, c := range []struct {
		name         string
		shown, owner int64
		want         int64
	}{
		{"jitter", 30_100, 30_000, 30_100},
		{"far ahead", 71_000, 52_300, 52_300},
	} {
		t.Run(c.name, func(t *testing.T) {
			var p Position
			p.Reset(0)
			cur := playing(c.shown)
			p.Adopt(&cur, playing(c.owner), time.Second, c.shown, live(time.Second))
			if got := p.Now(cur, live(time.Second)); got != c.want {
				t.Fatalf("shows %d, want %d", got, c.want)
			}
			if got := p.Now(cur, Inputs{Now: time.Second, Owner: OwnerSelf}); got != c.owner {
				t.Fatalf("as the owner it shows %d, want its state's %d", got, c.owner)
			}
		})
	}
	var p Position
	p.Reset(0)
	cur := playing(30_100)
	p.Adopt(&cur, playing(30_000), time.Second, 30_100, live(time.Second))
	if _, err := cur.Apply(Control{Op: OpSeek, PosMS: 1_000, IDs: []string{"b3:aa"}}, 30_000); err != nil {
		t.Fatal(err)
	}
	p.Moved(time.Second)
	if got := p.Now(cur, live(time.Second)); got != 1_000 {
		t.Fatalf("a seek back under a floor shows %d", got)
	}
}

// P5 and P7: a takeover from a silent owner resumes where it was last
// heard; a loaded state does not run on until confirmed.
func TestTakeOverAndLoadSkipNothing(t *testing.T) {
	var p Position
	p.Reset(0)
	s := playing(10_000)
	p.TakeOver(&s, 4*time.Second, hb, false)
	if s.PositionMS != 10_000 {
		t.Fatalf("failover resumed at %d, want 10000 where the owner was last heard", s.PositionMS)
	}
	p.Load(0)
	s = playing(10_000)
	if got := p.Now(s, Inputs{Now: 3 * time.Second, Owner: OwnerSelf}); got != 10_000 {
		t.Fatalf("a loaded state ran on to %d", got)
	}
	p.TakeOver(&s, 3*time.Second, hb, true)
	if got := p.Now(s, Inputs{Now: 4 * time.Second, Owner: OwnerSelf}); got != 11_000 {
		t.Fatalf("after the takeover it plays on: %d, want 11000", got)
	}
}

// P6: a handoff restarts a target that plays its track only when exact
// and off by more than HandoffSlack.
func TestKeepPlaying(t *testing.T) {
	st := playing(20_000)
	for _, c := range []struct {
		exact bool
		ms    int64
		keep  bool
	}{{true, 20_200, true}, {true, 21_000, false}, {false, 25_000, true}} {
		if got := KeepPlaying(Control{Op: OpHandoff, State: &st, Exact: c.exact}, c.ms); got != c.keep {
			t.Errorf("exact %v at %d: keep %v, want %v", c.exact, c.ms, got, c.keep)
		}
	}
}

// S2: a seek names its track; on another track it is refused.
func TestSeekOnAnotherTrackIsRefused(t *testing.T) {
	s := playing(5_000)
	if _, err := s.Apply(Control{Op: OpSeek, PosMS: 1_000, IDs: []string{"b3:bb"}}, 5_000); err == nil || s.PositionMS != 5_000 {
		t.Fatalf("seek named for another track: err %v, position %d", err, s.PositionMS)
	}
}

// S2: Next at the end of the queue rewinds: a jump.
func TestNextAtTheEndCountsAJump(t *testing.T) {
	s := playing(5_000)
	s.Index = 1
	j := s.Jumps
	if _, err := s.Apply(Control{Op: OpNext}, 5_000); err != nil {
		t.Fatal(err)
	}
	if s.Playing || s.PositionMS != 0 || s.Jumps != j+1 {
		t.Fatalf("Next at the end: playing %v at %d, jumps %d", s.Playing, s.PositionMS, s.Jumps)
	}
}
