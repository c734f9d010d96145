package web

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/audio"
)

// TestHubPreparesTheNextTrackForThePage: PrepareNext tells the page the
// next track and serves it ahead; the page's started report for it makes
// it the current track (Finished, then Started, as a local output).
func TestHubPreparesTheNextTrackForThePage(t *testing.T) {
	h, out := newHubHarness(t, &memReserved{}, nil)
	dir := t.TempDir()
	for _, n := range []string{"a.mp3", "b.mp3"} {
		if err := os.WriteFile(filepath.Join(dir, n), make([]byte, 1000), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ck := h.pair()
	c, _, err := h.dial(ck, h.origin())
	if err != nil {
		t.Fatal(err)
	}
	next(t, c, "hello")
	sendJSON(t, c, map[string]any{"id": 1, "op": "output_open", "page": "p1", "fresh": true, "here": true})
	r := next(t, c, "reply")
	token := r["data"].(map[string]any)["token"].(float64)
	if got := out.PrepareNext(audio.Source{ID: "b3:bb", Path: filepath.Join(dir, "b.mp3")}); got.Seq != 0 {
		t.Fatalf("a next track prepared with nothing playing: %+v", got)
	}
	a := out.Play(audio.Source{ID: "b3:aa", Path: filepath.Join(dir, "a.mp3")}, 0)
	next(t, c, "out")
	b := out.PrepareNext(audio.Source{ID: "b3:bb", Path: filepath.Join(dir, "b.mp3")})
	m := next(t, c, "out")
	if m["cmd"] != "next" || m["content"] != "b3:bb" || m["track"].(float64) != float64(b.Seq) || m["url"] == "" || m["dec"] == "" {
		t.Fatalf("next command %v", m["raw"])
	}
	get := func(id string) int {
		req, _ := http.NewRequest("GET", h.hs.URL+"/media/"+id, nil)
		req.AddCookie(ck)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if get("b3:aa") != 200 || get("b3:bb") != 200 {
		t.Fatal("the current and the prepared track are not both served")
	}
	report := func(seq int, kind string, track uint64) {
		t.Helper()
		sendJSON(t, c, map[string]any{"id": 10 + seq, "op": "output_report", "page": "p1", "token": token, "seq": seq, "kind": kind, "track": track, "content": "b3:x", "ms": 0})
		if r := next(t, c, "reply"); r["ok"] != true {
			t.Fatal(r["raw"])
		}
	}
	report(1, "started", a.Seq)
	event(t, out) // Relayed
	if ev := event(t, out); ev != (audio.Started{Track: a}) {
		t.Fatalf("%#v", ev)
	}
	report(2, "ended", a.Seq)
	event(t, out)
	if ev := event(t, out); ev != (audio.Finished{Track: a}) {
		t.Fatalf("%#v", ev)
	}
	report(3, "started", b.Seq)
	event(t, out)
	if ev := event(t, out); ev != (audio.Started{Track: b}) {
		t.Fatalf("the prepared track's start: %#v", ev)
	}
	if rep := out.Report(); rep.Track != b {
		t.Fatalf("the current track after the page ran into the next: %+v", rep.Track)
	}
	if get("b3:aa") != http.StatusNotFound || get("b3:bb") != 200 {
		t.Fatal("after the switch the old track is still served, or the new one not")
	}
	// A page that comes back is told to play the new current track.
	out.mu.Lock()
	cmd := string(out.lastCmd)
	out.mu.Unlock()
	if !strings.Contains(cmd, `"cmd":"play"`) || !strings.Contains(cmd, fmt.Sprintf(`"track":%d,`, b.Seq)) {
		t.Fatalf("the command for a page that comes back: %s", cmd)
	}
	out.PrepareNext(audio.Source{ID: "b3:aa", Path: filepath.Join(dir, "a.mp3")})
	next(t, c, "out")
	out.ClearNext()
	if m := next(t, c, "out"); m["cmd"] != "clearnext" {
		t.Fatalf("ClearNext sent %v", m["raw"])
	}
	if get("b3:aa") != http.StatusNotFound {
		t.Fatal("a cleared next track is still served")
	}
}

// event is the output's next event; it fails after 5 s without one.
func event(t *testing.T, out *BrowserOutput) audio.Event {
	t.Helper()
	select {
	case ev := <-out.Events():
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event from the output")
		return nil
	}
}
