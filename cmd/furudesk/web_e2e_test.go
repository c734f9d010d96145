//go:build chromium

package main

// The web player in a real Chromium (Debian's /usr/bin/chromium driven by
// chromedp): `make test-web`. Screenshots at phone and desktop sizes, in
// light and dark, go to $FURUDESK_WEB_ARTEFACTS (default bin/web-e2e).

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/furudesk/furudesk/web"
)

func artefactDir(t *testing.T) string {
	dir := os.Getenv("FURUDESK_WEB_ARTEFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "bin", "web-e2e")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	return abs
}

// browser is one Chromium tab.
type browser struct {
	t   *testing.T
	ctx context.Context
	dir string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	exe := needTool(t, "chromium")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(360, 640), chromedp.Flag("lang", "en-US"))
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancel(); acancel() })
	b := &browser{t: t, ctx: ctx, dir: artefactDir(t)}
	// The first action starts the browser, which lives as long as the
	// context of that call: no timeout on it.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 640, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulateScale(2))); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return b
}

func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("chromium: %v", err)
	}
}

// eval runs js in the page and returns its value.
func eval[T any](b *browser, js string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("chromium: %s: %v", js, err)
	}
	return v
}

// until waits for the page's js to be true.
func (b *browser) until(what, js string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(50*time.Millisecond)))
	// A poll begun as a navigation ends loses its page: poll the new one.
	for err != nil && strings.Contains(err.Error(), "Cannot find context") && ctx.Err() == nil {
		_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(50*time.Millisecond)))
	}
	if err != nil {
		body, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.innerText`))
		b.t.Fatalf("waiting in the page for %s (%s): %v\npage:\n%s", what, js, err, body)
	}
}

func (b *browser) click(sel string) {
	b.t.Helper()
	eval[bool](b, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) throw new Error("no " + %q); e.click(); return true })()`, sel, sel))
}

func (b *browser) shot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatal(err)
	}
	mustWrite(b.t, filepath.Join(b.dir, name+".png"), png)
}

func (b *browser) size(w, h int64, mobile bool) {
	b.t.Helper()
	if mobile {
		b.do(chromedp.EmulateViewport(w, h, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulateScale(2)))
	} else {
		b.do(chromedp.EmulateViewport(w, h))
	}
}

func (b *browser) dark(on bool) {
	b.t.Helper()
	v := "light"
	if on {
		v = "dark"
	}
	b.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}})
		return err
	}))
}

func TestWebPlayerInChromium(t *testing.T) {
	c := newCluster(t, []string{"desk", "box"}, nil)
	webAddr := freePort(t)
	desk, box := c.nodes[0], c.nodes[1]
	desk.args = append(desk.args, "--web", webAddr)
	writeTrack(t, filepath.Join(desk.music, "Hoppípolla.wav"), 2)
	for _, n := range c.nodes {
		n.start()
	}
	c.pair()
	// Both know the whole group's library: a transfer to box before it
	// has desk's catalog skips the track only desk has.
	waitFor(t, 30*time.Second, "the group's library on desk and box", func() bool {
		for _, n := range []*node{desk, box} {
			b, err := n.ctlErr("tracks")
			var tr []ctlTrack
			if err != nil || json.Unmarshal(b, &tr) != nil || len(tr) != 3 {
				return false
			}
		}
		return true
	})
	url := "http://" + webAddr + "/"
	if out := string(desk.ctl("web")); !strings.Contains(out, url) || !strings.Contains(out, "Paired browsers: 0") {
		t.Fatalf("ctl web: %s", out)
	}
	if _, err := box.ctlErr("web", "pair"); err == nil || !strings.Contains(err.Error(), "web player is off") {
		t.Fatalf("ctl web pair on a device without --web: %v", err)
	}

	b := newBrowser(t)
	b.do(chromedp.Navigate(url))
	b.until("the pairing page", `!document.getElementById("pair").hidden`)
	b.shot("phone-pair")
	b.do(chromedp.SetValue("#code", "WRONG-123"))
	b.click("#pairbtn")
	b.until("the wrong code's sentence", `document.getElementById("pairerr").textContent.includes("not right")`)

	m := codeRe.FindStringSubmatch(string(desk.ctl("web", "pair")))
	if m == nil {
		t.Fatal("ctl web pair printed no code")
	}
	b.do(chromedp.SetValue("#code", strings.ToLower(m[1])))
	b.click("#pairbtn")
	b.until("the player", `!document.getElementById("player").hidden && document.getElementById("devname").textContent.length > 1`)
	if out := string(desk.ctl("web")); !strings.Contains(out, "Paired browsers: 1, 1 of them connected") {
		t.Fatalf("ctl web after pairing: %s", out)
	}

	// Browse and search with the window's accent folding.
	b.click(`.tabs button[data-page="library"]`)
	b.until("the artists", `document.querySelectorAll("#lib li").length > 0`)
	b.click(`.seg button[data-lib="tracks"]`)
	b.until("three tracks", `document.querySelectorAll("#lib li").length === 3`)
	b.do(chromedp.SendKeys("#search", "hoppipolla"))
	b.until("the search result", `document.querySelectorAll("#lib li").length === 1 && document.querySelector("#lib li").innerText.includes("Hoppípolla")`)
	b.shot("phone-search")
	eval[bool](b, `(() => { const s = document.getElementById("search"); s.value = ""; s.dispatchEvent(new Event("input")); return true })()`)
	b.until("all tracks again", `document.querySelectorAll("#lib li").length === 3`)

	// Play the list from its first track: desk plays.
	b.click("#lib li .rowmain")
	waitFor(t, 20*time.Second, "desk plays the list", func() bool {
		st := desk.status()
		return st.Playing && st.QueueLen == 3 && string(st.Owner) == desk.id
	})
	b.click(`.tabs button[data-page="now"]`)
	b.until("now playing", `document.getElementById("play").getAttribute("aria-label") === "Pause"`)
	b.shot("phone-now")

	// Transfer desk -> box -> desk from the device picker.
	for _, to := range []*node{box, desk} {
		b.click("#devbtn")
		b.until("the device picker", `document.getElementById("devices").open`)
		if to == box {
			b.shot("phone-devices")
		}
		b.click(fmt.Sprintf(`#devlist li:nth-child(%d) button`, 1+eval[int](b, fmt.Sprintf(`state.devices.findIndex((d) => d.id === %q)`, to.id))))
		waitFor(t, 20*time.Second, to.name+" renders after the transfer from the page", func() bool {
			st := to.status()
			return string(st.Owner) == to.id && st.Rendering && st.Playing
		})
		b.until("the page names "+to.name, fmt.Sprintf(`document.getElementById("devname").textContent === %q`, to.name))
	}

	// Like the playing track, add a track to a playlist, edit the queue.
	b.click("#like")
	waitFor(t, 20*time.Second, "the like", func() bool { return desk.status().TrackLiked })
	desk.ctl("playlist", "create", "Mix")
	b.until("the playlist reaches the page", `playlists.some((p) => p.name === "Mix")`)
	b.click(`.tabs button[data-page="library"]`)
	b.click(`#lib li:nth-child(2) .icon`)
	b.until("the track's actions", `document.getElementById("actions").open`)
	b.shot("phone-actions")
	b.click(`#actlist button:last-child`)
	waitFor(t, 20*time.Second, "the track in Mix", func() bool {
		var v struct {
			Entries []json.RawMessage `json:"entries"`
		}
		return json.Unmarshal(desk.ctl("playlist", "show", "Mix"), &v) == nil && len(v.Entries) == 1
	})
	b.click(`.tabs button[data-page="queue"]`)
	b.until("the queue", `document.querySelectorAll("#queue li").length === 3`)
	b.shot("phone-queue")
	third := desk.status().Queue[2].ContentID
	b.click(`#queue li:nth-child(3) [data-a="next"]`)
	waitFor(t, 20*time.Second, "the third track to play next", func() bool { q := desk.status().Queue; return len(q) == 3 && q[1].ContentID == third })
	b.until("the queue shows it next", fmt.Sprintf(`state.queue[1].id === %q && !document.querySelector('#queue li:nth-child(2) [data-a="next"]')`, third))
	b.click(`#queue li:nth-child(3) [data-a="remove"]`)
	waitFor(t, 20*time.Second, "the removal", func() bool { return desk.status().QueueLen == 2 })
	b.until("the queue of two", `document.querySelectorAll("#queue li").length === 2`)
	b.click(`.tabs button[data-page="playlists"]`)
	b.until("the playlists", `document.querySelectorAll("#pl li").length > 0`)
	b.shot("phone-playlists")

	// Desktop size, light and dark.
	b.size(1280, 800, false)
	b.click(`.tabs button[data-page="now"]`)
	b.shot("desktop-now")
	b.click(`.tabs button[data-page="library"]`)
	b.click(`.seg button[data-lib="albums"]`)
	b.shot("desktop-library")
	b.dark(true)
	b.shot("desktop-library-dark")
	b.size(360, 640, true)
	b.click(`.tabs button[data-page="now"]`)
	b.shot("phone-now-dark")
	b.dark(false)

	// Targets are at least 44 px on the phone.
	small := eval[[]string](b, `[...document.querySelectorAll("#player button, #player input")].filter((e) => e.offsetParent && (e.getBoundingClientRect().height < 44 || e.getBoundingClientRect().width < 44)).map((e) => e.outerHTML.slice(0, 80))`)
	if len(small) > 0 {
		t.Errorf("touch targets under 44 px: %q", small)
	}
	unlabelled := eval[[]string](b, `[...document.querySelectorAll("button")].filter((e) => !(e.getAttribute("aria-label") || e.textContent.trim())).map((e) => e.outerHTML.slice(0, 80))`)
	if len(unlabelled) > 0 {
		t.Errorf("buttons without a label: %q", unlabelled)
	}

	// A page of another origin (same host, another port: the same site,
	// so the cookie goes along) cannot open the WebSocket.
	evil := serveEvil(t, webAddr)
	before := webInfo(t, desk).Refused.BadOrigin
	b2ctx, cancel := chromedp.NewContext(b.ctx) // a second tab of the same browser
	defer cancel()
	b2 := &browser{t: t, ctx: b2ctx, dir: b.dir}
	if err := chromedp.Do(b2ctx, chromedp.Navigate(evil)); err != nil {
		t.Fatal(err)
	}
	b2.until("the foreign page's attempt", `window.result !== undefined`)
	if r := eval[string](b2, `window.result`); r != "closed" {
		t.Fatalf("the WebSocket from another origin: %s", r)
	}
	if after := webInfo(t, desk).Refused.BadOrigin; after != before+1 {
		t.Fatalf("bad origins counted %d then %d", before, after)
	}

	// The device serving the page goes away: the page says so, and
	// reconnects by itself when it is back (the pairing kept).
	desk.stop(false)
	b.until("the page says the device is gone", `!document.getElementById("banner").hidden && document.getElementById("banner").textContent.includes("does not answer")`)
	b.shot("phone-reconnecting")
	desk.start()
	b.until("the page reconnected", `document.getElementById("banner").hidden && ws && ws.readyState === 1`)

	// The browsers are the group's: box, whose web player is off, lists
	// the one desk paired and revokes it; desk's open page is shown out
	// at once.
	in := webInfo(t, desk)
	if len(in.Browsers) != 1 {
		t.Fatalf("browsers %+v", in.Browsers)
	}
	var onBox []web.BrowserInfo
	if err := json.Unmarshal(box.ctl("web", "browsers"), &onBox); err != nil || len(onBox) != 1 || onBox[0].ID != in.Browsers[0].ID {
		t.Fatalf("box lists %+v (%v), want desk's %+v", onBox, err, in.Browsers)
	}
	box.ctl("web", "revoke", onBox[0].ID)
	b.until("the pairing page after the revocation", `!document.getElementById("pair").hidden && document.getElementById("pairerr").textContent.includes("removed")`)
	b.shot("phone-revoked")
	b.do(chromedp.Navigate(url))
	b.until("still the pairing page after a reload", `!document.getElementById("pair").hidden`)
	if in := webInfo(t, desk); len(in.Browsers) != 0 {
		t.Fatalf("desk still lists %+v", in.Browsers)
	}
}

func webInfo(t *testing.T, n *node) web.Info { return webInfoTB(t, n) }

// serveEvil serves a page on another port of 127.0.0.1 that tries the web
// player's WebSocket and sets window.result.
func serveEvil(t *testing.T, target string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><script>const ws = new WebSocket("ws://%s/ws");
ws.onmessage = () => { window.result = "got a message"; };
ws.onclose = () => { if (window.result === undefined) window.result = "closed"; };</script>`, target)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// TestWebPlayerLoadsALargeLibrary times the page of a device with 10,000
// tracks (seeded, tools/seedlibrary): from the navigation to a page
// that shows the state and holds the whole library, and from a tap on
// Tracks to its first rows. Figures in the log (a benchmark, not a bound).
func TestWebPlayerLoadsALargeLibrary(t *testing.T) {
	c := newCluster(t, []string{"hub"}, nil)
	hub := c.nodes[0]
	webAddr := freePort(t)
	// No music folder: its scan would drop the seeded tracks, whose files
	// do not exist.
	var args []string
	for i := 0; i < len(hub.args); i++ {
		if hub.args[i] == "--music" {
			i++
			continue
		}
		args = append(args, hub.args[i])
	}
	hub.args = append(args, "--web", webAddr)
	if out, err := exec.Command("go", "run", "../../tools/seedlibrary", "-data-dir", hub.dir, "-tracks", "10000", "-albums", "800", "-artists", "200").CombinedOutput(); err != nil {
		t.Fatalf("seedlibrary: %v\n%s", err, out)
	}
	hub.start()
	url := "http://" + webAddr + "/"
	b := newBrowser(t)
	b.do(chromedp.Navigate(url))
	b.until("the pairing page", `!document.getElementById("pair").hidden`)
	m := codeRe.FindStringSubmatch(string(hub.ctl("web", "pair")))
	b.do(chromedp.SetValue("#code", m[1]))
	b.click("#pairbtn")
	b.until("the library", `library.length === 10000`)
	var loads, lists []time.Duration
	for range 5 {
		at := time.Now()
		b.do(chromedp.Navigate(url))
		b.until("the library", `state !== null && library.length === 10000`)
		loads = append(loads, time.Since(at))
		at = time.Now()
		b.click(`.tabs button[data-page="library"]`)
		b.click(`.seg button[data-lib="tracks"]`)
		b.until("the tracks", `document.querySelectorAll("#lib li").length >= 200`)
		lists = append(lists, time.Since(at))
	}
	b.until("more rows on scrolling", `(document.querySelector("#lib li:last-child").scrollIntoView(), document.querySelectorAll("#lib li").length >= 400)`)
	b.shot("phone-10000-tracks")
	t.Logf("page load to interactive with 10,000 tracks: p50 %v, max %v; Tracks tab to its first rows: p50 %v, max %v",
		pctl(loads, 50).Round(time.Millisecond), pctl(loads, 100).Round(time.Millisecond),
		pctl(lists, 50).Round(time.Millisecond), pctl(lists, 100).Round(time.Millisecond))
}
