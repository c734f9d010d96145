package app

import (
	"encoding/json"
	"time"

	"github.com/furudesk/furudesk/devicesync"
)

// A device that restarts owning the output (its checkpoint's claim names
// it: it was killed or closed while playing) does not resume at once from
// what it saved, which is up to DefaultPersistEvery old. For the discovery
// grace it holds its output and learns the newest state from the group:
// the members keep its last signed snapshot and hand it back when it
// connects (ownEcho). Its own snapshots say Resuming meanwhile, so the
// others keep showing what they heard last. A greater claim learned in the
// meantime means it never plays at all: no double rendering at a restart.

// holdResume starts the hold at launch when the restored claim names this
// device.
func (a *actor) holdResume() {
	if a.e.Owner() != a.self {
		return
	}
	a.holdUntil = a.clock.Now() + time.Duration(a.effective().DiscoveryMS)*time.Millisecond
}

// holding reports whether this device owns the output but holds it while
// it learns the newest state after a restart.
func (a *actor) holding() bool {
	return a.holdUntil != 0 && a.clock.Now() < a.holdUntil
}

// ownEcho handles this device's own snapshot handed back by a member: the
// last one it published before it restarted. While it holds, a state in
// the term it still owns is newer than the one it saved, so it resumes from
// there (its position as of when it was published, not later).
func (a *actor) ownEcho(ev devicesync.SnapshotReceived) {
	_ = a.run(func(tx *txn) error {
		if !a.holding() || ev.Coordination.Claim != a.e.Claim() {
			return nil
		}
		var ps PlayerState
		if err := json.Unmarshal(ev.State, &ps); err != nil {
			return nil
		}
		ps.Normalize()
		if ps.Validate() != nil || ps.Resuming || ps.Term != a.e.Claim() {
			return nil
		}
		if ev.Coordination.Heartbeat < a.echoHB {
			return nil // an older echo than one adopted already
		}
		a.echoHB = ev.Coordination.Heartbeat
		heard := a.clock.Now() - max(ev.Age, 0)
		ps.Acks, ps.AckFrom, ps.Closing, ps.Notice = a.st.Acks, a.st.AckFrom, false, nil
		a.st = ps
		a.pos.Reset(heard)
		tx.persistPos = true
		a.log.Info("resuming the state this device published before it restarted", "position_ms", ps.PositionMS)
		return nil
	})
}
