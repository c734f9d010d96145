package queue

import (
	"slices"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// MaxPending bounds the controls a controller remembers for re-sending;
// older ones are forgotten (their optimistic effect stays until the
// owner's snapshot).
const MaxPending = 32

// PendingHold is how long a controller keeps its own view against owner
// snapshots that do not acknowledge its controls (rule C2).
const PendingHold = 12 * time.Second

// Pending are the controls a controller sent to the owner that the
// owner's snapshots do not acknowledge yet. The controller shows their
// effect at once (optimistic); the owner's snapshot confirms them (its
// Acks) or, when the owner changed before it applied them, they are sent
// once more to the new owner (rules C1 to C6).
type Pending struct {
	list []pendingCtl
	at   time.Duration // when the latest was sent
	// predicting: the view shows controls no adopted snapshot has
	// replaced yet (a Resuming one confirms them without replacing it).
	predicting bool
	// The owner's process as last heard (State.Launch).
	owner  engine.DeviceID
	launch uint64
}

// Heard notes an owner's snapshot ps, also one that says Resuming (its
// acks are real): the controls it acknowledges are done (rule C6), those
// before its AckFrom will never reach the owner's process, and at a new
// Launch those addressed to another process of it will not be applied
// (Addressed, rule C5); Again returns those two kinds.
func (p *Pending) Heard(owner engine.DeviceID, ps State, self engine.DeviceID) {
	if ps.Launch != 0 {
		// A control sent before this device heard the owner's launch
		// (addressed to none) may have gone to a process that is gone as
		// well: at a launch heard anew it is sent again too, unless ps
		// acknowledges it; the owner applies it once (rule C7).
		anew := owner != p.owner || ps.Launch != p.launch
		p.owner, p.launch = owner, ps.Launch
		for i := range p.list {
			c := &p.list[i]
			if c.stamp.Claim.Owner != owner || c.c.Launch == ps.Launch {
				continue
			}
			if c.c.Launch != 0 || anew && !Acknowledges(ps, self, c.c, c.stamp) {
				c.lost = true
			}
		}
	}
	p.confirm(ps, self)
}

// confirm forgets the controls ps acknowledges and marks those before
// its AckFrom lost (rule C6); it reports whether any is lost.
func (p *Pending) confirm(ps State, self engine.DeviceID) (lost bool) {
	p.list = slices.DeleteFunc(p.list, func(c pendingCtl) bool {
		return !c.lost && Acknowledges(ps, self, c.c, c.stamp)
	})
	from := ps.AckFrom[self]
	for i := range p.list {
		c := &p.list[i]
		if c.stamp.Claim == ps.Term && Addressed(c.c, ps.Launch) && c.stamp.Sequence < from {
			c.lost = true
		}
		lost = lost || c.lost
	}
	return lost
}

// Address addresses c, about to be sent to owner, to the owner's process
// last heard (Control.Launch; 0 when none was heard since this device
// started).
func (p *Pending) Address(c *Control, owner engine.DeviceID) {
	c.Launch = 0
	if owner == p.owner {
		c.Launch = p.launch
	}
}

type pendingCtl struct {
	c      Control
	stamp  engine.CommandStamp
	resent bool
	lost   bool // the owner's process will not apply it (C5, C6)
}

// Len is the number of controls pending.
func (p *Pending) Len() int { return len(p.list) }

// Clear forgets every pending control.
func (p *Pending) Clear() { p.list, p.predicting = p.list[:0], false }

// Predicting reports whether this device's view shows its controls and
// no owner's state has replaced it since (Inputs.Predicted of the
// snapshot adopted next): true from Remember until Hold lets a snapshot
// be shown, also once Heard confirmed them all.
func (p *Pending) Predicting() bool { return p.predicting }

// Remember records control c, sent at now with stamp; resent marks one
// that was sent again after an owner change (it is not sent a third
// time).
func (p *Pending) Remember(c Control, stamp engine.CommandStamp, now time.Duration, resent bool) {
	if len(p.list) == MaxPending {
		p.list = p.list[1:]
	}
	p.list = append(p.list, pendingCtl{c: c, stamp: stamp, resent: resent})
	p.at, p.predicting = now, true
}

// Hold decides whether the owner's snapshot ps is shown (false) or
// whether the controller self keeps its own view (true), which shows
// controls the owner has not applied yet (rule C2). It keeps its view
// while the owner's snapshots, in the term the controls were stamped for,
// do not acknowledge them, for at most PendingHold; a snapshot of another
// term cannot contain them, so the view gives way at once (they are sent
// again, Retarget). A snapshot acknowledges the controls addressed to
// its process (or to none) from its AckFrom to its Acks (rule C6);
// those before its AckFrom never reach that process: they wait for
// Again, as do those Heard says another process was meant to apply.
// Controls not applied within PendingHold are dropped and returned, for
// a notice.
func (p *Pending) Hold(ps State, self engine.DeviceID, now time.Duration) (keep bool, dropped []Control) {
	if len(p.list) == 0 || ps.Term != p.list[len(p.list)-1].stamp.Claim {
		p.predicting = false
		return false, nil
	}
	lost := p.confirm(ps, self)
	switch {
	case len(p.list) == 0:
		p.predicting = false
		return false, nil
	case lost, now-p.at < PendingHold:
		return true, nil
	}
	for _, c := range p.list {
		dropped = append(dropped, c.c)
	}
	p.Clear()
	return false, dropped
}

// Acknowledges reports whether the owner's snapshot ps says it applied
// the control c that self sent stamped stamp (rule C6): one of its term,
// addressed to its process or to none, from its AckFrom (absent from an
// older build's snapshots) to its Acks.
func Acknowledges(ps State, self engine.DeviceID, c Control, stamp engine.CommandStamp) bool {
	seq := stamp.Sequence
	return stamp.Claim == ps.Term && Addressed(c, ps.Launch) && ps.AckFrom[self] <= seq && seq <= ps.Acks[self]
}

// Retarget runs after every transition with the engine's owner and claim
// (rule C3). When the output moved to another device before the owner
// applied the controls, it returns those to send once more to the new
// owner (the caller stamps them, shows their effect again and Remembers
// them as resent) and those that already followed one owner change,
// dropped, for a notice. When this device took over (owner == self) its
// own view, which shows them, is what it resumed: they are done. Nothing
// changes while nobody owns the output or the term is the controls'.
func (p *Pending) Retarget(owner, self engine.DeviceID, claim engine.Claim) (again, dropped []Control) {
	if len(p.list) == 0 {
		return nil, nil
	}
	last := p.list[len(p.list)-1].stamp.Claim
	switch {
	case owner == last.Owner && claim == last, owner == "":
		return nil, nil
	case owner == self:
		p.Clear()
		return nil, nil
	}
	for _, c := range p.list {
		if c.resent {
			dropped = append(dropped, c.c)
		} else {
			again = append(again, c.c)
		}
	}
	p.Clear()
	return again, dropped
}

// Sent is a pending control with the stamp it was last sent with.
type Sent struct {
	Control Control
	Stamp   engine.CommandStamp
}

// Again returns the controls to send once more to the same owner and
// forgets them (the caller addresses and stamps them anew, shows their
// effect again and Remembers them as resent): those addressed to a
// process of the owner that is gone (rule C5, Heard) and those before
// the AckFrom of its process (rule C6, Hold), also ones sent again
// already: that process never received them.
func (p *Pending) Again() []Sent {
	var again []Sent
	p.list = slices.DeleteFunc(p.list, func(c pendingCtl) bool {
		if c.lost {
			again = append(again, Sent{c.c, c.stamp})
		}
		return c.lost
	})
	return again
}
