//go:build chromium

package main

// The web hub decodes for the browser what it cannot play (issue 34):
// WavPack (canPlayType says no) and ALAC in MP4 (canPlayType says maybe,
// the element refuses it) are heard on the browser's sink at their pitch,
// and a seek lands where it should.

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hubTracks waits for n's scan of want files and returns their content
// ids by file name.
func hubTracks(t *testing.T, n *node, want int) map[string]string {
	t.Helper()
	ids := map[string]string{}
	waitFor(t, 30*time.Second, "the hub's scan", func() bool {
		var tr []struct {
			ContentID string `json:"content_id"`
			Path      string `json:"path"`
		}
		b, err := n.ctlErr("tracks")
		if err != nil || json.Unmarshal(b, &tr) != nil || len(tr) != want {
			return false
		}
		for _, x := range tr {
			ids[filepath.Base(x.Path)] = x.ContentID
		}
		return true
	})
	return ids
}

// pitchNow is the frequency the recorder heard lately (100 ms, from 300 ms
// before its newest frame: past the sink's latency).
func pitchNow(r *recorder) float64 { return freqAt(r, r.frames()-rate/5-rate/10) }

func TestWebHubDecodesWhatTheBrowserCannotPlay(t *testing.T) {
	ffmpeg := needTool(t, "ffmpeg")
	c := newCluster(t, []string{"hub"}, nil)
	hub := c.nodes[0]
	// The hub's music: track 0 as WavPack, track 1 as ALAC (their pitch
	// tells the position, see trackFreq).
	for k, out := range []struct{ name, codec string }{{"track0.wv", "wavpack"}, {"track1.m4a", "alac"}} {
		wav := filepath.Join(hub.music, filepathBase(k))
		if b, err := exec.Command(ffmpeg, "-loglevel", "error", "-i", wav, "-c:a", out.codec, filepath.Join(hub.music, out.name)).CombinedOutput(); err != nil {
			t.Fatalf("ffmpeg %s: %v\n%s", out.name, err, b)
		}
		if err := os.Remove(wav); err != nil {
			t.Fatal(err)
		}
	}
	ids, b := startHubPage(t, c, hub)
	t.Logf(`canPlayType: wavpack %q, mp4 %q`, eval[string](b, `new Audio().canPlayType("audio/x-wavpack")`), eval[string](b, `new Audio().canPlayType("audio/mp4")`))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("page: %s", eval[string](b, `JSON.stringify({cmds: outp.cmds, decoded: outp.decoded, src: outp.el && outp.el.src, t: outp.el && outp.el.currentTime, err: outp.el && outp.el.error && outp.el.error.message, lastError: outp.lastError, toast: document.getElementById("toast").textContent})`))
			t.Logf("hub web: %s", hub.ctl("web"))
		}
	})
	chooseThisBrowser(b)

	t0 := time.Now()
	hub.ctl("play", ids["track0.wv"], ids["track1.m4a"])
	b.until("the WavPack track plays, decoded by the hub", `outp.el && !outp.el.paused && outp.el.currentTime > 1.3 && outp.decoded && outp.el.src.includes("as=wav")`)
	waitFor(t, 20*time.Second, "the browser's sink sounds", func() bool { return audible(hub.rec, t0, time.Now()) })
	first, fi := firstSound(hub.rec, t0)
	t.Logf("WavPack: play to first sound on the browser's sink %v", first.Sub(t0).Round(time.Millisecond))
	waitFor(t, 20*time.Second, "a second of the WavPack track recorded", func() bool { return hub.rec.frames() > fi+rate })
	if f := freqAt(hub.rec, fi+rate/2); math.Abs(f-trackFreq(0, 0)) > 15 {
		t.Fatalf("WavPack half a second in: heard %.0f Hz, want %.0f", f, trackFreq(0, 0))
	}
	if st := hub.status(); string(st.Owner) != hub.id || !st.Rendering || !st.Output.Playing {
		t.Fatalf("the hub does not render a playing output: owner %s rendering %v output %+v", st.Owner, st.Rendering, st.Output)
	}

	// A seek deep into the decoded track: a Range the decoder starts at.
	hub.ctl("seek", "40000")
	b.until("the page plays on from 40 s", `!outp.el.paused && outp.el.currentTime > 42 && outp.el.currentTime < 46`)
	if f := pitchNow(hub.rec); posFromFreq(0, f) < 39.5 || posFromFreq(0, f) > 46 {
		t.Fatalf("after a seek to 40 s, at about 42 s: heard %.0f Hz (%.1f s)", f, posFromFreq(0, f))
	}

	// ALAC in MP4: the browser tries the original, refuses it, and the
	// page loads the hub's decoding instead, without an error report.
	hub.ctl("next")
	b.until("the ALAC track plays, decoded by the hub", `outp.content === `+jsString(ids["track1.m4a"])+` && !outp.el.paused && outp.el.currentTime > 1.5 && outp.decoded`)
	if f := pitchNow(hub.rec); posFromFreq(1, f) < -0.5 || posFromFreq(1, f) > 4 {
		t.Fatalf("ALAC at about 1.5 s: heard %.0f Hz (%.1f s of track 1)", f, posFromFreq(1, f))
	}
	if o := webInfo(t, hub).Output; o == nil || o.DecodeErrors != 0 {
		t.Fatalf("ctl web info: %+v", o)
	}
	for _, n := range hub.status().Notices {
		if strings.Contains(n.Text, "Could not play") {
			t.Fatalf("a notice: %s", n.Text)
		}
	}
}

// startHubPage starts hub (of cluster c) as a web hub with its 2 tracks
// and a paired Chromium page whose sound goes to the hub's sink.
func startHubPage(t *testing.T, c *cluster, hub *node) (map[string]string, *browser) {
	t.Helper()
	webAddr := freePort(t)
	hub.args = append(hub.args, "--web", webAddr, "--web-hub")
	hub.start()
	ids := hubTracks(t, hub, 2)
	b := newAudioBrowser(t, c.pa, hub.sink, true)
	pairPage(t, b, hub, "http://"+webAddr+"/")
	return ids, b
}

// chooseThisBrowser clicks "Play on this browser" and waits for the page to be
// the hub's output.
func chooseThisBrowser(b *browser) {
	b.t.Helper()
	b.click("#devbtn")
	b.until("the device picker with this browser", `document.getElementById("devices").open && !!document.getElementById("playhere")`)
	b.click("#playhere")
	b.until("the page is the output", `outp.token > 0`)
}

func filepathBase(k int) string { return []string{"track0.wav", "track1.wav"}[k] }

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }
