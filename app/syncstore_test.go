package app

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/storage"
)

// syncWait is the generous deadline for conditions over real loopback
// sockets.
const syncWait = 20 * time.Second

type syncTestClock struct{ t time.Time }

func (c syncTestClock) Now() time.Time { return c.t }

// openSyncDB opens storage in dir with an identity for key (created on
// first open), closed at cleanup unless closed before.
func openSyncDB(t *testing.T, dir string, key ed25519.PrivateKey) *storage.Store {
	t.Helper()
	db, err := storage.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	id := string(devicesync.DeviceIDFromPublicKey(key.Public().(ed25519.PublicKey)))
	err = db.CreateIdentity(storage.Identity{PrivateKey: key, DeviceID: id, GroupID: devicesync.NewGroupID(), DeviceName: "test"})
	if err != nil && !errors.Is(err, storage.ErrIdentityExists) {
		t.Fatal(err)
	}
	return db
}

func syncKey(seed byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(slices.Repeat([]byte{seed}, ed25519.SeedSize))
}

func syncOp(origin engine.DeviceID, seq uint64) devicesync.Op {
	return devicesync.Op{ID: devicesync.OpID(origin, seq), Origin: origin, Seq: seq, HLCms: int64(1000 + seq),
		Kind: "playback_command", Body: json.RawMessage(`{"n":` + fmt.Sprint(seq) + `}`)}
}

// TestSyncStoreRoundTrip drives the adapter through every Store method and
// a restart, against a real database.
func TestSyncStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	key := syncKey(1)
	clock := syncTestClock{time.Unix(1_800_000_000, 0)}
	db := openSyncDB(t, dir, key)
	st := NewSyncStore(db, clock)

	if g, ops, err := st.LoadGroup(); g != "" || len(ops) != 0 || err != nil {
		t.Fatalf("new installation: %q %v %v", g, ops, err)
	}
	if err := st.ResetGroup("grp_old"); err != nil {
		t.Fatal(err)
	}
	if err := st.AppendOps([]devicesync.Op{syncOp("dev_old", 1)}); err != nil {
		t.Fatal(err)
	}
	if err := st.ResetGroup("grp_one"); err != nil {
		t.Fatal(err)
	}
	a, b := engine.DeviceID("dev_a"), engine.DeviceID("dev_b")
	want := []devicesync.Op{syncOp(a, 1), syncOp(a, 2), syncOp(a, 3), syncOp(b, 1)}
	if err := st.AppendOps([]devicesync.Op{want[3], want[0], want[1]}); err != nil {
		t.Fatal(err)
	}
	if err := st.AppendOps([]devicesync.Op{want[1], want[2]}); err != nil { // a resend plus one new
		t.Fatal(err)
	}
	if err := st.DeleteOps([]string{want[1].ID, "dev_z:9"}); err != nil {
		t.Fatal(err)
	}
	want = slices.Delete(want, 1, 2)

	hash := sha256.Sum256([]byte("secret"))
	inv := devicesync.InviteRecord{ID: "inv1", SecretHash: hash[:], Expires: clock.t.Add(10 * time.Minute)}
	if err := st.SaveInvite(inv); err != nil {
		t.Fatal(err)
	}
	inv.Used = true
	if err := st.SaveInvite(inv); err != nil {
		t.Fatal(err)
	}
	if _, err := st.LoadInvite("nope"); !errors.Is(err, devicesync.ErrNotFound) {
		t.Fatalf("unknown invite: %v", err)
	}

	check := func(when string, st *SyncStore) {
		t.Helper()
		g, ops, err := st.LoadGroup()
		if err != nil || g != "grp_one" || !reflect.DeepEqual(ops, want) {
			t.Fatalf("%s: LoadGroup = %q %v %v, want grp_one %v", when, g, ops, err, want)
		}
		got, err := st.LoadInvite("inv1")
		if err != nil || got.ID != "inv1" || !got.Used || !got.Expires.Equal(inv.Expires) || !slices.Equal(got.SecretHash, inv.SecretHash) {
			t.Fatalf("%s: LoadInvite = %+v %v, want %+v", when, got, err, inv)
		}
	}
	check("before restart", st)
	if id, _ := db.Identity(); id.GroupID != "grp_one" {
		t.Fatalf("identity group %q, want the sync group", id.GroupID)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	check("after restart", NewSyncStore(openSyncDB(t, dir, key), clock))
}

// TestSyncStoreBatchLimits: a full devicesync batch fits in one call; the
// storage limits surface as errors, and a refused batch stores nothing.
func TestSyncStoreBatchLimits(t *testing.T) {
	db := openSyncDB(t, t.TempDir(), syncKey(1))
	st := NewSyncStore(db, nil)
	if err := st.ResetGroup("grp_one"); err != nil {
		t.Fatal(err)
	}
	batch := make([]devicesync.Op, devicesync.MaxOpsPerBatch)
	for i := range batch {
		batch[i] = syncOp("dev_a", uint64(i+1))
	}
	if err := st.AppendOps(batch); err != nil {
		t.Fatalf("a full devicesync batch: %v", err)
	}
	over := append([]devicesync.Op{syncOp("dev_b", 1)}, batch...)
	if err := st.AppendOps(over); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("a batch over the limit: %v", err)
	}
	if _, ops, _ := st.LoadGroup(); len(ops) != devicesync.MaxOpsPerBatch {
		t.Fatalf("%d ops after a refused batch", len(ops))
	}
	bad := syncOp("dev_c", 1)
	bad.Body = json.RawMessage(`{not json`)
	if err := st.AppendOps([]devicesync.Op{syncOp("dev_c", 2), bad}); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("an invalid op: %v", err)
	}
	if err := st.SaveInvite(devicesync.InviteRecord{ID: "inv1", Expires: time.Now().Add(time.Minute)}); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("an invite without a hash: %v", err)
	}
}

// syncNode starts a devicesync node on loopback over the database in dir.
func syncNode(t *testing.T, dir string, key ed25519.PrivateKey, name string) (*devicesync.Node, *storage.Store) {
	t.Helper()
	db := openSyncDB(t, dir, key)
	// PairRetry within the outsiders' message rate (5/s, burst 10): a
	// request repeated faster is cut off as a flood when the accept comes
	// late on a busy machine, and the pairing hangs.
	n, err := devicesync.New(devicesync.Config{Key: key, Name: name, Listen: "127.0.0.1:0", Store: NewSyncStore(db, nil),
		Logger: slog.New(slog.DiscardHandler), PairRetry: 250 * time.Millisecond, SyncInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n, db
}

func syncMembers(n *devicesync.Node) []engine.DeviceID {
	var ids []engine.DeviceID
	for _, d := range n.Devices() {
		ids = append(ids, d.ID)
	}
	return ids
}

// TestSyncStoreKeepsGroupAndRevocationAcrossRestart pairs two real nodes,
// revokes one, restarts the other from its database alone, and requires
// the same group without the revoked device, and an invite used before the
// restart to stay used.
func TestSyncStoreKeepsGroupAndRevocationAcrossRestart(t *testing.T) {
	dirA := t.TempDir()
	keyA, keyB := syncKey(1), syncKey(2)
	a, dbA := syncNode(t, dirA, keyA, "A")
	b, _ := syncNode(t, t.TempDir(), keyB, "B")

	code, _, err := a.CreateInvite()
	if err != nil {
		t.Fatal(err)
	}
	paired := make(chan error, 1)
	go func() { paired <- b.Pair(context.Background(), code) }()
	deadline := time.After(syncWait)
	var req devicesync.PairingRequest
	for req.ID == "" {
		select {
		case ev := <-a.Events():
			if r, ok := ev.(devicesync.PairingRequest); ok && r.DeviceID == b.ID() {
				req = r
			}
		case <-deadline:
			t.Fatal("no pairing request reached A")
		}
	}
	if err := a.Accept(req.ID, false); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-paired:
		if err != nil {
			t.Fatalf("Pair: %v", err)
		}
	case <-deadline:
		t.Fatal("Pair did not return")
	}
	group := a.Group()
	if b.Group() != group || !slices.Contains(syncMembers(a), b.ID()) {
		t.Fatalf("after pairing: A in %s with %v, B in %s", group, syncMembers(a), b.Group())
	}
	if id, _ := dbA.Identity(); id.GroupID != group {
		t.Fatalf("A's identity group %q, want %q", id.GroupID, group)
	}
	if err := a.Revoke(b.ID()); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(syncMembers(a), b.ID()) {
		t.Fatalf("B still a member after revocation: %v", syncMembers(a))
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := dbA.Close(); err != nil {
		t.Fatal(err)
	}

	a2, dbA2 := syncNode(t, dirA, keyA, "A")
	if a2.Group() != group {
		t.Fatalf("group after restart %q, want %q", a2.Group(), group)
	}
	if got := syncMembers(a2); !reflect.DeepEqual(got, []engine.DeviceID{a2.ID()}) {
		t.Fatalf("members after restart %v, want only A (B revoked)", got)
	}
	g, ops, err := dbA2.GroupLog()
	if err != nil || g != group {
		t.Fatalf("stored log of %q (%v), want %q", g, err, group)
	}
	kinds := map[string]int{}
	for _, o := range ops {
		kinds[o.Kind]++
	}
	if kinds[devicesync.KindRevoked] != 1 {
		t.Fatalf("stored op kinds %v, want one %s", kinds, devicesync.KindRevoked)
	}
	if inv, err := NewSyncStore(dbA2, nil).LoadInvite(inviteIDOf(t, dbA2)); err != nil || !inv.Used {
		t.Fatalf("the accepted invite after restart: %+v %v", inv, err)
	}
}

// inviteIDOf returns the id of the one invite stored in db.
func inviteIDOf(t *testing.T, db *storage.Store) string {
	t.Helper()
	inv, err := db.Invites()
	if err != nil || len(inv) != 1 {
		t.Fatalf("invites %+v %v, want one", inv, err)
	}
	return inv[0].ID
}

// The address book lives in the database: a relaunch reads what the last
// run saved.
func TestSyncStoreKeepsAddressBook(t *testing.T) {
	dir := t.TempDir()
	_, key, _ := ed25519.GenerateKey(nil)
	db := openSyncDB(t, dir, key)
	s := NewSyncStore(db, nil)
	if b, err := s.LoadAddresses(); err != nil || len(b) != 0 {
		t.Fatalf("a new database holds a book: %q, %v", b, err)
	}
	want := []byte(`{"port":41234}`)
	if err := s.SaveAddresses(want); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := NewSyncStore(openSyncDB(t, dir, key), nil).LoadAddresses()
	if err != nil || string(got) != string(want) {
		t.Errorf("after reopening: %q, %v; want %q", got, err, want)
	}
}
