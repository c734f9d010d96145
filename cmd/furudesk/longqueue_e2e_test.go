package main

import (
	"testing"
	"time"
)

// TestALongQueueIsSharedAndMoves: a list longer than the queue holds
// plays for as many tracks as fit in the one line a snapshot travels in;
// every device shows that queue, and it moves with the music. (A queue of
// 10,000 was never sent before: the other devices saw nothing of it.)
func TestALongQueueIsSharedAndMoves(t *testing.T) {
	c := newCluster(t, []string{"A", "B"}, nil)
	for _, n := range c.nodes {
		n.start()
	}
	c.pair()
	ids := c.scanned()
	A, B := c.node("A"), c.node("B")
	var list []string
	for len(list) < 10000 {
		list = append(list, ids...)
	}
	list = list[:10000]
	A.ctl(append([]string{"play"}, list...)...)
	var n int
	waitFor(t, 30*time.Second, "A plays and B shows the same long queue", func() bool {
		n = len(A.status().Queue)
		return A.status().Rendering && n > 1000 && len(B.status().Queue) == n
	})
	if n >= len(list) {
		t.Fatalf("a queue of %d: all of the list, which does not fit a snapshot", n)
	}
	t.Logf("the queue holds %d of the %d tracks", n, len(list))
	waitFor(t, 30*time.Second, "A 3 s into the track", func() bool { return A.status().PositionMS >= 3000 })
	at := time.Now()
	from := A.status().PositionMS
	A.ctl("transfer", B.id)
	waitFor(t, 30*time.Second, "B plays the long queue", func() bool {
		st := B.status()
		return st.Rendering && st.Output.Playing && len(st.Queue) == n
	})
	// Too long for a handoff command, the state went by snapshot: the
	// position is kept all the same.
	if got, most := B.status().PositionMS, from+time.Since(at).Milliseconds()+1500; got < from-500 || got > most {
		t.Errorf("B plays at %d ms; A was at %d ms when it handed off", got, from)
	}
	for _, nt := range A.status().Notices {
		if nt.Level == "error" {
			t.Errorf("A's notice after the transfer: %q", nt.Text)
		}
	}
}
