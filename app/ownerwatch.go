package app

import (
	"fmt"
	"slices"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// MinOwnerQuiet is the shortest silence after which a controller shows
// another device's playback as stopped: the owner sends a snapshot with
// every heartbeat (Options.HeartbeatEvery), so a few missed ones mean it
// stopped responding. Presentation only: failover stays the engine's
// decision, after owner_timeout.
const MinOwnerQuiet = 3 * time.Second

// quietAfter is how long the owner's snapshots may be missing before this
// device shows its playback as stopped.
func (a *actor) quietAfter() time.Duration {
	q := max(MinOwnerQuiet, 4*a.opts.HeartbeatEvery)
	if t := time.Duration(a.cfg.OwnerTimeoutMS) * time.Millisecond; t > 0 {
		q = min(q, t)
	}
	return q
}

// ownerGone reports whether another device owns the output but is not
// live as far as this device can tell: its last snapshot said it is
// closing, nothing was heard from it for quietAfter, the engine does not
// count it live, or the transport lost it. It decides only what Status
// shows (the transport stopped where the owner was last heard), never
// who owns the output.
func (a *actor) ownerGone() bool {
	o := a.e.Owner()
	if o == "" || o == a.self {
		return false
	}
	if a.closingFrom == o {
		return true
	}
	if o != a.ownerSeen {
		return false // it just became the owner (observeOwner notes when)
	}
	last := max(a.ownerSince, a.resumedAt) // time away does not count
	if a.heardFrom == o {
		last = max(last, a.aliveAt)
	}
	if a.clock.Now()-last > a.quietAfter() || !a.e.OwnerView().Live {
		return true
	}
	d, ok := a.device(o)
	return ok && !d.Online
}

// observeOwner keeps the notices about the owner current: who plays after
// a change this device did not make itself (a failover, another device's
// transfer), an owner that stopped responding (withdrawn when it is heard
// again or replaced), and missing-file notices (withdrawn once the music
// plays again).
func (a *actor) observeOwner() {
	o, now := a.e.Owner(), a.clock.Now()
	if o != a.ownerSeen {
		old, wasGone := a.ownerSeen, a.goneNotice != 0
		a.ownerSeen, a.ownerSince = o, now
		a.withdraw(&a.goneNotice)
		if a.closingFrom != o {
			a.closingFrom = ""
		}
		switch {
		case old == "" || o == "":
		case o == a.self:
			if wasGone {
				a.notice("info", "Playing here: "+a.deviceName(old)+" stopped responding")
			}
		case o != a.handedTo:
			a.notice("info", "Playing on "+a.deviceName(o))
		}
		a.handedTo = ""
	}
	gone := a.ownerGone()
	switch {
	case gone && a.goneNotice == 0 && a.heardFrom == o:
		name := a.deviceName(o)
		verb := "stopped responding"
		if a.closingFrom == o {
			verb = "closed"
		}
		text := name + " went offline"
		if a.effective().AutomaticFailover {
			last := max(a.ownerSince, a.aliveAt)
			left := time.Duration(a.cfg.OwnerTimeoutMS)*time.Millisecond - (now - last)
			text = fmt.Sprintf("%s %s; playback will move here after %s", name, verb, span(left))
		} else if verb == "closed" {
			text = name + " closed"
		}
		a.notice("error", text)
		a.goneNotice = a.noticeID
	case !gone && a.goneNotice != 0:
		a.withdraw(&a.goneNotice)
	}
	if a.st.Playing && !gone && len(a.condNotices) > 0 && (o != a.self || a.cur.Seq != 0 || a.out == nil) {
		a.notices = slices.DeleteFunc(a.notices, func(n Notice) bool { return slices.Contains(a.condNotices, n.ID) })
		a.condNotices = a.condNotices[:0]
		a.sharedText = ""
	}
}

// withdraw removes the notice *id from the list and zeroes it.
func (a *actor) withdraw(id *uint64) {
	if *id == 0 {
		return
	}
	a.notices = slices.DeleteFunc(a.notices, func(n Notice) bool { return n.ID == *id })
	*id = 0
}

// span is a duration for a sentence: "2 minutes", "45 seconds".
func span(d time.Duration) string {
	s := max(int64((d+time.Second-1)/time.Second), 1)
	switch {
	case s%60 == 0 && s >= 120:
		return fmt.Sprintf("%d minutes", s/60)
	case s == 60:
		return "1 minute"
	case s == 1:
		return "1 second"
	}
	return fmt.Sprintf("%d seconds", s)
}

// deviceNames is for notices about a device that left the list.
func (a *actor) knownName(id engine.DeviceID) string {
	for _, d := range a.lastDevices {
		if d.ID == id && d.Name != "" {
			return d.Name
		}
	}
	return a.deviceName(id)
}
