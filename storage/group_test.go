package storage

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestOpLog(t *testing.T) {
	s, _ := openTemp(t)
	ops := []Op{testOp("dev_a", 1), testOp("dev_a", 2), testOp("dev_b", 1), testOp("dev_a", 3)}
	n, err := s.AppendOps(ops)
	if err != nil || n != 4 {
		t.Fatalf("AppendOps = %d, %v", n, err)
	}
	// Duplicates (a peer resending) are skipped; the first version stays.
	dup := testOp("dev_a", 2)
	dup.Body = []byte(`{"command":"changed"}`)
	if n, err := s.AppendOps([]Op{dup, testOp("dev_b", 2)}); err != nil || n != 1 {
		t.Fatalf("AppendOps with a duplicate = %d, %v", n, err)
	}
	vec, err := s.OpVector()
	if err != nil || !reflect.DeepEqual(vec, map[string]uint64{"dev_a": 3, "dev_b": 2}) {
		t.Fatalf("vector %v %v", vec, err)
	}
	missing, err := s.OpsAfter(map[string]uint64{"dev_a": 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, op := range missing {
		ids = append(ids, op.ID)
	}
	if want := []string{"dev_a:2", "dev_a:3", "dev_b:1", "dev_b:2"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("OpsAfter = %v, want %v", ids, want)
	}
	if string(missing[0].Body) != string(ops[1].Body) {
		t.Fatalf("duplicate replaced the stored op: %s", missing[0].Body)
	}
	if limited, _ := s.OpsAfter(nil, 2); len(limited) != 2 {
		t.Fatalf("limit 2 gave %d", len(limited))
	}
	// Pruning keeps the newest op of each origin, so the vector holds.
	pruned, err := s.PruneOps("playback_command", 1_000_000)
	if err != nil || pruned != 3 {
		t.Fatalf("PruneOps = %d, %v", pruned, err)
	}
	if v2, _ := s.OpVector(); !reflect.DeepEqual(v2, vec) {
		t.Fatalf("vector after prune %v, want %v", v2, vec)
	}
	if _, err := s.AppendOps(make([]Op, MaxOpBatch+1)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("oversized batch: %v", err)
	}
}

func TestDevices(t *testing.T) {
	s, _ := openTemp(t)
	a, b := testDevice("dev_a"), testDevice("dev_b")
	for _, d := range []Device{b, a} {
		if err := s.PutDevice(d); err != nil {
			t.Fatal(err)
		}
	}
	b.Revoked, b.Trusted, b.RevokedCutoffSeq, b.Addresses = true, false, 42, nil
	if err := s.PutDevice(b); err != nil {
		t.Fatal(err)
	}
	all, err := s.Devices()
	if err != nil || len(all) != 2 || all[0].DeviceID != "dev_a" {
		t.Fatalf("devices %+v %v", all, err)
	}
	if !all[1].Revoked || all[1].RevokedCutoffSeq != 42 || len(all[1].Addresses) != 0 {
		t.Fatalf("revoked device %+v", all[1])
	}
	if err := s.DeleteDevice("dev_a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Device("dev_a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted device: %v", err)
	}
	for i := 0; i < MaxDevices-1; i++ {
		if err := s.PutDevice(testDevice(fmt.Sprintf("dev_%03d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutDevice(testDevice("dev_one_too_many")); !errors.Is(err, ErrTooManyDevices) {
		t.Fatalf("device beyond the limit: %v", err)
	}
}

func TestInvites(t *testing.T) {
	s, _ := openTemp(t)
	now := time.UnixMilli(1_700_000_000_000)
	secret := "0123456789abcdef0123456789abcdef"
	if err := s.CreateInvite("inv1", secret, now, now.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	// Only a hash of the secret is stored.
	if d := dump(t, s.db); strings.Contains(d, secret) {
		t.Fatalf("the invite secret is stored in clear")
	}
	if err := s.RedeemInvite("inv1", "wrong", now); !errors.Is(err, ErrInviteSecret) {
		t.Fatalf("wrong secret: %v", err)
	}
	if err := s.RedeemInvite("nope", secret, now); !errors.Is(err, ErrInviteUnknown) {
		t.Fatalf("unknown invite: %v", err)
	}
	if err := s.RedeemInvite("inv1", secret, now.Add(10*time.Minute)); !errors.Is(err, ErrInviteExpired) {
		t.Fatalf("expired invite: %v", err)
	}
	if err := s.RedeemInvite("inv1", secret, now.Add(time.Minute)); err != nil {
		t.Fatalf("good redeem after a wrong secret: %v", err)
	}
	if err := s.RedeemInvite("inv1", secret, now.Add(time.Minute)); !errors.Is(err, ErrInviteUsed) {
		t.Fatalf("second redeem: %v", err)
	}
	for i := 0; i < MaxOpenInvites; i++ {
		err := s.CreateInvite(fmt.Sprintf("i%d", i), secret, now, now.Add(time.Minute))
		if i < MaxOpenInvites && err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateInvite("extra", secret, now, now.Add(time.Minute)); !errors.Is(err, ErrTooManyInvites) {
		t.Fatalf("invite beyond the limit: %v", err)
	}
	if n, err := s.PruneInvites(now.Add(2 * time.Minute)); err != nil || n != MaxOpenInvites+1 {
		t.Fatalf("PruneInvites = %d, %v", n, err)
	}
	if inv, _ := s.Invites(); len(inv) != 0 {
		t.Fatalf("invites after prune: %v", inv)
	}
}

func TestPairRequests(t *testing.T) {
	s, _ := openTemp(t)
	d := testDevice("dev_new")
	r := PairRequest{DeviceID: d.DeviceID, Name: "Phone", PublicKey: d.PublicKey, Addresses: d.Addresses, GroupID: "grp_x", InviteID: "inv1", ReceivedAt: time.UnixMilli(5)}
	if err := s.AddPairRequest(r); err != nil {
		t.Fatal(err)
	}
	r.Name = "Phone (retry)"
	if err := s.AddPairRequest(r); err != nil {
		t.Fatal(err)
	}
	got, err := s.PairRequests()
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], r) {
		t.Fatalf("requests %+v %v", got, err)
	}
	for i := 1; i < MaxPendingPairRequests; i++ {
		r.DeviceID = fmt.Sprintf("dev_%d", i)
		if err := s.AddPairRequest(r); err != nil {
			t.Fatal(err)
		}
	}
	r.DeviceID = "dev_too_many"
	if err := s.AddPairRequest(r); !errors.Is(err, ErrTooManyPairRequests) {
		t.Fatalf("request beyond the limit: %v", err)
	}
	if err := s.DeletePairRequest("dev_new"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.PairRequests(); len(got) != MaxPendingPairRequests-1 {
		t.Fatalf("%d requests after delete", len(got))
	}
}
