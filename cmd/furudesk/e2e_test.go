package main

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/engine"
)

// TestEndToEnd runs scenarios 1-5 of issue 8 on four headless devices: A,
// B and C are desktops, D is passive. The scenarios build on each other to
// keep the suite short.
func TestEndToEnd(t *testing.T) {
	needE2E(t)
	c := newCluster(t, []string{"A", "B", "C", "D"}, map[string]bool{"D": true})
	for _, n := range c.nodes {
		n.start()
	}
	c.pair()
	ids := c.scanned()
	A, B, C, D := c.node("A"), c.node("B"), c.node("C"), c.node("D")
	desktops := []*node{A, B, C}

	// D never claims by itself (scenario 4, first half), checked throughout.
	checkPassive := func() {
		t.Helper()
		if st := D.status(); st.Claim.Issuer == st.DeviceID && st.Claim.Owner == st.DeviceID {
			t.Fatalf("passive D claimed by itself: %+v", st.Claim)
		}
	}

	A.ctl("play", ids[0], ids[1])
	waitFor(t, 20*time.Second, "someone plays", func() bool {
		r := c.renderers(c.nodes)
		return len(r) == 1 && r[0].status().Output.Playing
	})
	checkPassive()

	t.Run("1 three devices start at once", func(t *testing.T) {
		for _, n := range desktops {
			n.stop(false)
		}
		start := time.Now()
		done := make(chan struct{}, len(desktops))
		for _, n := range desktops {
			go func() { n.start(); done <- struct{}{} }()
		}
		for range desktops {
			<-done
		}
		var owner *node
		waitFor(t, 30*time.Second, "convergence on one renderer", func() bool {
			r := c.renderers(c.nodes)
			if len(r) != 1 {
				return false
			}
			o := r[0].status().Owner
			for _, n := range c.nodes {
				if n.status().Owner != o {
					return false
				}
			}
			owner = r[0]
			return r[0].status().Output.Playing
		})
		t.Logf("converged on %s %v after the restart", owner.name, time.Since(start).Round(time.Millisecond))
		from := time.Now()
		waitFor(t, 30*time.Second, "2 s of recording", func() bool { return owner.rec.frames() > 0 && !lastSound(owner.rec, from.Add(2*time.Second)).IsZero() })
		to := time.Now()
		for _, n := range c.nodes {
			if got := audible(n.rec, from, to); got != (n == owner) {
				t.Errorf("%s sink audible=%v in the 2 s after convergence (owner %s)", n.name, got, owner.name)
			}
		}
		checkPassive()
	})

	t.Run("2 transfer while playing", func(t *testing.T) {
		src := c.renderers(c.nodes)[0]
		dst := B
		if src == B {
			dst = A
		}
		at := time.Now()
		src.ctl("transfer", dst.id)
		waitFor(t, 30*time.Second, dst.name+" renders", func() bool {
			st := dst.status()
			return st.Rendering && st.Output.Playing
		})
		waitFor(t, 30*time.Second, "sound on "+dst.name, func() bool { ts, _ := firstSound(dst.rec, at); return !ts.IsZero() })
		first, fi := firstSound(dst.rec, at)
		last := lastSound(src.rec, at)
		waitFor(t, 30*time.Second, "1 s of recording after the handoff", func() bool { return dst.rec.frames() > fi+rate })
		t.Logf("handoff %s->%s: first audible on target after %v, last audible on source after %v",
			src.name, dst.name, first.Sub(at).Round(time.Millisecond), last.Sub(at).Round(time.Millisecond))
		// Continuity: the pitch right after the handoff tells the position.
		st := dst.status()
		track := st.Index
		_, _, frameAtSrc := src.rec.snapshot()
		srcPos := posFromFreq(track, freqAt(src.rec, frameAtSrc(last)-rate/10))
		dstPos := posFromFreq(track, freqAt(dst.rec, fi+rate/50))
		if math.Abs(dstPos-srcPos) > 1.5 {
			t.Errorf("target resumed at %.1f s, source stopped at %.1f s", dstPos, srcPos)
		}
		silentFrom := time.Now()
		waitFor(t, 30*time.Second, "1 s more recording", func() bool { return !lastSound(dst.rec, silentFrom.Add(time.Second)).IsZero() })
		if audible(src.rec, silentFrom, time.Now()) {
			t.Errorf("source %s still audible after the handoff", src.name)
		}
	})

	t.Run("5 controller commands reach the owner in order", func(t *testing.T) {
		owner := c.renderers(c.nodes)[0]
		ctrl := C
		if owner == C {
			ctrl = A
		}
		ctrl.ctl("pause")
		ctrl.ctl("seek", "20000")
		ctrl.ctl("next")
		ctrl.ctl("seek", "7000")
		waitFor(t, 30*time.Second, "owner applied pause, seek, next, seek", func() bool {
			st := owner.status()
			return !st.Playing && st.Index == 1 && st.PositionMS == 7000
		})
		ref := owner.status()
		waitFor(t, 30*time.Second, "every device shows the owner's queue and position", func() bool {
			for _, n := range c.nodes {
				st := n.status()
				if st.Index != ref.Index || st.PositionMS != ref.PositionMS || st.Playing || len(st.Queue) != len(ref.Queue) {
					return false
				}
				for i := range st.Queue {
					if st.Queue[i].ContentID != ref.Queue[i].ContentID {
						return false
					}
				}
			}
			return true
		})
		ctrl.ctl("resume")
		waitFor(t, 30*time.Second, "owner plays again", func() bool { return owner.status().Output.Playing })
		checkPassive()
	})

	t.Run("4 passive plays when picked", func(t *testing.T) {
		checkPassive()
		at := time.Now()
		A.ctl("transfer", D.id)
		waitFor(t, 30*time.Second, "D renders", func() bool { st := D.status(); return st.Rendering && st.Output.Playing })
		waitFor(t, 30*time.Second, "sound on D", func() bool { ts, _ := firstSound(D.rec, at); return !ts.IsZero() })
		// The old owner learns the new claim from A's or D's announcement,
		// not from the handoff, so on a loaded machine it may still be
		// stopping when D already plays: wait for it (bounded).
		waitFor(t, 30*time.Second, "D the only renderer", func() bool {
			r := c.renderers(c.nodes)
			return len(r) == 1 && r[0] == D
		})
	})

	t.Run("3 kill -9 the owner", func(t *testing.T) {
		owner := c.renderers(c.nodes)[0]
		killed := time.Now()
		owner.stop(true)
		var next *node
		waitFor(t, testOwnerTimeout+30*time.Second, "failover", func() bool {
			r := c.renderers(c.nodes)
			if len(r) == 1 {
				next = r[0]
			}
			return len(r) == 1
		})
		// The new owner says when it began to render: polling through ctl
		// (a process per call, slow on a loaded machine) is not measured.
		polled := time.Since(killed)
		took := next.status().RenderingSince.Sub(killed)
		t.Logf("failover from %s to %s after %v (seen by polling after %v; owner_timeout %v)", owner.name, next.name,
			took.Round(time.Millisecond), polled.Round(time.Millisecond), testOwnerTimeout)
		// Not before owner_timeout: the engine counts from the last report
		// it received, at most one gossip interval before the kill. How
		// soon after the timeout it happens depends on the machine's load
		// and is BenchmarkFailover's figure, not a pass/fail bound here.
		if took < testOwnerTimeout-engine.GossipInterval {
			t.Errorf("failover after %v, before owner_timeout %v (less one gossip interval) had passed", took, testOwnerTimeout)
		}
		waitFor(t, 30*time.Second, "sound on "+next.name, func() bool { ts, _ := firstSound(next.rec, killed); return !ts.IsZero() })
	})
}

var _ = strconv.Itoa
var _ = json.Marshal
var _ app.Status
