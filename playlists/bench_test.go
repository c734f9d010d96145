package playlists_test

import (
	"fmt"
	"testing"

	"github.com/furudesk/furudesk/playlists"
)

// peerOps is what a peer's log might hold: 10 playlists, 9,980 single
// track adds spread over them, 10 renames.
func peerOps(b *testing.B, n int) []playlists.Op {
	d := newDevice(b, "dev_peer")
	var ids []string
	for i := range 10 {
		e, err := d.st.PlanCreate(fmt.Sprintf("List %d", i))
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, d.op(e).ID)
	}
	for i := 0; len(d.ops) < n-10; i++ {
		es, err := d.st.PlanAdd(ids[i%10], -1, []playlists.Track{{ContentID: fmt.Sprintf("b3:%064d", i), Title: "Some title", Artists: []string{"Some artist"}, Album: "Some album", DurationMS: 200_000}})
		if err != nil {
			b.Fatal(err)
		}
		d.op(es[0])
	}
	for i := range 10 {
		es, _ := d.st.PlanRename(ids[i], fmt.Sprintf("Renamed %d", i))
		d.op(es[0])
	}
	return d.ops
}

// BenchmarkApply10kOps merges 10,000 ops from a peer into an empty state
// and builds every playlist's view (the merge alone: no network, no disk).
func BenchmarkApply10kOps(b *testing.B) {
	ops := peerOps(b, 10_000)
	b.ResetTimer()
	for range b.N {
		s := playlists.New()
		s.Apply(ops...)
		for _, p := range s.Playlists() {
			s.Playlist(p.ID)
		}
	}
}

// BenchmarkView100k builds the view of a playlist of 100,000 entries after
// one change (the cost of opening the largest playlist allowed).
func BenchmarkView100k(b *testing.B) {
	d := newDevice(b, "dev_a")
	e, _ := d.st.PlanCreate("Everything")
	id := d.op(e).ID
	ts := make([]playlists.Track, playlists.MaxEntries)
	for i := range ts {
		ts[i] = playlists.Track{ContentID: fmt.Sprintf("b3:%064d", i)}
	}
	es, err := d.st.PlanAdd(id, -1, ts)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range es {
		d.op(e)
	}
	b.ResetTimer()
	for i := range b.N {
		es, _ := d.st.PlanMove(id, i%1000, (i+7)%1000)
		b.StopTimer()
		d.op(es[0])
		b.StartTimer()
		d.st.Playlist(id)
	}
}
