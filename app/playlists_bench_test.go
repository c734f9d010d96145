package app

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/playlists"
	"github.com/furudesk/furudesk/storage"
)

func benchKey(b *testing.B) ed25519.PrivateKey {
	_, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		b.Fatal(err)
	}
	return key
}

func benchNode(b *testing.B, name string, key ed25519.PrivateKey, st devicesync.Store) *devicesync.Node {
	n, err := devicesync.New(devicesync.Config{Key: key, Name: name, Listen: "127.0.0.1:0", Store: st,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PairRetry: 250 * time.Millisecond, // within the outsiders' message rate
		Limits: devicesync.Limits{MessageRate: 1e9, Burst: 1 << 30, PeerTimeout: time.Minute}})
	if err != nil {
		b.Fatal(err)
	}
	if err := n.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkApplyPeerOps10k measures a device taking 10,000 playlist ops
// from a peer: from the peer's acceptance of its pairing to every op
// merged, through TLS on loopback, the SQLite store (each batch committed)
// and the merge. The peer's log: 10 playlists, 9,980 single-track adds,
// 10 renames.
func BenchmarkApplyPeerOps10k(b *testing.B) {
	const total = 10_000
	peer := benchNode(b, "peer", benchKey(b), devicesync.NewMemStore())
	defer peer.Close()
	go func() {
		for range peer.Events() {
		}
	}()
	st := playlists.New()
	var ids []string
	appendOp := func(e playlists.Edit) string {
		op, err := peer.AppendOp(e.Kind, e.Body)
		if err != nil {
			b.Fatal(err)
		}
		st.Apply(playlists.Op{ID: op.ID, Origin: string(op.Origin), Seq: op.Seq, HLCms: op.HLCms, Kind: op.Kind, Body: op.Body})
		return op.ID
	}
	for i := range 10 {
		e, _ := st.PlanCreate(fmt.Sprintf("List %d", i))
		ids = append(ids, appendOp(e))
	}
	for i := 0; i < total-20; i++ {
		es, err := st.PlanAdd(ids[i%10], -1, []playlists.Track{{ContentID: fmt.Sprintf("b3:%064d", i), Title: "Some title",
			Artists: []string{"Some artist"}, Album: "Some album", DurationMS: 200_000}})
		if err != nil {
			b.Fatal(err)
		}
		appendOp(es[0])
	}
	for i := range 10 {
		es, _ := st.PlanRename(ids[i], fmt.Sprintf("Renamed %d", i))
		appendOp(es[0])
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		db, err := storage.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		key := benchKey(b)
		if err := db.CreateIdentity(storage.Identity{PrivateKey: key, DeviceID: string(devicesync.DeviceIDFromPublicKey(key.Public().(ed25519.PublicKey))),
			GroupID: devicesync.NewGroupID(), DeviceName: "joiner", CreatedAt: time.Now()}); err != nil {
			b.Fatal(err)
		}
		joiner := benchNode(b, "joiner", key, NewSyncStore(db, nil))
		c := newCollection(joiner, db, string(joiner.ID()), slog.New(slog.NewTextHandler(io.Discard, nil)))
		code, _, err := peer.CreateInvite()
		if err != nil {
			b.Fatal(err)
		}
		paired := make(chan error, 1)
		go func() { paired <- joiner.Pair(context.Background(), code) }()
		var req devicesync.PairingRequest
		for req.ID == "" {
			for _, p := range peer.Pending() {
				req = p
			}
			time.Sleep(5 * time.Millisecond) // waiting for the request to reach the peer (not timed)
		}
		b.StartTimer()
		if err := peer.Accept(req.ID, false); err != nil {
			b.Fatal(err)
		}
		for c.st.Applied() < total {
			ev := <-joiner.Events()
			if ev, ok := ev.(devicesync.OpsAdded); ok {
				c.handle(collectionMsg{ops: &ev})
			}
			if ev, ok := ev.(devicesync.GroupChanged); ok {
				c.handle(collectionMsg{group: ev.Group})
			}
		}
		b.StopTimer()
		if err := <-paired; err != nil {
			b.Fatal(err)
		}
		if n := len(c.st.Playlists()); n != 10 {
			b.Fatalf("%d playlists merged", n)
		}
		_ = joiner.Close()
		_ = db.Close()
		b.StartTimer()
	}
}

// BenchmarkPlaylistView10k is the app's part of opening a 10,000-entry
// playlist: the view with availability, likes and play counts.
func BenchmarkPlaylistView10k(b *testing.B) {
	log := newFakeOpLog(self)
	r := buildRig(b, self)
	a, err := New(Options{Config: fastCfg(), Clock: r.clock, Ticks: r.ticks}, Deps{Store: r.store, Output: r.out, Transport: r.tr, OpLog: log})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	p, err := a.CreatePlaylist("Big")
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, 10_000)
	for i := range ids {
		ids[i] = []string{"b3:aa", "b3:bb", "b3:cc"}[i%3]
	}
	if err := a.AddToPlaylist(p.ID, ids, -1); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		v, err := a.Playlist(p.ID)
		if err != nil || len(v.Entries) != 10_000 {
			b.Fatal(err)
		}
	}
}
