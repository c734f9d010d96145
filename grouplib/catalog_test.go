package grouplib

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
)

var seedFlag = flag.Uint64("seed", 0, "seed of the randomized catalog tests (0: from the clock)")

func testSeed(t *testing.T) uint64 {
	s := *seedFlag
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", s, s)
	return s
}

const devA, devB, devC = engine.DeviceID("dev_aaaaaaaaaaaaaaaaaaaaaaaa"), engine.DeviceID("dev_bbbbbbbbbbbbbbbbbbbbbbbb"), engine.DeviceID("dev_cccccccccccccccccccccccc")

func cid(i int) string { return fmt.Sprintf("%s%064x", library.ContentIDPrefix, i) }

func entry(i int, title string) Entry {
	return Entry{ContentID: cid(i), Title: title, Artists: []string{"Artist"}, Album: "Album", DurationMS: 60_000, Format: "flac", Size: int64(1000 + i)}
}

// Publishing only what changed: the first publish lists everything at
// version 1, a retag changes one item at version 2, a removal leaves a
// tombstone, and a publish of the same entries changes nothing.
func TestPublishVersionsOnlyWhatChanged(t *testing.T) {
	c := NewCatalog(devA)
	d, err := c.Publish([]Entry{entry(1, "One"), entry(2, "Two")})
	if err != nil || d.Version != 1 || len(d.Items) != 2 || len(d.Gone) != 0 {
		t.Fatalf("first publish: %+v, %v", d, err)
	}
	d, err = c.Publish([]Entry{entry(1, "One"), entry(2, "Two (remastered)")})
	if err != nil || d.Since != 1 || d.Version != 2 || len(d.Items) != 1 || d.Items[0].ContentID != cid(2) {
		t.Fatalf("retag: %+v, %v", d, err)
	}
	d, err = c.Publish([]Entry{entry(2, "Two (remastered)")})
	if err != nil || d.Version != 3 || len(d.Items) != 0 || len(d.Gone) != 1 || d.Gone[0] != (Tombstone{cid(1), 3}) {
		t.Fatalf("removal: %+v, %v", d, err)
	}
	head := c.Head()
	d, err = c.Publish([]Entry{entry(2, "Two (remastered)")})
	if err != nil || !d.Empty() || c.Version != 3 || c.Head() != head {
		t.Fatalf("same entries: %+v, %v; head %+v then %+v", d, err, head, c.Head())
	}
}

// A peer that holds version v gets only what changed after v, and ends up
// with the origin's digest; one below the floor or with nothing gets the
// whole catalog.
func TestSinceSendsOnlyTheChanges(t *testing.T) {
	origin := NewCatalog(devA)
	var es []Entry
	for i := range 100 {
		es = append(es, entry(i, "t"))
	}
	mustPublish(t, origin, es)
	peer := NewCatalog(devA)
	d := origin.Since(0)
	if !d.Full || len(d.Items) != 100 {
		t.Fatalf("first sync: full=%v items=%d", d.Full, len(d.Items))
	}
	mustApply(t, peer, d)
	es[5].Title = "changed"
	es = es[1:]
	mustPublish(t, origin, es)
	d = origin.Since(peer.Version)
	if d.Full || len(d.Items) != 1 || len(d.Gone) != 1 {
		t.Fatalf("second sync: full=%v items=%d gone=%d", d.Full, len(d.Items), len(d.Gone))
	}
	mustApply(t, peer, d)
	if !peer.Matches(origin.Head()) {
		t.Fatalf("peer %+v, origin %+v", peer.Head(), origin.Head())
	}
	if d := origin.Since(origin.Version); !d.Empty() {
		t.Fatalf("up to date peer gets %+v", d)
	}
}

// A delta must start at the version held, items must be dated inside it,
// and a catalog changed in transit does not match the origin's head.
func TestApplyRefusesWhatDoesNotFit(t *testing.T) {
	origin := NewCatalog(devA)
	mustPublish(t, origin, []Entry{entry(1, "a")})
	mustPublish(t, origin, []Entry{entry(1, "a"), entry(2, "b")})
	peer := NewCatalog(devA)
	if err := peer.Apply(origin.Since(1)); !errors.Is(err, ErrDeltaBase) {
		t.Fatalf("delta from 1 on an empty catalog: %v", err)
	}
	d := origin.Since(0)
	bad := d
	bad.Items = append([]*Item{}, d.Items...)
	bad.Items[0] = newItem(d.Items[0].Entry, 9)
	if err := peer.Apply(bad); !errors.Is(err, ErrBadDelta) {
		t.Fatalf("item dated after the delta: %v", err)
	}
	if peer.Version != 0 || peer.Len() != 0 {
		t.Fatal("a refused delta changed the catalog")
	}
	forged := d
	forged.Items = append([]*Item{}, d.Items...)
	e := d.Items[1].Entry
	e.Title = "forged"
	forged.Items[1] = newItem(e, d.Items[1].Ver)
	mustApply(t, peer, forged)
	if peer.Matches(origin.Head()) {
		t.Fatal("a changed title matches the origin's head")
	}
	bad = origin.Since(0)
	bad.Origin = devB
	if err := NewCatalog(devA).Apply(bad); !errors.Is(err, ErrBadDelta) {
		t.Fatalf("another device's catalog: %v", err)
	}
}

// Entries from peers are checked: a bad content id, an unknown format,
// text that is not UTF-8 or a size of zero refuse the delta.
func TestApplyChecksEntries(t *testing.T) {
	for name, mutate := range map[string]func(*Entry){
		"content id": func(e *Entry) { e.ContentID = "b3:xyz" },
		"format":     func(e *Entry) { e.Format = "exe" },
		"utf-8":      func(e *Entry) { e.Title = "\xff" },
		"size":       func(e *Entry) { e.Size = 0 },
		"gain":       func(e *Entry) { e.Gain.TrackGain = 1e300 },
	} {
		e := entry(1, "x")
		mutate(&e)
		d := Delta{Origin: devA, Version: 1, Full: true, Items: []*Item{newItem(e, 1)}}
		if err := NewCatalog(devA).Apply(d); !errors.Is(err, ErrBadEntry) {
			t.Errorf("%s: %v, want ErrBadEntry", name, err)
		}
	}
}

// Tombstones are bounded: beyond maxTombstones the oldest versions are
// forgotten, the floor rises, and a peer below it is sent everything.
func TestTombstonesAreBounded(t *testing.T) {
	c := NewCatalog(devA)
	var es []Entry
	for i := range maxTombstones + 10 {
		es = append(es, entry(i, "t"))
	}
	mustPublish(t, c, es)
	mustPublish(t, c, es[:5]) // v2: removes most
	mustPublish(t, c, es[:4]) // v3: one more
	if c.Floor != 2 || len(c.gone) != 1 {
		t.Fatalf("floor %d with %d tombstones", c.Floor, len(c.gone))
	}
	if d := c.Since(1); !d.Full {
		t.Fatal("a peer below the floor got a delta")
	}
	if d := c.Since(2); d.Full || len(d.Gone) != 1 {
		t.Fatalf("a peer at the floor: %+v", d)
	}
}

// Randomized: an origin publishes changes; followers sync at random
// moments, some directly, some through a relay that holds the origin's
// catalog, some with stale deltas that must be refused. Every follower
// that synced after the last publish matches the origin's head.
func TestFollowersConverge(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 7))
	origin := NewCatalog(devA)
	relay := NewCatalog(devA)
	followers := []*Catalog{NewCatalog(devA), NewCatalog(devA), NewCatalog(devA)}
	pool := map[int]Entry{}
	for step := range 300 {
		switch r.IntN(4) {
		case 0, 1: // the library changes: add, retag, remove
			for range 1 + r.IntN(20) {
				i := r.IntN(200)
				switch r.IntN(3) {
				case 0:
					delete(pool, i)
				default:
					pool[i] = entry(i, fmt.Sprintf("t%d", r.IntN(5)))
				}
			}
			es := make([]Entry, 0, len(pool))
			for _, e := range pool {
				es = append(es, e)
			}
			mustPublish(t, origin, es)
		case 2: // the relay catches up with the origin
			syncFrom(t, relay, origin)
		case 3: // a follower syncs from the origin or the relay
			f := followers[r.IntN(len(followers))]
			src := origin
			if r.IntN(2) == 0 {
				src = relay
			}
			stale := f.Clone()
			syncFrom(t, f, src)
			if !f.Matches(src.Head()) {
				t.Fatalf("step %d: follower does not match its source", step)
			}
			if x := stale.Version + 1; x <= src.Version && x >= src.Floor {
				if err := stale.Apply(src.Since(x)); !errors.Is(err, ErrDeltaBase) {
					t.Fatalf("step %d: a delta from version %d applied to version %d: %v", step, x, stale.Version, err)
				}
			}
		}
	}
	for _, f := range append(followers, relay) {
		syncFrom(t, f, origin)
		if !f.Matches(origin.Head()) {
			t.Fatalf("follower %+v, origin %+v", f.Head(), origin.Head())
		}
	}
}

func syncFrom(t *testing.T, to, from *Catalog) {
	t.Helper()
	mustApply(t, to, from.Since(to.Version))
}

func mustPublish(t *testing.T, c *Catalog, es []Entry) Delta {
	t.Helper()
	d, err := c.Publish(es)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustApply(t *testing.T, c *Catalog, d Delta) {
	t.Helper()
	if err := c.Apply(d); err != nil {
		t.Fatal(err)
	}
}

// The union lists each content id held elsewhere once, with every holder,
// and follows deltas and devices leaving.
func TestUnionFollowsCatalogs(t *testing.T) {
	u := NewUnion()
	a, b := NewCatalog(devA), NewCatalog(devB)
	da := mustPublish(t, a, []Entry{entry(1, "by A"), entry(2, "only A")})
	u.Follow(nil, a.Clone(), da)
	db := mustPublish(t, b, []Entry{entry(1, "by B"), entry(3, "only B")})
	u.Follow(nil, b.Clone(), db)
	if u.Len() != 3 || len(u.Holders(cid(1))) != 2 {
		t.Fatalf("len %d, holders of 1: %v", u.Len(), u.Holders(cid(1)))
	}
	if e, _ := u.Entry(cid(1)); e.Title != "by A" {
		t.Fatalf("entry shown %q, want the first device's", e.Title)
	}
	old := a.Clone()
	d := mustPublish(t, a, []Entry{entry(2, "only A")})
	changed := u.Follow(old, a.Clone(), d)
	if len(changed) != 1 || changed[0] != cid(1) {
		t.Fatalf("changed %v", changed)
	}
	if e, _ := u.Entry(cid(1)); e.Title != "by B" || len(u.Holders(cid(1))) != 1 {
		t.Fatalf("after A removed it: %q, %v", e.Title, u.Holders(cid(1)))
	}
	u.Follow(b, nil, Delta{})
	if u.Len() != 1 || len(u.Holders(cid(3))) != 0 {
		t.Fatalf("after B left: %d ids", u.Len())
	}
}

// The holder choice: only online holders that are not barred or resting,
// of the same file size once bytes are downloaded; the current one while
// it qualifies, then the fewest failures, then the device id.
func TestChooseHolder(t *testing.T) {
	now := time.Unix(1000, 0)
	all := []Candidate{
		{Device: devC, Size: 10, Online: true},
		{Device: devB, Size: 10, Online: true, Failures: 1},
		{Device: devA, Size: 12, Online: true},
	}
	cases := []struct {
		name    string
		cands   []Candidate
		size    int64
		current engine.DeviceID
		want    engine.DeviceID
		ok      bool
		wait    bool
	}{
		{"fewest failures, then id", all, 0, "", devA, true, false},
		{"same size only", all, 10, "", devC, true, false},
		{"keep the current one", all, 10, devB, devB, true, false},
		{"offline holders do not count", []Candidate{{Device: devA, Size: 10}}, 0, "", "", false, false},
		{"barred", []Candidate{{Device: devA, Size: 10, Online: true, Barred: true}}, 0, "", "", false, false},
		{"resting: wait", []Candidate{{Device: devA, Size: 10, Online: true, Until: now.Add(time.Second)}}, 0, "", "", false, true},
		{"rested", []Candidate{{Device: devA, Size: 10, Online: true, Until: now}}, 0, "", devA, true, false},
	}
	for _, c := range cases {
		got, ok, wait := Choose(c.cands, c.size, c.current, now)
		if got != c.want || ok != c.ok || !wait.IsZero() != c.wait {
			t.Errorf("%s: %s %v wait=%v, want %s %v wait=%v", c.name, got, ok, wait, c.want, c.ok, c.wait)
		}
	}
}

// A relay that got the catalog whole knows none of the removals before
// it: a follower holding an older version gets the whole catalog from it,
// not a delta that would leave it a track the origin removed (found by
// TestFollowersConverge, seed 1796190834417268918).
func TestWholeCatalogRaisesTheFloor(t *testing.T) {
	origin, relay, follower := NewCatalog(devA), NewCatalog(devA), NewCatalog(devA)
	mustPublish(t, origin, []Entry{entry(1, "a"), entry(2, "b")})
	syncFrom(t, follower, origin) // v1: both tracks
	mustPublish(t, origin, []Entry{entry(1, "a")})
	mustPublish(t, origin, []Entry{entry(1, "a"), entry(3, "c")})
	syncFrom(t, relay, origin) // whole, at v3: no tombstone of track 2
	if relay.Floor != relay.Version {
		t.Fatalf("relay floor %d after a whole catalog at version %d", relay.Floor, relay.Version)
	}
	d := relay.Since(follower.Version)
	if !d.Full {
		t.Fatalf("a follower at version %d got a delta from a relay that cannot know its removals: %+v", follower.Version, d)
	}
	mustApply(t, follower, d)
	if !follower.Matches(origin.Head()) {
		t.Fatal("the follower does not match the origin")
	}
	if _, ok := follower.Get(entry(2, "b").ContentID); ok {
		t.Fatal("the follower still lists the track the origin removed")
	}
}

// A lean catalog (how a device keeps its own) publishes the same versions
// and digests as a whole one, and its deltas name the same items at the
// same versions, without their entries.
func TestLeanCatalogPublishesAsAWholeOne(t *testing.T) {
	whole, lean := NewCatalog(devA), NewCatalog(devA).Lean()
	steps := [][]Entry{
		{entry(1, "One"), entry(2, "Two"), entry(3, "Three")},
		{entry(1, "One"), entry(2, "Two (remastered)"), entry(3, "Three")},
		{entry(2, "Two (remastered)"), entry(3, "Three"), entry(4, "Four")},
		{entry(2, "Two (remastered)"), entry(3, "Three"), entry(4, "Four")},
	}
	for i, es := range steps {
		dw, err := whole.Publish(es)
		if err != nil {
			t.Fatal(err)
		}
		dl, err := lean.Publish(es)
		if err != nil {
			t.Fatal(err)
		}
		if len(dw.Items) != len(dl.Items) || len(dw.Gone) != len(dl.Gone) || dw.Version != dl.Version {
			t.Fatalf("step %d: whole published %+v, lean %+v", i, dw, dl)
		}
		if whole.Head() != lean.Head() || !lean.IsLean() || lean.Len() != whole.Len() {
			t.Fatalf("step %d: heads %+v and %+v, lean %v, %d and %d items", i, whole.Head(), lean.Head(), lean.IsLean(), whole.Len(), lean.Len())
		}
	}
	if _, ok := lean.Get(cid(2)); ok {
		t.Fatal("a lean catalog returned an entry it does not keep")
	}
	for _, v := range []uint64{0, 1, 2} {
		dw, dl := whole.Since(v), lean.Since(v)
		if dw.Full != dl.Full || len(dw.Items) != len(dl.Items) || len(dw.Gone) != len(dl.Gone) {
			t.Fatalf("since %d: whole %+v, lean %+v", v, dw, dl)
		}
		for i := range dw.Items {
			if dw.Items[i].ContentID != dl.Items[i].ContentID || dw.Items[i].Ver != dl.Items[i].Ver || dl.Items[i].Title != "" {
				t.Fatalf("since %d: item %d is %+v in the whole catalog, %+v in the lean one", v, i, dw.Items[i], dl.Items[i])
			}
		}
	}
	// Another device builds the whole catalog from the lean one's delta
	// with the entries filled in: the origin's head.
	peer := NewCatalog(devA)
	mustApply(t, peer, whole.Since(0))
	if !peer.Matches(lean.Head()) {
		t.Fatalf("a peer's copy %+v does not match the lean catalog's head %+v", peer.Head(), lean.Head())
	}
}

// BenchmarkLeanSince100k lists what changed in a lean 100,000-track
// catalog (a device's own) since the version before its last publish (12
// retagged tracks), as each peer's delta request does: its cost must
// follow the delta, not the catalog.
func BenchmarkLeanSince100k(b *testing.B) {
	const n, changed = 100_000, 12
	c := NewCatalog("dev_aaaaaaaaaaaaaaaaaaaaaaaa")
	es := make([]Entry, n)
	for i := range es {
		es[i] = entry(i, fmt.Sprintf("Song %d", i))
	}
	if _, err := c.Publish(es); err != nil {
		b.Fatal(err)
	}
	before := c.Version
	for i := range changed {
		es[i*997].Title += ", retagged"
	}
	if _, err := c.Publish(es); err != nil {
		b.Fatal(err)
	}
	lean := c.Lean()
	b.ResetTimer()
	for range b.N {
		if d := lean.Since(before); len(d.Items) != changed || d.Full {
			b.Fatalf("delta of %d items (full %v)", len(d.Items), d.Full)
		}
	}
}
