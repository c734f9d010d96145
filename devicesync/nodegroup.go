package devicesync

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/furudesk/furudesk/engine"
)

// loadGroupLocked restores the persisted group or founds a group of one.
//
// A group whose history is not signed was written by a furudesk from before
// ops were signed. Such a history cannot be trusted: back then any member
// could write ops in any origin's name, every device took them, and an op
// forged in a device's own name cannot be told apart from its own, so
// having each device re-sign "its" ops would re-sign the forgeries too
// (a device planted that way would stay). The device therefore leaves such
// a group: it founds a signed group of its own and tells the user, with
// the names the old group listed, to pair the devices again. Nothing of
// the old history is kept or relayed, but its application ops (playlists,
// likes, plays) are handed to the app (GroupLeft), which carries what they
// describe into the new group in this device's name.
func (n *Node) loadGroupLocked() error {
	group, ops, err := n.cfg.Store.LoadGroup()
	if err != nil {
		return fmt.Errorf("devicesync: load group: %w", err)
	}
	if group == "" {
		return n.foundGroupLocked()
	}
	g, verr := loadLog(group, ops)
	switch {
	case verr != nil:
		names := legacyNames(ops, n.id)
		n.log.Warn("devicesync: the stored group's history cannot be verified, founding a new group", "group", group, "reason", verr, "devices", names)
		text := "This device's group was made by an older furudesk, whose history is not signed and cannot be told apart from forged entries, so this device now starts a group of its own."
		if len(names) > 0 {
			text += " Pair your other devices with it again (Devices → Add a device): " + strings.Join(names, ", ") + "."
		}
		n.emit(Notice{Text: text})
		if err := n.foundGroupLocked(); err != nil {
			return err
		}
		var app []Op
		for _, o := range ops {
			if !groupKind(o.Kind) && o.validate() == nil {
				app = append(app, o)
			}
		}
		if len(app) > 0 {
			n.emit(GroupLeft{Group: group, AppOps: app})
		}
		return nil
	case !g.isMember(n.id):
		n.log.Info("devicesync: not a member of the stored group, founding a new one", "group", group)
		return n.foundGroupLocked()
	}
	n.group, n.glog = group, g
	return n.refreshProfileLocked()
}

// errUnsignedHistory reports a stored log from before ops were signed.
var errUnsignedHistory = errors.New("devicesync: the group's history is not signed")

// loadLog rebuilds the log of group from stored ops. Only verified ops are
// ever stored, so only the membership ops are verified again (they are
// few, and decide everything else); a log with an unsigned op, a failing
// membership op or no valid root cannot be trusted.
func loadLog(group string, ops []Op) (*groupLog, error) {
	valid := ops[:0:0]
	for _, o := range ops {
		if o.validate() != nil {
			continue
		}
		if len(o.Sig) == 0 {
			return nil, errUnsignedHistory
		}
		valid = append(valid, o)
	}
	slices.SortStableFunc(valid, func(a, b Op) int {
		if c := strings.Compare(string(a.Origin), string(b.Origin)); c != 0 {
			return c
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	g := newGroupLog(group)
	g.insert(valid)
	g.derive()
	for _, o := range valid {
		if _, isM, ok := parseMembership(group, o); isM {
			key := g.keyFor(o)
			if !ok || key == nil || verifyOp(key, group, o) != nil {
				return nil, fmt.Errorf("devicesync: stored op %s does not verify", o.ID)
			}
		}
	}
	if g.root == "" {
		return nil, errors.New("devicesync: the group's history has no valid root")
	}
	return g, nil
}

// maxLegacyNames bounds the names a notice about an old group lists.
const maxLegacyNames = 8

// legacyNames lists, sorted, the names of the devices other than self an
// unsigned log admitted, read the way the version that wrote it did.
func legacyNames(ops []Op, self engine.DeviceID) []string {
	names := map[engine.DeviceID]string{}
	for _, o := range ops {
		if o.Kind != KindTrusted {
			continue
		}
		var b trustedBody
		if json.Unmarshal(o.Body, &b) == nil && b.Target != self && ValidDeviceID(b.Target) {
			if _, ok := names[b.Target]; !ok || b.Name != "" {
				names[b.Target] = b.Name
			}
		}
	}
	for _, o := range ops {
		var b profileBody
		if _, ok := names[o.Origin]; ok && o.Kind == KindProfileSet && json.Unmarshal(o.Body, &b) == nil && b.DeviceID == o.Origin && b.Name != "" {
			names[o.Origin] = b.Name
		}
	}
	var out []string
	for id, name := range names {
		if name == "" {
			name = string(id)
		}
		out = append(out, name)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxLegacyNames {
		out = append(out[:maxLegacyNames], "…")
	}
	return out
}

// foundGroupLocked makes this device a new group of one: a fresh nonce
// gives the group id, and the group's root op, signed by this device,
// carries the nonce and this device's key.
func (n *Node) foundGroupLocked() error {
	nonce := randomHex(16)
	group := groupIDFor(n.id, nonce)
	if err := n.cfg.Store.ResetGroup(group); err != nil {
		return fmt.Errorf("devicesync: reset group: %w", err)
	}
	n.group, n.glog = group, newGroupLog(group)
	b, _ := json.Marshal(rootBody{Key: n.pub, Nonce: nonce, Name: n.cfg.Name})
	if _, err := n.appendLocalLocked(KindGroupRoot, b); err != nil {
		return err
	}
	return n.refreshProfileLocked()
}

func (n *Node) selfProfile() profile {
	return profile{DeviceID: n.id, Name: n.cfg.Name, ProtocolVersion: engine.ProfileVersion, Addresses: n.addrs}
}

// refreshProfileLocked logs this device's profile if the log's differs.
func (n *Node) refreshProfileLocked() error {
	p := n.selfProfile()
	if m := n.glog.members[n.id]; m != nil && m.profOp.ID != "" &&
		m.profile.Name == p.Name && m.profile.ProtocolVersion == p.ProtocolVersion && slices.Equal(m.profile.Addresses, p.Addresses) {
		return nil
	}
	b, _ := json.Marshal(p)
	_, err := n.appendLocalLocked(KindProfileSet, b)
	return err
}

// appendLocalLocked signs, persists and applies a new op of this device
// and pushes it to the connected members.
func (n *Node) appendLocalLocked(kind string, body json.RawMessage) (Op, error) {
	seq := n.glog.nextSeq(n.id)
	op := Op{
		ID:     OpID(n.id, seq),
		Origin: n.id,
		Seq:    seq,
		HLCms:  max(n.clock.Now().UnixMilli(), n.glog.lastHLC+1),
		Kind:   kind,
		Body:   body,
	}
	if err := signOp(n.cfg.Key, n.group, &op); err != nil {
		return Op{}, err
	}
	if err := n.cfg.Store.AppendOps([]Op{op}); err != nil {
		return Op{}, fmt.Errorf("devicesync: persist op: %w", err)
	}
	n.glog.insert([]Op{op})
	n.glog.derive()
	n.pushOpsLocked(nil)
	return op, nil
}

// membershipKeyLocked summarizes membership and profiles, to notice change.
func (n *Node) membershipKeyLocked() string {
	var b strings.Builder
	b.WriteString(n.group)
	for _, id := range n.glog.memberIDs() {
		m := n.glog.members[id]
		fmt.Fprintf(&b, "|%s %q %q", id, m.profile.Name, m.profile.Addresses)
	}
	return b.String()
}

// afterMembershipLocked closes sessions of devices that are no longer
// members, leaves a group that revoked this device, and reports a change.
func (n *Node) afterMembershipLocked(before string) []Event {
	if !n.glog.isMember(n.id) {
		n.log.Warn("devicesync: this device was revoked from its group, founding a new one", "group", n.group)
		n.closeAllLocked("this device was revoked")
		if err := n.foundGroupLocked(); err != nil {
			n.log.Error("devicesync: found group after revocation", "err", err)
		}
	}
	for id, s := range n.sessions {
		if !n.glog.isMember(id) {
			n.log.Info("devicesync: closing connection", "peer", string(id), "reason", "not a member any more")
			s.retire() // the op that removed it goes first
		}
	}
	n.closeFetchesLocked(false)
	n.keepBookLocked()
	n.cutRelaysLocked()
	if n.membershipKeyLocked() == before {
		return nil
	}
	n.signalWake()
	return []Event{GroupChanged{Group: n.group, Devices: n.devicesLocked()}}
}

func (n *Node) closeAllLocked(reason string) {
	for id, s := range n.sessions {
		n.log.Info("devicesync: closing connection", "peer", string(id), "reason", reason)
		s.close()
	}
}

// pushOpsLocked sends every registered session the ops it lacks.
func (n *Node) pushOpsLocked(except *session) {
	for _, s := range n.sessions {
		if s != except && s.peerVector != nil {
			n.sendMissingLocked(s)
		}
	}
}

// maxBatchesPerPush bounds how much one push queues at once; the rest
// follows once the connection has written it (pushMore).
const maxBatchesPerPush = 8

func (n *Node) sendMissingLocked(s *session) {
	for {
		for range maxBatchesPerPush {
			ops := n.glog.missing(s.peerVector, MaxOpsPerBatch, nil)
			if len(ops) == 0 {
				s.more.Store(false)
				return
			}
			n.sendOpsLocked(s, ops)
			for _, o := range ops {
				s.peerVector[o.Origin] = max(s.peerVector[o.Origin], o.Seq)
			}
		}
		s.more.Store(true)
		// The write loop looks at more only when it has emptied the queue.
		// If it did so before more was set, it will not look again: the
		// push goes on here. Else it calls pushMore once the queue is
		// written (whichever takes more first goes on).
		if len(s.out) != 0 || !s.more.CompareAndSwap(true, false) {
			return
		}
	}
}

// pushMore continues a push that stopped at maxBatchesPerPush, once the
// session's queue is written: a long log follows at the pace of the
// connection instead of one push per anti-entropy round.
func (n *Node) pushMore(s *session) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.sessions[s.peer] == s && s.peerVector != nil {
		n.sendMissingLocked(s)
	}
}

// sendOpsLocked sends ops, splitting batches that would exceed a line.
func (n *Node) sendOpsLocked(s *session, ops []Op) {
	line, err := encodeLine(opsMsg{Type: typeOps, Ops: ops}, MaxLineBytes)
	if errors.Is(err, ErrLineTooLong) && len(ops) > 1 {
		n.sendOpsLocked(s, ops[:len(ops)/2])
		n.sendOpsLocked(s, ops[len(ops)/2:])
		return
	}
	if err != nil {
		n.log.Error("devicesync: op does not fit a line", "err", err)
		return
	}
	s.send(line)
}
