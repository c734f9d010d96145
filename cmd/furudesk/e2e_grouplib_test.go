package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/engine"
)

// The group library end to end: headless processes on loopback, some
// with no music of their own, play the tracks of the others.

// libTrack is one line of `ctl tracks`.
type libTrack struct {
	ContentID string   `json:"content_id"`
	Path      string   `json:"path"`
	Title     string   `json:"title"`
	Local     bool     `json:"local"`
	Holders   []string `json:"holders"`
	Cached    bool     `json:"cached"`
	Playable  bool     `json:"playable"`
	Where     string   `json:"where"`
}

func (n *node) library() []libTrack {
	n.t.Helper()
	var ts []libTrack
	if err := json.Unmarshal(n.ctl("tracks"), &ts); err != nil {
		n.t.Fatal(err)
	}
	return ts
}

// keepMusic leaves only the given test tracks in n's music folder (before
// it starts).
func (n *node) keepMusic(tracks ...int) {
	n.t.Helper()
	for k := range 2 {
		if !slices.Contains(tracks, k) {
			if err := os.Remove(filepath.Join(n.music, fmt.Sprintf("track%d.wav", k))); err != nil {
				n.t.Fatal(err)
			}
		}
	}
}

// streamingPair starts A with the two test tracks and B with no music,
// paired, and returns the tracks' content ids.
func streamingPair(tb testing.TB) (A, B *node, ids []string) {
	c := newCluster(tb, []string{"A", "B"}, nil)
	A, B = c.node("A"), c.node("B")
	B.keepMusic()
	for _, n := range c.nodes {
		n.start()
	}
	c.pair()
	return A, B, c.trackIDs(nil)
}

// trackIDs are the content ids of the test tracks 0 and 1 (the same
// files on every device that has them), from the nodes' libraries.
func (c *cluster) trackIDs(holders map[int][]*node) []string {
	ids := make([]string, 2)
	waitFor(c.t, 30*time.Second, "every device lists the group's tracks", func() bool {
		for _, n := range c.nodes {
			b, err := n.ctlErr("tracks")
			if err != nil {
				return false
			}
			var ts []libTrack
			_ = json.Unmarshal(b, &ts)
			if len(ts) != 2 {
				return false
			}
			for _, t := range ts {
				if t.Local && t.Path != "" {
					k := 0
					if strings.HasSuffix(t.Path, "track1.wav") {
						k = 1
					}
					ids[k] = t.ContentID
				}
			}
		}
		for k, hs := range holders {
			for _, n := range c.nodes {
				var ts []libTrack
				b, _ := n.ctlErr("tracks")
				_ = json.Unmarshal(b, &ts)
				for _, t := range ts {
					if t.ContentID == ids[k] && len(t.Holders) != len(hs) {
						return false
					}
				}
			}
		}
		return ids[0] != "" && ids[1] != ""
	})
	return ids
}

// posOf is the position (s) B's sink plays of track k around frame i.
func posOf(r *recorder, k, i int) float64 { return posFromFreq(k, freqAt(r, i)) }

// B, with an empty music folder, lists A's tracks and plays one: its sink
// sounds, a seek to 80% plays from there, and once the track is cached it
// keeps playing when A is killed.
func TestE2EPlaysATrackOfAnotherDevice(t *testing.T) {
	A, B, ids := streamingPair(t)
	for _, tr := range B.library() {
		if tr.Local || tr.Path != "" || !tr.Playable || !slices.Equal(tr.Holders, []string{A.id}) || tr.Where != "On A" {
			t.Fatalf("B lists %+v, want a track of A's it can play", tr)
		}
	}
	B.ctl("transfer", B.id)
	waitFor(t, 30*time.Second, "B owns the output", func() bool { return B.status().Owner == engine.DeviceID(B.id) })
	at := time.Now()
	B.ctl("play", ids[0])
	waitFor(t, 30*time.Second, "sound on B", func() bool { ts, _ := firstSound(B.rec, at); return !ts.IsZero() })
	first, fi := firstSound(B.rec, at)
	t.Logf("B sounded %v after play (a track only A has, streamed; BenchmarkStreamFirstSample measures it)", first.Sub(at).Round(time.Millisecond))
	if st := B.status(); st.Source != app.SourceStream && st.Source != app.SourceCache {
		t.Fatalf("B plays from %q, want a stream (or the cache it fills)", st.Source)
	}
	waitFor(t, 30*time.Second, "a second of sound", func() bool { return B.rec.frames() > fi+rate })
	if p := posOf(B.rec, 0, fi+rate/20); p > 2 {
		t.Fatalf("B started at %.1f s, want the start", p)
	}

	seekAt := time.Now()
	B.ctl("seek", "48000")
	var si int
	waitFor(t, 30*time.Second, "B plays from 48 s", func() bool {
		_, _, frameAt := B.rec.snapshot()
		si = frameAt(seekAt.Add(1500 * time.Millisecond))
		return B.rec.frames() > si+rate/5 && posOf(B.rec, 0, si) >= 48
	})
	if p := posOf(B.rec, 0, si); p > 52 {
		t.Fatalf("after the seek to 48 s B plays %.1f s", p)
	}

	waitFor(t, 30*time.Second, "the track cached on B", func() bool {
		for _, tr := range B.library() {
			if tr.ContentID == ids[0] && tr.Cached {
				return true
			}
		}
		return false
	})
	killed := time.Now()
	A.stop(true)
	waitFor(t, 30*time.Second, "3 s after A was killed", func() bool { return B.rec.frames() > 0 && !lastSound(B.rec, killed.Add(3*time.Second)).IsZero() })
	if gap := longestSilence(B.rec, killed, killed.Add(3*time.Second)); gap > 200*time.Millisecond {
		t.Fatalf("B went silent for %v after A was killed", gap)
	}
	if st := B.status(); st.Source != app.SourceCache || !st.Playing {
		t.Fatalf("B after A's end: source %q playing %v, want it playing from the cache", st.Source, st.Playing)
	}
}

// B streams a track A and C both have; the holder it streams from is
// killed mid-track and the other one carries on without a gap. Then that
// one is killed too: B plays what arrived and pauses with a notice naming
// it.
func TestE2EHolderLostMidStream(t *testing.T) {
	c := newCluster(t, []string{"A", "B", "C"}, nil)
	A, B, C := c.node("A"), c.node("B"), c.node("C")
	B.keepMusic()
	C.keepMusic(1)
	for _, n := range c.nodes {
		n.start()
	}
	c.pair()
	ids := c.trackIDs(map[int][]*node{1: {A, C}})
	for _, n := range []*node{A, C} {
		n.ctl("upload-limit", "150") // KB/s: the 60 s track takes 35 s to fetch
	}
	B.ctl("transfer", B.id)
	waitFor(t, 30*time.Second, "B owns the output", func() bool { return B.status().Owner == engine.DeviceID(B.id) })
	at := time.Now()
	B.ctl("play", ids[1])
	var st app.Status
	waitFor(t, 30*time.Second, "B streams", func() bool { st = B.status(); return st.Source == app.SourceStream && st.Holder != "" })
	waitFor(t, 30*time.Second, "sound on B", func() bool { ts, _ := firstSound(B.rec, at); return !ts.IsZero() })
	first, other := A, C
	if string(st.Holder) == C.id {
		first, other = C, A
	}
	waitFor(t, 30*time.Second, "3 s of sound", func() bool { return !lastSound(B.rec, at.Add(3*time.Second)).IsZero() })
	killed := time.Now()
	first.stop(true)
	waitFor(t, 20*time.Second, "B streams from "+other.name, func() bool {
		s := B.status()
		return s.Source == app.SourceStream && string(s.Holder) == other.id
	})
	waitFor(t, 30*time.Second, "4 s after the kill", func() bool { return !lastSound(B.rec, killed.Add(4*time.Second)).IsZero() })
	if gap := longestSilence(B.rec, killed, killed.Add(4*time.Second)); gap > 200*time.Millisecond {
		t.Fatalf("B went silent for %v when %s was killed mid-stream", gap, first.name)
	}

	killed = time.Now()
	other.stop(true)
	waitFor(t, 60*time.Second, "B pauses with a notice", func() bool {
		s := B.status()
		return !s.Playing && strings.Contains(s.OwnerNotice, other.name) && strings.Contains(s.OwnerNotice, "paused")
	})
	if !audible(B.rec, killed, killed.Add(time.Second)) {
		t.Fatal("B did not play what it had fetched before pausing")
	}
	t.Logf("notice: %s", B.status().OwnerNotice)
}

// A plays a track only A has and transfers to B, which has no music: B
// continues from A's position, streamed from A, and A goes silent.
func TestE2ETransferToADeviceWithoutTheTrack(t *testing.T) {
	A, B, ids := streamingPair(t)
	A.ctl("transfer", A.id)
	A.ctl("play", ids[0], ids[1])
	waitFor(t, 20*time.Second, "A plays", func() bool { return A.status().Output.Playing })
	waitFor(t, 30*time.Second, "B follows A", func() bool { return B.status().Owner == engine.DeviceID(A.id) })
	waitFor(t, 20*time.Second, "A 5 s into the track", func() bool { return A.status().PositionMS > 5000 })
	at := time.Now()
	A.ctl("transfer", B.id)
	waitFor(t, 30*time.Second, "sound on B", func() bool { ts, _ := firstSound(B.rec, at); return !ts.IsZero() })
	f, fi := firstSound(B.rec, at)
	last := lastSound(A.rec, at)
	waitFor(t, 30*time.Second, "1 s of sound on B", func() bool { return B.rec.frames() > fi+rate })
	_, _, frameAtA := A.rec.snapshot()
	srcPos := posOf(A.rec, 0, frameAtA(last)-rate/10)
	dstPos := posOf(B.rec, 0, fi+rate/50)
	t.Logf("handoff to a device without the track: B sounded after %v at %.1f s, A last sounded after %v at %.1f s",
		f.Sub(at).Round(time.Millisecond), dstPos, last.Sub(at).Round(time.Millisecond), srcPos)
	if math.Abs(dstPos-srcPos) > 1.5 {
		t.Errorf("B resumed at %.1f s, A stopped at %.1f s", dstPos, srcPos)
	}
	if st := B.status(); !st.Rendering || st.Source == app.SourceLocal || st.Source == "" {
		t.Fatalf("B renders %v from %q", st.Rendering, st.Source)
	}
	silentFrom := time.Now()
	waitFor(t, 30*time.Second, "1 s more on B", func() bool { return !lastSound(B.rec, silentFrom.Add(time.Second)).IsZero() })
	if audible(A.rec, silentFrom, time.Now()) {
		t.Error("A still audible after the handoff")
	}
}
