package devicesync

import (
	"crypto/ed25519"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/furudesk/furudesk/engine"
)

// testGroup writes signed ops of a group for the pure tests: the first
// device named founds it.
type testGroup struct {
	t     testing.TB
	group string
	nonce string
	keys  map[string]ed25519.PrivateKey
	seq   map[string]uint64
}

func newTestGroup(t testing.TB, founder string, others ...string) *testGroup {
	tg := &testGroup{t: t, keys: map[string]ed25519.PrivateKey{}, seq: map[string]uint64{}, nonce: "n0nce"}
	for _, name := range append([]string{founder}, others...) {
		tg.keys[name] = newKey(t)
	}
	tg.group = groupIDFor(tg.id(founder), tg.nonce)
	return tg
}

func (tg *testGroup) id(name string) engine.DeviceID {
	k, ok := tg.keys[name]
	if !ok {
		k = newKey(tg.t)
		tg.keys[name] = k
	}
	return DeviceIDFromPublicKey(k.Public().(ed25519.PublicKey))
}

func (tg *testGroup) pub(name string) ed25519.PublicKey {
	tg.id(name)
	return tg.keys[name].Public().(ed25519.PublicKey)
}

// op is name's next op, signed with its key.
func (tg *testGroup) op(name string, hlc int64, kind string, body any) Op {
	tg.t.Helper()
	tg.seq[name]++
	return tg.opAt(name, tg.seq[name], hlc, kind, body)
}

func (tg *testGroup) opAt(name string, seq uint64, hlc int64, kind string, body any) Op {
	tg.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		tg.t.Fatal(err)
	}
	id := tg.id(name)
	o := Op{ID: OpID(id, seq), Origin: id, Seq: seq, HLCms: hlc, Kind: kind, Body: b}
	if err := signOp(tg.keys[name], tg.group, &o); err != nil {
		tg.t.Fatal(err)
	}
	return o
}

// root is the founder's op 1.
func (tg *testGroup) root(founder string, hlc int64) Op {
	tg.seq[founder] = max(tg.seq[founder], 1)
	return tg.opAt(founder, 1, hlc, KindGroupRoot, rootBody{Key: tg.pub(founder), Nonce: tg.nonce, Name: founder})
}

func (tg *testGroup) trust(by, target string, hlc int64) Op {
	return tg.op(by, hlc, KindTrusted, trustedBody{Target: tg.id(target), Key: tg.pub(target), Name: target})
}

func (tg *testGroup) revoke(by, target string, cutoff uint64, hlc int64) Op {
	return tg.op(by, hlc, KindRevoked, revokedBody{Target: tg.id(target), TargetMaxSeqSeen: cutoff})
}

func (tg *testGroup) profile(name string, hlc int64, shown string) Op {
	return tg.op(name, hlc, KindProfileSet, profile{DeviceID: tg.id(name), Name: shown})
}

// log admits ops into a new log of the group and fails if one is not
// stored.
func (tg *testGroup) log(ops ...Op) *groupLog {
	tg.t.Helper()
	g := newGroupLog(tg.group)
	if _, r := g.admit(ops, 0); r.refused() > r.void {
		tg.t.Fatalf("refused %+v", r)
	}
	return g
}

func (tg *testGroup) members(g *groupLog) []string {
	var out []string
	for name := range tg.keys {
		if g.isMember(tg.id(name)) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func wantMembers(t *testing.T, tg *testGroup, g *groupLog, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := tg.members(g); !slices.Equal(got, want) {
		t.Fatalf("members %v, want %v", got, want)
	}
}

// The group id commits to its founder: only the founder's root, signed by
// it, admits anyone; a root of another device, or one whose nonce does not
// hash to the group id, is refused.
func TestGroupRootIsBoundToTheGroupID(t *testing.T) {
	tg := newTestGroup(t, "a", "b", "m")
	g := tg.log(tg.root("a", 1), tg.trust("a", "b", 2))
	wantMembers(t, tg, g, "a", "b")

	// m claims to be the root of a's group, with its own key or a's.
	g = tg.log(tg.root("a", 1))
	forged := tg.opAt("m", 1, 5, KindGroupRoot, rootBody{Key: tg.pub("m"), Nonce: tg.nonce})
	stolenNonce := tg.opAt("m", 1, 5, KindGroupRoot, rootBody{Key: tg.pub("a"), Nonce: tg.nonce})
	for _, o := range []Op{forged, stolenNonce} {
		if added, r := g.admit([]Op{o}, 0); len(added) != 0 || r.malformed != 1 {
			t.Fatalf("root of another device: added %v, %+v", added, r)
		}
	}
	// A root re-signed by someone else in the founder's name does not verify.
	fake := tg.opAt("a", 1, 1, KindGroupRoot, rootBody{Key: tg.pub("a"), Nonce: tg.nonce})
	fake.Sig = sign(tg.keys["m"], sigDomainOp, fake.Origin, mustFields(t, tg.group, fake)...)
	if _, r := newGroupLog(tg.group).admit([]Op{fake}, 0); r.badSig != 1 {
		t.Fatalf("root signed by another key: %+v", r)
	}
	wantMembers(t, tg, newGroupLog(tg.group))
}

func mustFields(t *testing.T, group string, o Op) [][]byte {
	f, err := opFields(group, o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// An op in another origin's name, an altered op, an op of a device the
// group never admitted, and an unsigned op are each refused and counted;
// the refused op does not let the origin's later ops in either.
func TestForgedOpsAreRefused(t *testing.T) {
	tg := newTestGroup(t, "a", "b", "m", "p")
	g := tg.log(tg.root("a", 1), tg.trust("a", "b", 2), tg.trust("a", "m", 3))

	// m writes "b admits p" with its own key.
	forgedOrigin := tg.opAt("m", 1, 10, KindTrusted, trustedBody{Target: tg.id("p"), Key: tg.pub("p")})
	forgedOrigin.Origin, forgedOrigin.ID = tg.id("b"), OpID(tg.id("b"), 1)
	// a genuine op of b with its body changed afterwards.
	altered := tg.opAt("b", 1, 11, KindProfileSet, profile{DeviceID: tg.id("b"), Name: "b"})
	altered.Body = json.RawMessage(`{"device_id":"` + string(tg.id("b")) + `","name":"Living room"}`)
	next := tg.opAt("b", 2, 12, KindProfileSet, profile{DeviceID: tg.id("b"), Name: "ok"})
	// p was never admitted.
	stranger := tg.opAt("p", 1, 13, KindTrusted, trustedBody{Target: tg.id("m"), Key: tg.pub("m")})
	unsigned := tg.opAt("m", 1, 14, KindProfileSet, profile{DeviceID: tg.id("m")})
	unsigned.Sig = nil

	for _, c := range []struct {
		name string
		ops  []Op
		want rejects
	}{
		{"forged origin", []Op{forgedOrigin}, rejects{badSig: 1}},
		{"altered op and the next of its origin", []Op{altered, next}, rejects{badSig: 2}},
		{"unknown origin", []Op{stranger}, rejects{unknown: 1}},
		{"unsigned", []Op{unsigned}, rejects{unsigned: 1}},
	} {
		added, r := g.admit(c.ops, 0)
		if len(added) != 0 || r != c.want {
			t.Errorf("%s: added %d, rejects %+v, want %+v", c.name, len(added), r, c.want)
		}
	}
	wantMembers(t, tg, g, "a", "b", "m")
	if g.vector[tg.id("b")] != 0 {
		t.Fatal("b's vector moved past a refused op")
	}
	// The genuine op then goes in, and a replay of it is a duplicate.
	good := tg.opAt("b", 1, 11, KindProfileSet, profile{DeviceID: tg.id("b"), Name: "b"})
	if added, r := g.admit([]Op{good, next, good}, 0); len(added) != 2 || r.duplicate != 1 {
		t.Fatalf("added %d, %+v", len(added), r)
	}
	if _, r := g.admit([]Op{good, next}, 0); r.duplicate != 2 {
		t.Fatalf("replay: %+v", r)
	}
	// An op of this group does not verify in another one.
	other := newGroupLog(groupIDFor(tg.id("a"), "other"))
	if err := verifyOp(tg.pub("b"), other.group, good); err == nil {
		t.Fatal("an op verified in another group")
	}
}

// A revocation voids what the revoked device did after its cutoff, the
// devices it admitted among it, even when relayed later by someone else;
// ops up to the cutoff stay.
func TestRevocationVoidsWhatCameAfterItsCutoff(t *testing.T) {
	tg := newTestGroup(t, "a", "b", "c", "x", "y")
	ops := []Op{tg.root("a", 1), tg.trust("a", "c", 2)}
	early := tg.trust("c", "x", 3) // c:1, before the cutoff
	ops = append(ops, early, tg.revoke("a", "c", 1, 5))
	g := tg.log(ops...)
	wantMembers(t, tg, g, "a", "x")

	late := tg.trust("c", "y", 4) // c:2, above the cutoff, dated before the revocation
	if _, r := g.admit([]Op{late}, 0); r.void != 1 {
		t.Fatalf("late op of a revoked device: %+v", r)
	}
	wantMembers(t, tg, g, "a", "x")
	// Had it arrived first, the revocation voids it when it comes.
	g2 := tg.log(ops[0], ops[1], early, late)
	wantMembers(t, tg, g2, "a", "c", "x", "y")
	g2.admit([]Op{ops[3]}, 0)
	wantMembers(t, tg, g2, "a", "x")
}

// Trust and revocation are last-writer-wins by HLC: a device removed by
// mistake is admitted again (and its history counts again), a revocation
// written after an admission wins, and a device that leaves revokes itself
// with its own op, which still counts.
func TestMembershipIsLastWriterWins(t *testing.T) {
	tg := newTestGroup(t, "a", "b", "c")
	root := tg.root("a", 1)
	tb := tg.trust("a", "b", 2)
	pb := tg.profile("b", 3, "Kitchen")
	rb := tg.revoke("a", "b", 0, 4) // a saw nothing of b: everything of b is void
	g := tg.log(root, tb, pb, rb)
	wantMembers(t, tg, g, "a")
	again := tg.op("a", 5, KindTrusted, trustedBody{Target: tg.id("b"), Key: tg.pub("b"), Name: "b", FromSeq: 1})
	g.admit([]Op{again}, 0)
	wantMembers(t, tg, g, "a", "b")
	if got := g.members[tg.id("b")].profile.Name; got != "Kitchen" {
		t.Fatalf("b's profile after re-admission: %q", got)
	}
	if got := g.nextSeq(tg.id("b")); got != 2 {
		t.Fatalf("b's next seq %d, want above the admission's from_seq", got)
	}
	// Concurrent admission and revocation: the later HLC wins, whatever
	// the arrival order.
	tc := tg.trust("a", "c", 10)
	rc := tg.revoke("b", "c", 0, 11)
	for _, order := range [][]Op{{tc, rc}, {rc, tc}} {
		g := tg.log(root, tb, again)
		g.admit(order, 0)
		g.admit(order, 0) // what was void on arrival is offered again
		wantMembers(t, tg, g, "a", "b")
	}
	// Leaving: c revokes itself; the op is c's own and counts.
	g = tg.log(root, tb, again, tc)
	leave := tg.opAt("c", 1, 20, KindRevoked, revokedBody{Target: tg.id("c"), TargetMaxSeqSeen: 1})
	if added, r := g.admit([]Op{leave}, 0); len(added) != 1 {
		t.Fatalf("self-revocation refused: %+v", r)
	}
	wantMembers(t, tg, g, "a", "b")
}

// Ops dated further ahead than the receiver allows are refused: an op
// dated far ahead would win against every later revocation.
func TestFutureOpsAreRefused(t *testing.T) {
	tg := newTestGroup(t, "a", "b")
	g := tg.log(tg.root("a", 1))
	if added, r := g.admit([]Op{tg.trust("a", "b", 1000)}, 999); len(added) != 0 || r.malformed != 1 {
		t.Fatalf("added %v, %+v", added, r)
	}
}

// Devices that each start with the ops they wrote and then sync in random
// pairs, with random batch sizes, a batch always computed from what the
// receiver holds, until nothing changes, all end with the
// same ops and the same membership and profiles, the ones a device that got
// every op in order derives. Each seed builds a random history of
// admissions, revocations (with cutoffs anywhere, so revocations void each
// other), self-revocations and profiles; a failure prints the seed.
func TestMembershipConvergesWhateverTheArrivalOrder(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f"}
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		tg := newTestGroup(t, names[0], names[1:]...)
		ops := []Op{tg.root("a", 1)}
		// A device writes in the group once it joined it (a revoked one
		// may go on writing), after every op it saw: HLCs are causal.
		joined := []string{"a"}
		for i := range 30 {
			by, target := joined[rng.IntN(len(joined))], names[rng.IntN(len(names))]
			hlc := int64(2 + i)
			switch rng.IntN(4) {
			case 0, 1:
				if by != target {
					ops = append(ops, tg.trust(by, target, hlc))
					if !slices.Contains(joined, target) {
						joined = append(joined, target)
					}
				}
			case 2:
				ops = append(ops, tg.revoke(by, target, uint64(rng.IntN(4)), hlc))
			default:
				ops = append(ops, tg.profile(by, hlc, by+"'"))
			}
		}
		ref := newGroupLog(tg.group)
		ref.insert(ops)
		ref.derive()

		logs := map[string]*groupLog{}
		for _, name := range names {
			g := newGroupLog(tg.group)
			for _, o := range ops {
				if o.Origin == tg.id(name) {
					g.insert([]Op{o}) // what appendLocalLocked does
				}
			}
			g.derive()
			logs[name] = g
		}
		for changed := true; changed; {
			changed = false
			for range 4 * len(names) * len(names) {
				src, dst := logs[names[rng.IntN(len(names))]], logs[names[rng.IntN(len(names))]]
				if added, _ := dst.admit(src.missing(dst.vectorCopy(), 1+rng.IntN(8), nil), 0); len(added) > 0 {
					changed = true
				}
			}
		}
		// Ops of a device whose key only reaches others in ops they cannot
		// verify stay with their author.
		verifiable := map[engine.DeviceID]bool{tg.id("a"): true}
		for grew := true; grew; {
			grew = false
			for _, o := range ops {
				if m, _, ok := parseMembership(tg.group, o); ok && m.admits && verifiable[o.Origin] && !verifiable[m.target] {
					verifiable[m.target], grew = true, true
				}
			}
		}
		known := func(g *groupLog) (n int) {
			for id, ops := range g.byOrigin {
				if verifiable[id] {
					n += len(ops)
				}
			}
			return n
		}
		for _, name := range names {
			g := logs[name]
			if known(g) != known(ref) || !slices.Equal(g.memberIDs(), ref.memberIDs()) {
				t.Fatalf("seed %d: %s holds %d ops, members %v; all ops give %d, %v", seed, name, known(g), g.memberIDs(), known(ref), ref.memberIDs())
			}
			for _, id := range ref.memberIDs() {
				if g.members[id].profile.Name != ref.members[id].profile.Name {
					t.Fatalf("seed %d: %s sees profile %q of %s, want %q", seed, name, g.members[id].profile.Name, id, ref.members[id].profile.Name)
				}
			}
		}
	}
}

// A revoked device cannot undo its revocation with ops above its cutoff,
// whatever their date: they count for nothing, not even against the
// device that revoked it. Between two revocations that void each other,
// the later one counts.
func TestRevokedDeviceCannotStrikeBack(t *testing.T) {
	tg := newTestGroup(t, "a", "b", "t")
	base := []Op{tg.root("a", 1), tg.trust("a", "b", 2), tg.trust("a", "t", 3), tg.profile("t", 4, "t")}
	rev := tg.revoke("a", "t", 1, 10)      // a saw t:1
	backdated := tg.revoke("t", "a", 0, 5) // t:2, unseen by a
	later := tg.revoke("t", "b", 0, 11)    // t:3
	admit := tg.trust("t", "x", 12)        // t:4
	g := tg.log(append(base, rev, backdated, later, admit)...)
	wantMembers(t, tg, g, "a", "b")

	// a and m revoke each other, each without having seen the other's op.
	tg2 := newTestGroup(t, "a", "m", "c")
	base2 := []Op{tg2.root("a", 1), tg2.trust("a", "m", 2), tg2.trust("a", "c", 3)}
	aRevokesM := tg2.revoke("a", "m", 0, 20)
	mRevokesA := tg2.revoke("m", "a", 3, 21) // m saw a:1..a:3, not a:4
	wantMembers(t, tg2, tg2.log(append(base2, aRevokesM, mRevokesA)...), "m", "c")
	tg2.seq = map[string]uint64{"a": 3, "m": 0}
	aRevokesM = tg2.revoke("a", "m", 0, 22)
	mRevokesA = tg2.revoke("m", "a", 3, 21)
	wantMembers(t, tg2, tg2.log(append(base2, aRevokesM, mRevokesA)...), "a", "c")
}

// An op's signature survives the wire and the database: encoding/json
// escapes <, > and & in a body when it sends it, and signatures cover that
// form; the same body with other spacing or escaping still verifies, a
// changed one does not.
func TestOpSignatureSurvivesTheWire(t *testing.T) {
	tg := newTestGroup(t, "a")
	o := tg.opAt("a", 2, 5, KindProfileSet, json.RawMessage(`{"device_id": "x", "name": "Simon & Garfunkel <live>"}`))
	line, err := encodeLine(opsMsg{Type: typeOps, Ops: []Op{o}}, MaxLineBytes)
	if err != nil {
		t.Fatal(err)
	}
	m, err := decodeLine(line)
	if err != nil {
		t.Fatal(err)
	}
	got := m.(opsMsg).Ops[0]
	if err := verifyOp(tg.pub("a"), tg.group, got); err != nil {
		t.Fatalf("after the wire: %v (%s)", err, got.Body)
	}
	spaced := got
	spaced.Body = json.RawMessage(`{ "device_id" : "x", "name" : "Simon \u0026 Garfunkel \u003clive\u003e" }`)
	if err := verifyOp(tg.pub("a"), tg.group, spaced); err != nil {
		t.Fatalf("other spacing: %v", err)
	}
	raw := got
	raw.Body = json.RawMessage(`{"device_id":"x","name":"Simon & Garfunkel <live>"}`)
	if err := verifyOp(tg.pub("a"), tg.group, raw); err != nil {
		t.Fatalf("unescaped: %v", err)
	}
	changed := got
	changed.Body = json.RawMessage(`{"device_id":"x","name":"Simon & Garfunkel <live>!"}`)
	if err := verifyOp(tg.pub("a"), tg.group, changed); err == nil {
		t.Fatal("a changed body verified")
	}
}

// A snapshot whose state holds characters encoding/json escapes when it
// sends them (a title "Simon & Garfunkel <Live>") reaches the other
// member, directly and relayed: its signature covers the bytes it travels
// as.
func TestSnapshotWithEscapedCharactersVerifies(t *testing.T) {
	g := startGroup(t, "a", "b")
	a, b := g[0], g[1]
	state := `{"title":"Simon & Garfunkel <Live>"}`
	if err := a.PublishSnapshot(json.RawMessage(state), coord(a, 1)); err != nil {
		t.Fatal(err)
	}
	got := waitEvent(b, func(s SnapshotReceived) bool { return s.From == a.ID() })
	var v struct{ Title string }
	if err := json.Unmarshal(got.State, &v); err != nil || v.Title != "Simon & Garfunkel <Live>" {
		t.Fatalf("state %s: %v", got.State, err)
	}
	if c := b.Counters(); c.Spoofed != 0 {
		t.Fatalf("counters %+v", c)
	}
}
