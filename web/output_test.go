package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/furudesk/furudesk/audio"
)

type memReserved struct{ v, saves uint64 }

func (m *memReserved) LoadReserved() (uint64, error) { return m.v, nil }
func (m *memReserved) SaveReserved(v uint64) error   { m.v = v; m.saves++; return nil }

func newHubHarness(t *testing.T, res *memReserved, now func() time.Time) (*harness, *BrowserOutput) {
	t.Helper()
	p, clk := newTestPairing(t)
	h := &harness{t: t, be: newFakeBackend(), st: &memStore{}, clk: clk}
	out, err := NewBrowserOutput(res, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	h.s, err = New(Options{Backend: h.be, Store: h.st, Output: out, Now: func() time.Time { return clk.now() }, Rand: p.rand})
	if err != nil {
		t.Fatal(err)
	}
	h.hs = httptest.NewServer(h.s)
	t.Cleanup(func() { h.hs.Close(); _ = h.s.Close() })
	return h, out
}

func sendJSON(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := c.Write(context.Background(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

// noEvent fails if the output has an event (all events are sent before
// the reply that the caller already read).
func noEvent(t *testing.T, out *BrowserOutput, what string) {
	t.Helper()
	select {
	case ev := <-out.Events():
		t.Fatalf("%s made an event: %#v", what, ev)
	default:
	}
}

func TestHubPlaysOnTheChosenBrowser(t *testing.T) {
	res := &memReserved{}
	now := time.Unix(1e9, 0) // the output's fake clock
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h, out := newHubHarness(t, res, clock)
	dir := t.TempDir()
	song := filepath.Join(dir, "song.mp3")
	if err := os.WriteFile(song, make([]byte, 10000), 0o600); err != nil {
		t.Fatal(err)
	}
	ck := h.pair()
	c, _, err := h.dial(ck, h.origin())
	if err != nil {
		t.Fatal(err)
	}
	if m := next(t, c, "hello"); m["hub"] != true {
		t.Fatalf("hello does not say hub: %v", m["raw"])
	}
	sendJSON(t, c, map[string]any{"id": 1, "op": "output_open", "page": "p1", "fresh": true, "here": true})
	r := next(t, c, "reply")
	if r["ok"] != true {
		t.Fatal(r["raw"])
	}
	token := uint64(r["data"].(map[string]any)["token"].(float64))
	if res.v < token {
		t.Fatalf("token %d handed out above the persisted reservation %d", token, res.v)
	}
	if l, b := out.OutputLabel(), h.s.Browsers()[0].Label; l != b || l == "" {
		t.Fatalf("the output is named %q, its browser %q", l, b)
	}
	if calls := h.be.Calls(); len(calls) != 1 || calls[0] != "transfer "+string(h.be.Status().DeviceID) {
		t.Fatalf("\"Play on this browser\" is no transfer to the hub: %v", calls)
	}
	tr := out.Play(audio.Source{ID: "b3:aa", Path: song, Name: "Song"}, 2*time.Second)
	m := next(t, c, "out")
	if m["cmd"] != "play" || m["url"] != "/media/b3:aa?t=1" || m["ms"].(float64) != 2000 || m["mime"] != "audio/mpeg" {
		t.Fatalf("play command %v", m["raw"])
	}

	// The file, with Range; nothing else.
	get := func(path, rng string, withCookie bool) *http.Response {
		req, _ := http.NewRequest("GET", h.hs.URL+path, nil)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		if withCookie {
			req.AddCookie(ck)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := get("/media/b3:aa", "bytes=100-199", true); resp.StatusCode != http.StatusPartialContent || resp.ContentLength != 100 {
		t.Fatalf("range: %d, %d bytes", resp.StatusCode, resp.ContentLength)
	}
	if resp := get("/media/b3:aa", "bytes=20000-", true); resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		t.Fatalf("a range outside the file: %d", resp.StatusCode)
	}
	if resp := get("/media/b3:zz", "", true); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a track the hub does not play: %d", resp.StatusCode)
	}
	if resp := get("/media/b3:aa", "", false); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without a credential: %d", resp.StatusCode)
	}

	// A real report becomes Relayed, then Started.
	rep := map[string]any{"id": 2, "op": "output_report", "page": "p1", "token": token, "seq": 1, "kind": "started", "track": 1, "content": "b3:" + strings.Repeat("a", 64), "ms": 2000}
	sendJSON(t, c, rep)
	if r := next(t, c, "reply"); r["ok"] != true {
		t.Fatal(r["raw"])
	}
	ev := <-out.Events()
	if rl, ok := ev.(audio.Relayed); !ok || rl.Source <= token || !rl.Playing || !rl.Available || rl.Source > res.v {
		t.Fatalf("first event %#v (token %d, reserved %d)", ev, token, res.v)
	}
	if st, ok := (<-out.Events()).(audio.Started); !ok || st.Track != tr {
		t.Fatalf("no Started for %v", tr)
	}
	// The position moves on from the report, but not past 750 ms
	// without one.
	mu.Lock()
	now = now.Add(400 * time.Millisecond)
	mu.Unlock()
	if p := out.Report().Pos; p != 2400*time.Millisecond {
		t.Fatalf("position 400 ms after the report: %v", p)
	}
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	if p := out.Report().Pos; p != 2750*time.Millisecond {
		t.Fatalf("position a minute after the last report: %v", p)
	}
	// Replayed, of another page, with an old token: ignored, no event.
	rep["id"] = 3
	sendJSON(t, c, rep)
	if r := next(t, c, "reply"); r["ok"] != false {
		t.Fatal("a replayed report was accepted")
	}
	rep["id"], rep["seq"], rep["page"] = 4, 2, "p2"
	sendJSON(t, c, rep)
	if r := next(t, c, "reply"); r["ok"] != false {
		t.Fatal("a report of a page that is not the output was accepted")
	}
	noEvent(t, out, "ignored reports")
	if st := out.Stats(); st.Reports != 1 || st.IgnoredTotal() != 2 {
		t.Fatalf("stats %+v", st)
	}

	// The tab closes: the selection stays, nothing is reported.
	_ = c.Close(websocket.StatusNormalClosure, "")
	for range 100 {
		if _, present, _ := out.Selected(); !present {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p, present, ok := out.Selected(); !ok || present || p.Page != "p1" {
		t.Fatalf("after the tab closed: %v present=%v selected=%v", p, present, ok)
	}
	if l := out.OutputLabel(); l != "" {
		t.Fatalf("the tab closed, the output still named %q", l)
	}
	noEvent(t, out, "the tab closing")

	// It comes back (reconnect, not fresh): the same selection and token
	// (its seq goes on), the current command again, still no report until
	// the page makes one.
	c2, _, err := h.dial(ck, h.origin())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.CloseNow()
	bid := next(t, c2, "hello")["browser_id"].(string)
	sendJSON(t, c2, map[string]any{"id": 1, "op": "output_open", "page": "p1"})
	if m := next(t, c2, "out"); m["cmd"] != "play" {
		t.Fatalf("the page that came back got %v", m["raw"])
	}
	r = next(t, c2, "reply")
	if tok2 := uint64(r["data"].(map[string]any)["token"].(float64)); tok2 != token {
		t.Fatalf("token %d after %d for the same selection", tok2, token)
	}
	rep["id"], rep["seq"], rep["page"], rep["kind"] = 5, 1, "p1", "playing"
	sendJSON(t, c2, rep)
	if r := next(t, c2, "reply"); r["ok"] != false {
		t.Fatal("a report from before the reconnect was accepted again")
	}
	noEvent(t, out, "a reconnect")
	if st := out.Stats(); st.Startups != 1 {
		t.Fatalf("startups %d, want 1", st.Startups)
	}
	out.Stop()
	if m := next(t, c2, "out"); m["cmd"] != "stop" {
		t.Fatalf("stop sent %v", m["raw"])
	}

	// Revoked: no longer the output; its reports would be ignored.
	if _, err := h.s.Revoke(bid); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := out.Selected(); ok {
		t.Fatal("a revoked browser is still the output")
	}
	if st := out.Info(); st.Browser != "" || st.Reports != 1 {
		t.Fatalf("info after the revocation: %+v", st)
	}
}

// TestHubSendsTheReplayGain: the play command carries the track's gain
// as on the hub's device, and a changed mode sends it again.
func TestHubSendsTheReplayGain(t *testing.T) {
	h, out := newHubHarness(t, &memReserved{}, nil)
	ck := h.pair()
	c, _, err := h.dial(ck, h.origin())
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	next(t, c, "hello")
	sendJSON(t, c, map[string]any{"id": 1, "op": "output_open", "page": "p1", "fresh": true})
	if r := next(t, c, "reply"); r["ok"] != true {
		t.Fatal(r["raw"])
	}
	tr := out.Play(audio.Source{ID: "b3:aa", Path: "/music/a.flac", GainDB: -6}, 0)
	if m := next(t, c, "out"); m["cmd"] != "play" || m["gain"] != -6.0 {
		t.Fatalf("play command %v", m["raw"])
	}
	if out.SetGain(audio.Track{ID: "b3:aa", Seq: tr.Seq + 1}, -3) {
		t.Fatal("a gain for a track not playing was taken")
	}
	if !out.SetGain(tr, -3) {
		t.Fatal("the current track's gain was refused")
	}
	if m := next(t, c, "out"); m["cmd"] != "resume" || m["gain"] != -3.0 || m["track"] != float64(tr.Seq) {
		t.Fatalf("after the mode changed: %v", m["raw"])
	}
}
