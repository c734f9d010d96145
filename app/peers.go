package app

// What the other devices send: snapshots (the owner's state and every
// device's envelope), stamped commands, and changes of the group.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/queue"
)

func (a *actor) peerEvent(ev devicesync.Event) {
	a.groupEvent(ev)
	switch ev := ev.(type) {
	case devicesync.SnapshotReceived:
		a.snapshot(ev)
	case devicesync.CommandReceived:
		a.command(ev)
	case devicesync.GroupChanged:
		a.groupChanged(ev)
		a.collectionEvent(ev)
	case devicesync.OpsAdded:
		a.collectionEvent(ev)
		if fn := a.app.opsWatch.Load(); fn != nil {
			(*fn)(ev.Group, ev.Ops)
		}
	case devicesync.GroupLeft:
		a.collectionEvent(ev)
	case devicesync.PairingRequest:
		// The request's id is for ctl and the Devices page, not for people.
		a.notice("info", fmt.Sprintf("%s asks to join this group: answer it under Devices (or with furudesk ctl pairing)", ev.Name))
	case devicesync.Notice:
		a.notice("error", ev.Text)
	case devicesync.PeerOnline, devicesync.PeerOffline:
	}
}

// noteBox remembers whether a device runs without a window and what it
// plays through, for the devices list (read from its snapshot's "box" and
// "output" alone: cheap for all; an old peer sends neither).
func (a *actor) noteBox(ev devicesync.SnapshotReceived) {
	var k struct {
		Box    bool   `json:"box"`
		Output string `json:"output"`
	}
	if json.Unmarshal(ev.State, &k) != nil {
		return
	}
	if a.boxes[ev.From] != k.Box {
		if a.boxes == nil {
			a.boxes = map[engine.DeviceID]bool{}
		}
		a.boxes[ev.From] = k.Box // the status after this event shows it
	}
	if k.Output = cleanOutputLabel(k.Output); a.outLabels[ev.From] != k.Output {
		if a.outLabels == nil {
			a.outLabels = map[engine.DeviceID]string{}
		}
		a.outLabels[ev.From] = k.Output
	}
}

// MaxOutputLabel bounds the name of the endpoint a peer says it plays
// through (queue.State.Output), in runes.
const MaxOutputLabel = 64

// cleanOutputLabel keeps a peer's output label short and printable.
func cleanOutputLabel(s string) string {
	r := []rune(strings.Map(func(c rune) rune {
		if unicode.IsPrint(c) {
			return c
		}
		return -1
	}, s))
	if len(r) > MaxOutputLabel {
		r = r[:MaxOutputLabel]
	}
	return strings.TrimSpace(string(r))
}

func (a *actor) snapshot(ev devicesync.SnapshotReceived) {
	if ev.From == a.self {
		a.ownEcho(ev)
		return
	}
	_ = a.run(func(tx *txn) error {
		// From is the device that made it (relayed snapshots are signed
		// by it); Age is how long ago, when it waited at a relay.
		if err := a.e.AnnounceAged(ev.From, ev.Coordination, ev.Age); err != nil {
			return nil // rejected: dropped and counted by the engine
		}
		a.noteBox(ev)
		// Only the owner's state, published while it owned the output
		// (queue rule S1): a device that just became the owner may send
		// what it knew before.
		if ev.From != a.e.Owner() || a.e.MayRender() || ev.Coordination.Claim.Owner != ev.From {
			return nil
		}
		var ps PlayerState
		if err := json.Unmarshal(ev.State, &ps); err != nil {
			return nil
		}
		ps.Normalize()
		if ps.Validate() != nil {
			return nil
		}
		hb := ev.Coordination.Heartbeat
		if ev.From == a.heardFrom && hb < a.heardHB {
			return nil // older than a snapshot already seen
		}
		// Its acks count, also while it resumes (queue rule C6); a new
		// launch restarted and lost what we sent it (C5):
		// retargetPending sends that again.
		predicted := a.pending.Predicting()
		a.pending.Heard(ev.From, ps, a.self)
		now, shown := a.clock.Now(), a.posNow()
		heard := now - max(ev.Age, 0) // when the owner said it
		if ps.Resuming {
			// A restarted owner still learning its own newest state:
			// heard, but its state is not news.
			// It lives (aliveAt) but confirms no position: HeardAt stays,
			// so its restart is not extrapolated as time played.
			a.aliveAt, a.heardFrom, a.heardHB = heard, ev.From, hb
			return nil
		}
		// The position is confirmed only when the state is adopted
		// (queue.Position.Adopt): a snapshot that does not reflect our
		// controls yet says the owner lives, not where our view is.
		a.aliveAt, a.heardFrom, a.heardHB = heard, ev.From, hb
		a.heardCount++
		if ps.Closing {
			a.closingFrom = ev.From
		} else if a.closingFrom == ev.From {
			a.closingFrom = ""
		}
		ps.Closing = false // ours to say, should this device take over
		if ps.Notice != nil {
			if k := sharedKey(ev.From, ps.Notice); k != a.shownFrom {
				a.shownFrom = k
				a.notice("error", ps.Notice.Text)
				if !ps.Playing { // the owner paused for it: withdrawn once music plays
					a.condNotices = append(a.condNotices, a.noticeID)
				}
			}
		}
		if a.holdView(ps, ev.From) {
			return nil // does not reflect our controls yet: keep our view
		}
		in := a.posInputs()
		in.Predicted = predicted
		a.pos.Adopt(&a.st, ps, heard, shown, in)
		return nil
	})
}

func (a *actor) command(ev devicesync.CommandReceived) {
	_ = a.run(func(tx *txn) error {
		if a.e.Receive(ev.From, ev.Stamp, ev.Handoff) != engine.Accepted {
			return nil
		}
		var c Control
		if err := json.Unmarshal(ev.Body, &c); err != nil {
			return nil
		}
		if ev.Handoff != (c.Op == OpHandoff) {
			return nil
		}
		if !queue.Addressed(c, a.launch) {
			// Sent to this device's previous process: its sender sends it
			// again when it hears this launch (queue rule C5).
			return nil
		}
		if a.st.Contains(ev.From, c) {
			// Applied already, by this device's previous process or by
			// the owner whose state it took over: acknowledged, not
			// applied twice (queue rule C7).
			return a.ack(tx, ev, c)
		}
		a.anchor()
		if c.Op == OpHandoff && c.State != nil {
			// Already playing that track (we learned the claim from an
			// announcement first, or owned the output already): no
			// restart (queue.KeepPlaying).
			if e, ok := c.State.Current(); ok && a.curCID == e.ContentID && a.curIdx == c.State.Index &&
				a.cur.Seq != 0 && queue.KeepPlaying(c, a.posNow()) {
				c.State.PositionMS = a.posNow()
				ch, err := a.st.Apply(c, a.st.PositionMS)
				if err == nil {
					ch.Track = false
					tx.ch = ch
				}
				return a.ack(tx, ev, c)
			}
		}
		a.describe(c.Entries)
		ch, err := a.st.Apply(c, a.st.PositionMS)
		if err != nil {
			a.notice("error", "A command from "+a.deviceName(ev.From)+" failed: "+err.Error())
			return a.ack(tx, ev, c)
		}
		tx.ch = ch
		if ch.Pause || ch.Stopped || ch.Track {
			tx.persistPos = true
		}
		if c.Op == OpHandoff {
			a.notice("info", "Playing here (from "+a.deviceName(ev.From)+")")
		}
		return a.ack(tx, ev, c)
	})
}

// describe gives entries a controller sent by content id alone (a track
// its library lacks) the metadata of this device's copy.
func (a *actor) describe(es []Entry) {
	for i, e := range es {
		if e.Title != "" {
			continue
		}
		if t, err := a.store.TrackByContentID(e.ContentID); err == nil {
			es[i] = EntryOf(t)
		}
	}
}

// ack acknowledges control c from ev's sender, applied or refused, and
// marks the state as containing it (queue rules C6, C7).
func (a *actor) ack(tx *txn, ev devicesync.CommandReceived, c Control) error {
	a.st.Mark(ev.From, c)
	a.st.Ack(ev.From, ev.Stamp)
	s := ev.Stamp
	tx.fence = &s
	tx.publish = true
	return nil
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// groupChanged follows the transport into a new group: one this device
// joined, or a group of its own after another device revoked it. The old
// group's engine state stays with that group's checkpoint; after a
// revocation the old group's owner and queue are dropped as well (this
// device is idle and alone, its controls act locally).
func (a *actor) groupChanged(ev devicesync.GroupChanged) {
	if ev.Group == "" || ev.Group == a.group {
		return
	}
	var others []devicesync.DeviceInfo
	for _, d := range ev.Devices {
		if d.ID != a.self {
			others = append(others, d)
		}
	}
	var before []devicesync.DeviceInfo
	for _, d := range a.lastDevices {
		if d.ID != a.self {
			before = append(before, d)
		}
	}
	// A new group of this device alone: devicesync founds one only when
	// this device was revoked from its group.
	revoked := len(others) == 0
	err := a.run(func(*txn) error {
		if err := a.store.SetGroup(ev.Group); err != nil {
			return err
		}
		e, err := a.engineFor(ev.Group)
		if err != nil {
			return err
		}
		a.e, a.group = e, ev.Group
		a.pending.Clear()
		if revoked {
			vol := a.st.Volume
			a.st = queue.DefaultState()
			a.pos.Reset(a.clock.Now())
			a.st.Volume = vol
			a.heardFrom, a.heardHB, a.closingFrom = "", 0, ""
		}
		return nil
	})
	if err != nil {
		return
	}
	a.withdraw(&a.goneNotice)
	switch {
	case revoked && len(before) == 1:
		a.notice("error", a.knownName(before[0].ID)+" removed this device from the group")
	case revoked:
		a.notice("error", "Another device removed this device from the group")
	case len(others) > 0:
		a.notices = slices.DeleteFunc(a.notices, func(n Notice) bool { return n.Text == joinedText })
		a.joined = true
		name := others[0].Name
		if name == "" {
			name = string(others[0].ID)
		}
		a.notice("info", "Joined "+name+"'s group")
	}
}

// joinedText is Pair's notice once the other device accepted; the group
// change names the group instead when it comes first.
const joinedText = "Joined the group"
