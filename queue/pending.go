package queue

import (
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
// once more to the new owner (rules C1 to C4).
type Pending struct {
	list []pendingCtl
	at   time.Duration // when the latest was sent
	// The owner's process as last heard (State.Launch), and whether it
	// restarted since with controls pending (C5).
	owner     engine.DeviceID
	launch    uint64
	restarted bool
}

// Heard notes the Launch of a snapshot from owner. A new one of the same
// owner while controls are pending means it restarted: TakeRestart says
// so once.
func (p *Pending) Heard(owner engine.DeviceID, launch uint64) {
	if launch == 0 {
		return
	}
	if owner == p.owner && p.launch != 0 && launch != p.launch && len(p.list) > 0 {
		p.restarted = true
	}
	p.owner, p.launch = owner, launch
}

// TakeRestart reports, once, that the owner restarted with controls
// pending: the caller sends them again (Restarted).
func (p *Pending) TakeRestart() bool {
	r := p.restarted && len(p.list) > 0
	p.restarted = false
	return r
}

type pendingCtl struct {
	c      Control
	stamp  engine.CommandStamp
	resent bool
}

// Len is the number of controls pending.
func (p *Pending) Len() int { return len(p.list) }

// Clear forgets every pending control.
func (p *Pending) Clear() { p.list = p.list[:0] }

// Remember records control c, sent at now with stamp; resent marks one
// that was sent again after an owner change (it is not sent a third
// time).
func (p *Pending) Remember(c Control, stamp engine.CommandStamp, now time.Duration, resent bool) {
	if len(p.list) == MaxPending {
		p.list = p.list[1:]
	}
	p.list = append(p.list, pendingCtl{c: c, stamp: stamp, resent: resent})
	p.at = now
}

// Hold decides whether the owner's snapshot ps is shown (false) or
// whether the controller self keeps its own view (true), which shows
// controls the owner has not applied yet (rule C2). It keeps its view
// while the owner's snapshots, in the term the controls were stamped for,
// do not acknowledge them, for at most PendingHold; a snapshot of another
// term cannot contain them, so the view gives way at once (they are sent
// again, Retarget). Controls not applied within PendingHold are dropped
// and returned, for a notice.
func (p *Pending) Hold(ps State, self engine.DeviceID, now time.Duration) (keep bool, dropped []Control) {
	if len(p.list) == 0 {
		return false, nil
	}
	last := p.list[len(p.list)-1]
	if ps.Term != last.stamp.Claim {
		return false, nil
	}
	ack := ps.Acks[self]
	if ack >= last.stamp.Sequence {
		p.Clear()
		return false, nil
	}
	if now-p.at < PendingHold {
		return true, nil
	}
	for _, c := range p.list {
		if c.stamp.Sequence > ack {
			dropped = append(dropped, c.c)
		}
	}
	p.Clear()
	return false, dropped
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

// Restarted is Retarget for an owner that restarted under the same claim
// (a new State.Launch, rule C5): what it received before it stopped is
// lost with its process, yet its acks after the restart would cover those
// sequences. Every pending control is sent again, also one sent again
// already: this device cannot tell whether it went out before the restart
// or after it. The caller does this once per restart (TakeRestart).
func (p *Pending) Restarted() []Control {
	var again []Control
	for _, c := range p.list {
		again = append(again, c.c)
	}
	p.Clear()
	return again
}
