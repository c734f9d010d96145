package grouplib_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/grouplib"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/storage"
)

// Devices on the real transport: devicesync nodes (TLS, the group's keys,
// fetch connections) with a Library each, the way cmd/furudesk wires them.

type device struct {
	t     testing.TB
	name  string
	node  *devicesync.Node
	lib   *grouplib.Library
	files *files
	dir   string
	pairs chan devicesync.PairingRequest
}

type files struct {
	mu     sync.Mutex
	tracks []library.Track
}

func (f *files) EachTrack(_ context.Context, fn func(library.Track) error) error {
	f.mu.Lock()
	ts := append([]library.Track(nil), f.tracks...)
	f.mu.Unlock()
	for _, t := range ts {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

func (f *files) File(id string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range f.tracks {
		if t.ContentID == id {
			return t.Path, t.Path != ""
		}
	}
	return "", false
}

func (f *files) Cover(string) ([]byte, error) { return nil, grouplib.ErrNoCover }

func quiet() *slog.Logger {
	if os.Getenv("GROUPLIB_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// startDevice starts a node and its library; store nil is an in-memory
// store.
func startDevice(t testing.TB, name string, store grouplib.Store) *device {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	// PairRetry within the outsiders' message rate (5/s, burst 10): a
	// request repeated faster is cut off as a flood when the accept comes
	// late on a busy machine, and the pairing hangs.
	node, err := devicesync.New(devicesync.Config{Key: key, Name: name, Listen: "127.0.0.1:0", Store: devicesync.NewMemStore(),
		Logger: quiet().With("dev", name), PairRetry: 250 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if store == nil {
		store = grouplib.NewMemStore()
	}
	d := &device{t: t, name: name, node: node, files: &files{}, dir: t.TempDir(), pairs: make(chan devicesync.PairingRequest, 4)}
	d.lib, err = grouplib.New(grouplib.Config{Self: node.ID(), Net: node, Log: node, Store: store, Files: d.files,
		Dir: filepath.Join(d.dir, "cache"), PublishDelay: 10 * time.Millisecond, Logger: quiet().With("dev", name)})
	if err != nil {
		t.Fatal(err)
	}
	node.HandleFetch(d.lib.ServeFetch)
	d.lib.Start()
	go d.pump()
	t.Cleanup(func() {
		_ = d.lib.Close()
		_ = node.Close()
	})
	return d
}

// pump hands the library what the transport reports, as the app does.
func (d *device) pump() {
	for ev := range d.node.Events() {
		switch ev := ev.(type) {
		case devicesync.PairingRequest:
			d.pairs <- ev
		case devicesync.OpsAdded:
			d.lib.OpsAdded(ev.Group, ev.Ops)
		case devicesync.PeerOffline:
			d.lib.PeerOffline(ev.Device)
		case devicesync.PeerOnline, devicesync.GroupChanged:
			d.lib.Refresh()
		}
	}
}

// join makes d join inviter's group.
func (d *device) join(inviter *device) {
	d.t.Helper()
	code, _, err := inviter.node.CreateInvite()
	if err != nil {
		d.t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- d.node.Pair(context.Background(), code) }()
	select {
	case req := <-inviter.pairs:
		if err := inviter.node.Accept(req.ID, false); err != nil {
			d.t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		d.t.Fatal("no pairing request")
	}
	if err := <-errc; err != nil {
		d.t.Fatal(err)
	}
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling real sockets' progress with a deadline
	}
}

// writeTrack writes a WAV of size bytes (silence but for a ramp of seed)
// and returns it as a library track.
func writeTrack(t testing.TB, dir string, size int, seed int) library.Track {
	t.Helper()
	data := size - 44
	data -= data % 4
	b := make([]byte, 44+data)
	copy(b, "RIFF")
	put32 := func(i int, v uint32) { b[i], b[i+1], b[i+2], b[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24) }
	put16 := func(i int, v uint16) { b[i], b[i+1] = byte(v), byte(v>>8) }
	put32(4, uint32(36+data))
	copy(b[8:], "WAVEfmt ")
	put32(16, 16)
	put16(20, 1)
	put16(22, 2)
	put32(24, 44100)
	put32(28, 44100*4)
	put16(32, 4)
	put16(34, 16)
	copy(b[36:], "data")
	put32(40, uint32(data))
	for i := 44; i < len(b); i += 4096 {
		b[i] = byte(seed + i/4096)
	}
	p := filepath.Join(dir, fmt.Sprintf("t%d.wav", seed))
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := library.AnalyzeFile(p, dir)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func (d *device) add(ts ...library.Track) {
	d.files.mu.Lock()
	d.files.tracks = append(d.files.tracks, ts...)
	d.files.mu.Unlock()
	d.lib.LocalChanged()
}

// On the real transport: B streams A's track over an authenticated fetch
// connection; once A revokes B, B's fetch connections are cut, B gets
// nothing more (neither a range nor a catalog) and forgets A's catalog.
func TestRevokedDeviceGetsNothing(t *testing.T) {
	a, b := startDevice(t, "A", nil), startDevice(t, "B", nil)
	b.join(a)
	tr, other := writeTrack(t, a.dir, 4<<20, 1), writeTrack(t, a.dir, 1<<20, 2)
	a.add(tr, other)
	waitFor(t, "B lists A's tracks", func() bool {
		return len(b.lib.Locate(tr.ContentID).Online) == 1 && len(b.lib.Locate(other.ContentID).Online) == 1
	})
	r, _, err := b.lib.Open(tr.ContentID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(r, make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	_ = r.Close()
	// The download goes on without a reader until the file is whole.
	waitFor(t, "B's copy cached", func() bool { return b.lib.Locate(tr.ContentID).Cached })
	served := a.lib.Counters().ServedBytes
	if err := a.node.Revoke(b.node.ID()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "B forgets A's catalog", func() bool { _, ok := b.lib.Entry(other.ContentID); return !ok })
	if _, err := b.node.DialFetch(context.Background(), a.node.ID()); !errors.Is(err, devicesync.ErrUnknownDevice) {
		t.Fatalf("a revoked device opened a fetch connection: %v", err)
	}
	if _, _, err := b.lib.Open(other.ContentID); !errors.Is(err, grouplib.ErrUnavailable) {
		t.Fatalf("Open of a track B never had, after the revocation: %v", err)
	}
	if got := a.lib.Counters().ServedBytes; got != served {
		t.Fatalf("A served %d more bytes after revoking B", got-served)
	}
}

// BenchmarkStreamThroughput fetches a 64 MB track from another device on
// loopback (TLS fetch connection, verification and caching included) and
// reports MB/s.
func BenchmarkStreamThroughput(b *testing.B) {
	for range b.N {
		b.StopTimer()
		a, c := startDevice(b, "A", nil), startDevice(b, "B", nil)
		c.join(a)
		tr := writeTrack(b, a.dir, 64<<20, 1)
		a.add(tr)
		waitFor(b, "B lists A's track", func() bool { return len(c.lib.Locate(tr.ContentID).Online) == 1 })
		b.StartTimer()
		start := time.Now()
		r, _, err := c.lib.Open(tr.ContentID)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		if err != nil || n != tr.Size {
			b.Fatalf("read %d of %d: %v", n, tr.Size, err)
		}
		streamed := time.Since(start)
		waitFor(b, "cached", func() bool { return c.lib.Locate(tr.ContentID).Cached })
		cached := time.Since(start)
		_ = r.Close()
		b.ReportMetric(float64(tr.Size)/1e6/streamed.Seconds(), "stream-MB/s")
		b.ReportMetric(float64(tr.Size)/1e6/cached.Seconds(), "verified-cached-MB/s")
	}
}

// syntheticID is a content id as random as a real one.
func syntheticID(i int) string {
	h := sha256.Sum256([]byte(fmt.Sprint(i)))
	return library.ContentIDPrefix + hex.EncodeToString(h[:])
}

// syntheticTracks are n catalog tracks (no files): what a large library
// publishes.
func syntheticTracks(n int) []library.Track {
	ts := make([]library.Track, n)
	for i := range ts {
		ts[i] = library.Track{ContentID: syntheticID(i), Path: fmt.Sprintf("/music/%d.flac", i),
			Size: 30 << 20, Format: "flac", Title: fmt.Sprintf("Track number %d", i%20+1),
			Artists: []string{fmt.Sprintf("Artist %d", i/200)}, Album: fmt.Sprintf("Album %d", i/12),
			AlbumArtist: fmt.Sprintf("Artist %d", i/200), TrackNo: i%12 + 1, Year: 1970 + i%50, Genre: "Rock",
			Duration: time.Duration(180+i%120) * time.Second, Cover: library.CoverEmbedded,
			Gain: library.ReplayGain{TrackGain: -7.2, TrackPeak: 0.99, HasTrack: true, AlbumGain: -6.9, AlbumPeak: 1, HasAlbum: true}}
	}
	return ts
}

// BenchmarkCatalogSync100k: a device with a 100,000-track library; a new
// device joins and receives its catalog (fetched, checked against the
// signed head, stored in SQLite). Reports the seconds and megabytes from
// the join to the whole catalog on the new device.
func BenchmarkCatalogSync100k(b *testing.B) {
	for range b.N {
		b.StopTimer()
		sa, err := storage.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		sb, err := storage.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		a := startDevice(b, "A", sa)
		a.add(syntheticTracks(100_000)...)
		waitFor(b, "A publishes its catalog", func() bool { _, ops := a.node.AppOps(); return len(ops) > 0 })
		c := startDevice(b, "B", sb)
		b.StartTimer()
		start := time.Now()
		syncBefore, _ := c.node.BytesRead()
		c.join(a)
		waitFor(b, "B holds A's 100k tracks", func() bool { return len(c.lib.Locate(syntheticID(99_999)).Holders) == 1 })
		took := time.Since(start)
		b.StopTimer()
		syncAfter, _ := c.node.BytesRead()
		wire := c.lib.Counters().WireBytes
		b.ReportMetric(took.Seconds(), "s-to-new-peer")
		b.ReportMetric(float64(wire)/1e6, "MB-fetch")
		b.ReportMetric(float64(syncAfter-syncBefore)/1e6, "MB-sync-line")
		_ = a.lib.Close()
		_ = c.lib.Close()
		_ = sa.Close()
		_ = sb.Close()
	}
}

// BenchmarkSteadyState: two devices with 10,000 tracks each, in sync,
// idle for 20 s: the bytes each reads from the other per second, sync
// line and fetch connections together (nothing changes: only the group's
// keepalives should flow).
func BenchmarkSteadyState(b *testing.B) {
	for range b.N {
		b.StopTimer()
		a, c := startDevice(b, "A", nil), startDevice(b, "B", nil)
		c.join(a)
		ts := syntheticTracks(20_000)
		a.add(ts[:10_000]...)
		c.add(ts[10_000:]...)
		waitFor(b, "both in sync", func() bool {
			return len(c.lib.Locate(ts[0].ContentID).Holders) == 1 && len(a.lib.Locate(ts[19_999].ContentID).Holders) == 1
		})
		time.Sleep(3 * time.Second) // let the join's traffic settle: this is the measurement's start, not a wait for an event
		s0, _ := c.node.BytesRead()
		f0 := c.lib.Counters().WireBytes
		const idle = 20 * time.Second
		b.StartTimer()
		time.Sleep(idle) // the measured idle period
		b.StopTimer()
		s1, _ := c.node.BytesRead()
		f1 := c.lib.Counters().WireBytes
		b.ReportMetric(float64(s1-s0+f1-f0)/idle.Seconds(), "B/s-per-peer")
		b.ReportMetric(float64(f1-f0), "fetch-bytes")
	}
}

var _ = engine.DeviceID("")
