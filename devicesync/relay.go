package devicesync

import (
	"crypto/ed25519"
	"encoding/binary"
	"encoding/json"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// Relay of snapshots, for groups whose devices do not all reach each other
// (Wi-Fi client isolation, a VPN hub, a box on another subnet).
//
// A device signs every snapshot it publishes (its coordination envelope and
// its state, with a per-device sequence) with its identity key, in the
// group's one signing scheme (signature.go). Every member keeps the newest
// signed snapshot of each device that announces itself as the owner and
// forwards it, once, to its other peers; a member that connects later gets
// the ones it holds, with their age. A receiver verifies the signature
// against the key the group holds for the device the envelope names, so
// the relayed snapshot is that device's own report: the engine renews the
// owner's liveness from it (its heartbeat id makes a duplicate or a replay
// renew nothing), and a controller that cannot reach the owner still shows
// and controls what plays. A relayed snapshot that is unsigned, signed by
// another key, changed in transit, from a device that is not a member (or
// was revoked), or not newer than the one held is dropped and counted.

// snapshotOrder orders the snapshots of one device: its heartbeat id (which
// never goes back, across restarts too), then its publish sequence.
type snapshotOrder struct {
	hb, seq uint64
}

func (o snapshotOrder) after(p snapshotOrder) bool {
	if o.hb != p.hb {
		return o.hb > p.hb
	}
	return o.seq > p.seq
}

// heldSnapshot is the newest snapshot of one device this node holds.
type heldSnapshot struct {
	msg   snapshotMsg
	order snapshotOrder
	at    time.Time // when it arrived here (real time), minus its age then
	owner bool      // its envelope names its device as the owner
	// relayedAt is when it arrived through another member, fresh (node
	// clock, like a session's lastHeard); zero when it came directly.
	relayedAt time.Time
}

// Relay limits.
const (
	// relayRate and relayBurst bound how many snapshots of one device a
	// member forwards per second.
	relayRate  = 10
	relayBurst = 20
	// maxRelayAge is the oldest a held snapshot may be and still be
	// forwarded to a member that connects.
	maxRelayAge = 10 * time.Minute
	// freshRelay is the oldest a relayed snapshot may be and still show
	// its device online.
	freshRelay = 5 * time.Second
)

// snapshotSigFields are the fields a snapshot's signature covers; state
// is in the form compactJSON gives.
func snapshotSigFields(c *engine.Coordination, state json.RawMessage, seq uint64) ([][]byte, error) {
	cj, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return [][]byte{cj, state, binary.BigEndian.AppendUint64(nil, seq)}, nil
}

// nextSnapshotSeqLocked returns the sequence of this device's next
// snapshot: wall-clock milliseconds, strictly increasing within this
// process, so a restart continues above what it published before unless the
// clock went back (the heartbeat id, which never goes back, orders first).
func (n *Node) nextSnapshotSeqLocked() uint64 {
	seq := uint64(max(n.clock.Now().UnixMilli(), 0))
	if seq <= n.snapSeq {
		seq = n.snapSeq + 1
	}
	n.snapSeq = seq
	return seq
}

// memberKeyLocked returns the key the group holds for id, nil when id is
// not a member.
func (n *Node) memberKeyLocked(id engine.DeviceID) ed25519.PublicKey {
	if id == n.id {
		return n.pub
	}
	if m := n.glog.members[id]; m != nil {
		return m.key
	}
	return nil
}

// snapshotLocked handles a snapshot a member session s sent: its own, or
// one of another device that s relays.
func (n *Node) snapshotLocked(s *session, m snapshotMsg) []Event {
	c := m.Coordination
	if c == nil || c.Version != engine.EnvelopeVersion {
		n.c.legacy.Add(1)
		return nil
	}
	origin := c.Device
	direct := origin == s.peer
	if !direct || len(m.Sig) > 0 {
		// A relayed snapshot must carry its device's signature; a direct
		// one that carries one must carry a good one.
		st, err := compactJSON(m.State)
		var fields [][]byte
		if err == nil {
			fields, err = snapshotSigFields(c, st, m.Seq)
		}
		if err == nil {
			err = verify(n.memberKeyLocked(origin), sigDomainCoordination, origin, m.Sig, fields...)
		}
		if err != nil {
			n.c.spoofed.Add(1)
			n.log.Info("devicesync: dropped snapshot", "peer", string(s.peer), "device", string(origin), "reason", err)
			return nil
		}
	}
	now := time.Now()
	age := time.Duration(m.AgeMS) * time.Millisecond
	if direct {
		age = 0 // the device speaks for itself: nothing waited anywhere
	}
	if origin == n.id {
		// Our own snapshot, signed by us, handed back by a member that
		// held it: what we published before we restarted. Never held or
		// forwarded; delivered once per snapshot.
		o := snapshotOrder{c.Heartbeat, m.Seq}
		if !o.after(n.echoed) {
			n.c.relayDup.Add(1)
			return nil
		}
		n.echoed = o
		return []Event{SnapshotReceived{From: origin, Via: s.peer, Age: age, Coordination: *c, State: m.State}}
	}
	h := &heldSnapshot{msg: m, order: snapshotOrder{c.Heartbeat, m.Seq}, at: now.Add(-age),
		owner: c.Claim.Owner == origin && !c.Claim.IsZero()}
	h.msg.AgeMS = 0
	if !direct && age <= freshRelay {
		h.relayedAt = n.clock.Now()
	}
	if old := n.held[origin]; old != nil && !h.order.after(old.order) {
		// A copy of what we hold, or older. A relayed one renews nothing.
		// The device's own word replaces what we hold unless it is the
		// same snapshot a relay brought first: it may have restarted with
		// a clock that went back.
		if !direct || h.order == old.order {
			n.c.relayDup.Add(1)
			return nil
		}
	}
	n.held[origin] = h
	if h.owner && len(m.Sig) > 0 {
		n.forwardLocked(origin, h, s.peer)
	}
	ev := SnapshotReceived{From: origin, Coordination: *c, State: m.State, Age: age}
	if !direct {
		ev.Via = s.peer
	}
	return []Event{ev}
}

// forwardLocked sends origin's snapshot h to every member session except
// the one it came from and origin's own, within origin's relay budget.
func (n *Node) forwardLocked(origin engine.DeviceID, h *heldSnapshot, from engine.DeviceID) {
	b := n.relayBudget[origin]
	now := time.Now()
	if b == nil {
		b = newTokenBucket(relayRate, relayBurst, now)
		n.relayBudget[origin] = b
	}
	var line []byte
	for id, s := range n.sessions {
		if id == from || id == origin {
			continue
		}
		if line == nil {
			if !b.allow(now) {
				n.c.relayLimited.Add(1)
				return
			}
			line = n.heldLineLocked(h, now)
			if line == nil {
				return
			}
		}
		n.c.relayed.Add(1)
		s.send(line)
	}
}

// heldLineLocked encodes h with its age now.
func (n *Node) heldLineLocked(h *heldSnapshot, now time.Time) []byte {
	m := h.msg
	m.AgeMS = uint64(max(now.Sub(h.at), 0) / time.Millisecond)
	line, err := encodeLine(m, MaxLineBytes)
	if err != nil {
		n.log.Error("devicesync: relay snapshot", "err", err)
		return nil
	}
	return line
}

// sendHeldLocked gives a member that just connected the owners' snapshots
// this node holds, so a device that starts or reconnects learns the
// newest group state even from an owner it cannot reach (or that is gone),
// and an owner that restarted learns what it published last.
func (n *Node) sendHeldLocked(s *session) {
	now := time.Now()
	for origin, h := range n.held {
		if !h.owner || len(h.msg.Sig) == 0 || now.Sub(h.at) > maxRelayAge {
			continue
		}
		if !n.glog.isMember(origin) {
			delete(n.held, origin)
			continue
		}
		if line := n.heldLineLocked(h, now); line != nil {
			s.send(line)
		}
	}
}
