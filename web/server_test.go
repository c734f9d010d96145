package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/engine"
)

// fakeBackend records the commands and publishes the statuses the test
// sets.
type fakeBackend struct {
	mu    sync.Mutex
	st    app.Status
	subs  []chan app.Status
	calls []string
}

func newFakeBackend() *fakeBackend {
	return &fakeBackend{st: app.Status{DeviceID: "dev-a", DeviceName: "Desk", Owner: "dev-a", Volume: 50, Repeat: "off",
		Track: &app.QueueItem{ContentID: "c1", Title: "Hoppípolla", Artists: []string{"Sigur Rós"}, DurationMS: 270000, Path: "/home/u/Music/secret/hoppipolla.flac"},
		Queue: []app.QueueItem{{ContentID: "c1", Title: "Hoppípolla", Path: "/home/u/Music/secret/hoppipolla.flac"}, {ContentID: "c2", Title: "Glósóli"}},
		Devices: []app.DeviceStatus{{DeviceID: "dev-a", Name: "Desk", Online: true, Owner: true, Self: true, Selectable: true},
			{DeviceID: "dev-b", Name: "Box", Online: true, Selectable: true}}}}
}

func (f *fakeBackend) Status() app.Status { f.mu.Lock(); defer f.mu.Unlock(); return f.st }
func (f *fakeBackend) Subscribe() (<-chan app.Status, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan app.Status, 1)
	ch <- f.st
	f.subs = append(f.subs, ch)
	return ch, func() {}
}
func (f *fakeBackend) publish(change func(*app.Status)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(&f.st)
	for _, ch := range f.subs {
		select {
		case <-ch:
		default:
		}
		ch <- f.st
	}
}
func (f *fakeBackend) call(s string, args ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, strings.TrimSpace(s+" "+fmt.Sprint(args...)))
	return nil
}
func (f *fakeBackend) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeBackend) TogglePlay() error                 { return f.call("toggle") }
func (f *fakeBackend) Next() error                       { return f.call("next") }
func (f *fakeBackend) Prev() error                       { return f.call("prev") }
func (f *fakeBackend) Seek(p time.Duration) error        { return f.call("seek", p) }
func (f *fakeBackend) SetVolume(v int) error             { return f.call("volume", v) }
func (f *fakeBackend) SetShuffle(on bool) error          { return f.call("shuffle", on) }
func (f *fakeBackend) SetRepeat(m string) error          { return f.call("repeat", m) }
func (f *fakeBackend) Transfer(to engine.DeviceID) error { return f.call("transfer", to) }
func (f *fakeBackend) JumpTo(i int) error                { return f.call("jump", i) }
func (f *fakeBackend) MoveInQueue(ix []int, ids []string, to int) error {
	return f.call("move", ix, ids, to)
}
func (f *fakeBackend) RemoveQueueEntries(ix []int, ids []string) error {
	return f.call("remove", ix, ids)
}
func (f *fakeBackend) Enqueue(ids []string, next bool) error    { return f.call("enqueue", ids, next) }
func (f *fakeBackend) PlayTracks(ids []string, start int) error { return f.call("play", ids, start) }
func (f *fakeBackend) Library() ([]app.LibraryTrack, error) {
	var t app.LibraryTrack
	t.ContentID, t.Title, t.Path = "c1", "Hoppípolla", "/home/u/Music/secret/hoppipolla.flac"
	return []app.LibraryTrack{t}, nil
}
func (f *fakeBackend) SearchLibrary(q string, limit int) ([]app.LibraryTrack, error) {
	_ = f.call("search", q)
	return f.Library()
}
func (f *fakeBackend) Cover(id string) ([]byte, error) {
	if id == "c1" {
		return []byte("\x89PNG\r\n\x1a\n0000"), nil
	}
	return nil, app.ErrNoCover
}
func (f *fakeBackend) Playlists() ([]app.PlaylistSummary, error) { return nil, nil }
func (f *fakeBackend) Playlist(id string) (app.PlaylistView, error) {
	return app.PlaylistView{}, errors.New("no")
}
func (f *fakeBackend) AddToPlaylist(id string, ids []string, at int) error {
	return f.call("playlist_add", id, ids, at)
}
func (f *fakeBackend) PlayPlaylist(id string, start int, ap bool) error {
	return f.call("playlist_play", id, start, ap)
}
func (f *fakeBackend) SetLiked(id string, on bool) error { return f.call("like", id, on) }

type memStore struct {
	mu   sync.Mutex
	data []byte
}

func (m *memStore) LoadBrowsers() ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.data, nil
}
func (m *memStore) SaveBrowsers(b []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.data = append([]byte(nil), b...)
	return nil
}

type harness struct {
	t   *testing.T
	s   *Server
	hs  *httptest.Server
	be  *fakeBackend
	st  *memStore
	clk *fakeClock
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	p, clk := newTestPairing(t)
	h := &harness{t: t, be: newFakeBackend(), st: &memStore{}, clk: clk}
	var err error
	h.s, err = New(Options{Backend: h.be, Store: h.st, Now: func() time.Time { return clk.now() }, Rand: p.rand})
	if err != nil {
		t.Fatal(err)
	}
	h.hs = httptest.NewServer(h.s)
	t.Cleanup(func() { h.hs.Close(); _ = h.s.Close() })
	return h
}

func (h *harness) origin() string { return h.hs.URL }

// pair pairs a browser and returns its cookie.
func (h *harness) pair() *http.Cookie {
	h.t.Helper()
	c, err := h.s.NewCode()
	if err != nil {
		h.t.Fatal(err)
	}
	resp, body := h.post("/api/pair", `{"code":"`+c.Code+`"}`, h.origin(), nil)
	if resp.StatusCode != 200 {
		h.t.Fatalf("pair: %d %s", resp.StatusCode, body)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == cookieName {
			return ck
		}
	}
	h.t.Fatal("no credential cookie")
	return nil
}

func (h *harness) post(path, body, origin string, ck *http.Cookie) (*http.Response, string) {
	h.t.Helper()
	req, _ := http.NewRequest("POST", h.hs.URL+path, strings.NewReader(body))
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if ck != nil {
		req.AddCookie(ck)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func (h *harness) dial(ck *http.Cookie, origin string) (*websocket.Conn, *http.Response, error) {
	hd := http.Header{}
	if origin != "" {
		hd.Set("Origin", origin)
	}
	if ck != nil {
		hd.Set("Cookie", ck.Name+"="+ck.Value)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return websocket.Dial(ctx, "ws"+strings.TrimPrefix(h.hs.URL, "http")+"/ws", &websocket.DialOptions{HTTPHeader: hd})
}

// next reads the next message of type typ, skipping others.
func next(t *testing.T, c *websocket.Conn, typ string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", typ, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m["t"] == typ {
			m["raw"] = string(b)
			return m
		}
	}
}

func TestPairingSetsAStrictHttpOnlyCookieAndStoresOnlyItsHash(t *testing.T) {
	h := newHarness(t)
	ck := h.pair()
	if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v: want HttpOnly and SameSite=Strict", ck)
	}
	if bytes.Contains(h.st.data, []byte(ck.Value)) {
		t.Fatal("the store holds the credential")
	}
	req, _ := http.NewRequest("GET", h.hs.URL+"/api/session", nil)
	req.AddCookie(ck)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var a apiAnswer
	_ = json.NewDecoder(resp.Body).Decode(&a)
	resp.Body.Close()
	if !a.Paired || a.Device != "Desk" {
		t.Fatalf("session %+v", a)
	}
}

func TestAWrongCodeGetsASentenceAndFiveMakeTheAddressWait(t *testing.T) {
	h := newHarness(t)
	for i := range MaxWrongCodes {
		resp, body := h.post("/api/pair", `{"code":"AAAA-AAAA"}`, h.origin(), nil)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not right") {
			t.Fatalf("wrong code %d: %d %s", i, resp.StatusCode, body)
		}
	}
	c, _ := h.s.NewCode()
	resp, body := h.post("/api/pair", `{"code":"`+c.Code+`"}`, h.origin(), nil)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "try again in 10 minutes") {
		t.Fatalf("after five wrong codes: %d %s", resp.StatusCode, body)
	}
	resp, body = h.post("/api/pair", `{"code": 12`, h.origin(), nil)
	if resp.StatusCode != http.StatusBadRequest || strings.Contains(body, "json") {
		t.Fatalf("malformed body: %d %s", resp.StatusCode, body)
	}
}

func TestARequestFromAnotherSiteIsRefused(t *testing.T) {
	h := newHarness(t)
	c, _ := h.s.NewCode()
	resp, _ := h.post("/api/pair", `{"code":"`+c.Code+`"}`, "http://evil.example", nil)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("pair from another origin: %d", resp.StatusCode)
	}
	ck := h.pair()
	for _, o := range []string{"http://evil.example", "", "null"} {
		_, resp, err := h.dial(ck, o)
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("websocket with Origin %q: %v %v", o, resp, err)
		}
	}
	if got := h.s.Counters().BadOrigin; got != 4 {
		t.Fatalf("bad origins counted %d, want 4", got)
	}
	if _, resp, err := h.dial(nil, h.origin()); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("websocket without a credential: %v %v", resp, err)
	}
}

func TestTheStateIsPushedWithoutPathsAndCommandsReachTheApp(t *testing.T) {
	h := newHarness(t)
	c, _, err := h.dial(h.pair(), h.origin())
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if m := next(t, c, "hello"); m["v"] != float64(protocolVersion) {
		t.Fatalf("hello %v", m)
	}
	m := next(t, c, "state")
	if strings.Contains(m["raw"].(string), "/home/") {
		t.Fatalf("a local path reached the browser: %s", m["raw"])
	}
	h.be.publish(func(s *app.Status) { s.Playing = true; s.Volume = 70 })
	m = next(t, c, "state")
	if st := m["state"].(map[string]any); st["playing"] != true || st["volume"] != float64(70) {
		t.Fatalf("pushed state %v", st)
	}
	for i, cmd := range []string{`{"id":1,"op":"toggle"}`, `{"id":2,"op":"transfer","device":"dev-b"}`, `{"id":3,"op":"seek","ms":90000}`,
		`{"id":4,"op":"move","index":1,"to":0}`, `{"id":5,"op":"volume","value":101}`, `{"id":6,"op":"nope"}`, `{"id":7,"op":"library"}`} {
		if err := c.Write(context.Background(), websocket.MessageText, []byte(cmd)); err != nil {
			t.Fatal(err)
		}
		r := next(t, c, "reply")
		wantOK := i < 4 || i == 6
		if r["ok"] != wantOK || r["id"] != float64(i+1) {
			t.Fatalf("reply to %s: %v", cmd, r)
		}
		if !wantOK && (r["error"] == "" || strings.Contains(r["error"].(string), "web:")) {
			t.Fatalf("reply to %s: error %q, want a sentence", cmd, r["error"])
		}
		if i == 6 && strings.Contains(r["raw"].(string), "/home/") {
			t.Fatalf("the library sent a local path: %s", r["raw"])
		}
	}
	want := []string{"toggle", "transfer dev-b", "seek 1m30s", "move [1] [c2] 0"}
	if got := h.be.Calls(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("calls %q, want %q", got, want)
	}
}

func TestMalformedOversizedAndFloodingPagesAreClosedAndCounted(t *testing.T) {
	h := newHarness(t)
	ck := h.pair()
	for _, tc := range []struct {
		name string
		send func(*websocket.Conn) error
		cnt  func(Counters) int64
	}{
		{"malformed", func(c *websocket.Conn) error {
			return c.Write(context.Background(), websocket.MessageText, []byte(`{"op":"toggle","extra":1}`))
		}, func(c Counters) int64 { return c.Malformed }},
		{"oversized", func(c *websocket.Conn) error {
			return c.Write(context.Background(), websocket.MessageText, bytes.Repeat([]byte("x"), MaxMessage+1))
		}, func(c Counters) int64 { return c.TooBig }},
		{"flood", func(c *websocket.Conn) error {
			for i := range MsgBurst + 1 {
				if err := c.Write(context.Background(), websocket.MessageText, []byte(`{"id":`+fmt.Sprint(i)+`,"op":"playlists"}`)); err != nil {
					return nil // closed already
				}
			}
			return nil
		}, func(c Counters) int64 { return c.Flood }},
	} {
		c, _, err := h.dial(ck, h.origin())
		if err != nil {
			t.Fatal(err)
		}
		before := len(h.be.Calls())
		_ = tc.send(c)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		for {
			if _, _, err = c.Read(ctx); err != nil {
				break
			}
		}
		cancel()
		// The page may read the close before the server counted it.
		for end := time.Now().Add(5 * time.Second); tc.cnt(h.s.Counters()) == 0 && time.Now().Before(end); {
			time.Sleep(5 * time.Millisecond) // polling a counter with a deadline
		}
		if n := tc.cnt(h.s.Counters()); n != 1 {
			t.Fatalf("%s: counted %d, want 1 (closed with %v)", tc.name, n, err)
		}
		if len(h.be.Calls()) != before {
			t.Fatalf("%s changed something: %v", tc.name, h.be.Calls()[before:])
		}
	}
}

func TestARevokedBrowserIsShownOutAtOnce(t *testing.T) {
	h := newHarness(t)
	ck := h.pair()
	c, _, err := h.dial(ck, h.origin())
	if err != nil {
		t.Fatal(err)
	}
	next(t, c, "state")
	bs := h.s.Browsers()
	if len(bs) != 1 || !bs[0].Connected {
		t.Fatalf("browsers %+v", bs)
	}
	if _, err := h.s.Revoke(bs[0].ID); err != nil {
		t.Fatal(err)
	}
	m := next(t, c, "bye")
	if m["reason"] != "revoked" {
		t.Fatalf("bye %v", m)
	}
	_, _, err = c.Read(context.Background())
	if websocket.CloseStatus(err) != closeRevoked {
		t.Fatalf("closed with %v, want %d", err, closeRevoked)
	}
	if _, resp, err := h.dial(ck, h.origin()); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the revoked credential reconnects: %v", err)
	}
	// A server started again from the store does not know it either.
	s2, err := New(Options{Backend: h.be, Store: h.st})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if len(s2.Browsers()) != 0 {
		t.Fatalf("after a restart: %+v", s2.Browsers())
	}
}

func TestCoversNeedACredentialAndNameOnlyContentIDs(t *testing.T) {
	h := newHarness(t)
	ck := h.pair()
	get := func(path string, ck *http.Cookie) int {
		req, _ := http.NewRequest("GET", h.hs.URL+path, nil)
		if ck != nil {
			req.AddCookie(ck)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for path, want := range map[string]int{"/cover/c1": 200, "/cover/c2": 404, "/cover/..%2f..%2fetc%2fpasswd": 404,
		"/cover/%2fetc%2fpasswd": 404, "/static/app.js": 200, "/static/../server.go": 404, "/": 200, "/etc/passwd": 404} {
		if got := get(path, ck); got != want {
			t.Errorf("GET %s: %d, want %d", path, got, want)
		}
	}
	if got := get("/cover/c1", nil); got != http.StatusUnauthorized {
		t.Errorf("a cover without a credential: %d", got)
	}
}
