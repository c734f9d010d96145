package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/furudesk/furudesk/internal/pulsetest"

	"github.com/furudesk/furudesk/app"
)

// The end-to-end tests run real `furudesk --headless` processes on
// loopback, each with its own data dir and its own PulseAudio null sink
// (PULSE_SINK=devN on one private server), drive them only through
// `furudesk ctl`, and record every sink's monitor with parec.

var binPath string // built once in TestMain

func TestMain(m *testing.M) {
	flag.Parse()
	code := func() int {
		if testing.Short() {
			return m.Run()
		}
		dir, err := os.MkdirTemp("", "fdbin")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binPath = filepath.Join(dir, "furudesk")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "build furudesk: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

func needTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required on CI (CI=true) but not installed: %v", name, err)
		}
		t.Skipf("%s not installed: %v", name, err)
	}
	return p
}

func needE2E(t testing.TB) {
	t.Helper()
	if testing.Short() || binPath == "" {
		t.Skip("end-to-end: not in -short mode")
	}
}

// pulse is a private PulseAudio server with one null sink per device.
type pulse struct {
	env []string
}

func startPulse(t testing.TB, sinks int) *pulse {
	t.Helper()
	bin := needTool(t, "pulseaudio")
	needTool(t, "pactl")
	needTool(t, "parec")
	names := make([]string, sinks)
	for i := range names {
		names[i] = fmt.Sprintf("dev%d", i)
	}
	return &pulse{env: pulsetest.Start(t, bin, names...).Env}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func mustWrite(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// recorder captures one sink's monitor and places frames in wall time.
type recorder struct {
	mu       sync.Mutex
	left     []int16
	arrivals []arrival
	cancel   context.CancelFunc
	done     chan struct{}
}

type arrival struct {
	frames int64
	at     time.Time
}

const rate = 44100

func (p *pulse) record(t testing.TB, sink string) *recorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "parec", "--latency-msec=10", "-d", sink+".monitor",
		"--format=s16le", "--rate=44100", "--channels=2", "--raw")
	cmd.Env = p.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("parec: %v", err)
	}
	r := &recorder{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		br := bufio.NewReaderSize(out, 1<<16)
		buf := make([]byte, 1764)
		var carry []byte
		for {
			n, err := br.Read(buf)
			now := time.Now()
			if n > 0 {
				b := append(carry, buf[:n]...)
				whole := len(b) / 4 * 4
				r.mu.Lock()
				for i := 0; i < whole; i += 4 {
					r.left = append(r.left, int16(binary.LittleEndian.Uint16(b[i:])))
				}
				if br.Buffered() == 0 {
					r.arrivals = append(r.arrivals, arrival{frames: int64(len(r.left)), at: now})
				}
				r.mu.Unlock()
				carry = append([]byte(nil), b[whole:]...)
			}
			if err != nil {
				_ = cmd.Wait()
				return
			}
		}
	}()
	t.Cleanup(func() { r.cancel(); <-r.done })
	waitFor(t, 20*time.Second, "recorder "+sink+" first samples", func() bool { return r.frames() > 4410 })
	return r
}

func (r *recorder) frames() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.left)
}

// snapshot returns the samples and a function placing a frame in wall
// time (the earliest bound over later arrivals, as audio/pulse_test.go).
func (r *recorder) snapshot() ([]int16, func(int) time.Time, func(time.Time) int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	x := append([]int16(nil), r.left...)
	arr := append([]arrival(nil), r.arrivals...)
	sufMin := make([]int64, len(arr)+1)
	sufMin[len(arr)] = math.MaxInt64
	for k := len(arr) - 1; k >= 0; k-- {
		v := arr[k].at.UnixNano() - arr[k].frames*int64(time.Second)/rate
		sufMin[k] = min(v, sufMin[k+1])
	}
	at := func(frame int) time.Time {
		k := sort.Search(len(arr), func(k int) bool { return arr[k].frames > int64(frame) })
		if k == len(arr) {
			return time.Time{}
		}
		return time.Unix(0, sufMin[k]+int64(frame)*int64(time.Second)/rate)
	}
	frameAt := func(t time.Time) int {
		return sort.Search(len(x), func(i int) bool { a := at(i); return a.IsZero() || !a.Before(t) })
	}
	return x, at, frameAt
}

const soundThr = 1000

// lastSound is the time of the last audible frame at or after from; zero
// when none.
func lastSound(r *recorder, from time.Time) time.Time {
	x, at, frameAt := r.snapshot()
	for i := len(x) - 1; i >= frameAt(from); i-- {
		if x[i] > soundThr || x[i] < -soundThr {
			return at(i)
		}
	}
	return time.Time{}
}

// firstSound is the time of the first audible frame at or after from.
func firstSound(r *recorder, from time.Time) (time.Time, int) {
	x, at, frameAt := r.snapshot()
	for i := frameAt(from); i < len(x); i++ {
		if x[i] > soundThr || x[i] < -soundThr {
			return at(i), i
		}
	}
	return time.Time{}, -1
}

// audible reports whether r has sound in [from, to].
func audible(r *recorder, from, to time.Time) bool {
	x, _, frameAt := r.snapshot()
	a, b := frameAt(from), min(frameAt(to), len(x))
	loud := 0
	for i := a; i < b; i++ {
		if x[i] > soundThr || x[i] < -soundThr {
			loud++
		}
	}
	return loud > rate/20 // more than 50 ms worth of loud samples
}

// freqAt measures the frequency over 100 ms from frame i.
func freqAt(r *recorder, i int) float64 {
	x, _, _ := r.snapshot()
	n := rate / 10
	if i < 0 || i+n > len(x) {
		return 0
	}
	cross := 0
	for k := i + 1; k < i+n; k++ {
		if (x[k-1] < 0) != (x[k] < 0) {
			cross++
		}
	}
	return float64(cross) / 2 / 0.1
}

// Test tracks: mono WAVs whose pitch encodes the position, 200 Hz + 20 Hz
// per second (track 1 starts at 1600 Hz), so a recording tells where in
// the track the sound is.
const trackSeconds = 60

func trackFreq(track int, sec float64) float64 { return 200 + 1400*float64(track) + 20*math.Floor(sec) }

func posFromFreq(track int, f float64) float64 { return (f - 200 - 1400*float64(track)) / 20 }

func writeTrack(t testing.TB, path string, track int) {
	frames := trackSeconds * rate
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("RIFF")
	_ = binary.Write(&b, le, uint32(36+frames*2))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(rate * 2), uint16(2), uint16(16)} {
		_ = binary.Write(&b, le, v)
	}
	b.WriteString("data")
	_ = binary.Write(&b, le, uint32(frames*2))
	phase := 0.0
	pcm := make([]byte, frames*2)
	for i := range frames {
		f := trackFreq(track, float64(i)/rate)
		phase += 2 * math.Pi * f / rate
		le.PutUint16(pcm[i*2:], uint16(int16(0.5*32767*math.Sin(phase))))
	}
	b.Write(pcm)
	mustWrite(t, path, b.Bytes())
}

// node is one `furudesk --headless` process.
type node struct {
	t      testing.TB
	name   string
	dir    string
	music  string
	listen string
	sink   string
	args   []string
	wrap   []string // a command the binary runs under (ip netns exec NS)
	env    []string
	cmd    *exec.Cmd
	exited chan struct{}
	// lastExit is how the process that stop ended last ended.
	lastExit *os.ProcessState
	log      *syncBuf
	id       string
	rec      *recorder
}

func freePort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func (n *node) start() {
	n.t.Helper()
	argv := append(append(append([]string(nil), n.wrap...), binPath), n.args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = n.env
	n.log = &syncBuf{}
	cmd.Stdout, cmd.Stderr = n.log, n.log
	if err := cmd.Start(); err != nil {
		n.t.Fatal(err)
	}
	n.cmd, n.exited = cmd, make(chan struct{})
	exited := n.exited
	go func() { _ = cmd.Wait(); close(exited) }()
	waitFor(n.t, 20*time.Second, n.name+" ctl socket", func() bool {
		_, err := n.ctlErr("status")
		return err == nil
	})
	n.id = string(n.status().DeviceID)
}

// stop ends the process with SIGTERM (graceful) or SIGKILL.
func (n *node) stop(kill bool) {
	if n.cmd == nil {
		return
	}
	if kill {
		_ = n.cmd.Process.Kill()
	} else {
		_ = n.cmd.Process.Signal(os.Interrupt)
	}
	select {
	case <-n.exited:
	case <-time.After(30 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.exited
	}
	n.lastExit = n.cmd.ProcessState
	n.cmd = nil
}

func (n *node) ctlErr(args ...string) ([]byte, error) {
	cmd := exec.Command(binPath, append([]string{"ctl", "--data-dir", n.dir}, args...)...)
	cmd.Env = n.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("ctl %v: %v: %s", args, err, errb.String())
	}
	return out.Bytes(), nil
}

func (n *node) ctl(args ...string) []byte {
	n.t.Helper()
	b, err := n.ctlErr(args...)
	if err != nil {
		n.t.Fatalf("%s: %v\nlog:\n%s", n.name, err, tail(n.log.String(), 3000))
	}
	return b
}

func (n *node) status() app.Status {
	n.t.Helper()
	var s app.Status
	if err := json.Unmarshal(n.ctl("status"), &s); err != nil {
		n.t.Fatal(err)
	}
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition with a deadline
	}
}

// cluster is a set of nodes on one PulseAudio server.
type cluster struct {
	t     testing.TB
	pa    *pulse
	nodes []*node
}

const testOwnerTimeout = 2 * time.Second

func newCluster(t testing.TB, names []string, passive map[string]bool) *cluster {
	return newClusterTimeout(t, names, passive, testOwnerTimeout)
}

// newClusterTimeout is newCluster with owner_timeout ownerTimeout.
func newClusterTimeout(t testing.TB, names []string, passive map[string]bool, ownerTimeout time.Duration) *cluster {
	needE2E(t)
	c := &cluster{t: t, pa: startPulse(t, len(names))}
	var addrs []string
	for range names {
		addrs = append(addrs, freePort(t))
	}
	cfg := fmt.Sprintf(`{"discovery_ms":500,"owner_timeout_ms":%d}`, ownerTimeout.Milliseconds())
	for i, name := range names {
		var peers []string
		for j, a := range addrs {
			if j != i {
				peers = append(peers, a)
			}
		}
		c.addNode(name, i, addrs[i], cfg, peers, passive[name], nil)
	}
	c.cleanupNodes()
	return c
}

// addNode sets up device name (the i-th: its sink is devI) with its own
// data dir and two test tracks, listening on listen, dialing peers, run
// under wrap when set, and starts recording its sink. It does not start it.
func (c *cluster) addNode(name string, i int, listen, cfg string, peers []string, passive bool, wrap []string) *node {
	t := c.t
	dir, err := os.MkdirTemp("", "fd"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	music := filepath.Join(dir, "music")
	if err := os.MkdirAll(music, 0o700); err != nil {
		t.Fatal(err)
	}
	for k := range 2 {
		writeTrack(t, filepath.Join(music, fmt.Sprintf("track%d.wav", k)), k)
	}
	n := &node{t: t, name: name, dir: dir, music: music, listen: listen, sink: fmt.Sprintf("dev%d", i), wrap: append(pulsetest.PlayerPriority(), wrap...)}
	n.args = []string{"--headless", "--data-dir", dir, "--listen", n.listen, "--name", name,
		"--music", music, "--mdns=false", "--config-json", cfg}
	for _, p := range peers {
		n.args = append(n.args, "--peer", p)
	}
	if passive {
		n.args = append(n.args, "--passive")
	}
	n.env = append(append([]string(nil), c.pa.env...), "PULSE_SINK="+n.sink)
	n.rec = c.pa.record(t, n.sink)
	c.nodes = append(c.nodes, n)
	return n
}

// cleanupNodes kills every node when the test ends, and shows their logs
// when it failed.
func (c *cluster) cleanupNodes() {
	c.t.Cleanup(func() {
		for _, n := range c.nodes {
			n.stop(true)
			if c.t.Failed() {
				c.t.Logf("%s log:\n%s", n.name, tail(n.log.String(), 4000))
			}
		}
	})
}

func (c *cluster) node(name string) *node {
	for _, n := range c.nodes {
		if n.name == name {
			return n
		}
	}
	c.t.Fatalf("no node %s", name)
	return nil
}

// pair brings every node into the first node's group through ctl.
func (c *cluster) pair() {
	a := c.nodes[0]
	group := a.status().GroupID
	for _, n := range c.nodes[1:] {
		var inv app.Invite
		if err := json.Unmarshal(a.ctl("invite"), &inv); err != nil {
			c.t.Fatal(err)
		}
		n.ctl("pair", inv.Code)
		var req []app.PairingRequest
		waitFor(c.t, 20*time.Second, n.name+"'s pairing request on "+a.name, func() bool {
			_ = json.Unmarshal(a.ctl("pairing"), &req)
			return len(req) > 0
		})
		a.ctl("accept", req[0].ID)
		waitFor(c.t, 20*time.Second, n.name+" joins the group", func() bool { return n.status().GroupID == group })
	}
	waitFor(c.t, 20*time.Second, "every node sees the whole group", func() bool {
		for _, n := range c.nodes {
			if len(n.status().Devices) != len(c.nodes) {
				return false
			}
		}
		return true
	})
}

// scanned waits until every node has both test tracks.
func (c *cluster) scanned() []string {
	var ids []string
	waitFor(c.t, 30*time.Second, "scan", func() bool {
		for _, n := range c.nodes {
			b, err := n.ctlErr("tracks")
			if err != nil {
				return false
			}
			var tr []struct {
				ContentID string `json:"content_id"`
				Path      string `json:"path"`
			}
			_ = json.Unmarshal(b, &tr)
			if len(tr) != 2 {
				return false
			}
			sort.Slice(tr, func(i, j int) bool { return tr[i].Path < tr[j].Path })
			ids = []string{tr[0].ContentID, tr[1].ContentID}
		}
		return true
	})
	return ids
}

// renderers returns the nodes whose status says they render.
func (c *cluster) renderers(nodes []*node) []*node {
	var out []*node
	for _, n := range nodes {
		if n.cmd == nil {
			continue
		}
		if s, err := n.ctlErr("status"); err == nil {
			var st app.Status
			if json.Unmarshal(s, &st) == nil && st.Rendering {
				out = append(out, n)
			}
		}
	}
	return out
}

// longestSilence is the longest stretch without an audible frame in
// [from, to] of r's recording.
func longestSilence(r *recorder, from, to time.Time) time.Duration {
	x, _, frameAt := r.snapshot()
	a, b := frameAt(from), min(frameAt(to), len(x))
	longest, run := 0, 0
	for i := a; i < b; i++ {
		if x[i] > soundThr || x[i] < -soundThr {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return time.Duration(longest) * time.Second / rate
}

// timedStatus is a status with the wall times just before and after the
// ctl call that read it: the status describes a moment in [from, to]. A
// ctl process takes a while to start and answer on a loaded machine, so a
// position worked out from a status and a wall time is a span, not a
// point taken at one end of the call.
type timedStatus struct {
	app.Status
	from, to time.Time
}

func (n *node) timedStatus() timedStatus {
	n.t.Helper()
	from := time.Now()
	st := n.status()
	return timedStatus{Status: st, from: from, to: time.Now()}
}

// posSpan is a range of positions in a track, in seconds.
type posSpan struct{ lo, hi float64 }

func (s posSpan) String() string { return fmt.Sprintf("%.2f-%.2f s", s.lo, s.hi) }

// apart is how far s and o are apart, 0 when they overlap.
func (s posSpan) apart(o posSpan) float64 { return max(0, s.lo-o.hi, o.lo-s.hi) }

// resumedAt is where a device that renders began: its position less the
// time since it began to render.
func (s timedStatus) resumedAt() posSpan {
	pos := float64(s.PositionMS) / 1000
	return posSpan{pos - s.to.Sub(s.RenderingSince).Seconds(), pos - s.from.Sub(s.RenderingSince).Seconds()}
}

// playedOnTo is where the position s showed had got to, playing on, at a
// moment in [t0, t1] (a kill: from the signal to the process's end).
func (s timedStatus) playedOnTo(t0, t1 time.Time) posSpan {
	pos := float64(s.PositionMS) / 1000
	return posSpan{pos + t0.Sub(s.to).Seconds(), pos + t1.Sub(s.from).Seconds()}
}
