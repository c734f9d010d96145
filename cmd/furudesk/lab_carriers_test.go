package main

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// TestLabReachTwoCarriers: two members on the internet carry (box and
// box2); the laptop and the desktop, behind two NATs, reach each other
// through one of them. That carrier is killed while the desktop plays: the
// two re-route through the other, a pause from the laptop reaches the
// desktop, one device renders throughout and the position never steps
// back.
func TestLabReachTwoCarriers(t *testing.T) {
	needE2E(t)
	if os.Getenv("FURUDESK_LAB") == "" {
		t.Skip("the reach lab runs with FURUDESK_LAB=1 (make lab-reach): root, two minutes")
	}
	lab := newNATLab(t, false)
	lab.addPublic("box2", "198.51.100.11")
	c := &cluster{t: t, pa: startPulse(t, 4)}
	cfg := fmt.Sprintf(`{"discovery_ms":1000,"owner_timeout_ms":%d}`, topoOwnerTimeout.Milliseconds())
	for i, name := range []string{"box", "box2", "laptop", "desktop"} {
		c.addNode(name, i, "0.0.0.0:0", cfg, nil, name == "box" || name == "box2", []string{"ip", "netns", "exec", lab.names[name]})
	}
	c.cleanupNodes()
	box, box2, laptop, desktop := c.node("box"), c.node("box2"), c.node("laptop"), c.node("desktop")
	box.keepMusic()
	box2.keepMusic()
	for _, n := range c.nodes {
		n.start()
	}
	c.pair()
	var via string
	waitFor(t, 20*time.Second, "laptop and desktop through a carrier", func() bool {
		on1, v1 := deviceVia(laptop.status(), "desktop")
		on2, v2 := deviceVia(desktop.status(), "laptop")
		via = v1
		return on1 && on2 && v1 != "" && v1 == v2
	})
	carrier, other := box, box2
	if via == "box2" {
		carrier, other = box2, box
	}
	ids := c.trackIDs(nil)
	desktop.ctl("transfer", desktop.id)
	desktop.ctl("play", ids[0], ids[1])
	waitFor(t, 20*time.Second, "the desktop plays, the laptop follows", func() bool {
		r := c.renderers(c.nodes)
		return len(r) == 1 && r[0] == desktop && desktop.status().Output.Playing && laptop.status().Owner == engine.DeviceID(desktop.id)
	})
	killed := time.Now()
	carrier.stop(true)
	rest := []*node{other, laptop, desktop}
	waitFor(t, 20*time.Second, "laptop and desktop through the other carrier", func() bool {
		on1, v1 := deviceVia(laptop.status(), "desktop")
		on2, v2 := deviceVia(desktop.status(), "laptop")
		return on1 && on2 && v1 == other.name && v2 == other.name
	})
	rerouted := time.Since(killed)
	laptop.ctl("pause")
	waitFor(t, 10*time.Second, "the desktop obeys the laptop through the other carrier", func() bool { return !desktop.status().Playing })
	paused := time.Since(killed)
	laptop.ctl("resume")
	waitFor(t, 10*time.Second, "the desktop plays again", func() bool { return desktop.status().Playing })
	w := watchGroup(t, rest, 5*time.Second)
	t.Logf("two carriers: %s killed mid-track; laptop and desktop through %s %v after, a pause from the laptop obeyed %v after; then %d ownership changes, %d steps back, %v with two renderers",
		carrier.name, other.name, rerouted.Round(time.Millisecond), paused.Round(time.Millisecond), w.changes, w.backwards, w.twoRenderers)
	if r := c.renderers(rest); len(r) != 1 || r[0] != desktop {
		t.Errorf("%d renderers after the re-route, want the desktop alone", len(r))
	}
	if w.changes != 0 || w.backwards != 0 || w.twoRenderers > 0 {
		t.Errorf("after the re-route: %d ownership changes, %d steps back, %v with two renderers", w.changes, w.backwards, w.twoRenderers)
	}
}
