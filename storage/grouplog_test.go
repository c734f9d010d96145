package storage

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

func mustIdentity(t *testing.T, s *Store, group string) {
	t.Helper()
	if err := s.CreateIdentity(Identity{PrivateKey: testKey(1), DeviceID: "dev_self", GroupID: group, DeviceName: "Laptop"}); err != nil {
		t.Fatal(err)
	}
}

func opIDs(ops []Op) []string {
	ids := []string{}
	for _, o := range ops {
		ids = append(ids, o.ID)
	}
	return ids
}

// TestGroupLogResetAndReload walks a device through founding a group,
// logging ops, moving to another group, and a restart: the log always
// belongs to the group it was written for.
func TestGroupLogResetAndReload(t *testing.T) {
	s, dir := openTemp(t)
	if g, ops, err := s.GroupLog(); g != "" || ops != nil || err != nil {
		t.Fatalf("new installation: GroupLog = %q %v %v", g, ops, err)
	}
	if err := s.ResetGroup("grp_a"); !errors.Is(err, ErrNoIdentity) {
		t.Fatalf("ResetGroup without identity: %v", err)
	}
	if g, _, _ := s.GroupLog(); g != "" {
		t.Fatalf("a failed ResetGroup set the group %q", g)
	}
	mustIdentity(t, s, "grp_initial")
	for _, bad := range []string{"", strings.Repeat("g", MaxIDBytes+1)} {
		if err := s.ResetGroup(bad); !errors.Is(err, ErrInvalid) {
			t.Fatalf("ResetGroup(%q): %v", bad, err)
		}
	}
	if err := s.ResetGroup("grp_a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendOps([]Op{testOp("dev_b", 2), testOp("dev_a", 1), testOp("dev_b", 1)}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutDevice(testDevice("dev_b")); err != nil {
		t.Fatal(err)
	}
	cp := engine.Checkpoint{Group: "grp_a", Device: "dev_self", Claim: engine.Claim{Counter: 3, Issuer: "dev_self", Owner: "dev_self"}}
	if err := s.Commit(Transition{Checkpoint: &cp}); err != nil {
		t.Fatal(err)
	}
	g, ops, err := s.GroupLog()
	if err != nil || g != "grp_a" {
		t.Fatalf("GroupLog = %q, %v", g, err)
	}
	if want := []string{"dev_a:1", "dev_b:1", "dev_b:2"}; !reflect.DeepEqual(opIDs(ops), want) {
		t.Fatalf("ops %v, want %v (origin, seq order)", opIDs(ops), want)
	}
	if !reflect.DeepEqual(ops[0], testOp("dev_a", 1)) {
		t.Fatalf("op did not round-trip: %+v", ops[0])
	}
	if id, _ := s.Identity(); id.GroupID != "grp_a" {
		t.Fatalf("identity group %q after ResetGroup", id.GroupID)
	}

	// The actor's SetGroup follows the sync layer; it never touches the log.
	if err := s.SetGroup("grp_a"); err != nil {
		t.Fatal(err)
	}
	if _, ops, _ := s.GroupLog(); len(ops) != 3 {
		t.Fatalf("SetGroup changed the log: %d ops", len(ops))
	}

	if err := s.ResetGroup("grp_b"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendOps([]Op{testOp("dev_c", 1)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	g, ops, err = s2.GroupLog()
	if err != nil || g != "grp_b" || !reflect.DeepEqual(opIDs(ops), []string{"dev_c:1"}) {
		t.Fatalf("after moving to grp_b and reopening: %q %v %v", g, opIDs(ops), err)
	}
	if devs, err := s2.Devices(); err != nil || len(devs) != 0 {
		t.Fatalf("devices of the old group kept: %+v %v", devs, err)
	}
	if id, _ := s2.Identity(); id.GroupID != "grp_b" {
		t.Fatalf("identity group %q", id.GroupID)
	}
	if _, ok, err := s2.LoadCheckpoint("grp_a"); err != nil || !ok {
		t.Fatalf("the old group's checkpoint went: %v %v", ok, err)
	}
}

// TestResetGroupIsAtomic makes the last statement of ResetGroup fail and
// requires the database to be exactly as before.
func TestResetGroupIsAtomic(t *testing.T) {
	s, _ := openTemp(t)
	mustIdentity(t, s, "grp_initial")
	if err := s.ResetGroup("grp_a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendOps([]Op{testOp("dev_a", 1), testOp("dev_a", 2)}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutDevice(testDevice("dev_a")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`CREATE TRIGGER fail_devices BEFORE DELETE ON devices BEGIN SELECT RAISE(ABORT, 'injected'); END`); err != nil {
		t.Fatal(err)
	}
	before := dump(t, s.db)
	if err := s.ResetGroup("grp_b"); err == nil || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("ResetGroup with a failing delete: %v", err)
	}
	if after := dump(t, s.db); after != before {
		t.Fatalf("a failed ResetGroup changed the database:\n%s\nwant:\n%s", after, before)
	}
	if g, ops, err := s.GroupLog(); err != nil || g != "grp_a" || len(ops) != 2 {
		t.Fatalf("GroupLog after the failure = %q %d %v", g, len(ops), err)
	}
}

func TestDeleteOps(t *testing.T) {
	s, _ := openTemp(t)
	ops := []Op{testOp("dev_a", 1), testOp("dev_a", 2), testOp("dev_a", 3), testOp("dev_b", 1)}
	if _, err := s.AppendOps(ops); err != nil {
		t.Fatal(err)
	}
	n, err := s.DeleteOps([]string{"dev_a:3", "dev_a:1", "unknown:7", "dev_a:1"})
	if err != nil || n != 2 {
		t.Fatalf("DeleteOps = %d, %v; want 2 (unknown and repeated ids skipped)", n, err)
	}
	left, err := s.OpsAfter(nil, 0)
	if err != nil || !reflect.DeepEqual(opIDs(left), []string{"dev_a:2", "dev_b:1"}) {
		t.Fatalf("left %v %v", opIDs(left), err)
	}
	if n, err := s.DeleteOps(nil); n != 0 || err != nil {
		t.Fatalf("DeleteOps(nil) = %d %v", n, err)
	}
	if _, err := s.DeleteOps(make([]string, MaxLogOps+1)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("oversized delete: %v", err)
	}

	// All or nothing: a failure on the second id keeps the first.
	if _, err := s.db.Exec(`CREATE TRIGGER fail_b BEFORE DELETE ON op_log WHEN old.origin = 'dev_b' BEGIN SELECT RAISE(ABORT, 'injected'); END`); err != nil {
		t.Fatal(err)
	}
	before := dump(t, s.db)
	if _, err := s.DeleteOps([]string{"dev_a:2", "dev_b:1"}); err == nil {
		t.Fatal("DeleteOps with a failing delete succeeded")
	}
	if after := dump(t, s.db); after != before {
		t.Fatalf("a failed DeleteOps changed the database:\n%s\nwant:\n%s", after, before)
	}
}

// TestLogLimit fills the log to its limit (lowered from MaxLogOps, and
// filled directly, for speed) and requires the next batch to be refused
// whole, and an over-full log (as an older build could leave) to be
// refused on load.
func TestLogLimit(t *testing.T) {
	s, _ := openTemp(t)
	const limit = 500
	s.maxLogOps = limit
	mustIdentity(t, s, "grp_initial")
	if err := s.ResetGroup("grp_a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?)
INSERT INTO op_log (id, origin, seq, hlc_ms, kind, body) SELECT 'dev_x:' || i, 'dev_x', i, i, 'playback_command', '{}' FROM c`, limit-1); err != nil {
		t.Fatal(err)
	}
	if n, err := s.AppendOps([]Op{testOp("dev_a", 1)}); err != nil || n != 1 {
		t.Fatalf("the last op that fits: %d %v", n, err)
	}
	if _, err := s.AppendOps([]Op{testOp("dev_a", 1)}); err != nil {
		t.Fatalf("a duplicate of a full log is not new: %v", err)
	}
	if n, err := s.AppendOps([]Op{testOp("dev_a", 2), testOp("dev_a", 3)}); !errors.Is(err, ErrLogFull) || n != 0 {
		t.Fatalf("beyond the limit: %d %v", n, err)
	}
	if _, ops, err := s.GroupLog(); err != nil || len(ops) != limit {
		t.Fatalf("full log: %d ops, %v", len(ops), err)
	}
	if _, err := s.db.Exec(`INSERT INTO op_log (id, origin, seq, hlc_ms, kind, body) VALUES ('dev_z:1', 'dev_z', 1, 1, 'k', '{}')`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.GroupLog(); !errors.Is(err, ErrLogFull) {
		t.Fatalf("over-full log loaded: %v", err)
	}
}

func TestSaveInviteRecord(t *testing.T) {
	s, _ := openTemp(t)
	now := time.UnixMilli(1_700_000_000_000)
	secret := "0123456789abcdef"
	hash := sha256.Sum256([]byte(secret))
	rec := InviteRecord{ID: "inv1", SecretHash: hash[:], ExpiresAt: now.Add(10 * time.Minute)}
	if err := s.SaveInvite(rec, now); err != nil {
		t.Fatal(err)
	}
	got, err := s.LoadInvite("inv1")
	rec.CreatedAt = now
	if err != nil || !reflect.DeepEqual(got, rec) {
		t.Fatalf("LoadInvite = %+v, %v; want %+v", got, err, rec)
	}
	// Replacing marks it used and keeps when it was created.
	rec.Used, rec.CreatedAt = true, time.Time{}
	if err := s.SaveInvite(rec, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.LoadInvite("inv1"); !got.Used || !got.CreatedAt.Equal(now) {
		t.Fatalf("replaced invite %+v", got)
	}
	if _, err := s.LoadInvite("nope"); !errors.Is(err, ErrInviteUnknown) {
		t.Fatalf("unknown invite: %v", err)
	}
	// The caller's hash is SHA-256 of the secret, as CreateInvite's: the
	// record is an ordinary invite to RedeemInvite.
	if err := s.SaveInvite(InviteRecord{ID: "inv2", SecretHash: hash[:], ExpiresAt: now.Add(time.Minute)}, now); err != nil {
		t.Fatal(err)
	}
	if err := s.RedeemInvite("inv2", secret, now); err != nil {
		t.Fatalf("redeem a saved record: %v", err)
	}
	if d := dump(t, s.db); strings.Contains(d, secret) {
		t.Fatal("the secret is stored in clear")
	}

	for _, bad := range []InviteRecord{
		{ID: "", SecretHash: hash[:], ExpiresAt: now},
		{ID: "x", ExpiresAt: now},
		{ID: "x", SecretHash: make([]byte, MaxInviteHashBytes+1), ExpiresAt: now},
		{ID: "x", SecretHash: hash[:]},
	} {
		if err := s.SaveInvite(bad, now); !errors.Is(err, ErrInvalid) {
			t.Fatalf("SaveInvite(%+v): %v", bad, err)
		}
	}
}

func TestSaveInviteLimits(t *testing.T) {
	s, _ := openTemp(t)
	now := time.UnixMilli(1_700_000_000_000)
	rec := func(i int, ttl time.Duration, used bool) InviteRecord {
		return InviteRecord{ID: fmt.Sprintf("inv%03d", i), SecretHash: []byte{1, 2, 3}, ExpiresAt: now.Add(ttl), Used: used}
	}
	for i := range MaxOpenInvites {
		if err := s.SaveInvite(rec(i, time.Minute, false), now); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveInvite(rec(100, time.Minute, false), now); !errors.Is(err, ErrTooManyInvites) {
		t.Fatalf("open invite beyond the limit: %v", err)
	}
	// Replacing an existing one is not a new invite.
	if err := s.SaveInvite(rec(0, time.Minute, true), now); err != nil {
		t.Fatalf("mark used at the limit: %v", err)
	}
	// Once they expired, a new invite deletes them.
	later := now.Add(time.Minute)
	if err := s.SaveInvite(InviteRecord{ID: "fresh", SecretHash: []byte{1}, ExpiresAt: later.Add(time.Minute)}, later); err != nil {
		t.Fatal(err)
	}
	if inv, err := s.Invites(); err != nil || len(inv) != 1 || inv[0].ID != "fresh" {
		t.Fatalf("invites after expiry: %+v %v", inv, err)
	}
	// Used, unexpired invites are bounded too.
	for i := 1; i < MaxStoredInvites; i++ {
		if err := s.SaveInvite(rec(i, time.Hour, true), later); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveInvite(rec(MaxStoredInvites, time.Hour, true), later); !errors.Is(err, ErrTooManyInvites) {
		t.Fatalf("stored invite beyond the limit: %v", err)
	}
}
