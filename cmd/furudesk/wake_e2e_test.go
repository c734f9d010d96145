//go:build unix

package main

import (
	"math"
	"syscall"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// TestWakeAndRestartNeverStealOrRewind runs the real-process checks of
// issue 21 on three headless devices (owner_timeout 2 s):
//   - a non-owner stopped (SIGSTOP) for 6 s and woken: no ownership change,
//     the owner's music never rewinds nor stops;
//   - the owner killed while a third device restarts: the group resumes
//     within 1 s of the position last heard, playing;
//   - a pause sent while the owner is dead: the device that takes over
//     comes up paused.
func TestWakeAndRestartNeverStealOrRewind(t *testing.T) {
	needE2E(t)
	c := newCluster(t, []string{"A", "B", "C", "P"}, map[string]bool{"P": true})
	for _, n := range c.nodes {
		n.start()
	}
	c.pair()
	ids := c.scanned()
	A, B, C, P := c.node("A"), c.node("B"), c.node("C"), c.node("P")

	A.ctl("transfer", A.id)
	A.ctl("play", ids[0], ids[1])
	waitFor(t, 20*time.Second, "A plays", func() bool { st := A.status(); return st.Rendering && st.Output.Playing })
	waitFor(t, 30*time.Second, "everyone follows A", func() bool {
		for _, n := range c.nodes {
			if n.status().Owner != engine.DeviceID(A.id) {
				return false
			}
		}
		return true
	})

	t.Run("a non-owner frozen for 6 s wakes without taking over", func(t *testing.T) {
		claim := A.status().Claim
		frozeAt := time.Now()
		if err := B.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		last := int64(-1)
		watch := func(until time.Time) {
			t.Helper()
			for time.Now().Before(until) {
				st := A.status()
				if st.Claim != claim || !st.Rendering {
					t.Fatalf("A lost the output: claim %v -> %v", claim, st.Claim)
				}
				if st.Index == 0 && st.PositionMS < last {
					t.Fatalf("A's position went back from %d to %d ms", last, st.PositionMS)
				}
				last = st.PositionMS
				time.Sleep(200 * time.Millisecond) // sampling the status, not synchronising
			}
		}
		watch(frozeAt.Add(6 * time.Second))
		if err := B.cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		woke := time.Now()
		watch(woke.Add(4 * time.Second))
		for _, n := range c.nodes {
			if st := n.status(); st.Claim != claim {
				t.Errorf("%s: claim %v after B woke, want %v unchanged", n.name, st.Claim, claim)
			}
		}
		if got := c.renderers(c.nodes); len(got) != 1 || got[0] != A {
			t.Errorf("renderers after B woke: %v", names(got))
		}
		if audible(B.rec, frozeAt, time.Now()) {
			t.Error("B's sink sounded")
		}
		if gap := longestSilence(A.rec, frozeAt, time.Now()); gap > 500*time.Millisecond {
			t.Errorf("A's music stopped for %v while B was frozen or waking", gap)
		}
	})

	// The owner killed and started again at once: it holds its output
	// until the group hands back the snapshot it published last, and the
	// music resumes where A was, on A or (when the restart took longer than
	// owner_timeout) on the device that took over, never on two.
	t.Run("the owner killed and restarted at once resumes where it was", func(t *testing.T) {
		waitFor(t, 30*time.Second, "B shows A playing", func() bool { st := B.status(); return st.Playing && !st.OwnerGone })
		heard := B.timedStatus()
		killing := time.Now()
		A.stop(true)
		killed := time.Now()
		A.start()
		var next *node
		waitFor(t, soakOwnerTimeout+15*time.Second, "someone plays again", func() bool {
			r := c.renderers([]*node{A, B, C})
			if len(r) == 1 && r[0].status().Output.Playing {
				next = r[0]
				return true
			}
			return false
		})
		st := next.timedStatus()
		resumed, lastHeard := st.resumedAt(), heard.playedOnTo(killing, killed)
		t.Logf("%s plays again %v after A was killed, from %v into track %d; A was at %v (claim %v -> %v)",
			next.name, st.RenderingSince.Sub(killed).Round(time.Millisecond), resumed, st.Index, lastHeard, heard.Claim, st.Claim)
		if st.Index != heard.Index || resumed.apart(lastHeard) > 1.0 {
			t.Errorf("resumed track %d at %v, A was on track %d at %v", st.Index, resumed, heard.Index, lastHeard)
		}
		if r := c.renderers(c.nodes); len(r) != 1 {
			t.Errorf("renderers %v", names(r))
		}
		if next != A {
			A.ctl("transfer", A.id)
			waitFor(t, 30*time.Second, "A plays again", func() bool { st := A.status(); return st.Rendering && st.Output.Playing })
		}
	})

	// B and C stop and save the state they know; A plays on; A dies and C
	// restarts within owner_timeout. Only C may take over (P is passive,
	// B is down): it must resume A's state as P last heard it, not the
	// older one it saved.
	t.Run("the owner dies while a third device restarts", func(t *testing.T) {
		B.stop(false)
		C.stop(false)
		saved := P.status().PositionMS
		waitFor(t, 20*time.Second, "A plays 3 s past what B and C saved", func() bool {
			st := P.status()
			return st.Playing && !st.OwnerGone && st.PositionMS > saved+3000
		})
		heard := P.timedStatus()
		killing := time.Now()
		A.stop(true)
		killed := time.Now()
		C.start()
		waitFor(t, testOwnerTimeout+15*time.Second, "C takes over", func() bool {
			st := C.status()
			return st.Rendering && st.Output.Playing
		})
		st := C.timedStatus()
		if !st.Playing || st.Index != heard.Index {
			t.Fatalf("C took over with track %d playing %v, want track %d playing", st.Index, st.Playing, heard.Index)
		}
		// Where it resumed: its status (position then, less the time since
		// it began to render), and the pitch of its first sound, which
		// encodes the second of the track.
		waitFor(t, 30*time.Second, "sound on C", func() bool { ts, _ := firstSound(C.rec, killed); return !ts.IsZero() })
		_, fi := firstSound(C.rec, killed)
		waitFor(t, 30*time.Second, "200 ms of its sound", func() bool { return C.rec.frames() > fi+rate/5 })
		resumed := st.resumedAt()
		pitch := posFromFreq(st.Index, freqAt(C.rec, fi+rate/50))
		lastHeard := heard.playedOnTo(killing, killed)
		t.Logf("C took over %v after the kill, resumed at %v (sound at second %.0f); A was at %v when killed, C had saved %.2f s",
			st.RenderingSince.Sub(killed).Round(time.Millisecond), resumed, pitch, lastHeard, float64(saved)/1000)
		if resumed.apart(lastHeard) > 1.0 {
			t.Errorf("C resumed at %v, A was last heard at %v", resumed, lastHeard)
		}
		if pitch < math.Floor(lastHeard.lo)-1 || pitch > lastHeard.hi+1 {
			t.Errorf("C's first sound is second %.0f of the track, A was at %v", pitch, lastHeard)
		}
		B.start()
		waitFor(t, 30*time.Second, "B follows C", func() bool { return B.status().Owner == engine.DeviceID(C.id) })
	})

	// P never takes over (passive): its pause, sent while the owner is
	// dead, must reach the device that does.
	t.Run("a pause sent to a dead owner reaches the device that takes over", func(t *testing.T) {
		var alive []*node
		for _, n := range []*node{A, B, C} {
			if n.cmd != nil {
				alive = append(alive, n)
			}
		}
		r := c.renderers(alive)
		if len(r) != 1 {
			t.Fatalf("renderers %v", names(r))
		}
		owner := r[0]
		waitFor(t, 30*time.Second, "P shows "+owner.name+" playing", func() bool { st := P.status(); return st.Playing && !st.OwnerGone })
		owner.stop(true)
		killed := time.Now()
		P.ctl("pause")
		var next *node
		waitFor(t, testOwnerTimeout+15*time.Second, "another device takes over", func() bool {
			for _, n := range alive {
				if n != owner && n.status().Owner == engine.DeviceID(n.id) {
					next = n
					return true
				}
			}
			return false
		})
		took := time.Now()
		waitFor(t, 30*time.Second, next.name+" paused by P's control", func() bool { return !next.status().Playing })
		paused := time.Now()
		t.Logf("%s took over %v after the kill and showed P's pause %v after that", next.name,
			took.Sub(killed).Round(time.Millisecond), paused.Sub(took).Round(time.Millisecond))
		// P learns the new owner and its pause from that owner's snapshot,
		// which may reach it a moment after the owner shows the pause.
		waitFor(t, 30*time.Second, "P shows the pause on "+next.name, func() bool {
			st := P.status()
			return !st.Playing && st.Owner == engine.DeviceID(next.id)
		})
		n0 := next.rec.frames()
		waitFor(t, 30*time.Second, "a second of recording", func() bool { return next.rec.frames() > n0+rate })
		if audible(next.rec, paused.Add(200*time.Millisecond), time.Now()) {
			t.Errorf("%s's sink still sounds after it showed the pause", next.name)
		}
		t.Logf("%s sounded for %v before the pause took effect", next.name, audibleFor(next.rec, killed, paused.Add(200*time.Millisecond)))
	})
}

func names(ns []*node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.name)
	}
	return out
}

// audibleFor is how much of [from, to] of r's recording is audible.
func audibleFor(r *recorder, from, to time.Time) time.Duration {
	x, _, frameAt := r.snapshot()
	a, b := frameAt(from), min(frameAt(to), len(x))
	loud := 0
	for i := a; i < b; i++ {
		if x[i] > soundThr || x[i] < -soundThr {
			loud++
		}
	}
	return time.Duration(loud) * time.Second / rate
}
