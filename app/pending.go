package app

import (
	"encoding/json"
	"fmt"

	"github.com/furudesk/furudesk/engine"
)

// pendingCtl is a control this device sent to the owner that the owner's
// snapshots do not acknowledge yet. The controller shows its effect at
// once (optimistic); the owner's snapshot confirms it (its Acks) or, when
// the owner changed before it was applied, it is sent once more to the new
// owner.
type pendingCtl struct {
	c      Control
	stamp  engine.CommandStamp
	resent bool
}

// maxPending bounds the controls remembered for re-sending; older ones are
// forgotten (their optimistic effect stays until the owner's snapshot).
const maxPending = 32

// remember records a control sent to the owner with stamp.
func (a *actor) remember(c Control, stamp engine.CommandStamp) {
	if len(a.pending) == maxPending {
		a.pending = a.pending[1:]
	}
	a.pending = append(a.pending, pendingCtl{c: c, stamp: stamp})
	a.pendingAt = a.clock.Now()
}

// holdView decides whether a snapshot ps of the owner is shown or whether
// this device keeps its own view, which shows controls the owner has not
// applied yet. It keeps its view while the owner's snapshots, in the term
// the controls were stamped for, do not acknowledge them, for at most
// PendingHold; a snapshot of another term cannot contain them, so the view
// is withdrawn at once (they are sent again to that owner, see
// retargetPending). Controls not applied within PendingHold are dropped
// with a notice.
func (a *actor) holdView(ps PlayerState, from engine.DeviceID) bool {
	if len(a.pending) == 0 {
		return false
	}
	last := a.pending[len(a.pending)-1]
	if ps.Term != last.stamp.Claim {
		return false
	}
	ack := ps.Acks[a.self]
	if ack >= last.stamp.Sequence {
		a.pending = a.pending[:0]
		return false
	}
	if a.clock.Now()-a.pendingAt < PendingHold {
		return true
	}
	a.notice("error", fmt.Sprintf("%s did not apply %s", a.deviceName(from), describeControls(a.unacked(ack))))
	a.pending = a.pending[:0]
	return false
}

// unacked returns the pending controls above ack.
func (a *actor) unacked(ack uint64) []Control {
	var out []Control
	for _, p := range a.pending {
		if p.stamp.Sequence > ack {
			out = append(out, p.c)
		}
	}
	return out
}

// retargetPending runs after every transition. When the output moved to
// another device before the owner applied our controls, it sends them once
// more, with new stamps, to the new owner and shows their effect again;
// controls that already followed one owner change are dropped with a
// notice. When this device took over, its own view (which shows them) is
// what it resumed, so they are done.
func (a *actor) retargetPending() {
	if len(a.pending) == 0 || a.retargeting {
		return
	}
	owner := a.e.Owner()
	if owner == a.pending[len(a.pending)-1].stamp.Claim.Owner && a.e.Claim() == a.pending[len(a.pending)-1].stamp.Claim {
		return
	}
	switch {
	case owner == "":
		return
	case owner == a.self:
		a.pending = a.pending[:0]
		return
	}
	var again, dropped []Control
	for _, p := range a.pending {
		if p.resent {
			dropped = append(dropped, p.c)
		} else {
			again = append(again, p.c)
		}
	}
	a.pending = a.pending[:0]
	if len(dropped) > 0 {
		a.notice("error", fmt.Sprintf("%s did not reach a playing device and was dropped", describeControls(dropped)))
	}
	if len(again) == 0 {
		return
	}
	a.retargeting = true
	defer func() { a.retargeting = false }()
	err := a.run(func(tx *txn) error {
		for _, c := range again {
			body, err := json.Marshal(c)
			if err != nil {
				return err
			}
			stamp, err := a.e.Stamp()
			if err != nil {
				return err
			}
			a.anchor()
			_, _ = a.st.Apply(c, a.st.PositionMS) // shown again until the new owner confirms
			tx.sends = append(tx.sends, send{to: owner, stamp: stamp, body: body})
			a.remember(c, stamp)
			a.pending[len(a.pending)-1].resent = true
		}
		return nil
	})
	if err != nil {
		a.notice("error", fmt.Sprintf("Could not send %s to %s: %v", describeControls(again), a.deviceName(owner), err))
	}
}

// describeControls names controls for a notice: "your pause", "your
// pause and 2 more controls".
func describeControls(cs []Control) string {
	if len(cs) == 0 {
		return "your control"
	}
	name := controlName(cs[len(cs)-1].Op)
	if len(cs) == 1 {
		return "your " + name
	}
	more := "controls"
	if len(cs) == 2 {
		more = "control"
	}
	return fmt.Sprintf("your %s and %d more %s", name, len(cs)-1, more)
}

func controlName(op string) string {
	switch op {
	case OpPlayTracks:
		return "play"
	case OpEnqueue:
		return "add to queue"
	case OpJump:
		return "jump"
	case OpRemove:
		return "removal from the queue"
	case OpClear:
		return "clear the queue"
	case OpPause:
		return "pause"
	case OpResume:
		return "play"
	case OpNext:
		return "skip to the next track"
	case OpPrev:
		return "back to the previous track"
	case OpSeek:
		return "seek"
	case OpVolume:
		return "volume change"
	case OpShuffle:
		return "shuffle change"
	case OpRepeat:
		return "repeat change"
	case OpMove:
		return "move in the queue"
	case OpRestore:
		return "undo"
	}
	return "control"
}
