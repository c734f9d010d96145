package grouplib

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// Catalogs reach every device: B and C, with no music, list A's tracks
// with A as their holder; a retag and a removal on A follow as deltas,
// not as the whole catalog again.
func TestCatalogReachesTheGroup(t *testing.T) {
	n := newTestNet(t, "A", "B", "C")
	a, b, c := n.peers[0], n.peers[1], n.peers[2]
	var ids []string
	for i := range 20 {
		ids = append(ids, a.addTrack(t, fmt.Sprintf("Song %d", i), 0.2, i).ContentID)
	}
	for _, p := range []*testPeer{b, c} {
		waitUntil(t, p.name+" lists A's 20 tracks", func() bool { return len(p.lib.Tracks()) == 20 && p.holds(ids[0], a) })
	}
	full := b.lib.Counters().CatalogBytes
	tr := a.files.tracks[ids[3]]
	tr.Title = "Retagged"
	a.files.mu.Lock()
	a.files.tracks[ids[3]] = tr
	a.files.mu.Unlock()
	a.removeTrack(ids[4])
	waitUntil(t, "B sees the retag and the removal", func() bool {
		e, _ := b.lib.Entry(ids[3])
		return e.Title == "Retagged" && len(b.lib.Tracks()) == 19
	})
	if delta := b.lib.Counters().CatalogBytes - full; delta*4 > full {
		t.Fatalf("the change cost %d bytes, the whole catalog %d: not sent as a delta", delta, full)
	}
	if got := b.lib.Search("retagged", 10); len(got) != 1 || got[0].ContentID != ids[3] || !got[0].Online {
		t.Fatalf("search: %+v", got)
	}
}

// In a partial mesh a device gets the catalog of one it cannot reach from
// one that holds it, checked against the origin's signed head; it lists
// those tracks, but cannot play them now (no holder is reachable).
func TestCatalogThroughARelay(t *testing.T) {
	n := newTestNet(t, "A", "B", "C")
	a, b, c := n.peers[0], n.peers[1], n.peers[2]
	n.cut(a, c)
	id := a.addTrack(t, "Far away", 0.2, 1).ContentID
	waitUntil(t, "C lists A's track through B", func() bool { return c.holds(id, a) })
	if loc := c.lib.Locate(id); loc.Reachable() {
		t.Fatalf("C can reach a track only A holds: %+v", loc)
	}
	if !b.holds(id, a) {
		t.Fatal("B lost A's catalog")
	}
}

// A relay that changes an entry is caught: the catalog does not match
// its origin's head and is refused.
func TestForgedCatalogIsRefused(t *testing.T) {
	n := newTestNet(t, "A", "B", "C")
	a, b, c := n.peers[0], n.peers[1], n.peers[2]
	n.cut(a, c)
	b.serve = func(peer engine.DeviceID, conn net.Conn) { forgeCatalogs(t, b, conn) }
	id := a.addTrack(t, "Original", 0.2, 1).ContentID
	waitUntil(t, "B holds A's catalog", func() bool { return b.holds(id, a) })
	waitUntil(t, "C refuses B's forgery", func() bool { return c.lib.Counters().BadCatalogs > 0 })
	if _, ok := c.lib.Entry(id); ok {
		t.Fatal("C took a forged catalog")
	}
}

// forgeCatalogs answers catalog requests with the catalog held, every
// title changed.
func forgeCatalogs(t *testing.T, p *testPeer, c net.Conn) {
	br := bufio.NewReader(c)
	line, err := readLine(br, maxRequestBytes)
	if err != nil {
		return
	}
	var req request
	if jsonUnmarshal(line, &req) != nil || req.Op != opCatalog {
		return
	}
	d, held, err := p.lib.catalogDelta(req.Origin, 0, req.Want)
	if err != nil || !held {
		_ = writeLine(c, response{Status: statusStale})
		return
	}
	for i, it := range d.Items {
		e := it.Entry
		e.Title = "Forged"
		d.Items[i] = newItem(e, it.Ver)
	}
	body, _ := encodeDelta(d)
	_ = writeLine(c, response{Status: statusOK, Len: int64(len(body))})
	_, _ = c.Write(body)
}

// B, with no music, plays A's track while it downloads: the first bytes
// come before the rest, a seek to 80% is served from there (the middle is
// still missing then), and the finished file is verified and cached.
func TestStreamPlaysWhileItDownloads(t *testing.T) {
	n := newTestNet(t, "A", "B")
	a, b := n.peers[0], n.peers[1]
	tr := a.addTrack(t, "Long", 60, 1) // 5.3 MB
	want := fileBytes(t, tr.Path)
	// Slow enough that the download from the start reaches the middle
	// some 10 s after it began (at 2 MB/s it took 1.3 s, which a loaded
	// machine can spend between the Open and the check below); fast
	// again for the rest of the test.
	if err := a.lib.SetUploadRate(256 << 10); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "B lists A's track", func() bool { return b.holds(tr.ContentID, a) })
	r, src, err := b.lib.Open(tr.ContentID)
	if err != nil || src != SourceStream {
		t.Fatalf("Open: %v, %v", src, err)
	}
	defer r.Close()
	head := make([]byte, 4096)
	if _, err := io.ReadFull(r, head); err != nil || !bytes.Equal(head, want[:4096]) {
		t.Fatalf("first bytes: %v", err)
	}
	if h, fetching := b.lib.Streaming(tr.ContentID); !fetching || h != a.id {
		t.Fatalf("streaming from %q (%v), want A", h, fetching)
	}
	at := int64(len(want)) * 8 / 10
	if _, err := r.Seek(at, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	part := make([]byte, 8192)
	if _, err := io.ReadFull(r, part); err != nil || !bytes.Equal(part, want[at:at+8192]) {
		t.Fatalf("bytes at 80%%: %v", err)
	}
	d := b.lib.downloads[tr.ContentID]
	d.mu.Lock()
	middle := d.have[d.n/2]
	d.mu.Unlock()
	if middle {
		t.Fatal("the middle of the file arrived before the bytes at 80%: the seek waited for the download to get there")
	}
	if err := a.lib.SetUploadRate(0); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, r); !bytes.Equal(got, want) {
		t.Fatal("the streamed file differs from A's")
	}
	waitUntil(t, "the track is cached", func() bool { return b.lib.Locate(tr.ContentID).Cached })
}

// A holder killed mid-stream: the download goes on from another holder of
// the same file at the same offset, and the reader never sees an error.
func TestHolderKilledMidStreamSwitches(t *testing.T) {
	n := newTestNet(t, "A", "B", "C")
	a, b, c := n.peers[0], n.peers[1], n.peers[2]
	tr := a.addTrack(t, "Shared", 30, 1)
	c.addTrack(t, "Shared", 30, 1) // the same file
	want := fileBytes(t, tr.Path)
	// Slow enough that A is still sending when it is killed however long a
	// loaded machine takes over the first bytes (at 1 MB/s the whole file
	// came in 2.6 s); C sends the rest at full speed.
	for _, p := range []*testPeer{a, c} {
		if err := p.lib.SetUploadRate(256 << 10); err != nil {
			t.Fatal(err)
		}
	}
	waitUntil(t, "B lists both holders", func() bool { return b.holds(tr.ContentID, a, c) })
	r, _, err := b.lib.Open(tr.ContentID)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first := make([]byte, 512<<10)
	if _, err := io.ReadFull(r, first); err != nil {
		t.Fatal(err)
	}
	if h, _ := b.lib.Streaming(tr.ContentID); h != a.id {
		t.Fatalf("streaming from %s, want A (the first by id)", h)
	}
	a.kill()
	if err := c.lib.SetUploadRate(0); err != nil {
		t.Fatal(err)
	}
	rest := readAll(t, r)
	if got := append(first, rest...); !bytes.Equal(got, want) {
		t.Fatal("the file read across the switch differs from the original")
	}
	if b.lib.Counters().HolderErrors == 0 {
		t.Fatal("the lost holder was not counted")
	}
	waitUntil(t, "the track is cached", func() bool { return b.lib.Locate(tr.ContentID).Cached })
}

// The only holder killed mid-stream: the reader gets every byte that
// arrived, then an error naming that device.
func TestOnlyHolderKilledMidStream(t *testing.T) {
	n := newTestNet(t, "A", "B")
	a, b := n.peers[0], n.peers[1]
	tr := a.addTrack(t, "Alone", 30, 1)
	want := fileBytes(t, tr.Path)
	// A is still sending when it is killed: the whole file takes 10 s at
	// this rate (2.6 s at 1 MB/s, which a loaded machine can spend before
	// the kill).
	if err := a.lib.SetUploadRate(256 << 10); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "B lists A's track", func() bool { return b.holds(tr.ContentID, a) })
	r, _, err := b.lib.Open(tr.ContentID)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first := make([]byte, 256<<10)
	if _, err := io.ReadFull(r, first); err != nil {
		t.Fatal(err)
	}
	a.kill()
	got, err := io.ReadAll(r)
	if !isUnavailable(err, a.id) {
		t.Fatalf("read after the holder went: %v, want an UnavailableError naming A", err)
	}
	got = append(first, got...)
	if len(got) >= len(want) || !bytes.Equal(got, want[:len(got)]) {
		t.Fatalf("read %d of %d bytes before the error, or they differ", len(got), len(want))
	}
	if b.lib.Locate(tr.ContentID).Reachable() {
		t.Fatal("the track still counts as reachable")
	}
}

// A cached track plays with no holder online.
func TestCachedTrackPlaysWithoutHolders(t *testing.T) {
	n := newTestNet(t, "A", "B")
	a, b := n.peers[0], n.peers[1]
	tr := a.addTrack(t, "Kept", 5, 1)
	waitUntil(t, "B lists A's track", func() bool { return b.holds(tr.ContentID, a) })
	b.lib.Prefetch(tr.ContentID)
	waitUntil(t, "the track is cached", func() bool { return b.lib.Locate(tr.ContentID).Cached })
	a.kill()
	r, src, err := b.lib.Open(tr.ContentID)
	if err != nil || src != SourceCache {
		t.Fatalf("Open with A gone: %v, %v", src, err)
	}
	defer r.Close()
	if !bytes.Equal(readAll(t, r), fileBytes(t, tr.Path)) {
		t.Fatal("the cached copy differs")
	}
}

// A holder serving bytes that do not match the content id: the file is
// refused (never cached), counted, and fetched again from another holder.
func TestWrongBytesAreRefused(t *testing.T) {
	n := newTestNet(t, "A", "B", "C")
	a, b, c := n.peers[0], n.peers[1], n.peers[2]
	tr := a.addTrack(t, "Twice", 5, 1)
	c.addTrack(t, "Twice", 5, 1)
	bad := fileBytes(t, tr.Path)
	for i := len(bad) / 2; i < len(bad)/2+1000; i++ {
		bad[i] ^= 0x55 // damaged audio, same size
	}
	corrupt := a.dir + "/corrupt.wav"
	if err := os.WriteFile(corrupt, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	a.files.mu.Lock()
	a.files.serve[tr.ContentID] = corrupt
	a.files.mu.Unlock()
	waitUntil(t, "B lists both holders", func() bool { return b.holds(tr.ContentID, a, c) })
	b.lib.Prefetch(tr.ContentID) // A first (smallest id)
	waitUntil(t, "the mismatch is counted", func() bool { return b.lib.Counters().Mismatches == 1 })
	waitUntil(t, "C's copy is cached", func() bool { return b.lib.Locate(tr.ContentID).Cached })
	r, src, err := b.lib.Open(tr.ContentID)
	if err != nil || src != SourceCache {
		t.Fatalf("Open: %v %v", src, err)
	}
	defer r.Close()
	if !bytes.Equal(readAll(t, r), fileBytes(t, tr.Path)) {
		t.Fatal("the cached copy is not the right file")
	}
	if !b.lib.barred(tr.ContentID, a.id, time.Now()) {
		t.Fatal("A is not barred from the track it served wrong")
	}
}

// A holder that stalls, one that sends more bytes than it announced and
// one that says "not here": each is left for another holder.
func TestMisbehavingHolders(t *testing.T) {
	for name, serve := range map[string]func(t *testing.T, c net.Conn){
		"stall": func(t *testing.T, c net.Conn) {
			br := bufio.NewReader(c)
			_, _ = readLine(br, maxRequestBytes)
			_, _ = io.Copy(io.Discard, br) // never answers: holds on until B gives up and closes
		},
		"too many bytes": func(t *testing.T, c net.Conn) {
			br := bufio.NewReader(c)
			line, _ := readLine(br, maxRequestBytes)
			var req request
			_ = jsonUnmarshal(line, &req)
			_ = writeLine(c, response{Status: statusOK, Size: req.Off + req.Len + 10, Off: req.Off, Len: req.Len + 10})
			_, _ = c.Write(make([]byte, req.Len+10))
		},
		"not here": func(t *testing.T, c net.Conn) {
			_, _ = readLine(bufio.NewReader(c), maxRequestBytes)
			_ = writeLine(c, response{Status: statusNotHere})
		},
	} {
		t.Run(name, func(t *testing.T) {
			n := newTestNet(t, "A", "B", "C")
			a, b, c := n.peers[0], n.peers[1], n.peers[2]
			_ = b.lib.Close()
			// Short, so the stalled holder is left soon, yet far above the
			// gaps between reads of a holder that answers on a loaded
			// machine: C's good copy must not count as stalled too.
			b.startLib(Config{Stall: 2 * time.Second})
			tr := a.addTrack(t, "X", 5, 1)
			c.addTrack(t, "X", 5, 1)
			waitUntil(t, "B lists both holders", func() bool { return b.holds(tr.ContentID, a, c) })
			a.serve = func(_ engine.DeviceID, conn net.Conn) { serve(t, conn) }
			b.lib.cl.drop(a.id) // connections opened before are served as before
			r, _, err := b.lib.Open(tr.ContentID)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if !bytes.Equal(readAll(t, r), fileBytes(t, tr.Path)) {
				t.Fatal("the file read differs")
			}
			if b.lib.Counters().HolderErrors == 0 {
				t.Fatal("A's failure was not counted")
			}
			waitUntil(t, "cached", func() bool { return b.lib.Locate(tr.ContentID).Cached })
		})
	}
}

// Upload limits: one device gets at most DefaultUploadsPerPeer transfers
// at once; the next request is answered "busy" at once.
func TestUploadsPerPeerAreLimited(t *testing.T) {
	n := newTestNet(t, "A", "B")
	a, b := n.peers[0], n.peers[1]
	tr := a.addTrack(t, "Big", 30, 1)
	if err := a.lib.SetUploadRate(64 << 10); err != nil { // transfers last
		t.Fatal(err)
	}
	waitUntil(t, "B lists A's track", func() bool { return b.holds(tr.ContentID, a) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{}, DefaultUploadsPerPeer)
	for range DefaultUploadsPerPeer {
		go func() {
			_ = b.lib.cl.do(ctx, a.id, request{Op: opGet, ID: tr.ContentID, Len: 1 << 20}, func(response, io.Reader) error {
				started <- struct{}{}
				<-ctx.Done()
				return ctx.Err()
			})
		}()
	}
	for range DefaultUploadsPerPeer {
		<-started
	}
	err := b.lib.cl.do(ctx, a.id, request{Op: opGet, ID: tr.ContentID, Len: 1 << 20}, func(response, io.Reader) error { return nil })
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("request over the limit: %v, want ErrBusy", err)
	}
	if a.lib.Counters().Busy == 0 {
		t.Fatal("busy answer not counted")
	}
}

// A request for a content id the device has no file for gets "not here".
func TestNotHere(t *testing.T) {
	n := newTestNet(t, "A", "B")
	a, b := n.peers[0], n.peers[1]
	a.addTrack(t, "Something", 0.2, 1)
	err := b.lib.cl.do(context.Background(), a.id, request{Op: opGet, ID: cid(99), Len: 10}, func(response, io.Reader) error { return nil })
	if !errors.Is(err, ErrNotHere) {
		t.Fatalf("get of an unknown track: %v", err)
	}
}

// Covers of remote tracks come from their holder, shrunk, and stay.
func TestCoverFetchedSmallAndKept(t *testing.T) {
	n := newTestNet(t, "A", "B")
	a, b := n.peers[0], n.peers[1]
	tr := a.addTrack(t, "Pictured", 0.2, 1)
	img := image.NewRGBA(image.Rect(0, 0, 1200, 900))
	for y := range 900 {
		for x := range 1200 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	a.files.mu.Lock()
	a.files.covers[tr.ContentID] = buf.Bytes()
	a.files.mu.Unlock()
	waitUntil(t, "B lists A's track", func() bool { return b.holds(tr.ContentID, a) })
	got, err := b.lib.Cover(context.Background(), tr.ContentID)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(got))
	if err != nil || cfg.Width > coverSide || cfg.Height > coverSide || cfg.Width < coverSide-1 {
		t.Fatalf("cover %dx%d, %v", cfg.Width, cfg.Height, err)
	}
	a.kill()
	if again, err := b.lib.Cover(context.Background(), tr.ContentID); err != nil || !bytes.Equal(again, got) {
		t.Fatalf("kept cover: %v", err)
	}
}

// A device that leaves the group takes its catalog along.
func TestCatalogOfALeaverIsDropped(t *testing.T) {
	n := newTestNet(t, "A", "B")
	a, b := n.peers[0], n.peers[1]
	id := a.addTrack(t, "Gone soon", 0.2, 1).ContentID
	waitUntil(t, "B lists A's track", func() bool { return b.holds(id, a) })
	n.mu.Lock()
	n.peers = n.peers[1:] // A is no member any more
	n.mu.Unlock()
	b.lib.Refresh()
	waitUntil(t, "B forgets A's catalog", func() bool { _, ok := b.lib.Entry(id); return !ok })
	if cats, _ := b.store.LoadCatalogs(""); len(cats) != 0 {
		t.Fatalf("stored catalogs: %+v", cats)
	}
}

// A restart keeps the catalogs: nothing is fetched again.
func TestCatalogsSurviveARestart(t *testing.T) {
	n := newTestNet(t, "A", "B")
	a, b := n.peers[0], n.peers[1]
	id := a.addTrack(t, "Stays", 0.2, 1).ContentID
	waitUntil(t, "B lists A's track", func() bool { return b.holds(id, a) })
	_ = b.lib.Close()
	b.startLib(Config{})
	waitUntil(t, "B lists A's track after its restart", func() bool { return b.holds(id, a) })
	if got := b.lib.Counters().CatalogSyncs; got != 0 {
		t.Fatalf("fetched %d catalogs again after a restart", got)
	}
	if v := a.lib.catalogs[a.id].Version; v != 1 {
		t.Fatalf("A's catalog at version %d", v)
	}
}

// A device keeps its own catalog lean (the entries are its library's,
// which the window and the index already hold) and serves it whole from
// the store: a peer that asks gets every entry, and the head's digest. A
// store that moved on to a newer publish (another content at the
// catalog's version) makes it tell the asker to ask again, not send
// entries the head does not describe.
func TestOwnCatalogKeptLeanServedFromTheStore(t *testing.T) {
	n := newTestNet(t, "A", "B")
	a, b := n.peers[0], n.peers[1]
	id := a.addTrack(t, "Lean", 0.2, 1).ContentID
	waitUntil(t, "B lists A's track", func() bool { return b.holds(id, a) })
	a.lib.mu.RLock()
	own := a.lib.catalogs[a.id]
	a.lib.mu.RUnlock()
	if !own.IsLean() || own.Len() != 1 {
		t.Fatalf("A's own catalog: lean %v, %d items; want lean with 1", own.IsLean(), own.Len())
	}
	d, held, err := a.lib.catalogDelta(a.id, 0, own.Version)
	if err != nil || !held || len(d.Items) != 1 || d.Items[0].Title != "Lean" {
		t.Fatalf("A serving its catalog: %+v, held %v, %v", d, held, err)
	}
	peer := NewCatalog(a.id)
	mustApply(t, peer, d)
	if !peer.Matches(own.Head()) {
		t.Fatalf("the catalog A served has head %+v, A signed %+v", peer.Head(), own.Head())
	}
	// The store's entry changed under the same version: not served.
	retag := d.Items[0].Entry
	retag.Title = "Changed"
	if err := a.store.SaveDelta(context.Background(), Delta{Origin: a.id, Since: own.Version, Version: own.Version,
		Items: []*Item{newItem(retag, own.Version)}}, own.Floor); err != nil {
		t.Fatal(err)
	}
	if d, held, err := a.lib.catalogDelta(a.id, 0, own.Version); err != nil || held {
		t.Fatalf("A served %+v (held %v, %v) from a store that no longer matches its catalog", d, held, err)
	}
}
