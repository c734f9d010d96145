package devicesync

import (
	"cmp"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/furudesk/furudesk/engine"
)

// Operation kinds of the group log. Ops of other kinds are stored and
// relayed but not interpreted, so newer clients' ops still propagate.
const (
	KindProfileSet      = "device_profile_set"
	KindTrusted         = "device_trusted"
	KindRevoked         = "device_revoked"
	KindPlaybackCommand = "playback_command"
)

// Op is one entry of the trusted group's operation log. Its shape is the
// storage row: ID is "{origin}:{seq}", Seq increases per origin, HLCms is
// the hybrid logical clock in Unix milliseconds, Body is the kind's JSON.
type Op struct {
	ID     string          `json:"id"`
	Origin engine.DeviceID `json:"origin"`
	Seq    uint64          `json:"seq"`
	HLCms  int64           `json:"hlc_ms"`
	Kind   string          `json:"kind"`
	Body   json.RawMessage `json:"body"`
}

// OpID returns the id of origin's op number seq.
func OpID(origin engine.DeviceID, seq uint64) string {
	return string(origin) + ":" + strconv.FormatUint(seq, 10)
}

func (o Op) validate() error {
	if !ValidDeviceID(o.Origin) || o.Seq == 0 || o.ID != OpID(o.Origin, o.Seq) {
		return fmt.Errorf("op %q: bad origin, seq or id", o.ID)
	}
	if o.Kind == "" || len(o.Kind) > 64 || o.HLCms < 0 {
		return fmt.Errorf("op %q: bad kind or hlc", o.ID)
	}
	if len(o.Body) == 0 || !json.Valid(o.Body) {
		return fmt.Errorf("op %q: body is not JSON", o.ID)
	}
	return nil
}

// later reports whether o wins over p under last-writer-wins on
// (HLCms, ID).
func (o Op) later(p Op) bool {
	if o.HLCms != p.HLCms {
		return o.HLCms > p.HLCms
	}
	return o.ID > p.ID
}

// VersionVector maps each origin to the greatest seq held from it.
type VersionVector map[engine.DeviceID]uint64

// profileBody is the body of KindProfileSet; DeviceID must be the origin.
type profileBody = profile

// trustedBody is the body of KindTrusted.
type trustedBody struct {
	Target engine.DeviceID `json:"target"`
	Key    []byte          `json:"key,omitempty"` // ed25519 public key
	Name   string          `json:"name,omitempty"`
}

// revokedBody is the body of KindRevoked. Ops of Target with a seq above
// TargetMaxSeqSeen are refused.
type revokedBody struct {
	Target           engine.DeviceID `json:"target"`
	TargetMaxSeqSeen uint64          `json:"target_max_seq_seen"`
}

// commandBody is the body of KindPlaybackCommand.
type commandBody struct {
	Target  engine.DeviceID      `json:"target_device_id"`
	Stamp   *engine.CommandStamp `json:"stamp,omitempty"`
	Handoff bool                 `json:"handoff,omitempty"`
	Command json.RawMessage      `json:"command"`
}

// member is a trusted device as the log describes it.
type member struct {
	id      engine.DeviceID
	key     ed25519.PublicKey // from the op that trusted it; nil if it carried none
	profile profile
	profOp  Op // the winning profile op, zero if none
}

// groupLog is the in-memory operation log of the current group and the
// membership derived from it. It is not safe for concurrent use.
type groupLog struct {
	byOrigin map[engine.DeviceID][]Op // sorted by Seq
	vector   VersionVector
	count    int
	lastHLC  int64

	members map[engine.DeviceID]*member
	revoked map[engine.DeviceID]uint64 // target → cutoff seq
}

func newGroupLog() *groupLog {
	g := &groupLog{byOrigin: map[engine.DeviceID][]Op{}, vector: VersionVector{}}
	g.derive()
	return g
}

// find returns where o belongs among its origin's ops and whether an op
// with its seq is there.
func (g *groupLog) find(o Op) (int, bool) {
	return slices.BinarySearchFunc(g.byOrigin[o.Origin], o.Seq, func(x Op, s uint64) int { return cmp.Compare(x.Seq, s) })
}

// holds reports whether the log has an op with o's origin and seq.
func (g *groupLog) holds(o Op) bool {
	_, ok := g.find(o)
	return ok
}

// cutoffRefuses reports whether a revocation refuses op.
func (g *groupLog) cutoffRefuses(o Op) bool {
	c, ok := g.revoked[o.Origin]
	return ok && o.Seq > c
}

// add inserts ops it does not hold and a revocation does not refuse,
// re-derives membership, and returns the ops it added in the order given.
// An op below the vector is inserted in its place: a device that joined a
// group holds the membership ops but not the ones between them.
func (g *groupLog) add(ops []Op) []Op {
	var added []Op
	for _, o := range ops {
		if g.cutoffRefuses(o) {
			continue
		}
		i, held := g.find(o)
		g.vector[o.Origin] = max(g.vector[o.Origin], o.Seq)
		if held {
			continue
		}
		g.byOrigin[o.Origin] = slices.Insert(g.byOrigin[o.Origin], i, o)
		g.count++
		g.lastHLC = max(g.lastHLC, o.HLCms)
		added = append(added, o)
	}
	if len(added) > 0 {
		g.derive()
	}
	return added
}

// derive recomputes revocations and membership from the log. Ops above a
// revocation's cutoff are left out, including trust they would grant.
func (g *groupLog) derive() {
	g.revoked = map[engine.DeviceID]uint64{}
	g.each(func(o Op) {
		if o.Kind != KindRevoked {
			return
		}
		var b revokedBody
		if json.Unmarshal(o.Body, &b) != nil || !ValidDeviceID(b.Target) {
			return
		}
		if c, ok := g.revoked[b.Target]; !ok || b.TargetMaxSeqSeen < c {
			g.revoked[b.Target] = b.TargetMaxSeqSeen
		}
	})
	g.members = map[engine.DeviceID]*member{}
	var profiles []Op
	g.each(func(o Op) {
		if g.cutoffRefuses(o) {
			return
		}
		switch o.Kind {
		case KindTrusted:
			var b trustedBody
			if json.Unmarshal(o.Body, &b) != nil || !ValidDeviceID(b.Target) {
				return
			}
			if _, gone := g.revoked[b.Target]; gone {
				return
			}
			if g.members[b.Target] == nil {
				g.members[b.Target] = &member{id: b.Target, profile: profile{DeviceID: b.Target, Name: b.Name}}
			}
			if m := g.members[b.Target]; m.key == nil && len(b.Key) == ed25519.PublicKeySize && DeviceIDFromPublicKey(b.Key) == b.Target {
				m.key = ed25519.PublicKey(b.Key)
			}
		case KindProfileSet:
			profiles = append(profiles, o)
		}
	})
	for _, o := range profiles {
		var b profileBody
		if json.Unmarshal(o.Body, &b) != nil || b.DeviceID != o.Origin {
			continue
		}
		m := g.members[o.Origin]
		if m == nil || (m.profOp.ID != "" && !o.later(m.profOp)) {
			continue
		}
		m.profile, m.profOp = b, o
	}
}

// each visits every op in a deterministic order: origin, then seq.
func (g *groupLog) each(f func(Op)) {
	for _, origin := range g.origins() {
		for _, o := range g.byOrigin[origin] {
			f(o)
		}
	}
}

func (g *groupLog) origins() []engine.DeviceID {
	keys := make([]engine.DeviceID, 0, len(g.byOrigin))
	for k := range g.byOrigin {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// isMember reports whether id is trusted and not revoked.
func (g *groupLog) isMember(id engine.DeviceID) bool { return g.members[id] != nil }

// isRevoked reports whether id has been revoked in this group.
func (g *groupLog) isRevoked(id engine.DeviceID) bool {
	_, ok := g.revoked[id]
	return ok
}

// missing returns the ops a peer holding vector v lacks, at most limit,
// each origin's ops as a contiguous run from the peer's seq upward.
// Ops of revoked origins above their cutoff are never sent.
func (g *groupLog) missing(v VersionVector, limit int, filter func(Op) bool) []Op {
	var out []Op
	for _, origin := range g.origins() {
		ops := g.byOrigin[origin]
		i, _ := slices.BinarySearchFunc(ops, v[origin]+1, func(o Op, s uint64) int { return cmp.Compare(o.Seq, s) })
		for _, o := range ops[i:] {
			if len(out) >= limit {
				return out
			}
			if g.cutoffRefuses(o) || (filter != nil && !filter(o)) {
				continue
			}
			out = append(out, o)
		}
	}
	return out
}

// prune drops ops that can no longer matter and returns their ids:
// playback commands older than cutoffHLC and profile ops that lost to a
// newer one. The newest op of each origin always stays, so the vector and
// the next own seq survive a restart.
func (g *groupLog) prune(cutoffHLC int64) []string {
	var gone []string
	for _, origin := range g.origins() {
		ops := g.byOrigin[origin]
		kept := ops[:0:0]
		for i, o := range ops {
			drop := false
			if i < len(ops)-1 {
				switch o.Kind {
				case KindPlaybackCommand:
					drop = o.HLCms < cutoffHLC
				case KindProfileSet:
					m := g.members[o.Origin]
					drop = m != nil && m.profOp.ID != o.ID
				}
			}
			if drop {
				gone = append(gone, o.ID)
				continue
			}
			kept = append(kept, o)
		}
		g.byOrigin[origin] = kept
		g.count -= len(ops) - len(kept)
	}
	return gone
}

// memberIDs returns the members sorted by id.
func (g *groupLog) memberIDs() []engine.DeviceID {
	ids := make([]engine.DeviceID, 0, len(g.members))
	for id := range g.members {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// vectorCopy returns a copy of the log's version vector.
func (g *groupLog) vectorCopy() VersionVector {
	v := make(VersionVector, len(g.vector))
	for k, s := range g.vector {
		v[k] = s
	}
	return v
}
