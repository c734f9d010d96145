package grouplib

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/internal/wavfile"
	"github.com/furudesk/furudesk/library"
)

// The harness runs several Libraries in one process, each serving fetch
// connections on a real loopback listener. testNet plays devicesync's
// part: it knows the members, which of them are up and which links work,
// and hands each accepted connection to the library with the dialer's id
// (a first line the dialer writes, where devicesync has TLS). testLog is
// the group's operation log, delivering every op to every library.

const waitTimeout = 30 * time.Second

type testNet struct {
	t     *testing.T
	mu    sync.Mutex
	peers []*testPeer
	down  map[[2]engine.DeviceID]bool // links that do not work
	log   *testLog
}

type testPeer struct {
	n     *testNet
	id    engine.DeviceID
	name  string
	dir   string
	lib   *Library
	files *testFiles
	store *MemStore
	ln    net.Listener
	up    bool
	conns []net.Conn
	// serve replaces ServeFetch for inbound connections (a misbehaving
	// holder); nil: the library's.
	serve func(peer engine.DeviceID, c net.Conn)
}

func newTestNet(t *testing.T, names ...string) *testNet {
	n := &testNet{t: t, down: map[[2]engine.DeviceID]bool{}, log: &testLog{group: "grp_test"}}
	for i, name := range names {
		n.addPeer(fmt.Sprintf("dev_%024x", i+1), name)
	}
	t.Cleanup(func() {
		for _, p := range n.peers {
			p.kill()
			if p.lib != nil {
				_ = p.lib.Close()
			}
		}
	})
	return n
}

func testLogger() *slog.Logger {
	if os.Getenv("GROUPLIB_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func (n *testNet) addPeer(id, name string) *testPeer {
	p := &testPeer{n: n, id: engine.DeviceID(id), name: name, dir: n.t.TempDir(), files: newTestFiles(), store: NewMemStore()}
	n.mu.Lock()
	n.peers = append(n.peers, p)
	n.mu.Unlock()
	p.startLib(Config{})
	p.listen()
	return p
}

// startLib starts p's library with cfg's tuning (the harness fills in the
// rest).
func (p *testPeer) startLib(cfg Config) {
	cfg.Self, cfg.Net, cfg.Log, cfg.Store, cfg.Files = p.id, p, p.n.log.as(p), p.store, p.files
	cfg.Dir = filepath.Join(p.dir, "cache")
	cfg.Logger = testLogger().With("dev", p.name)
	if cfg.PublishDelay == 0 {
		cfg.PublishDelay = 10 * time.Millisecond
	}
	l, err := New(cfg)
	if err != nil {
		p.n.t.Fatal(err)
	}
	p.lib = l
	p.n.log.subscribe(p)
	l.Start()
}

func (p *testPeer) listen() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		p.n.t.Fatal(err)
	}
	p.n.mu.Lock()
	p.ln, p.up = ln, true
	p.n.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.accept(c)
		}
	}()
	p.n.refreshAll()
}

func (p *testPeer) accept(c net.Conn) {
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		_ = c.Close()
		return
	}
	from := engine.DeviceID(strings.TrimSpace(line))
	p.n.mu.Lock()
	if !p.up {
		p.n.mu.Unlock()
		_ = c.Close()
		return
	}
	p.conns = append(p.conns, c)
	serve := p.serve
	p.n.mu.Unlock()
	bc := &bufConn{Conn: c, r: br}
	if serve != nil {
		serve(from, bc)
	} else {
		p.lib.ServeFetch(from, bc)
	}
	_ = c.Close()
}

type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// kill takes p off the network at once: its listener and every
// connection to or from it close, and the others see it offline (and
// are told, as devicesync's PeerOffline does).
func (p *testPeer) kill() {
	p.n.mu.Lock()
	if !p.up {
		p.n.mu.Unlock()
		return
	}
	p.up = false
	conns := p.conns
	p.conns = nil
	_ = p.ln.Close()
	var others []*testPeer
	for _, o := range p.n.peers {
		if o != p {
			others = append(others, o)
		}
	}
	p.n.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
	for _, o := range others {
		if o.lib != nil {
			o.lib.PeerOffline(p.id)
		}
	}
}

// DialFetch implements Network.
func (p *testPeer) DialFetch(ctx context.Context, peer engine.DeviceID) (net.Conn, error) {
	n := p.n
	n.mu.Lock()
	target := n.peer(peer)
	ok := target != nil && target.up && p.up && !n.down[link(p.id, peer)]
	var addr string
	if ok {
		addr = target.ln.Addr().String()
	}
	n.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("test net: %s cannot reach %s", p.id, peer)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if _, err := io.WriteString(c, string(p.id)+"\n"); err != nil {
		_ = c.Close()
		return nil, err
	}
	n.mu.Lock()
	p.conns = append(p.conns, c)
	target.conns = append(target.conns, c)
	n.mu.Unlock()
	return c, nil
}

// Devices implements Network: every peer is a member; online when up and
// the link works.
func (p *testPeer) Devices() []devicesync.DeviceInfo {
	n := p.n
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []devicesync.DeviceInfo
	for _, o := range n.peers {
		out = append(out, devicesync.DeviceInfo{ID: o.id, Name: o.name, Self: o == p,
			Online: o == p || o.up && p.up && !n.down[link(p.id, o.id)]})
	}
	return out
}

func (n *testNet) peer(id engine.DeviceID) *testPeer {
	for _, p := range n.peers {
		if p.id == id {
			return p
		}
	}
	return nil
}

func link(a, b engine.DeviceID) [2]engine.DeviceID {
	if a > b {
		a, b = b, a
	}
	return [2]engine.DeviceID{a, b}
}

// cut makes a and b unable to reach each other.
func (n *testNet) cut(a, b *testPeer) {
	n.mu.Lock()
	n.down[link(a.id, b.id)] = true
	n.mu.Unlock()
	n.refreshAll()
}

func (n *testNet) refreshAll() {
	n.mu.Lock()
	ps := slices.Clone(n.peers)
	n.mu.Unlock()
	for _, p := range ps {
		if p.lib != nil {
			p.lib.Refresh()
		}
	}
}

// testLog is a group's operation log shared by every library.
type testLog struct {
	mu    sync.Mutex
	group string
	ops   []devicesync.Op
	seq   map[engine.DeviceID]uint64
	subs  []*testPeer
}

func (g *testLog) subscribe(p *testPeer) {
	g.mu.Lock()
	g.subs = append(g.subs, p)
	g.mu.Unlock()
}

type peerLog struct {
	g *testLog
	p *testPeer
}

func (g *testLog) as(p *testPeer) OpLog { return peerLog{g, p} }

func (pl peerLog) AppendOp(kind string, body json.RawMessage) (devicesync.Op, error) {
	g := pl.g
	g.mu.Lock()
	if g.seq == nil {
		g.seq = map[engine.DeviceID]uint64{}
	}
	g.seq[pl.p.id]++
	seq := g.seq[pl.p.id]
	op := devicesync.Op{ID: devicesync.OpID(pl.p.id, seq), Origin: pl.p.id, Seq: seq, Kind: kind, Body: body}
	g.ops = append(g.ops, op)
	subs := slices.Clone(g.subs)
	group := g.group
	g.mu.Unlock()
	for _, s := range subs {
		go s.lib.OpsAdded(group, []devicesync.Op{op})
	}
	return op, nil
}

func (pl peerLog) AppOps() (string, []devicesync.Op) {
	pl.g.mu.Lock()
	defer pl.g.mu.Unlock()
	return pl.g.group, slices.Clone(pl.g.ops)
}

func (pl peerLog) ForgetOps(ids []string) ([]string, error) { return ids, nil }

// testFiles is a device's own library.
type testFiles struct {
	mu     sync.Mutex
	tracks map[string]library.Track // by content id
	serve  map[string]string        // content id → the file served for it (default: the track's)
	covers map[string][]byte
}

func newTestFiles() *testFiles {
	return &testFiles{tracks: map[string]library.Track{}, serve: map[string]string{}, covers: map[string][]byte{}}
}

func (f *testFiles) EachTrack(_ context.Context, fn func(library.Track) error) error {
	f.mu.Lock()
	var ts []library.Track
	for _, t := range f.tracks {
		ts = append(ts, t)
	}
	f.mu.Unlock()
	for _, t := range ts {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

func (f *testFiles) File(id string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := f.serve[id]; ok {
		return p, true
	}
	t, ok := f.tracks[id]
	return t.Path, ok
}

func (f *testFiles) Cover(id string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.covers[id]; ok {
		return b, nil
	}
	return nil, ErrNoCover
}

// writeWAV writes a mono 16-bit WAV of seconds of a tone whose pitch
// depends on seed, so each seed gives another content id.
func writeWAV(t *testing.T, path string, seconds float64, seed int) {
	t.Helper()
	const rate = 44100
	pcm := make([]int16, int(seconds*rate))
	f := 200 + 37*float64(seed)
	for i := range pcm {
		pcm[i] = int16(0.4 * 32767 * math.Sin(2*math.Pi*f*float64(i)/rate))
	}
	var b bytes.Buffer
	if err := wavfile.Write(&b, rate, 1, pcm, wavfile.Tags{}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// addTrack writes a track of seconds with seed into p's music and adds it
// to p's library; it returns the track.
func (p *testPeer) addTrack(t *testing.T, title string, seconds float64, seed int) library.Track {
	t.Helper()
	path := filepath.Join(p.dir, "music", fmt.Sprintf("%s-%d.wav", strings.ReplaceAll(title, " ", "_"), seed))
	writeWAV(t, path, seconds, seed)
	tr, err := library.AnalyzeFile(path, filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	tr.Title = title
	p.files.mu.Lock()
	p.files.tracks[tr.ContentID] = tr
	p.files.mu.Unlock()
	p.lib.LocalChanged()
	return tr
}

// removeTrack takes a track out of p's library.
func (p *testPeer) removeTrack(id string) {
	p.files.mu.Lock()
	delete(p.files.tracks, id)
	p.files.mu.Unlock()
	p.lib.LocalChanged()
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling real sockets' progress with a deadline
	}
}

// holds reports whether p's union lists id with exactly holders.
func (p *testPeer) holds(id string, holders ...*testPeer) bool {
	loc := p.lib.Locate(id)
	var want []engine.DeviceID
	for _, h := range holders {
		want = append(want, h.id)
	}
	slices.Sort(want)
	return slices.Equal(loc.Holders, want)
}

// readAll reads r to its end.
func readAll(t *testing.T, r io.Reader) []byte {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func isUnavailable(err error, dev engine.DeviceID) bool {
	var ue *UnavailableError
	return errors.As(err, &ue) && ue.Device == dev
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
