package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/furudesk/furudesk/web"
)

// webClient is one paired browser, without a browser: its cookie and one
// WebSocket.
type webClient struct {
	ws     *websocket.Conn
	states chan map[string]any
	err    error // why the connection ended, once states is closed
}

// pairWebClient pairs a client with a code from n's ctl and connects it.
func pairWebClient(tb testing.TB, n *node, addr string) *webClient {
	tb.Helper()
	m := codeRe.FindStringSubmatch(string(n.ctl("web", "pair")))
	if m == nil {
		tb.Fatal("ctl web pair printed no code")
	}
	req, _ := http.NewRequest("POST", "http://"+addr+"/api/pair", strings.NewReader(`{"code":"`+m[1]+`"}`))
	req.Header.Set("Origin", "http://"+addr)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	var cookie string
	for _, c := range resp.Cookies() {
		cookie = c.Name + "=" + c.Value
	}
	if resp.StatusCode != 200 || cookie == "" {
		tb.Fatalf("pair: %s", resp.Status)
	}
	h := http.Header{}
	h.Set("Origin", "http://"+addr)
	h.Set("Cookie", cookie)
	ws, _, err := websocket.Dial(context.Background(), "ws://"+addr+"/ws", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		tb.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	c := &webClient{ws: ws, states: make(chan map[string]any, 256)}
	go func() {
		defer close(c.states)
		for {
			_, b, err := ws.Read(context.Background())
			if err != nil {
				c.err = err
				return
			}
			var msg struct {
				T     string         `json:"t"`
				State map[string]any `json:"state"`
			}
			if json.Unmarshal(b, &msg) == nil && msg.T == "state" {
				c.states <- msg.State
			}
		}
	}()
	tb.Cleanup(func() { _ = ws.CloseNow() })
	return c
}

func (c *webClient) send(tb testing.TB, op string) {
	tb.Helper()
	if err := c.ws.Write(context.Background(), websocket.MessageText, []byte(`{"id":1,"op":"`+op+`"}`)); err != nil {
		tb.Fatal(err)
	}
}

// drain forgets the states pushed so far.
func (c *webClient) drain() {
	for {
		select {
		case <-c.states:
		default:
			return
		}
	}
}

// waitState returns the first pushed state that satisfies ok.
func (c *webClient) waitState(tb testing.TB, what string, ok func(map[string]any) bool) {
	tb.Helper()
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	for {
		select {
		case s, open := <-c.states:
			if !open {
				tb.Fatalf("connection closed waiting for %s: %v", what, c.err)
			}
			if ok(s) {
				return
			}
		case <-t.C:
			tb.Fatalf("no pushed state with %s", what)
		}
	}
}

// BenchmarkWebControl measures, on loopback, the time from a page's
// play/pause to the owner's state change: a page of the serving device
// (desk) sends it, a page served by the owner sees the owner's new state
// pushed (desk's own page when desk plays; box's when box plays, the
// command going desk -> box and box's state coming back).
func BenchmarkWebControl(b *testing.B) {
	needE2E(b)
	for b.Loop() {
		c := newCluster(b, []string{"desk", "box"}, nil)
		addr, boxAddr := freePort(b), freePort(b)
		desk, box := c.nodes[0], c.nodes[1]
		desk.args = append(desk.args, "--web", addr)
		box.args = append(box.args, "--web", boxAddr)
		for _, n := range c.nodes {
			n.start()
		}
		c.pair()
		ids := c.scanned()
		wc := pairWebClient(b, desk, addr)
		watch := map[*node]*webClient{desk: wc, box: pairWebClient(b, box, boxAddr)}
		desk.ctl("play", ids[0], ids[1])
		for _, owner := range []*node{desk, box} {
			desk.ctl("transfer", owner.id)
			waitFor(b, 20*time.Second, owner.name+" plays", func() bool { st := desk.status(); return string(st.Owner) == owner.id && st.Playing })
			var took []time.Duration
			playing := true
			// A page paced like a quick user: under the flood limit
			// (web.MsgRate a second).
			pace := time.NewTicker(100 * time.Millisecond)
			for range 40 {
				<-pace.C
				watch[owner].drain()
				at := time.Now()
				wc.send(b, "toggle")
				playing = !playing
				watch[owner].waitState(b, fmt.Sprintf("playing=%v", playing), func(s map[string]any) bool { return s["playing"] == playing })
				took = append(took, time.Since(at))
			}
			pace.Stop()
			b.ReportMetric(float64(pctl(took, 50).Microseconds())/1000, "owner-"+owner.name+"-p50-ms")
			b.ReportMetric(float64(pctl(took, 95).Microseconds())/1000, "owner-"+owner.name+"-p95-ms")
		}
	}
}

// BenchmarkWebIdle measures the CPU of a headless device serving 50
// paired, connected and idle pages (paused), against the same device
// with none.
func BenchmarkWebIdle(b *testing.B) {
	needE2E(b)
	const pages, idle = 50, 20 * time.Second
	for b.Loop() {
		c := newCluster(b, []string{"hub"}, nil)
		addr := freePort(b)
		hub := c.nodes[0]
		hub.args = append(hub.args, "--web", addr)
		hub.start()
		c.scanned()
		measure := func() float64 {
			cpu0, t0 := procCPU(b, hub.cmd.Process.Pid), time.Now()
			time.Sleep(idle) // the measured idle period
			ticks := procCPU(b, hub.cmd.Process.Pid) - cpu0
			return float64(time.Duration(ticks)*10*time.Millisecond) / float64(time.Since(t0)) * 100 // USER_HZ 100
		}
		none := measure()
		for range pages {
			pairWebClient(b, hub, addr)
		}
		if in := webInfoTB(b, hub); in.Connected != pages {
			b.Fatalf("%d pages connected, want %d", in.Connected, pages)
		}
		with := measure()
		b.ReportMetric(none, "cpu-0pages-%")
		b.ReportMetric(with, "cpu-50pages-%")
	}
}

var codeRe = regexp.MustCompile(`Pairing code: ([A-Z0-9]{4}-[A-Z0-9]{4})`)

func webInfoTB(tb testing.TB, n *node) web.Info {
	tb.Helper()
	var in web.Info
	if err := json.Unmarshal(n.ctl("web", "info"), &in); err != nil {
		tb.Fatal(err)
	}
	return in
}
