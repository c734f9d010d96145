package engine

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestInteraction runs the golden-file scripts in testdata/. Regenerate the
// expected output with:
//
//	go test ./engine -run TestInteraction -rewrite
//
// Each device is driven like the app actor (doc.go): after every input its
// Ready is taken, the checkpoint "persisted" to the device's store, the
// announcement "published" (delivered only by deliver/gossip commands), and
// Advance called. The trace shows what each Ready asked for.
//
// Commands (devices are named by their first argument):
//
//	new a [passive] [discovery=ms] [timeout=ms] [startup=bool] [failover=bool] [paused=bool]
//	restore a claim=N/issuer/owner [hb=N] [cmd=N] [group=g] [config args]
//	elapse ms=N [a b ...]     advance the clocks of the listed (default all) devices
//	tick [a b ...]            Tick (default all live devices)
//	resumed a ms=N            Resumed: a was not listening for N ms
//	heartbeat a [available] [playing]
//	report a source=N [available] [playing]    gateway OutputReport
//	startup a                 RequestStartup
//	deliver from=a [to=b,c]   a's last published announcement (default to all)
//	gossip                    every device's last published announcement to all others
//	announce to=a from=b claim=.. [hb=N] [available] [playing] [version=N] [device=x]
//	transfer a to=b           prints the stamp; remembered as a's last stamp
//	stamp a                   ordinary control stamp; remembered as a's last stamp
//	receive b from=a [handoff] [claim=.. seq=N version=N]   default: a's last stamp
//	flood b senders=N [seq=N] commands from N new senders in b's term
//	fence b [from=a]          Fence(a's last stamp)
//	crash a / restart a       lose all but the persisted checkpoint / Restore it
//	state [a ...]             queries
//	snapshot / command        decode the JSON input as a Snapshot / Command envelope
func TestInteraction(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			w := newWorld()
			datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
				return w.run(t, td)
			})
		})
	}
}

type ddDevice struct {
	id        DeviceID
	cfg       Config
	clock     *fakeClock
	e         *Engine
	store     *Checkpoint
	published *Coordination
	last      CommandStamp
}

type world struct {
	devs  map[DeviceID]*ddDevice
	order []DeviceID
	out   strings.Builder
}

func newWorld() *world { return &world{devs: make(map[DeviceID]*ddDevice)} }

func (w *world) dev(t *testing.T, name string) *ddDevice {
	d, ok := w.devs[DeviceID(name)]
	if !ok {
		t.Fatalf("unknown device %q", name)
	}
	if d.e == nil {
		t.Fatalf("device %q is crashed", name)
	}
	return d
}

func fmtClaim(c Claim) string {
	if c.IsZero() {
		return "none"
	}
	return fmt.Sprintf("%d/%s/%s", c.Counter, c.Issuer, c.Owner)
}

func parseClaim(t *testing.T, s string) Claim {
	if s == "none" {
		return Claim{}
	}
	p := strings.Split(s, "/")
	if len(p) != 3 {
		t.Fatalf("claim %q: want N/issuer/owner", s)
	}
	n, err := strconv.ParseUint(p[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return Claim{n, DeviceID(p[1]), DeviceID(p[2])}
}

func fmtOutput(o Output) string {
	switch {
	case o.Playing:
		return "playing"
	case o.Available:
		return "available"
	}
	return "unavailable"
}

func fmtStamp(s CommandStamp) string {
	return fmt.Sprintf("v%d %s #%d", s.Version, fmtClaim(s.Claim), s.Sequence)
}

func fmtAnn(c Coordination) string {
	return fmt.Sprintf("claim=%s hb=%d out=%s", fmtClaim(c.Claim), c.Heartbeat, fmtOutput(c.Output))
}

// drive acts on d's Ready as the app actor does and traces it.
func (w *world) drive(d *ddDevice) {
	if d.e == nil || !d.e.HasReady() {
		return
	}
	rd := d.e.Ready()
	var parts []string
	if rd.PersistCheckpoint {
		cp := rd.Checkpoint
		d.store = &cp
		parts = append(parts, fmt.Sprintf("persist claim=%s hb<=%d cmd<=%d", fmtClaim(cp.Claim), cp.HeartbeatReserved, cp.CommandReserved))
	}
	if rd.OwnerChanged {
		owner := string(rd.Owner)
		if owner == "" {
			owner = "none"
		}
		parts = append(parts, "owner="+owner)
	}
	if rd.RenderChanged {
		if rd.MayRender {
			parts = append(parts, "RENDER")
		} else {
			parts = append(parts, "STOP")
		}
	}
	if rd.Gossip {
		a := rd.Announcement
		d.published = &a
		parts = append(parts, "gossip "+fmtAnn(a))
	}
	d.e.Advance()
	fmt.Fprintf(&w.out, "  %s ready: %s\n", d.id, strings.Join(parts, "; "))
}

func configArgs(t *testing.T, td *datadriven.TestData, cfg Config) Config {
	if td.HasArg("passive") {
		cfg = Passive()
	}
	var n uint64
	if td.MaybeScanArgs(t, "discovery", &n) {
		cfg.DiscoveryMS = n
	}
	if td.MaybeScanArgs(t, "timeout", &n) {
		cfg.OwnerTimeoutMS = n
	}
	td.MaybeScanArgs(t, "startup", &cfg.ClaimOnStartup)
	td.MaybeScanArgs(t, "failover", &cfg.AutomaticFailover)
	td.MaybeScanArgs(t, "paused", &cfg.TakePausedOnStartup)
	return cfg
}

func outputArgs(td *datadriven.TestData) Output {
	return Output{Available: td.HasArg("available") || td.HasArg("playing"), Playing: td.HasArg("playing")}
}

// targets returns the devices named by the positional args, or all live ones.
func (w *world) targets(t *testing.T, td *datadriven.TestData) []*ddDevice {
	var out []*ddDevice
	for _, a := range td.CmdArgs {
		if len(a.Vals) == 0 {
			if _, ok := w.devs[DeviceID(a.Key)]; ok {
				out = append(out, w.dev(t, a.Key))
			}
		}
	}
	if len(out) == 0 {
		for _, id := range w.order {
			if d := w.devs[id]; d.e != nil {
				out = append(out, d)
			}
		}
	}
	return out
}

func (w *world) run(t *testing.T, td *datadriven.TestData) string {
	w.out.Reset()
	first := ""
	if len(td.CmdArgs) > 0 {
		first = td.CmdArgs[0].Key
	}
	switch td.Cmd {
	case "new", "restore":
		cfg := configArgs(t, td, DefaultConfig())
		d := &ddDevice{id: DeviceID(first), cfg: cfg, clock: &fakeClock{}}
		var err error
		if td.Cmd == "new" {
			d.e, err = New(d.id, "g", cfg, d.clock)
		} else {
			var cs string
			td.ScanArgs(t, "claim", &cs)
			cp := Checkpoint{Group: "g", Device: d.id, Claim: parseClaim(t, cs)}
			td.MaybeScanArgs(t, "hb", &cp.HeartbeatReserved)
			td.MaybeScanArgs(t, "cmd", &cp.CommandReserved)
			td.MaybeScanArgs(t, "group", &cp.Group)
			d.store = &cp
			d.e, err = Restore(cp, "g", cfg, d.clock)
		}
		if err != nil {
			return "error: " + err.Error()
		}
		if _, ok := w.devs[d.id]; !ok {
			w.order = append(w.order, d.id)
		}
		w.devs[d.id] = d
		w.drive(d)
	case "elapse":
		var n int
		td.ScanArgs(t, "ms", &n)
		for _, d := range w.targets(t, td) {
			d.clock.advance(ms(n))
		}
		return "ok"
	case "tick":
		for _, d := range w.targets(t, td) {
			d.e.Tick()
			w.drive(d)
		}
	case "resumed":
		d := w.dev(t, first)
		var n int
		td.ScanArgs(t, "ms", &n)
		d.e.Resumed(ms(n))
		w.drive(d)
		return "ok"
	case "heartbeat":
		d := w.dev(t, first)
		fmt.Fprintf(&w.out, "%s heartbeat %d\n", d.id, d.e.Heartbeat(outputArgs(td)))
		w.drive(d)
	case "report":
		d := w.dev(t, first)
		var src uint64
		td.ScanArgs(t, "source", &src)
		fmt.Fprintf(&w.out, "%s report source=%d: %v\n", d.id, src, d.e.OutputReport(src, outputArgs(td)))
		w.drive(d)
	case "startup":
		d := w.dev(t, first)
		d.e.RequestStartup()
		fmt.Fprintf(&w.out, "%s startup pending=%v\n", d.id, d.e.StartupPending())
		w.drive(d)
	case "deliver":
		var from string
		td.ScanArgs(t, "from", &from)
		src := w.devs[DeviceID(from)]
		var to []string
		if td.HasArg("to") {
			var s string
			td.ScanArgs(t, "to", &s)
			to = strings.Split(s, ",")
		} else {
			for _, id := range w.order {
				if id != src.id {
					to = append(to, string(id))
				}
			}
		}
		w.deliver(t, src, to)
	case "gossip":
		for _, id := range w.order {
			src := w.devs[id]
			var to []string
			for _, o := range w.order {
				if o != id {
					to = append(to, string(o))
				}
			}
			w.deliver(t, src, to)
		}
	case "announce":
		var to, from, cs string
		td.ScanArgs(t, "to", &to)
		td.ScanArgs(t, "from", &from)
		td.ScanArgs(t, "claim", &cs)
		c := Coordination{Version: EnvelopeVersion, Device: DeviceID(from), Claim: parseClaim(t, cs), Output: outputArgs(td)}
		td.MaybeScanArgs(t, "hb", &c.Heartbeat)
		td.MaybeScanArgs(t, "version", &c.Version)
		var dev string
		if td.MaybeScanArgs(t, "device", &dev) {
			c.Device = DeviceID(dev)
		}
		d := w.dev(t, to)
		w.announce(d, DeviceID(from), c)
	case "transfer", "stamp":
		d := w.dev(t, first)
		var st CommandStamp
		var err error
		if td.Cmd == "transfer" {
			var to string
			td.ScanArgs(t, "to", &to)
			st, err = d.e.Transfer(DeviceID(to))
		} else {
			st, err = d.e.Stamp()
		}
		if err != nil {
			fmt.Fprintf(&w.out, "%s %s: error: %v\n", d.id, td.Cmd, err)
		} else {
			d.last = st
			fmt.Fprintf(&w.out, "%s %s: stamp %s\n", d.id, td.Cmd, fmtStamp(st))
		}
		w.drive(d)
	case "receive":
		d := w.dev(t, first)
		var from string
		td.ScanArgs(t, "from", &from)
		st := CommandStamp{}
		if src, ok := w.devs[DeviceID(from)]; ok {
			st = src.last
		}
		var cs string
		if td.MaybeScanArgs(t, "claim", &cs) {
			st.Claim = parseClaim(t, cs)
			st.Version = EnvelopeVersion
		}
		td.MaybeScanArgs(t, "seq", &st.Sequence)
		td.MaybeScanArgs(t, "version", &st.Version)
		v := d.e.Receive(DeviceID(from), st, td.HasArg("handoff"))
		fmt.Fprintf(&w.out, "%s receive from %s %s handoff=%v: %s\n", d.id, from, fmtStamp(st), td.HasArg("handoff"), v)
		w.drive(d)
	case "flood":
		d := w.dev(t, first)
		var n int
		seq := uint64(1)
		td.ScanArgs(t, "senders", &n)
		td.MaybeScanArgs(t, "seq", &seq)
		counts := map[Verdict]int{}
		for i := range n {
			counts[d.e.Receive(DeviceID(fmt.Sprintf("flood%03d", i)), CommandStamp{Version: 1, Claim: d.e.Claim(), Sequence: seq}, false)]++
		}
		keys := make([]Verdict, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&w.out, "%s: %d\n", k, counts[k])
		}
		fmt.Fprintf(&w.out, "senders tracked: %d\n", d.e.Stats().Senders)
		w.drive(d)
	case "fence":
		d := w.dev(t, first)
		st := d.last
		var from string
		if td.MaybeScanArgs(t, "from", &from) {
			st = w.devs[DeviceID(from)].last
		}
		fmt.Fprintf(&w.out, "%s fence %s: %v\n", d.id, fmtStamp(st), d.e.Fence(st))
	case "crash":
		d := w.dev(t, first)
		d.e = nil
		d.published = nil
		fmt.Fprintf(&w.out, "%s crashed; store claim=%s\n", d.id, fmtClaim(d.store.Claim))
	case "restart":
		d := w.devs[DeviceID(first)]
		d.clock = &fakeClock{t: 7 * time.Hour} // a new process: arbitrary monotonic origin
		var err error
		if d.store == nil {
			d.e, err = New(d.id, "g", d.cfg, d.clock)
		} else {
			d.e, err = Restore(*d.store, "g", d.cfg, d.clock)
		}
		if err != nil {
			return "error: " + err.Error()
		}
		fmt.Fprintf(&w.out, "%s restarted: claim=%s\n", d.id, fmtClaim(d.e.Claim()))
		w.drive(d)
	case "state":
		for _, d := range w.targets(t, td) {
			e := d.e
			v := e.OwnerView()
			fmt.Fprintf(&w.out, "%s: claim=%s owner=%s render=%v pending=%v owner-live=%v owner-output=%s reported=%v\n",
				d.id, fmtClaim(e.Claim()), orNone(e.Owner()), e.MayRender(), e.StartupPending(), e.OwnerLive(), fmtOutput(e.OwnerOutput()), v.Reported)
		}
	case "snapshot":
		var s Snapshot[json.RawMessage]
		if err := json.Unmarshal([]byte(td.Input), &s); err != nil {
			return "error: " + err.Error()
		}
		if s.Coordination == nil {
			return "legacy snapshot: no coordination envelope, ignored"
		}
		return "coordination: device=" + string(s.Coordination.Device) + " version=" + strconv.Itoa(int(s.Coordination.Version)) + " " + fmtAnn(*s.Coordination)
	case "command":
		var c Command[json.RawMessage]
		if err := json.Unmarshal([]byte(td.Input), &c); err != nil {
			return "error: " + err.Error()
		}
		if c.Stamp == nil {
			return "legacy command: no stamp, ignored"
		}
		return fmt.Sprintf("stamp %s handoff=%v body=%s", fmtStamp(*c.Stamp), c.Handoff, c.Body)
	default:
		t.Fatalf("unknown command %q", td.Cmd)
	}
	s := w.out.String()
	if s == "" {
		return "ok"
	}
	return strings.TrimRight(s, "\n")
}

func orNone(d DeviceID) string {
	if d == "" {
		return "none"
	}
	return string(d)
}

func (w *world) announce(d *ddDevice, from DeviceID, c Coordination) {
	if err := d.e.Announce(from, c); err != nil {
		fmt.Fprintf(&w.out, "%s <- %s: rejected: %v\n", d.id, from, err)
		return
	}
	fmt.Fprintf(&w.out, "%s <- %s %s\n", d.id, from, fmtAnn(c))
	w.drive(d)
}

func (w *world) deliver(t *testing.T, src *ddDevice, to []string) {
	if src == nil || src.published == nil {
		return
	}
	for _, name := range to {
		d := w.devs[DeviceID(name)]
		if d == nil {
			t.Fatalf("unknown device %q", name)
		}
		if d.e == nil {
			continue
		}
		w.announce(d, src.id, *src.published)
	}
}
