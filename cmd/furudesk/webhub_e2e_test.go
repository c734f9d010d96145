//go:build chromium

package main

// The web hub in a real Chromium whose audio goes to its own PulseAudio
// null sink, recorded: "Play on this browser" makes the browser the
// group's output (issue 34).

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/furudesk/furudesk/app"
)

// newAudioBrowser is newBrowser with its sound on sink of pa (not muted),
// and autoplay without a tap when autoplay.
func newAudioBrowser(t *testing.T, pa *pulse, sink string, autoplay bool) *browser {
	t.Helper()
	exe := needTool(t, "chromium")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(360, 640), chromedp.Flag("lang", "en-US"),
		chromedp.Flag("mute-audio", false), chromedp.Env(append(append([]string(nil), pa.env...), "PULSE_SINK="+sink)...))
	// Headless Chromium allows autoplay unless told otherwise: a phone's
	// policy (a user activation first) is asked for explicitly.
	policy := "document-user-activation-required"
	if autoplay {
		policy = "no-user-gesture-required"
	}
	opts = append(opts, chromedp.Flag("autoplay-policy", policy))
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancel(); acancel() })
	b := &browser{t: t, ctx: ctx, dir: artefactDir(t)}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 640, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulateScale(2))); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return b
}

// pairPage pairs the browser's page with the device n serves the web on.
func pairPage(t *testing.T, b *browser, n *node, url string) {
	t.Helper()
	b.do(chromedp.Navigate(url))
	b.until("the pairing page", `!document.getElementById("pair").hidden`)
	m := codeRe.FindStringSubmatch(string(n.ctl("web", "pair")))
	if m == nil {
		t.Fatal("ctl web pair printed no code")
	}
	b.do(chromedp.SetValue("#code", m[1]))
	b.click("#pairbtn")
	b.until("the player", `!document.getElementById("player").hidden && typeof state !== "undefined" && state !== null && outp.hub`)
}

func TestWebHubPlaysInChromium(t *testing.T) {
	c := newCluster(t, []string{"hub", "box"}, nil)
	hub, box := c.nodes[0], c.nodes[1]
	webAddr := freePort(t)
	hub.args = append(hub.args, "--web", webAddr, "--web-hub")
	for _, n := range c.nodes {
		n.start()
	}
	ids := c.scanned()
	c.pair()
	if st := hub.status(); !st.Passive {
		t.Fatal("the hub is not passive by default")
	}
	b := newAudioBrowser(t, c.pa, hub.sink, true) // the hub opens no sink of its own: the browser plays on it
	pairPage(t, b, hub, "http://"+webAddr+"/")

	// box plays; then "Play on this browser" moves the music to the hub.
	box.ctl("play", ids[0], ids[1])
	waitFor(t, 20*time.Second, "box plays", func() bool { st := box.status(); return st.Rendering && st.Playing })
	t0 := time.Now()
	b.click("#devbtn")
	b.until("the device picker with this browser", `document.getElementById("devices").open && !!document.getElementById("playhere")`)
	b.click("#playhere")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("page: %s", eval[string](b, `JSON.stringify({cmds: outp.cmds, ignored: outp.ignored, lastError: outp.lastError, opened: outp.opened, token: outp.token, seq: outp.seq, track: outp.track, tapping: outp.tapping, src: outp.el && outp.el.src, paused: outp.el && outp.el.paused, t: outp.el && outp.el.currentTime, err: outp.el && outp.el.error && outp.el.error.message, rs: outp.el && outp.el.readyState, toast: document.getElementById("toast").textContent})`))
			t.Logf("hub web: %s", hub.ctl("web"))
		}
	})
	waitFor(t, 20*time.Second, "the hub renders, playing", func() bool {
		st := hub.status()
		return string(st.Owner) == hub.id && st.Rendering && st.Playing && st.Output.Playing
	})
	b.until("the page's element plays", `outp.el && !outp.el.paused && outp.el.currentTime > 0.3`)
	// Every device's picker names the browser, by way of the hub.
	label := webInfo(t, hub).Browsers[0].Label
	waitFor(t, 20*time.Second, "box lists the browser", func() bool { return hubShownAs(t, box, hub.id) == label })
	if st := box.status(); st.OwnerName != label+" (via "+hub.status().DeviceName+")" {
		t.Fatalf("box names the owner %q", st.OwnerName)
	}
	waitFor(t, 20*time.Second, "the browser's sink sounds", func() bool { return audible(hub.rec, t0, time.Now()) })
	first, _ := firstSound(hub.rec, t0)
	t.Logf("Play on this browser to first sound on the browser's sink: %v (headless Chromium, loopback)", first.Sub(t0).Round(time.Millisecond))
	waitFor(t, 20*time.Second, "box falls silent", func() bool { return !box.status().Rendering })
	if lastSound(box.rec, t0).After(first.Add(time.Second)) {
		t.Fatal("box still sounds a second after the browser began")
	}
	if st := box.status(); string(st.Owner) != hub.id {
		t.Fatalf("box does not see the hub as the owner: %s", st.Owner)
	}

	// Transfer browser -> box: the browser falls silent, box sounds.
	ef := time.Now()
	ct := eval[float64](b, `outp.el.currentTime`)
	et := time.Now()
	tx := time.Now()
	hub.ctl("transfer", box.id) // the hub learns the higher claim here: it issues it
	txTo := time.Now()
	// Where the browser was when the hub handed over, some time in [tx, txTo].
	pageAt := posSpan{ct + tx.Sub(et).Seconds(), ct + txTo.Sub(ef).Seconds()}
	waitFor(t, 20*time.Second, "box renders", func() bool { st := box.status(); return st.Rendering && st.Playing })
	resumed := box.timedStatus().resumedAt()
	t.Logf("transfer browser -> box: the browser at %v, box resumed at %v", pageAt, resumed)
	if d := resumed.apart(pageAt); d > 0.25 {
		t.Fatalf("box resumed %.3f s away from where the browser was", d)
	}
	b.until("the page's element stops", `!outp.el || outp.el.paused`)
	waitFor(t, 20*time.Second, "box's sink sounds", func() bool { return audible(box.rec, tx, time.Now()) })
	boxFirst, _ := firstSound(box.rec, tx)
	waitFor(t, 20*time.Second, "a second of box's sound recorded", func() bool { return box.rec.frames() > 0 && lastSound(box.rec, tx).After(boxFirst.Add(time.Second)) })
	last := lastSound(hub.rec, tx)
	t.Logf("transfer browser -> box: the browser's last sound %v after the transfer, box's first %v after it", last.Sub(tx).Round(time.Millisecond), boxFirst.Sub(tx).Round(time.Millisecond))
	if last.After(tx.Add(time.Second)) {
		t.Fatalf("the browser's sink still sounds %v after the transfer", last.Sub(tx))
	}
	if audible(hub.rec, boxFirst.Add(500*time.Millisecond), time.Now()) {
		t.Fatal("the browser sounds along with box")
	}

	// And back, from the page: the browser begins where box was.
	b.click("#devbtn")
	b.until("the device picker", `document.getElementById("devices").open`)
	boxSt := box.timedStatus()
	t2 := time.Now()
	b.click("#playhere")
	t2To := time.Now()
	waitFor(t, 20*time.Second, "the hub renders again", func() bool {
		st := hub.status()
		return string(st.Owner) == hub.id && st.Rendering && st.Output.Playing
	})
	waitFor(t, 20*time.Second, "the browser's sink sounds again", func() bool { return audible(hub.rec, t2, time.Now()) })
	b.until("the page began the track", `outp.started`)
	boxAt := boxSt.playedOnTo(t2, t2To)
	began := eval[float64](b, `outp.startedAt`)
	t.Logf("transfer box -> browser: box at %v, the browser began at %.2f s", boxAt, began)
	if d := (posSpan{began, began}).apart(boxAt); d > 0.25 {
		t.Fatalf("the browser began %.3f s away from where box was", d)
	}
	waitFor(t, 20*time.Second, "box falls silent", func() bool { return !box.status().Rendering })

	// The hub restarts (killed: nothing but the checkpoint survives): the
	// page reconnects as the output, and its report ids go on above the
	// ones made before; the reconnect is no startup.
	before1 := webInfo(t, hub).Output
	if before1 == nil || before1.Reports == 0 || before1.LastSource == 0 {
		t.Fatalf("ctl web info before the restart: %+v", before1)
	}
	hub.stop(true)
	hub.start()
	waitFor(t, 20*time.Second, "reports after the hub's restart", func() bool {
		o := webInfo(t, hub).Output
		return o != nil && o.Reports > 0
	})
	after1 := webInfo(t, hub).Output
	t.Logf("report ids: last %d before the restart, %d after (reserved %d, then %d)", before1.LastSource, after1.LastSource, before1.Reserved, after1.Reserved)
	if after1.LastSource <= before1.LastSource || after1.Startups != 0 {
		t.Fatalf("after the restart: %+v, before: %+v", after1, before1)
	}
	b.click("#devbtn")
	b.until("the device picker", `document.getElementById("devices").open`)
	b.click("#playhere")
	waitFor(t, 20*time.Second, "the hub renders after its restart", func() bool {
		st := hub.status()
		return string(st.Owner) == hub.id && st.Rendering && st.Output.Playing
	})

	// The tab closes: no report comes, the hub keeps the owner and the
	// queue; after owner_timeout box (automatic failover) takes over from
	// the last reported position.
	b.until("the page reported a while", `outp.el.currentTime > 1`)
	before := hub.status()
	closedAt := time.Now()
	b.do(chromedp.Navigate("about:blank"))
	st := hub.status()
	if string(st.Owner) != hub.id || st.QueueLen != before.QueueLen {
		t.Fatalf("the tab closed: owner %s queue %d, were %s %d", st.Owner, st.QueueLen, before.Owner, before.QueueLen)
	}
	waitFor(t, 20*time.Second, "box takes over after owner_timeout", func() bool { st := box.status(); return st.Rendering && st.Playing })
	took := time.Since(closedAt)
	bs := box.status()
	if bs.QueueLen != before.QueueLen {
		t.Fatalf("box took over with a queue of %d, the hub had %d", bs.QueueLen, before.QueueLen)
	}
	// The hub's last report was at most ~0.5 s before the close: box
	// resumes about there, not extrapolated over the silence (took).
	if d := bs.PositionMS - before.PositionMS; d < -1000 || d > 1500 {
		t.Fatalf("box resumed at %d ms, the hub was at %d ms when the tab closed (%v before box took over)", bs.PositionMS, before.PositionMS, took)
	}
	t.Logf("the tab closed: box took over after %v at %d ms (the hub at %d ms at the close)", took.Round(time.Millisecond), bs.PositionMS, before.PositionMS)
	if took < testOwnerTimeout {
		t.Fatalf("box took over %v after the tab closed, before owner_timeout %v", took, testOwnerTimeout)
	}
}

// hubShownAs is what `ctl devices` on n says the hub plays through.
func hubShownAs(t *testing.T, n *node, hub string) string {
	t.Helper()
	var devs []app.DeviceStatus
	if err := json.Unmarshal(n.ctl("devices"), &devs); err != nil {
		t.Fatal(err)
	}
	for _, d := range devs {
		if string(d.DeviceID) == hub {
			return d.Output
		}
	}
	t.Fatalf("%s does not list the hub", n.name)
	return ""
}

// TestWebHubAutoplayRefused: Chromium without the autoplay flag refuses
// to start the element: the page shows "Tap to play here" at once, the
// hub reports a not-playing output (never a false "playing"), and a real
// tap starts the sound.
func TestWebHubAutoplayRefused(t *testing.T) {
	c := newCluster(t, []string{"hub", "box"}, nil)
	hub, box := c.nodes[0], c.nodes[1]
	webAddr := freePort(t)
	hub.args = append(hub.args, "--web", webAddr, "--web-hub")
	for _, n := range c.nodes {
		n.start()
	}
	ids := c.scanned()
	c.pair()
	b := newAudioBrowser(t, c.pa, hub.sink, false)
	pairPage(t, b, hub, "http://"+webAddr+"/")
	box.ctl("play", ids[0])
	waitFor(t, 20*time.Second, "box plays", func() bool { st := box.status(); return st.Rendering && st.Playing })
	// chromedp's Poll (b.until) runs as a user gesture, which would let
	// the page play from then on: load it again and wait by plain
	// evaluation only.
	b.do(chromedp.Navigate("http://" + webAddr + "/"))
	plain := func(what, js string) {
		t.Helper()
		waitFor(t, 20*time.Second, what, func() bool {
			ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
			defer cancel()
			v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
			return err == nil && v
		})
	}
	plain("the player", `typeof outp !== "undefined" && outp.hub && !document.getElementById("player").hidden && !!state`)
	if eval[bool](b, `navigator.userActivation.hasBeenActive`) {
		t.Fatal("the page has a user activation already")
	}
	t0 := time.Now()
	b.click("#devbtn") // a script's click: no user activation
	plain("the device picker", `document.getElementById("devices").open && !!document.getElementById("playhere")`)
	b.click("#playhere")
	plain("the tap prompt", `!document.getElementById("tapplay").hidden`)
	shown := time.Since(t0)
	waitFor(t, 20*time.Second, "the hub owns, its output not playing", func() bool {
		st := hub.status()
		return string(st.Owner) == hub.id && st.Output.Available && !st.Output.Playing
	})
	for range 5 {
		if st := hub.status(); st.Output.Playing {
			t.Fatal("the hub reports a playing output while autoplay was refused")
		}
	}
	if audible(hub.rec, t0, time.Now()) {
		t.Fatal("the browser sounds though autoplay was refused")
	}
	t.Logf(`"Play on this browser" to "Tap to play here": %v`, shown.Round(time.Millisecond))
	// A real tap (input events: a user activation) plays.
	t1 := time.Now()
	b.do(chromedp.Click("#tapplay"))
	b.until("the prompt goes", `document.getElementById("tapplay").hidden`)
	waitFor(t, 20*time.Second, "the hub's output plays", func() bool { return hub.status().Output.Playing })
	waitFor(t, 20*time.Second, "the browser's sink sounds", func() bool { return audible(hub.rec, t1, time.Now()) })
}

// startHub starts the nodes, hub as the web hub, and returns the address
// its pages are served on.
func startHub(hub *node, nodes []*node) string {
	webAddr := freePort(hub.t)
	hub.args = append(hub.args, "--web", webAddr, "--web-hub")
	for _, n := range nodes {
		n.start()
	}
	return webAddr
}

// playHere picks "Play on this browser" in the page and waits for the hub
// to render with its output (the browser) playing.
func playHere(t *testing.T, b *browser, hub *node) {
	t.Helper()
	b.click("#devbtn")
	b.until("the device picker with this browser", `document.getElementById("devices").open && !!document.getElementById("playhere")`)
	b.click("#playhere")
	waitFor(t, 30*time.Second, "the hub renders, playing", func() bool {
		st := hub.status()
		return string(st.Owner) == hub.id && st.Rendering && st.Output.Playing
	})
}

// msHook records what the page tells navigator.mediaSession (the browser
// keeps the position state to itself): the last setPositionState and the
// action handlers, which the test calls as a lock screen would.
const msHook = `(() => {
  const ms = navigator.mediaSession; if (!ms) return;
  window.__ms = { pos: null, calls: 0, handlers: {} };
  const sps = ms.setPositionState.bind(ms), sah = ms.setActionHandler.bind(ms);
  ms.setPositionState = (s) => { window.__ms.pos = s ? Object.assign({ at: performance.now() }, s) : null; window.__ms.calls++; sps(s); };
  ms.setActionHandler = (a, f) => { window.__ms.handlers[a] = f; sah(a, f); };
})();`

// TestWebHubMediaSession: the page keeps the Media Session's position
// state right on play, pause, seek and track change, and the lock
// screen's actions (play, pause, next, previous, seek) drive the room.
func TestWebHubMediaSession(t *testing.T) {
	c := newCluster(t, []string{"hub", "box"}, nil)
	hub, box := c.nodes[0], c.nodes[1]
	webAddr := startHub(hub, c.nodes)
	ids := c.scanned()
	c.pair()
	b := newAudioBrowser(t, c.pa, hub.sink, true)
	if _, err := chromedp.Call(b.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: msHook}); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	pairPage(t, b, hub, "http://"+webAddr+"/")
	if !eval[bool](b, `!!window.__ms`) {
		t.Fatal("no navigator.mediaSession in this Chromium")
	}
	box.ctl("play", ids[0], ids[1])
	waitFor(t, 20*time.Second, "box plays", func() bool { st := box.status(); return st.Rendering && st.Playing })
	playHere(t, b, hub)
	// The position state follows the element: duration, position (the
	// element's when it was set, moving on at the rate), rate 1.
	posRight := func(what string, playing bool) {
		t.Helper()
		// Where the state says the element is now: its position, moved on
		// at its rate since it was set while playing.
		b.until(what, `(() => { const p = __ms.pos, el = outp.el; if (!p || !el) return false;
			const now = p.position + (el.paused ? 0 : (performance.now() - p.at) / 1000 * p.playbackRate);
			return Math.abs(p.duration - el.duration) < 0.05 && p.playbackRate === 1 && Math.abs(now - el.currentTime) < 0.3 &&
				navigator.mediaSession.playbackState === "`+map[bool]string{true: "playing", false: "paused"}[playing]+`"; })()`)
	}
	posRight("the position state while playing", true)
	if d := eval[float64](b, `__ms.pos.duration`); d < 59 || d > 61 {
		t.Fatalf("the position state's duration %.2f s, the track is 60 s", d)
	}
	if title, want := eval[string](b, `navigator.mediaSession.metadata.title`), hub.status().Track.Title; title != want || title == "" {
		t.Fatalf("the Media Session's title %q, the track's %q", title, want)
	}

	// pause: the room pauses, the state says where the element stopped.
	eval[bool](b, `(__ms.handlers.pause({action: "pause"}), true)`)
	waitFor(t, 20*time.Second, "the room pauses", func() bool { return !hub.status().Playing })
	b.until("the element pauses", `outp.el.paused`)
	posRight("the position state paused", false)
	// A second pause (a headset pressed twice) does not start it again.
	eval[bool](b, `(__ms.handlers.pause({action: "pause"}), true)`)
	eval[bool](b, `(__ms.handlers.play({action: "play"}), true)`)
	waitFor(t, 20*time.Second, "the room plays again", func() bool { st := hub.status(); return st.Playing && st.Output.Playing })
	posRight("the position state playing again", true)

	// seekto: the room seeks, the state's position follows.
	calls := eval[float64](b, `__ms.calls`)
	eval[bool](b, `(__ms.handlers.seekto({action: "seekto", seekTime: 30}), true)`)
	waitFor(t, 20*time.Second, "the room seeks", func() bool { p := hub.status().PositionMS; return p >= 29_500 && p < 33_000 })
	b.until("the position state after the seek", fmt.Sprintf(`__ms.calls > %v && __ms.pos.position >= 29.5 && __ms.pos.position < 32`, calls))

	// nexttrack and previoustrack: the room changes tracks, the state
	// starts again at the new one.
	eval[bool](b, `(__ms.handlers.nexttrack({action: "nexttrack"}), true)`)
	waitFor(t, 20*time.Second, "the room goes to the next track", func() bool { st := hub.status(); return st.Track != nil && st.Track.ContentID == ids[1] })
	b.until("the position state of the next track", `__ms.pos.position < 5 && outp.content === `+fmt.Sprintf("%q", ids[1]))
	posRight("the position state of the next track, playing", true)
	eval[bool](b, `(__ms.handlers.previoustrack({action: "previoustrack"}), true)`)
	waitFor(t, 20*time.Second, "the room goes back", func() bool { st := hub.status(); return st.Track != nil && st.Track.ContentID == ids[0] })
	b.until("the position state of the first track again", `__ms.pos.position < 5 && outp.content === `+fmt.Sprintf("%q", ids[0]))
}

// levelDB is the RMS level of r's recording over [from, to] in dB (full
// scale 0).
func levelDB(r *recorder, from, to time.Time) float64 {
	x, _, frameAt := r.snapshot()
	a, b := frameAt(from), min(frameAt(to), len(x))
	sum := 0.0
	for i := a; i < b; i++ {
		v := float64(x[i]) / 32768
		sum += v * v
	}
	if b <= a || sum == 0 {
		return math.Inf(-1)
	}
	return 10 * math.Log10(sum/float64(b-a))
}

// TestWebHubReplayGain: the browser plays a track tagged -6 dB ReplayGain
// about 6 dB lower than an untagged one, as the hub's device would.
func TestWebHubReplayGain(t *testing.T) {
	ffmpeg := needTool(t, "ffmpeg")
	c := newCluster(t, []string{"hub", "box"}, nil)
	hub, box := c.nodes[0], c.nodes[1]
	// The hub's second track becomes a FLAC tagged -6 dB.
	wav := filepath.Join(hub.music, "track1.wav")
	if out, err := exec.Command(ffmpeg, "-loglevel", "error", "-i", wav, "-metadata", "REPLAYGAIN_TRACK_GAIN=-6.00 dB",
		"-metadata", "REPLAYGAIN_TRACK_PEAK=0.5", filepath.Join(hub.music, "track1.flac")).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}
	if err := os.Remove(wav); err != nil {
		t.Fatal(err)
	}
	webAddr := startHub(hub, c.nodes)
	ids := c.scanned() // box's: track0.wav, track1.wav
	c.pair()
	hubIDs := make([]string, 2) // its own files (it lists box's track 1 too)
	for _, tr := range hub.library() {
		switch {
		case tr.Local && strings.HasSuffix(tr.Path, "track0.wav"):
			hubIDs[0] = tr.ContentID
		case tr.Local && strings.HasSuffix(tr.Path, "track1.flac"):
			hubIDs[1] = tr.ContentID
		}
	}
	if hubIDs[0] != ids[0] || hubIDs[1] == ids[1] {
		t.Fatalf("the hub's tracks %v, box's %v", hubIDs, ids)
	}
	b := newAudioBrowser(t, c.pa, hub.sink, true)
	pairPage(t, b, hub, "http://"+webAddr+"/")
	box.ctl("play", ids[0])
	waitFor(t, 20*time.Second, "box plays", func() bool { st := box.status(); return st.Rendering && st.Playing })
	playHere(t, b, hub)
	hub.ctl("play", hubIDs[0], hubIDs[1])
	// A second of each track as the browser's sink has it, steady.
	level := func(id string) float64 {
		t.Helper()
		b.until("the page plays "+id, fmt.Sprintf(`outp.content === %q && !outp.el.paused && outp.el.currentTime > 1`, id))
		from := time.Now()
		waitFor(t, 20*time.Second, "a second recorded", func() bool { return lastSound(hub.rec, from).After(from.Add(time.Second)) })
		return levelDB(hub.rec, from, from.Add(time.Second))
	}
	plain := level(hubIDs[0])
	hub.ctl("next")
	gained := level(hubIDs[1])
	t.Logf("the browser's sink: untagged %.1f dB, tagged -6 dB %.1f dB (%.1f dB apart)", plain, gained, gained-plain)
	if d := gained - plain; d < -7 || d > -5 {
		t.Fatalf("the -6 dB track sounds %.1f dB from the untagged one", d)
	}
}

// TestWebHubStreamsATrackItLacks: the hub has no music; box holds the
// tracks. The hub fetches the playing one through the group library and
// the browser plays it, heard at its pitch.
func TestWebHubStreamsATrackItLacks(t *testing.T) {
	c := newCluster(t, []string{"hub", "box"}, nil)
	hub, box := c.nodes[0], c.nodes[1]
	hub.keepMusic()
	webAddr := startHub(hub, c.nodes)
	c.pair()
	ids := c.trackIDs(nil)
	for _, tr := range hub.library() {
		if tr.Local || tr.Path != "" || !slices.Equal(tr.Holders, []string{box.id}) {
			t.Fatalf("the hub lists %+v, want a track only box has", tr)
		}
	}
	b := newAudioBrowser(t, c.pa, hub.sink, true)
	pairPage(t, b, hub, "http://"+webAddr+"/")
	box.ctl("play", ids[1])
	waitFor(t, 20*time.Second, "box plays", func() bool { st := box.status(); return st.Rendering && st.Playing })
	t0 := time.Now()
	playHere(t, b, hub)
	if st := hub.status(); st.Source != app.SourceStream && st.Source != app.SourceCache {
		t.Fatalf("the hub plays from %q, want the group library", st.Source)
	}
	b.until("the page's element plays on", `outp.el && !outp.el.paused && outp.el.currentTime > 1.5`)
	waitFor(t, 20*time.Second, "the browser's sink sounds", func() bool { return audible(hub.rec, t0, time.Now()) })
	// Its pitch is track 1's at the element's position.
	ct := eval[float64](b, `outp.el.currentTime`)
	at := time.Now()
	waitFor(t, 20*time.Second, "half a second more recorded", func() bool { return lastSound(hub.rec, at).After(at.Add(500 * time.Millisecond)) })
	_, _, frameAt := hub.rec.snapshot()
	f := freqAt(hub.rec, frameAt(at))
	pos := posFromFreq(1, f)
	t.Logf("the browser's sink at %.0f Hz: track 1 at %.1f s; the element was at %.2f s", f, pos, ct)
	if pos < ct-1.5 || pos > ct+1.5 {
		t.Fatalf("the browser's sink plays %.0f Hz (track 1 at %.1f s), the element is at %.2f s", f, pos, ct)
	}
}
