package devicesync

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// memberPeer closes n and connects to at with n's key by hand: a member
// whose key an attacker holds. It returns the connection after at's hello.
// waitNoDial waits until no dial of at's to device id (or addr) is under
// way. After that device closed, a dial that reached it just before would
// still make a session, which would outrank and close a raw peer's in its
// name; a dial from then on finds nothing listening.
func (at *testNode) waitNoDial(id engine.DeviceID, addr string) {
	at.waitUntil("no dial of "+string(id)+" under way", func() bool {
		at.Node.mu.Lock()
		defer at.Node.mu.Unlock()
		for _, tg := range at.targets {
			if tg.dialing && (tg.device == id || tg.addr == addr) {
				return false
			}
		}
		return true
	})
}

func memberPeer(t *testing.T, at, n *testNode) *rawPeer {
	t.Helper()
	addr := n.Addr().String()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	at.waitUntil(n.cfg.Name+" gone", func() bool { return !at.isOnline(n.ID()) })
	at.waitNoDial(n.ID(), addr)
	p, err := dialRaw(t, at.Addr().String(), n.key)
	if err != nil {
		t.Fatal(err)
	}
	p.readType(typeHello)
	return p
}

// With a member's key, an attacker sends ops over a real connection: in
// another member's name, altered after signing, unsigned, signed by a
// member revoked before, and replayed. Each is refused and counted, none
// admits the device it names, the member relays none of them as valid,
// and the connection stays up (a member relays what others wrote).
func TestForgedOpsFromAMemberAreRefusedAndCounted(t *testing.T) {
	g := startGroup(t, "a", "b", "c", "m")
	a, b, c, m := g[0], g[1], g[2], g[3]
	plant := newKey(t)
	plantID := DeviceIDFromPublicKey(plant.Public().(ed25519PublicKey))
	admitPlant := trustedBody{Target: plantID, Key: plant.Public().(ed25519PublicKey), Name: "Living room"}
	group := a.Group()
	cKey, cID := c.key, c.ID()
	if err := a.Revoke(cID); err != nil {
		t.Fatal(err)
	}
	cutoff := a.vectorOf(cID)
	b.waitUntil("b applies c's revocation", func() bool { return !b.isMember(cID) })
	p := memberPeer(t, a, m)
	now := time.Now().UnixMilli()

	waitCount := func(what string, get func(Counters) uint64, want uint64) {
		t.Helper()
		a.waitUntil(what, func() bool { return get(a.Counters()) >= want })
	}
	before := a.Counters()

	// In b's name, signed with m's key.
	forged := signedOp(t, m.key, group, a.vectorOf(b.ID())+1, now, KindTrusted, admitPlant)
	forged.Origin, forged.ID = b.ID(), OpID(b.ID(), forged.Seq)
	_ = p.send(opsMsg{Type: typeOps, Ops: []Op{forged}})
	waitCount("forged origin counted", func(c Counters) uint64 { return c.BadSignature }, before.BadSignature+1)

	// m's own op, its body changed after signing.
	altered := signedOp(t, m.key, group, a.vectorOf(m.ID())+1, now, KindProfileSet, profile{DeviceID: m.ID(), Name: "m"})
	altered.Kind, altered.Body = KindTrusted, mustMarshal(t, admitPlant)
	_ = p.send(opsMsg{Type: typeOps, Ops: []Op{altered}})
	waitCount("forged signature counted", func(c Counters) uint64 { return c.BadSignature }, before.BadSignature+2)

	unsigned := altered
	unsigned.Sig = nil
	_ = p.send(opsMsg{Type: typeOps, Ops: []Op{unsigned}})
	waitCount("unsigned op counted", func(c Counters) uint64 { return c.UnsignedOps }, before.UnsignedOps+1)

	// c's key signs an admission after its revocation.
	late := signedOp(t, cKey, group, cutoff+1, now, KindTrusted, admitPlant)
	_ = p.send(opsMsg{Type: typeOps, Ops: []Op{late}})
	waitCount("op of a revoked key counted", func(c Counters) uint64 { return c.Dropped }, before.Dropped+1)

	// A valid op of b, sent again.
	var bOp Op
	for _, o := range b.store.Ops() {
		if o.Origin == b.ID() {
			bOp = o
		}
	}
	_ = p.send(opsMsg{Type: typeOps, Ops: []Op{bOp}})
	waitCount("replay counted", func(c Counters) uint64 { return c.DuplicateOps }, before.DuplicateOps+1)

	// The connection is still up: a valid op of m goes through and
	// reaches b, and so does the void one, which b ignores too.
	valid := signedOp(t, m.key, group, a.vectorOf(m.ID())+1, time.Now().UnixMilli(), KindProfileSet, profile{DeviceID: m.ID(), Name: "m2"})
	_ = p.send(opsMsg{Type: typeOps, Ops: []Op{valid}})
	b.waitUntil("b gets m's new profile through a", func() bool { return deviceName(b, m.ID()) == "m2" })
	b.waitUntil("b holds c's void op", func() bool { return b.vectorOf(cID) > cutoff })
	for _, n := range []*testNode{a, b} {
		if n.isMember(plantID) || n.isMember(cID) {
			t.Fatalf("%s: members %+v", n.cfg.Name, n.Devices())
		}
	}
	if got := b.Counters().BadSignature + b.Counters().UnsignedOps; got != 0 {
		t.Fatalf("b received %d forged ops through a", got)
	}
	// The planted key cannot connect as a member.
	refused := a.Counters().Refused
	pp, err := dialRaw(t, a.Addr().String(), plant)
	if err != nil {
		t.Fatal(err)
	}
	_ = pp.send(helloMsg{Type: typeHello, Group: group, Profile: profile{DeviceID: plantID}, Vector: VersionVector{}})
	if !pp.closedByPeer() || a.Counters().Refused <= refused {
		t.Fatal("the planted device was served as a member")
	}
}

func deviceName(n *testNode, id engine.DeviceID) string {
	for _, d := range n.Devices() {
		if d.ID == id {
			return d.Name
		}
	}
	return ""
}

func mustMarshal(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A device whose stored group was written before ops were signed, with a
// device planted in it by an op forged in another member's name, leaves
// that group on upgrade: it founds a signed group of its own, tells the
// user which devices to pair again, and the planted device gets nothing;
// the real device, paired again, is a member and the planted one is not.
func TestPlantedDeviceFromBeforeSigningIsNotAMember(t *testing.T) {
	aKey, bKey, plant := newKey(t), newKey(t), newKey(t)
	id := func(k []byte) engine.DeviceID { return DeviceIDFromPublicKey(k) }
	aPub, bPub, pPub := aKey.Public().(ed25519PublicKey), bKey.Public().(ed25519PublicKey), plant.Public().(ed25519PublicKey)
	aID, bID, pID := id(aPub), id(bPub), id(pPub)
	old := NewGroupID()
	legacy := func(origin engine.DeviceID, seq uint64, kind string, body any) Op {
		return Op{ID: OpID(origin, seq), Origin: origin, Seq: seq, HLCms: int64(seq), Kind: kind, Body: mustMarshal(t, body)}
	}
	store := NewMemStore()
	if err := store.ResetGroup(old); err != nil {
		t.Fatal(err)
	}
	if err := store.AppendOps([]Op{
		legacy(aID, 1, KindTrusted, trustedBody{Target: aID, Key: aPub, Name: "Desk"}),
		legacy(aID, 2, KindTrusted, trustedBody{Target: bID, Key: bPub, Name: "Kitchen"}),
		legacy(bID, 1, KindProfileSet, profile{DeviceID: bID, Name: "Kitchen"}),
		// forged by another member in b's name
		legacy(bID, 2, KindTrusted, trustedBody{Target: pID, Key: pPub, Name: "Living room"}),
		legacy(bID, 3, "playlist_create", map[string]string{"name": "Road trip"}),
	}); err != nil {
		t.Fatal(err)
	}

	a := startNode(t, "a", withKey(aKey), withStore(store))
	n := waitEvent(a, func(Notice) bool { return true })
	if a.Group() == old || !validGroupID(a.Group()) {
		t.Fatalf("group %s after upgrade", a.Group())
	}
	if len(a.Devices()) != 1 || a.isMember(pID) || a.isMember(bID) {
		t.Fatalf("members after upgrade: %+v", a.Devices())
	}
	for _, o := range store.Ops() {
		if len(o.Sig) == 0 {
			t.Fatalf("unsigned op %s kept", o.ID)
		}
	}
	t.Log(n.Text)
	// The app gets the old group's playlists and the like to carry over.
	left := waitEvent(a, func(GroupLeft) bool { return true })
	if left.Group != old || len(left.AppOps) != 1 || left.AppOps[0].Kind != "playlist_create" {
		t.Fatalf("left %+v", left)
	}

	refused := a.Counters().Refused
	pp, err := dialRaw(t, a.Addr().String(), plant)
	if err != nil {
		t.Fatal(err)
	}
	_ = pp.send(helloMsg{Type: typeHello, Group: old, Profile: profile{DeviceID: pID}, Vector: VersionVector{}})
	if !pp.closedByPeer() || a.Counters().Refused <= refused {
		t.Fatal("the planted device was served")
	}

	b := startNode(t, "b", withKey(bKey))
	pair(t, a, b)
	if !a.isMember(bID) || a.isMember(pID) || b.isMember(pID) {
		t.Fatalf("after pairing again: a %+v, b %+v", a.Devices(), b.Devices())
	}
}
