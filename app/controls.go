package app

// Controls and transfers: run locally while this device owns the output,
// sent to the owner as stamped commands otherwise.

import (
	"encoding/json"
	"fmt"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/queue"
)

// control runs a transport intent: locally when this device renders (or
// nobody owns the output yet), else as a stamped command to the owner.
func (a *actor) control(c Control) error {
	if c.Op == OpToggle {
		c.Op = OpResume
		if a.st.Playing {
			c.Op = OpPause
		}
	}
	if c.Op == OpPlayTracks {
		// A list longer than the queue holds plays from its start track
		// for as many as fit (queue.MaxQueueBytes), and says so.
		if lo, hi := queue.Fit(c.Entries, c.Index); hi > lo && hi-lo < len(c.Entries) {
			all := len(c.Entries)
			c.Entries, c.Index = c.Entries[lo:hi], c.Index-lo
			err := a.controlFitting(c)
			if err == nil {
				a.notice("info", fmt.Sprintf("Playing %d of the %d tracks: the queue holds no more", hi-lo, all))
			}
			return err
		}
	}
	return a.controlFitting(c)
}

// controlFitting is control of a queue that fits.
func (a *actor) controlFitting(c Control) error {
	if e, ok := a.st.Current(); ok && c.Op == OpSeek && len(c.IDs) == 0 {
		c.IDs = []string{e.ContentID} // the track it seeks in (queue rule S2)
	}
	owner := a.e.Owner()
	if owner == a.self || owner == "" {
		return a.run(func(tx *txn) error {
			a.anchor()
			ch, err := a.st.Apply(c, a.st.PositionMS)
			if err != nil {
				return err
			}
			tx.ch, tx.publish = ch, true
			if ch.Pause || ch.Stopped || ch.Track {
				tx.persistPos = true
			}
			if owner == "" && a.st.Playing {
				// Nobody owns the output yet: pressing play here selects it.
				if _, err := a.e.Transfer(a.self); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return a.run(func(tx *txn) error {
		a.anchor()
		a.pending.Address(&c, owner) // to the owner's process last heard (queue rule C5)
		// Optimistic: show the effect now; the owner's snapshot confirms it.
		if _, err := a.st.Apply(c, a.st.PositionMS); err != nil {
			return err
		}
		stamp, err := a.e.Stamp()
		if err != nil {
			return err
		}
		c.ID = stamp.Sequence // kept on every copy sent again (queue rule C7)
		body, err := json.Marshal(c)
		if err != nil {
			return err
		}
		a.pending.Remember(c, stamp, a.clock.Now(), false)
		tx.sends = append(tx.sends, send{to: owner, stamp: stamp, body: body})
		return nil
	})
}

// transfer hands the output to device to with the queue, track, position
// and play state.
func (a *actor) transfer(to engine.DeviceID) error {
	if to == "" {
		return userErr(ErrBadArgument, "no device given")
	}
	if to == a.e.Owner() {
		return nil
	}
	if to != a.self {
		d, ok := a.device(to)
		if !ok {
			return userErr(ErrNotMember, "%s is not a device of this group", to)
		}
		// Front-end validation only: Online never feeds ownership. A
		// transfer to a device that cannot answer would stop the music
		// until the owner timeout.
		if !d.Online {
			return userErr(ErrOffline, "%s is offline", a.deviceName(to))
		}
	}
	return a.run(func(tx *txn) error {
		if to == a.self && !a.e.OwnerLive() {
			a.anchorHeard()
		} else {
			a.anchor()
		}
		stamp, err := a.e.Transfer(to)
		if err != nil {
			return err
		}
		if to == a.self {
			return nil
		}
		st := a.st.Clone()
		st.Acks, st.AckFrom = nil, nil
		// Exact: this device's output played st (rule P6 of queue).
		exact := a.rendering && a.cur.Seq != 0
		body, err := json.Marshal(Control{Op: OpHandoff, State: &st, Exact: exact})
		if err != nil {
			return err
		}
		if len(body) <= devicesync.MaxCommandBytes {
			tx.sends = append(tx.sends, send{to: to, stamp: stamp, handoff: true, body: body})
		} else {
			// A long queue does not fit a command: the target takes the
			// output on the claim's announcement, with the state of the
			// snapshot this transition publishes (the position measured now).
			a.log.Info("handoff by snapshot: the state does not fit a command", "to", string(to), "bytes", len(body))
			tx.publish = true
		}
		a.handedTo = to
		a.notice("info", "Playing on "+a.deviceName(to))
		return nil
	})
}

func (a *actor) device(id engine.DeviceID) (devicesync.DeviceInfo, bool) {
	for _, d := range a.tr.Devices() {
		if d.ID == id {
			return d, true
		}
	}
	return devicesync.DeviceInfo{}, false
}

func (a *actor) deviceName(id engine.DeviceID) string {
	if id == a.self && a.name != "" {
		return a.name
	}
	for _, d := range a.tr.Devices() {
		if d.ID == id && d.Name != "" {
			return d.Name
		}
	}
	return string(id)
}
