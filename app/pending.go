package app

import (
	"encoding/json"
	"fmt"

	"github.com/furudesk/furudesk/engine"
)

// The controls this device sent to the owner that it has not
// acknowledged yet are a queue.Pending (the rules C1 to C4 of
// queue/doc.go); here are the notices and the sending.

// holdView decides whether a snapshot ps of the owner is shown or whether
// this device keeps its own view, which shows controls the owner has not
// applied yet (queue.Pending.Hold). Controls not applied within
// PendingHold are dropped with a notice.
func (a *actor) holdView(ps PlayerState, from engine.DeviceID) bool {
	keep, dropped := a.pending.Hold(ps, a.self, a.clock.Now())
	if len(dropped) > 0 {
		a.notice("error", fmt.Sprintf("%s did not apply %s", a.deviceName(from), describeControls(dropped)))
	}
	return keep
}

// retargetPending runs after every transition. When the output moved to
// another device before the owner applied our controls, it sends them once
// more, with new stamps, to the new owner and shows their effect again;
// controls that already followed one owner change are dropped with a
// notice (queue.Pending.Retarget).
func (a *actor) retargetPending() {
	if a.pending.Len() == 0 || a.retargeting {
		return
	}
	owner := a.e.Owner()
	if lost := a.pending.Again(); len(lost) > 0 {
		// The owner's process will not receive these: it restarted, or
		// it missed them while it was down (queue rules C5, C6).
		again := make([]Control, len(lost))
		for i, s := range lost {
			again[i] = s.Control
		}
		a.resend(owner, again, nil)
		return
	}
	again, dropped := a.pending.Retarget(owner, a.self, a.e.Claim())
	a.resend(owner, again, dropped)
}

// resend sends controls again, with new stamps, to owner and shows their
// effect again; dropped ones get a notice.
func (a *actor) resend(owner engine.DeviceID, again, dropped []Control) {
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
			a.pending.Address(&c, owner)
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
			a.pending.Remember(c, stamp, a.clock.Now(), true)
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
