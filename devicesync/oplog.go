package devicesync

import (
	"cmp"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/furudesk/furudesk/engine"
)

// Operation kinds of the group log. Ops of other kinds are stored and
// relayed but not interpreted, so newer clients' ops still propagate; they
// are signed and checked like every op.
const (
	KindGroupRoot       = "group_root"
	KindProfileSet      = "device_profile_set"
	KindTrusted         = "device_trusted"
	KindRevoked         = "device_revoked"
	KindPlaybackCommand = "playback_command"
)

// Op is one entry of the trusted group's operation log. Its shape is the
// storage row: ID is "{origin}:{seq}", Seq increases per origin, HLCms is
// the hybrid logical clock in Unix milliseconds, Body is the kind's JSON
// and Sig the origin's ed25519 signature over the op in its group (see
// opsign.go).
type Op struct {
	ID     string          `json:"id"`
	Origin engine.DeviceID `json:"origin"`
	Seq    uint64          `json:"seq"`
	HLCms  int64           `json:"hlc_ms"`
	Kind   string          `json:"kind"`
	Body   json.RawMessage `json:"body"`
	Sig    []byte          `json:"sig,omitempty"`
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
	if len(o.Sig) > ed25519.SignatureSize {
		return fmt.Errorf("op %q: signature of %d bytes", o.ID, len(o.Sig))
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

// rootBody is the body of KindGroupRoot, the first op of its founder: the
// founder's public key and the nonce that, hashed with the founder's id,
// gives the group id (groupIDFor). The group id is therefore a commitment
// to its founder, and no other device can write a root for it.
type rootBody struct {
	Key   []byte `json:"key"`
	Nonce string `json:"nonce"`
	Name  string `json:"name,omitempty"`
}

// trustedBody is the body of KindTrusted: its origin admits Target, whose
// public key it carries so that every member can verify Target's ops.
// FromSeq is the greatest seq of Target the admitter held: a device
// admitted again after a revocation numbers its new ops above it.
type trustedBody struct {
	Target  engine.DeviceID `json:"target"`
	Key     []byte          `json:"key"` // ed25519 public key of Target
	Name    string          `json:"name,omitempty"`
	FromSeq uint64          `json:"from_seq,omitempty"`
}

// revokedBody is the body of KindRevoked. Until Target is admitted again by
// a later op, its ops with a seq above TargetMaxSeqSeen are void, and so is
// everything they did (the devices they admitted, say). A device leaving
// its group revokes itself with the seq of that very op.
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

// groupLog is the in-memory operation log of one group and the membership
// derived from it (trust.go). Only ops whose signature was verified against
// the key the log holds for their origin are added to it (admit). It is not
// safe for concurrent use.
type groupLog struct {
	group    string
	byOrigin map[engine.DeviceID][]Op // sorted by Seq
	vector   VersionVector
	count    int
	lastHLC  int64

	trust
}

func newGroupLog(group string) *groupLog {
	g := &groupLog{group: group, byOrigin: map[engine.DeviceID][]Op{}, vector: VersionVector{}}
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

// insert adds the ops it does not hold without checking them, and returns
// those it added in the order given. Callers check first (admit) or hold
// ops that were checked before they were stored (load). An op below the
// vector is inserted in its place: a device that joined a group holds the
// membership ops but not the ones between them. The vector moves past
// every op given.
func (g *groupLog) insert(ops []Op) []Op {
	var added []Op
	for _, o := range ops {
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
	return added
}

// unadd removes ops insert added a moment ago (they could not be
// persisted) and puts the vector back to prev.
func (g *groupLog) unadd(ops []Op, prev VersionVector) {
	for _, o := range ops {
		if i, held := g.find(o); held {
			g.byOrigin[o.Origin] = slices.Delete(g.byOrigin[o.Origin], i, i+1)
			g.count--
			if len(g.byOrigin[o.Origin]) == 0 {
				delete(g.byOrigin, o.Origin)
			}
		}
	}
	g.vector = prev
	g.derive()
}

// each visits every op in a deterministic order: origin, then seq.
func (g *groupLog) each(f func(Op)) {
	for _, origin := range g.origins() {
		for _, o := range g.byOrigin[origin] {
			f(o)
		}
	}
}

func (g *groupLog) origins() []engine.DeviceID { return slices.Sorted(maps.Keys(g.byOrigin)) }

// syncOrder lists the origins the log holds ops of in the order sync sends
// them (trust.order, then the others by id): a receiver learns each
// origin's key, from the op admitting it, before that origin's ops.
func (g *groupLog) syncOrder() []engine.DeviceID {
	out := make([]engine.DeviceID, 0, len(g.byOrigin))
	listed := map[engine.DeviceID]bool{}
	for _, id := range g.order {
		if _, ok := g.byOrigin[id]; ok {
			out = append(out, id)
			listed[id] = true
		}
	}
	for _, id := range g.origins() {
		if !listed[id] {
			out = append(out, id)
		}
	}
	return out
}

// missing returns the ops a peer holding vector v lacks, at most limit,
// each origin's ops as a contiguous run from the peer's seq upward, the
// origins in syncOrder. Void
// ops are sent too (see admit): they count for nothing anywhere.
func (g *groupLog) missing(v VersionVector, limit int, filter func(Op) bool) []Op {
	var out []Op
	for _, origin := range g.syncOrder() {
		ops := g.byOrigin[origin]
		i, _ := slices.BinarySearchFunc(ops, v[origin]+1, func(o Op, s uint64) int { return cmp.Compare(o.Seq, s) })
		for _, o := range ops[i:] {
			if len(out) >= limit {
				return out
			}
			if filter != nil && !filter(o) {
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

// vectorCopy returns a copy of the log's version vector.
func (g *groupLog) vectorCopy() VersionVector {
	v := make(VersionVector, len(g.vector))
	for k, s := range g.vector {
		v[k] = s
	}
	return v
}

// nextSeq is the seq of origin's next op: above what the log holds of it
// and above the floor its latest admission set.
func (g *groupLog) nextSeq(origin engine.DeviceID) uint64 {
	return max(g.vector[origin], g.floor[origin]) + 1
}
