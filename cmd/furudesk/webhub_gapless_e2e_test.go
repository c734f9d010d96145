//go:build chromium

package main

// Gapless in the browser (issue 34): the hub prepares the next queue entry
// ahead, the page loads it in a second element and starts it when the
// first ends; the gap is measured on the browser's recorded sink.

import (
	"bytes"
	"encoding/binary"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeTone writes a mono 44.1 kHz WAV of a sine at freq for seconds,
// starting and ending at a zero crossing of full periods where freq allows.
func writeTone(t testing.TB, path string, freq, seconds float64) {
	frames := int(seconds * rate)
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
	for i := range frames {
		_ = binary.Write(&b, le, int16(0.5*32767*math.Sin(2*math.Pi*freq*float64(i)/rate)))
	}
	mustWrite(t, path, b.Bytes())
}

// gapAt is the longest run of silent frames of r within ±half a second of
// frame i: the gap between two tracks that meet there (0: none).
func gapAt(r *recorder, i int) time.Duration {
	x, _, _ := r.snapshot()
	// A 0.5 sine is below the threshold for a few frames at each zero
	// crossing: a run longer than that is silence.
	longest, run := 0, 0
	for k := max(0, i-rate/2); k < min(len(x), i+rate/2); k++ {
		if x[k] > soundThr/4 || x[k] < -soundThr/4 {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	if longest <= 2 {
		return 0
	}
	return time.Duration(longest) * time.Second / rate
}

// overlapAt is how long two tones of amplitude 0.5 sound together within
// ±half a second of frame i: the span of frames louder than one alone.
func overlapAt(r *recorder, i int) time.Duration {
	x, _, _ := r.snapshot()
	first, last := -1, -1
	for k := max(0, i-rate/2); k < min(len(x), i+rate/2); k++ {
		if x[k] > 20000 || x[k] < -20000 {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	if first < 0 {
		return 0
	}
	return time.Duration(last-first+1) * time.Second / rate
}

// playTwoInBrowser makes b the hub's output, plays the hub's tracks a (a
// tone of freqA) then b (of freqB) and returns the frame of the recording
// where the second began and the gap there (negative: they overlapped
// that long).
func playTwoInBrowser(t testing.TB, hub *node, b *browser, a, bID string, freqA, freqB float64) (int, time.Duration) {
	chooseThisBrowser(b)
	start := hub.rec.frames()
	hub.ctl("play", a, bID)
	b.until("the second track plays", `outp.content === `+jsString(bID)+` && !outp.el.paused && outp.el.currentTime > 1`)
	// The first frame of the second track's pitch after the first's: what
	// the sink still played of an earlier run (the tail of its second
	// track, heard after the pause) comes before the first track and is
	// not this seam.
	var at int
	waitFor(t, 20*time.Second, "the second track's pitch recorded", func() bool {
		first := false
		for k := start; k+rate/10 < hub.rec.frames(); k += rate / 100 {
			f := freqAt(hub.rec, k)
			first = first || math.Abs(f-freqA) < 20
			if first && math.Abs(f-freqB) < 20 {
				at = k
				return true
			}
		}
		return false
	})
	return at, gapAt(hub.rec, at) - overlapAt(hub.rec, at)
}

func TestWebHubPlaysTheNextTrackWithoutAGap(t *testing.T) {
	c := newCluster(t, []string{"hub"}, nil)
	hub := c.nodes[0]
	writeTone(t, filepath.Join(hub.music, "track0.wav"), 441, 3) // replaces the harness's tracks
	writeTone(t, filepath.Join(hub.music, "track1.wav"), 882, 20)
	ids, b := startHubPage(t, c, hub)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("page: %s", eval[string](b, `JSON.stringify({cmds: outp.cmds, track: outp.track, content: outp.content, spare: !!outp.spare, src: outp.el && outp.el.src, t: outp.el && outp.el.currentTime})`))
		}
	})
	_, gap := playTwoInBrowser(t, hub, b, ids["track0.wav"], ids["track1.wav"], 441, 882)
	t.Logf("gap between two queued tracks on the browser's sink: %v (negative: an overlap)", gap)
	// The page ran into the prepared track: the hub sent "next" and no
	// second "play".
	if cmds := eval[string](b, `outp.cmds.join(",")`); strings.Count(cmds, "play") != 1 || !strings.Contains(cmds, "next") {
		t.Fatalf("the page's commands: %s", cmds)
	}
	waitFor(t, 20*time.Second, "the hub's queue moves to the second track", func() bool {
		st := hub.status()
		return st.Index == 1 && st.Playing
	})
}
