package devicesync

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Application ops are the log's ops of kinds devicesync does not interpret
// itself (playlists, likes, listens...). devicesync stores, relays and
// orders them like any op; the app appends them with AppendOp, reads them
// all with AppOps on startup, hears of every new one as OpsAdded, and may
// drop those that no longer matter with ForgetOps.

// MaxAppOpBytes bounds an application op's body, so that any op fits a
// line with room to spare.
const MaxAppOpBytes = 512 << 10

// Errors of AppendOp.
var (
	ErrAppKind = errors.New("devicesync: not an application op kind")
	ErrLogFull = errors.New("devicesync: the group's operation log is full")
)

// OpsAdded reports application ops newly added to the log of Group, from
// any device, this one's own included, in the order they were added. An op
// is reported once per process; on startup AppOps has the ones already
// stored.
type OpsAdded struct {
	Group string
	Ops   []Op
}

func (OpsAdded) isEvent() {}

// GroupLeft reports, on startup, that this device left Group because its
// history was not signed (loadGroupLocked): AppOps are the application ops
// that group held (unverified, as all of it), for the app to carry what
// they describe into the group this device is in now, in its own name.
type GroupLeft struct {
	Group  string
	AppOps []Op
}

func (GroupLeft) isEvent() {}

// groupKind reports whether devicesync interprets kind itself.
func groupKind(kind string) bool {
	switch kind {
	case KindGroupRoot, KindProfileSet, KindTrusted, KindRevoked, KindPlaybackCommand:
		return true
	}
	return false
}

// AppendOp logs an op of an application kind from this device, pushes it
// to the group and returns it as logged. The body must be JSON of at most
// MaxAppOpBytes; it is stored compact. ErrLogFull when the log holds
// MaxLogOps ops: members refuse a log longer than that.
func (n *Node) AppendOp(kind string, body json.RawMessage) (Op, error) {
	if groupKind(kind) || kind == "" || len(kind) > 64 {
		return Op{}, fmt.Errorf("%w: %q", ErrAppKind, kind)
	}
	var buf bytes.Buffer
	if len(body) > MaxAppOpBytes || json.Compact(&buf, body) != nil {
		return Op{}, fmt.Errorf("devicesync: op body is not JSON of at most %d bytes", MaxAppOpBytes)
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return Op{}, ErrClosed
	}
	if n.glog.count >= MaxLogOps {
		n.mu.Unlock()
		return Op{}, fmt.Errorf("%w: %d ops", ErrLogFull, MaxLogOps)
	}
	op, err := n.appendLocalLocked(kind, buf.Bytes())
	group := n.group
	n.mu.Unlock()
	if err != nil {
		return Op{}, err
	}
	n.emit(OpsAdded{Group: group, Ops: []Op{op}})
	return op, nil
}

// AppOps returns the current group and its application ops, by origin
// then seq.
func (n *Node) AppOps() (group string, ops []Op) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.glog.each(func(o Op) {
		if !groupKind(o.Kind) {
			ops = append(ops, o)
		}
	})
	return n.group, ops
}

// ForgetOps drops application ops the caller knows no longer matter from
// the log and the store, and returns the ids dropped. It keeps each
// origin's newest op (the version vector lives in it), every op of a kind
// devicesync interprets, and ignores ids it does not hold. Peers are not
// told: each device forgets by its own reading of the log.
func (n *Node) ForgetOps(ids []string) ([]string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, ErrClosed
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	var gone []string
	for _, origin := range n.glog.origins() {
		ops := n.glog.byOrigin[origin]
		for i, o := range ops {
			if i < len(ops)-1 && want[o.ID] && !groupKind(o.Kind) {
				gone = append(gone, o.ID)
			}
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	if err := n.cfg.Store.DeleteOps(gone); err != nil {
		return nil, fmt.Errorf("devicesync: forget ops: %w", err)
	}
	drop := make(map[string]bool, len(gone))
	for _, id := range gone {
		drop[id] = true
	}
	for _, origin := range n.glog.origins() {
		ops := n.glog.byOrigin[origin]
		kept := slices.DeleteFunc(ops, func(o Op) bool { return drop[o.ID] })
		n.glog.count -= len(ops) - len(kept)
		n.glog.byOrigin[origin] = kept
	}
	return gone, nil
}

// appOpsLocked returns the application ops among added as an event.
func (n *Node) appOpsLocked(added []Op) []Event {
	var app []Op
	for _, o := range added {
		if !groupKind(o.Kind) {
			app = append(app, o)
		}
	}
	if len(app) == 0 {
		return nil
	}
	return []Event{OpsAdded{Group: n.group, Ops: app}}
}
