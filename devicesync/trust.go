package devicesync

import (
	"cmp"
	"crypto/ed25519"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/furudesk/furudesk/engine"
)

// Membership of a group is derived only from verified ops, the same way on
// every device that holds the same ops:
//
//  1. The group's root op (its founder's first op, kind group_root) admits
//     the founder. It is valid only if the founder's id and the root's
//     nonce hash to the group id.
//  2. device_trusted ops admit their target, device_revoked ops remove it.
//     The latest of them by (HLC, op id) decides whether a device is a
//     member (last writer wins): a device removed by mistake is admitted
//     again by a later device_trusted.
//  3. An op counts only if its origin was entitled to write it: admitted by
//     an op that counts, and its seq not above the cutoff of a revocation
//     that counts and came after the origin's latest admission. So a
//     revocation voids what the revoked device did after its cutoff (the
//     devices it admitted, its own revocations), until it is admitted again.
//
// Rule 3 makes ops depend on each other. Revocations are decided one by
// one, the latest (HLC, op id) first: one counts if its author is entitled
// to it under the revocations that count so far; the revocations decided
// before that it voids (their author revoked below their seq) then stop
// counting, unless one of them also voids it: of two revocations that void
// each other (each written without having seen the other), the later one
// counts, as the last writer wins. Admissions count while their author is
// entitled under the revocations that count. A void op has no effect.

// trust is the membership a groupLog's ops describe.
type trust struct {
	root     engine.DeviceID
	keys     map[engine.DeviceID]ed25519.PublicKey // every key an op carried for its device
	standing map[engine.DeviceID]*standing
	members  map[engine.DeviceID]*member
	floor    map[engine.DeviceID]uint64 // highest FromSeq of a valid admission
	// order lists the origins as sync sends them: the root, then each in
	// the (HLC, id) order of the first op admitting it, so that an
	// origin's ops never reach a device before its key does.
	order []engine.DeviceID
}

// standing is what the membership ops say about one device.
type standing struct {
	admitted bool   // some valid op admitted it
	member   bool   // its latest valid membership op admits it
	cutoff   uint64 // its ops above this seq are void
	name     string // from its latest admission
}

// memOp is a parsed membership op (root, trusted or revoked).
type memOp struct {
	op      Op
	admits  bool
	target  engine.DeviceID
	key     ed25519.PublicKey
	name    string
	fromSeq uint64
	cutoff  uint64
}

// parseMembership parses a membership op of group; ok is false for an op
// of another kind and for a malformed one.
func parseMembership(group string, o Op) (m memOp, isMembership, ok bool) {
	m.op = o
	switch o.Kind {
	case KindGroupRoot:
		var b rootBody
		if json.Unmarshal(o.Body, &b) != nil || o.Seq != 1 || len(b.Key) != ed25519.PublicKeySize ||
			DeviceIDFromPublicKey(b.Key) != o.Origin || groupIDFor(o.Origin, b.Nonce) != group {
			return m, true, false
		}
		m.admits, m.target, m.key, m.name = true, o.Origin, b.Key, b.Name
	case KindTrusted:
		var b trustedBody
		if json.Unmarshal(o.Body, &b) != nil || !ValidDeviceID(b.Target) || b.Target == o.Origin ||
			len(b.Key) != ed25519.PublicKeySize || DeviceIDFromPublicKey(b.Key) != b.Target {
			return m, true, false
		}
		m.admits, m.target, m.key, m.name, m.fromSeq = true, b.Target, b.Key, b.Name, b.FromSeq
	case KindRevoked:
		var b revokedBody
		if json.Unmarshal(o.Body, &b) != nil || !ValidDeviceID(b.Target) {
			return m, true, false
		}
		m.target, m.cutoff = b.Target, b.TargetMaxSeqSeen
	default:
		return m, false, false
	}
	return m, true, true
}

// derive recomputes keys, standings, members and profiles from the log.
func (g *groupLog) derive() {
	t := trust{keys: map[engine.DeviceID]ed25519.PublicKey{}, members: map[engine.DeviceID]*member{}, floor: map[engine.DeviceID]uint64{}}
	var ms []memOp
	var root *memOp
	var profiles []Op
	g.each(func(o Op) {
		if o.Kind == KindProfileSet {
			profiles = append(profiles, o)
			return
		}
		m, isM, ok := parseMembership(g.group, o)
		if !isM || !ok {
			return
		}
		if m.key != nil {
			t.keys[m.target] = m.key
		}
		if o.Kind == KindGroupRoot {
			root = &m
			return
		}
		ms = append(ms, m)
	})
	slices.SortFunc(ms, func(a, b memOp) int {
		switch {
		case a.op.later(b.op):
			return 1
		case b.op.later(a.op):
			return -1
		}
		return 0
	})
	firstAdmitted := map[engine.DeviceID]bool{}
	if root != nil {
		t.order = append(t.order, root.target)
		firstAdmitted[root.target] = true
	}
	for _, m := range ms {
		if m.admits && !firstAdmitted[m.target] {
			firstAdmitted[m.target] = true
			t.order = append(t.order, m.target)
		}
	}
	counted, st := decide(root, ms)
	t.standing = st
	if root != nil {
		t.root = root.target
	}
	for _, m := range ms {
		if m.admits && counted[m.op.ID] {
			t.floor[m.target] = max(t.floor[m.target], m.fromSeq)
		}
	}
	for id, s := range t.standing {
		if s.member {
			t.members[id] = &member{id: id, key: t.keys[id], profile: profile{DeviceID: id, Name: s.name}}
		}
	}
	for _, o := range profiles {
		var b profileBody
		m := t.members[o.Origin]
		if m == nil || !t.allows(o.Origin, o.Seq) || json.Unmarshal(o.Body, &b) != nil || b.DeviceID != o.Origin {
			continue
		}
		if m.profOp.ID != "" && !o.later(m.profOp) {
			continue
		}
		m.profile, m.profOp = b, o
	}
	g.trust = t
}

// decide returns the membership ops (of ms, sorted by (HLC, id)) that
// count and the standings they give, by the rules above.
func decide(root *memOp, ms []memOp) (map[string]bool, map[engine.DeviceID]*standing) {
	all := map[string]bool{}
	for _, m := range ms {
		if m.admits {
			all[m.op.ID] = true
		}
	}
	byID := map[string]memOp{}
	for _, m := range ms {
		byID[m.op.ID] = m
	}
	revs := map[string]bool{}
	trusts := maps.Clone(all)
	st := shrink(root, ms, trusts, revs)
	for i := len(ms) - 1; i >= 0; i-- {
		r := ms[i]
		if r.admits || !allows(st, r.op.Origin, r.op.Seq) {
			continue
		}
		r2 := maps.Clone(revs)
		r2[r.op.ID] = true
		for {
			t2 := maps.Clone(all)
			st2 := shrink(root, ms, t2, r2)
			var bad []string
			for id := range r2 {
				if m := byID[id]; !allows(st2, m.op.Origin, m.op.Seq) {
					bad = append(bad, id)
				}
			}
			if slices.Contains(bad, r.op.ID) {
				break // a revocation decided before voids this one
			}
			if len(bad) == 0 {
				revs, trusts, st = r2, t2, st2
				break
			}
			for _, id := range bad {
				delete(r2, id) // this one voids them, and they do not void it
			}
		}
	}
	counted := trusts
	for id := range revs {
		counted[id] = true
	}
	return counted, st
}

// shrink removes from trusts the admissions whose author is not entitled
// to them under trusts and revs, until none is left to remove, and returns
// the standings that remain.
func shrink(root *memOp, ms []memOp, trusts, revs map[string]bool) map[engine.DeviceID]*standing {
	for {
		st := standings(root, ms, func(m memOp) bool { return trusts[m.op.ID] || revs[m.op.ID] })
		removed := false
		for _, m := range ms {
			if m.admits && trusts[m.op.ID] && !allows(st, m.op.Origin, m.op.Seq) {
				delete(trusts, m.op.ID)
				removed = true
			}
		}
		if !removed {
			return st
		}
	}
}

// standings applies the membership ops that count in (HLC, id) order, the
// root first.
func standings(root *memOp, ms []memOp, counts func(memOp) bool) map[engine.DeviceID]*standing {
	st := map[engine.DeviceID]*standing{}
	get := func(id engine.DeviceID) *standing {
		s := st[id]
		if s == nil {
			s = &standing{cutoff: math.MaxUint64}
			st[id] = s
		}
		return s
	}
	if root != nil {
		s := get(root.target)
		s.admitted, s.member, s.name = true, true, root.name
	}
	for _, m := range ms {
		if !counts(m) {
			continue
		}
		s := get(m.target)
		if m.admits {
			s.admitted, s.member, s.cutoff, s.name = true, true, math.MaxUint64, m.name
		} else {
			s.member = false
			s.cutoff = min(s.cutoff, m.cutoff)
		}
	}
	return st
}

func allows(st map[engine.DeviceID]*standing, origin engine.DeviceID, seq uint64) bool {
	s := st[origin]
	return s != nil && s.admitted && seq <= s.cutoff
}

// allows reports whether origin was entitled to write its op number seq.
func (t *trust) allows(origin engine.DeviceID, seq uint64) bool {
	return allows(t.standing, origin, seq)
}

// isMember reports whether id is a member now.
func (t *trust) isMember(id engine.DeviceID) bool { return t.members[id] != nil }

// isRevoked reports whether id was a member and was removed since.
func (t *trust) isRevoked(id engine.DeviceID) bool {
	s := t.standing[id]
	return s != nil && s.admitted && !s.member
}

// memberIDs returns the members sorted by id.
func (t *trust) memberIDs() []engine.DeviceID { return slices.Sorted(maps.Keys(t.members)) }

// keyFor returns the key o's signature is checked against: the key its
// root carries for a root op, else the key the log holds for its origin.
func (g *groupLog) keyFor(o Op) ed25519.PublicKey {
	if o.Kind == KindGroupRoot {
		if m, _, ok := parseMembership(g.group, o); ok {
			return m.key
		}
		return nil
	}
	return g.keys[o.Origin]
}

// rejects counts the ops admit refused or found void, by reason.
type rejects struct {
	duplicate int // held already: a replay, or the same op from two relays
	unsigned  int // no signature (a device of a version before signing)
	badSig    int // signature not the origin's over these bytes: forged origin or forged op
	unknown   int // origin has no key in the group
	malformed int // membership op that does not parse, or dated too far ahead
	void      int // stored but void: its origin was revoked at that seq, or never admitted
}

func (r rejects) refused() int {
	return r.unsigned + r.badSig + r.unknown + r.malformed + r.void
}

// admit checks ops and stores those that are new and signed by their
// origin in this group: verified against the key the log holds for the
// origin (possibly carried by an op earlier in the same batch), and not
// dated after maxHLC (zero: no bound). An origin's ops after one that was
// refused are refused too, so that its vector never skips an op a relay
// altered: the next sync offers them again. It returns the ops it stored,
// in the order given.
//
// A verified op that is void (its origin revoked at that seq, say) is
// stored and counted, but counts for nothing: no membership, no command,
// no profile. It is kept, and relayed, so that every member ends with the
// same ops and so derives the same membership whatever order they came in
// (with conflicting revocations, which ops turn void depends on which
// ops are there).
func (g *groupLog) admit(ops []Op, maxHLC int64) ([]Op, rejects) {
	var r rejects
	pending := slices.Clone(ops)
	slices.SortStableFunc(pending, func(a, b Op) int {
		if c := strings.Compare(string(a.Origin), string(b.Origin)); c != 0 {
			return c
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	failed := map[engine.DeviceID]bool{}
	kept := map[string]bool{}
	for {
		var deferred []Op
		accepted := 0
		for _, o := range pending {
			_, isM, ok := parseMembership(g.group, o)
			switch {
			case g.holds(o):
				r.duplicate++
				continue
			case failed[o.Origin]:
				r.badSig++
				continue
			case (maxHLC > 0 && o.HLCms > maxHLC) || (isM && !ok):
				r.malformed++
				failed[o.Origin] = true
				continue
			}
			key := g.keyFor(o)
			if key == nil {
				deferred = append(deferred, o)
				continue
			}
			if err := verifyOp(key, g.group, o); err != nil {
				if len(o.Sig) == 0 {
					r.unsigned++
				} else {
					r.badSig++
				}
				failed[o.Origin] = true
				continue
			}
			g.insert([]Op{o})
			kept[o.ID] = true
			accepted++
		}
		if accepted > 0 {
			g.derive()
		}
		if accepted == 0 || len(deferred) == 0 {
			r.unknown += len(deferred)
			break
		}
		pending = deferred
	}
	var added []Op
	for _, o := range ops {
		if kept[o.ID] {
			added = append(added, o)
			delete(kept, o.ID)
			if !g.allows(o.Origin, o.Seq) {
				r.void++
			}
		}
	}
	return added, r
}
