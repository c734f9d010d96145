package storage

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/grouplib"
	"github.com/furudesk/furudesk/library"
)

func catEntry(i int, title string) grouplib.Entry {
	return grouplib.Entry{ContentID: fmt.Sprintf("%s%064x", library.ContentIDPrefix, i), Title: title,
		Artists: []string{"Björk", "Guest"}, Album: "Album", DurationMS: 1234, Format: "mp3", Size: 99,
		Gain: library.ReplayGain{TrackGain: -6.5, TrackPeak: 0.98, HasTrack: true}}
}

// A catalog saved delta by delta loads back as the same catalog: its head
// (version, count and digest over every field) is unchanged, tombstones
// and floor included; deleting it forgets it.
func TestCatalogRoundTrip(t *testing.T) {
	s, _ := openTemp(t)
	const origin = engine.DeviceID("dev_aaaaaaaaaaaaaaaaaaaaaaaa")
	c := grouplib.NewCatalog(origin)
	steps := [][]grouplib.Entry{
		{catEntry(1, "one"), catEntry(2, "two"), catEntry(3, "three")},
		{catEntry(1, "one"), catEntry(2, "two, retagged")},
		{catEntry(2, "two, retagged"), catEntry(4, "four")},
	}
	for i, es := range steps {
		d, err := c.Publish(es)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			d = c.Since(0) // the first as a whole catalog, as a new peer gets it
		}
		if err := s.SaveDelta(context.Background(), d, c.Floor); err != nil {
			t.Fatal(err)
		}
	}
	cats, err := s.LoadCatalogs("")
	if err != nil || len(cats) != 1 {
		t.Fatalf("load: %d catalogs, %v", len(cats), err)
	}
	// Read apart, as a device reads its own: the same catalog; the
	// others' leave it out.
	one, ok, err := s.LoadCatalog(origin)
	if err != nil || !ok || one.Version != cats[0].Version || len(one.Items) != len(cats[0].Items) {
		t.Fatalf("LoadCatalog: %v items at version %d (%v, %v), want %d at %d", len(one.Items), one.Version, ok, err,
			len(cats[0].Items), cats[0].Version)
	}
	if others, err := s.LoadCatalogs(origin); err != nil || len(others) != 0 {
		t.Fatalf("LoadCatalogs but %s: %d catalogs, %v", origin, len(others), err)
	}
	if _, ok, err := s.LoadCatalog("dev_bbbbbbbbbbbbbbbbbbbbbbbb"); ok || err != nil {
		t.Fatalf("LoadCatalog of a device never stored: %v, %v", ok, err)
	}
	back, err := grouplib.Restore(cats[0].Origin, cats[0].Version, cats[0].Floor, cats[0].Items, cats[0].Gone)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Matches(c.Head()) {
		t.Fatalf("loaded %+v, saved %+v", back.Head(), c.Head())
	}
	if got, want := len(back.Tombstones()), len(c.Tombstones()); got != want || got != 2 {
		t.Fatalf("tombstones: %d loaded, %d saved", got, want)
	}
	// The items changed after a version, as a device serves its own lean
	// catalog to a peer: version 3's only, or all with their entries.
	items, err := s.LoadItems(context.Background(), origin, 2)
	if err != nil || len(items) != 1 || items[0].ContentID != catEntry(4, "").ContentID || items[0].Ver != 3 {
		t.Fatalf("items after version 2: %+v, %v", items, err)
	}
	items, err = s.LoadItems(context.Background(), origin, 0)
	if err != nil || len(items) != 2 || items[0].Title != "two, retagged" || items[0].Artists[0] != "Björk" || items[1].Title != "four" {
		t.Fatalf("all items: %+v, %v", items, err)
	}
	if err := s.DeleteCatalog(origin); err != nil {
		t.Fatal(err)
	}
	if cats, _ := s.LoadCatalogs(""); len(cats) != 0 {
		t.Fatalf("after delete: %+v", cats)
	}
}

// A catalog write given up (the group library closing: its context is
// done) writes nothing: the stored catalog stays as it was.
func TestSaveDeltaGivenUpWritesNothing(t *testing.T) {
	s, _ := openTemp(t)
	const origin = engine.DeviceID("dev_aaaaaaaaaaaaaaaaaaaaaaaa")
	c := grouplib.NewCatalog(origin)
	d, err := c.Publish([]grouplib.Entry{catEntry(1, "one"), catEntry(2, "two")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.SaveDelta(ctx, d, c.Floor); !errors.Is(err, context.Canceled) {
		t.Fatalf("SaveDelta with its context done: %v, want context.Canceled", err)
	}
	if cats, err := s.LoadCatalogs(""); err != nil || len(cats) != 0 {
		t.Fatalf("after a write given up: %+v, %v", cats, err)
	}
}
