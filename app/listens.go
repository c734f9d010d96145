package app

import (
	"time"

	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/devicesync"
)

// ListenEnough is how much of a track must be heard for a play to count
// when that is less than half of it.
const ListenEnough = 4 * time.Minute

// listenTracker measures how long the device really rendered the current
// track: the output's position advancing while it plays, without seeks.
// A play is counted once when more than half of the track, or
// ListenEnough, was heard, on the device that played it.
type listenTracker struct {
	track   audio.Track
	entry   Entry
	lastPos time.Duration
	heard   time.Duration
	counted bool
}

// collectionTick runs on every tick of the actor: it follows what this
// device renders for the listening history.
func (a *actor) collectionTick() {
	if c := a.app.collection; c != nil {
		a.trackListen(c)
	}
}

// collectionEvent hands the transport's op and group events to the
// collection goroutine, without waiting.
func (a *actor) collectionEvent(ev devicesync.Event) {
	c := a.app.collection
	if c == nil {
		return
	}
	switch ev := ev.(type) {
	case devicesync.OpsAdded:
		c.post(collectionMsg{ops: &ev})
	case devicesync.GroupChanged:
		c.post(collectionMsg{group: ev.Group})
	case devicesync.GroupLeft:
		c.post(collectionMsg{left: ev.AppOps})
	}
}

func (a *actor) trackListen(c *collection) {
	if a.out == nil || !a.rendering || a.cur.Seq == 0 {
		return
	}
	r := a.out.Report()
	if r.Track != a.cur {
		return // the output moved on; a.cur follows with its Started event
	}
	lt := &c.listen
	if lt.track != a.cur {
		*lt = listenTracker{track: a.cur, lastPos: r.Pos, entry: Entry{ContentID: a.curCID}}
		if a.curIdx >= 0 && a.curIdx < len(a.st.Queue) && a.st.Queue[a.curIdx].ContentID == a.curCID {
			lt.entry = a.st.Queue[a.curIdx]
		}
		return
	}
	step := r.Pos - lt.lastPos
	lt.lastPos = r.Pos
	// A step longer than a few ticks is a seek, not listening.
	if !r.Playing || step <= 0 || step > 4*a.opts.TickInterval+time.Second {
		return
	}
	lt.heard += step
	dur := time.Duration(lt.entry.DurationMS) * time.Millisecond
	if lt.counted || (lt.heard < ListenEnough && (dur <= 0 || 2*lt.heard <= dur)) {
		return
	}
	lt.counted = true
	e := lt.entry
	c.post(collectionMsg{listen: &e})
}
