package storage

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/grouplib"
	"github.com/furudesk/furudesk/internal/cputime"
	"github.com/furudesk/furudesk/library"
)

// fakeClock is a manual monotonic clock.
type fakeClock struct{ now time.Duration }

func (c *fakeClock) Now() time.Duration { return c.now }

// engineDriver runs the actor's persistence step for a real engine: after
// each input, take Ready, commit its checkpoint when it changed, Advance.
type engineDriver struct {
	s     *Store
	e     *engine.Engine
	clock *fakeClock
}

func newEngineDriver(tb testing.TB, s *Store) *engineDriver {
	tb.Helper()
	clock := &fakeClock{}
	cfg := engine.DefaultConfig()
	var e *engine.Engine
	cp, ok, err := s.LoadCheckpoint("grp_bench")
	if err != nil {
		tb.Fatal(err)
	}
	if ok {
		e, err = engine.Restore(cp, "grp_bench", cfg, clock)
	} else {
		e, err = engine.New("dev_bench", "grp_bench", cfg, clock)
	}
	if err != nil {
		tb.Fatal(err)
	}
	d := &engineDriver{s: s, e: e, clock: clock}
	e.RequestStartup()
	clock.now += time.Duration(cfg.DiscoveryMS) * time.Millisecond
	e.Heartbeat(engine.Output{Available: true})
	e.Tick() // startup claim: we own the output
	d.step(tb)
	if !e.MayRender() {
		tb.Fatalf("engine did not claim on startup")
	}
	return d
}

func (d *engineDriver) step(tb testing.TB) {
	if !d.e.HasReady() {
		return
	}
	rd := d.e.Ready()
	if rd.PersistCheckpoint {
		cp := rd.Checkpoint
		if err := d.s.Commit(Transition{Checkpoint: &cp}); err != nil {
			tb.Fatal(err)
		}
	}
	d.e.Advance()
}

// run feeds heartbeats real output reports (one per 250 ms, as the actor's
// ticker does) with a stamped command after every heartbeats/commands of
// them, and a Tick every second.
func (d *engineDriver) run(tb testing.TB, heartbeats, commands int) {
	every := heartbeats / commands
	for i := 1; i <= heartbeats; i++ {
		d.clock.now += 250 * time.Millisecond
		d.e.Heartbeat(engine.Output{Available: true, Playing: true})
		d.step(tb)
		if i%4 == 0 {
			d.e.Tick()
			d.step(tb)
		}
		if i%every == 0 {
			if _, err := d.e.Stamp(); err != nil {
				tb.Fatal(err)
			}
			d.step(tb)
		}
	}
}

// TestEngineDrivenWrites: 10,000 heartbeats and 1,000 commands through a
// real engine cost at most one database write per 100 heartbeats, and a
// restart from what was written never reuses an id.
func TestEngineDrivenWrites(t *testing.T) {
	s, _ := openTemp(t)
	d := newEngineDriver(t, s)
	before := s.Writes()
	d.run(t, 10000, 1000)
	writes := s.Writes() - before
	t.Logf("10,000 heartbeats + 1,000 commands: %d database writes", writes)
	if writes > 10000/100 {
		t.Fatalf("%d writes, want at most %d (1 per 100 heartbeats)", writes, 10000/100)
	}
	lastHB := d.e.Heartbeat(engine.Output{Available: true})
	d.step(t)
	stamp, err := d.e.Stamp()
	if err != nil {
		t.Fatal(err)
	}
	d.step(t)
	restarted := newEngineDriver(t, s)
	if hb := restarted.e.Heartbeat(engine.Output{Available: true}); hb <= lastHB {
		t.Fatalf("after restart heartbeat id %d, not above %d", hb, lastHB)
	}
	if st, err := restarted.e.Stamp(); err != nil || st.Sequence <= stamp.Sequence {
		t.Fatalf("after restart command sequence %d (%v), not above %d", st.Sequence, err, stamp.Sequence)
	}
}

// BenchmarkEngineDrivenWrites reports the database writes per 10,000
// heartbeats + 1,000 commands driven through a real engine.
func BenchmarkEngineDrivenWrites(b *testing.B) {
	s, _ := openTemp(b)
	d := newEngineDriver(b, s)
	before := s.Writes()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.run(b, 10000, 1000)
	}
	b.StopTimer()
	w := float64(s.Writes()-before) / float64(b.N)
	b.ReportMetric(w, "writes/10k-heartbeats+1k-commands")
	b.ReportMetric(w/100, "writes/100-heartbeats")
}

// BenchmarkCommitLatency measures one transition commit (checkpoint,
// transport, one op) with synchronous=FULL, reporting p50/p99.
func BenchmarkCommitLatency(b *testing.B) {
	s, _ := openTemp(b)
	if err := s.Commit(Transition{Queue: testQueue(50)}); err != nil {
		b.Fatal(err)
	}
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cp := testCheckpoint(uint64(i+1), uint64(i+1)*1024)
		tp := Transport{Index: i % 50, PositionMS: int64(i), Playing: true, Volume: 80, Repeat: RepeatAll}
		start := time.Now()
		if err := s.Commit(Transition{Checkpoint: cp, Transport: &tp, Ops: []Op{testOp("dev_a", uint64(i+1))}}); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkSearch measures Search over 10,000 tracks with mixed queries
// (one letter, prefixes, accented, several words, no match), reporting wall
// p50/p95 and, where the OS reports it, the CPU p95 each search costs (wall
// time on a shared machine measures the neighbours too). Target: p95 ≤ 10 ms.
func BenchmarkSearch(b *testing.B) {
	s, _ := openTemp(b)
	if err := s.PutTracks(manyTracks(10000)); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	wall := make([]time.Duration, 0, b.N)
	var cpu []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := searchQueries[rng.Intn(len(searchQueries))]
		c0, ok := cputime.Process()
		start := time.Now()
		if _, err := s.Search(q, 200); err != nil {
			b.Fatal(err)
		}
		wall = append(wall, time.Since(start))
		if c1, _ := cputime.Process(); ok {
			cpu = append(cpu, c1-c0)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(pct(wall, 50).Microseconds()), "p50-µs")
	b.ReportMetric(float64(pct(wall, 95).Microseconds()), "p95-µs")
	if cpu != nil {
		b.ReportMetric(float64(pct(cpu, 95).Microseconds()), "cpu-p95-µs")
	}
}

// benchCatalog is n tracks as a scan of a large collection finds them:
// one or two artists each, albums of about 12 tracks.
func benchCatalog(n int) []library.Track {
	out := make([]library.Track, n)
	for i := range out {
		al := i / 12
		out[i] = library.Track{Path: fmt.Sprintf("/music/Artist %d/Album %d/%02d Song %d.flac", al/4, al, i%12+1, i),
			ContentID: fmt.Sprintf("b3:%064x", i), Size: 1000 + int64(i), ModTime: time.Unix(1700000000, int64(i)),
			Format: "flac", Title: fmt.Sprintf("Song %d of Grösse", i), Artists: []string{fmt.Sprintf("Artist %d", al/4)},
			Album: fmt.Sprintf("Album %d", al), TrackNo: i%12 + 1, Year: 1990 + al%30, Duration: 3 * time.Minute}
		if i%7 == 0 {
			out[i].Artists = append(out[i].Artists, "Guest Ágætis")
		}
	}
	return out
}

// BenchmarkPutTracks100k stores a 100,000-track catalog into an empty
// database in the scan's batches (the cold scan's database side), and
// reports tracks/s of CPU time as well as of wall time.
func BenchmarkPutTracks100k(b *testing.B) {
	const n, batch = 100_000, 256
	ts := benchCatalog(n)
	for range b.N {
		s, err := Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		c0, _ := cputime.Process()
		t0 := time.Now()
		for i := 0; i < n; i += batch {
			if err := s.PutTracks(ts[i:min(n, i+batch)]); err != nil {
				b.Fatal(err)
			}
		}
		wall := time.Since(t0)
		c1, _ := cputime.Process()
		b.ReportMetric(n/wall.Seconds(), "tracks/s")
		b.ReportMetric(n/(c1-c0).Seconds(), "tracks/cpu-s")
		_ = s.Close()
	}
}

// benchStore is a store holding ts, put in the scan's batches.
func benchStore(b *testing.B, ts []library.Track) *Store {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	const batch = 256
	for i := 0; i < len(ts); i += batch {
		if err := s.PutTracks(ts[i:min(len(ts), i+batch)]); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkTracks100k reads a 100,000-track catalog whole, as the window
// does when a scan ends.
func BenchmarkTracks100k(b *testing.B) {
	const n = 100_000
	s := benchStore(b, benchCatalog(n))
	b.ResetTimer()
	for range b.N {
		got, err := s.Tracks()
		if err != nil || len(got) != n {
			b.Fatalf("read %d tracks: %v", len(got), err)
		}
	}
}

// BenchmarkLoadItemsDelta100k reads what changed in a 100,000-track
// catalog since the version before the last publish (12 retagged
// tracks), as a device does each time a peer asks for its own catalog's
// delta: the cost must follow the delta, not the catalog.
func BenchmarkLoadItemsDelta100k(b *testing.B) {
	const n, changed = 100_000, 12
	const origin = engine.DeviceID("dev_aaaaaaaaaaaaaaaaaaaaaaaa")
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := grouplib.NewCatalog(origin)
	es := make([]grouplib.Entry, n)
	for i := range es {
		es[i] = catEntry(i, fmt.Sprintf("Song %d", i))
	}
	if _, err := c.Publish(es); err != nil {
		b.Fatal(err)
	}
	if err := s.SaveDelta(context.Background(), c.Since(0), c.Floor); err != nil {
		b.Fatal(err)
	}
	before := c.Version
	for i := range changed {
		es[i*997].Title += ", retagged"
	}
	d, err := c.Publish(es)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.SaveDelta(context.Background(), d, c.Floor); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		items, err := s.LoadItems(context.Background(), origin, before)
		if err != nil || len(items) != changed {
			b.Fatalf("read %d items: %v", len(items), err)
		}
	}
}

// BenchmarkTracksKeptNames100k reads a 100,000-track catalog whole and
// keeps what the window keeps of the read as it is (the album, album
// artist, genre, cover and artist names it shares between tracks), then
// reports the Go heap's spans those names keep in use once the rest of
// the read is garbage (pinned-MB; kept-MB is the names' own bytes). A
// name kept among the read's garbage keeps its whole span.
func BenchmarkTracksKeptNames100k(b *testing.B) {
	const n = 100_000
	ts := benchCatalog(n)
	for i := range ts {
		ts[i].Genre = fmt.Sprintf("Genre %d", i%300)
	}
	s := benchStore(b, ts)
	ts = nil
	for range b.N {
		before := heapSpans()
		got, err := s.Tracks()
		if err != nil || len(got) != n {
			b.Fatalf("read %d tracks: %v", len(got), err)
		}
		kept := map[string]string{}
		for _, t := range got {
			for _, v := range append([]string{t.Album, t.AlbumArtist, t.Genre, t.Cover}, t.Artists...) {
				kept[v] = v
			}
		}
		got = nil
		bytes := 0
		for v := range kept {
			bytes += len(v)
		}
		after := heapSpans()
		b.ReportMetric(float64(after.inuse-before.inuse)/(1<<20), "pinned-MB")
		b.ReportMetric(float64(bytes)/(1<<20), "kept-MB")
		runtime.KeepAlive(kept)
	}
}

type spans struct{ inuse uint64 }

// heapSpans is the Go heap's spans in use after a collection.
func heapSpans() spans {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return spans{inuse: m.HeapInuse}
}

// BenchmarkTrackByContentID looks one track up, as the status does for
// the playing one several times a second: B/op is what each lookup
// allocates, its names' block included (a block of strpack.BlockSize per
// lookup before the blocks grew from small ones).
func BenchmarkTrackByContentID(b *testing.B) {
	ts := benchCatalog(1000)
	s := benchStore(b, ts)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.TrackByContentID(ts[i%len(ts)].ContentID); err != nil {
			b.Fatalf("track %d: %v", i%len(ts), err)
		}
	}
}
