package mpris

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/furudesk/furudesk/app"
)

func TestTrackIDIsAValidDistinctPath(t *testing.T) {
	ids := []string{
		"b3:" + hex64('a'), "b3_3a" + hex64('a'), "b3:" + hex64('b'), "a/b", "a_2fb", "ü", " ", "_",
		strings.Repeat("x", 300), strings.Repeat("x", 301), strings.Repeat(":", 100),
	}
	seen := map[string]string{}
	for _, id := range ids {
		p := TrackID(id)
		if !p.IsValid() || !strings.HasPrefix(string(p), TrackPathPrefix) {
			t.Errorf("TrackID(%q) = %q, not a valid path under %s", id, p, TrackPathPrefix)
		}
		if len(p) > len(TrackPathPrefix)+maxEscapedID {
			t.Errorf("TrackID(%q) is %d bytes long", id, len(p))
		}
		if other, dup := seen[string(p)]; dup {
			t.Errorf("TrackID(%q) = TrackID(%q) = %q", id, other, p)
		}
		seen[string(p)] = id
	}
	if TrackID("") != NoTrack {
		t.Errorf("TrackID(\"\") = %q, want NoTrack", TrackID(""))
	}
}

func TestCleanStrings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a\x00b", "a\uFFFDb"},
		{"\xff\xfe", "\uFFFD"},
		{"Sigur Rós", "Sigur Rós"},
	} {
		if got := clean(c.in); got != c.want {
			t.Errorf("clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	long := strings.Repeat("a", MaxStringBytes-1) + "€€" // a 3-byte character across the limit
	if got := clean(long); len(got) != MaxStringBytes-1 || !utf8.ValidString(got) {
		t.Errorf("clean of a long string: %d bytes (valid %v), want %d", len(got), utf8.ValidString(got), MaxStringBytes-1)
	}
}

func TestVolumeMapping(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want int
	}{{0, 0}, {0.5, 50}, {0.424, 42}, {0.426, 43}, {1, 100}, {1.7, 100}, {-0.2, 0}} {
		if got, ok := volumePercent(c.in); !ok || got != c.want {
			t.Errorf("volumePercent(%v) = %d, %v, want %d", c.in, got, ok, c.want)
		}
	}
	if _, ok := volumePercent(nan()); ok {
		t.Errorf("volumePercent(NaN) accepted")
	}
	for v := 0; v <= 100; v++ {
		p := deriveProps(view{st: app.Status{Volume: v}})
		if back, _ := volumePercent(p.volume); back != v {
			t.Errorf("volume %d → %v → %d", v, p.volume, back)
		}
	}
}

func nan() float64 { z := 0.0; return z / z }

func TestLoopMapping(t *testing.T) {
	for _, repeat := range []string{"off", "one", "all"} {
		if back, ok := repeatMode(loopStatus(repeat)); !ok || back != repeat {
			t.Errorf("repeat %q → %q → %q", repeat, loopStatus(repeat), back)
		}
	}
	if _, ok := repeatMode("Shuffle"); ok {
		t.Errorf("LoopStatus Shuffle accepted")
	}
}

func TestCanGoNextAndPrevious(t *testing.T) {
	for _, c := range []struct {
		index        int
		repeat       string
		next, prev   bool
		status       string
		emptyQueue   bool
		playing      bool
		wantCanSeek  bool
		zeroDuration bool
	}{
		{index: 0, repeat: "off", next: true, prev: true, status: "Paused", wantCanSeek: true},
		{index: 2, repeat: "off", next: false, prev: true, status: "Playing", playing: true, wantCanSeek: true},
		{index: 2, repeat: "all", next: true, prev: true, status: "Paused", wantCanSeek: true},
		{index: 2, repeat: "one", next: false, prev: true, status: "Paused", wantCanSeek: true},
		{index: 1, repeat: "off", next: true, prev: true, status: "Paused", zeroDuration: true},
		{emptyQueue: true, repeat: "all", status: "Stopped"},
	} {
		st := pausedAt(c.index, 0)
		st.Repeat, st.Playing = c.repeat, c.playing
		if c.zeroDuration {
			st.Track.DurationMS = 0
		}
		if c.emptyQueue {
			st.Queue, st.QueueLen, st.Track = nil, 0, nil
		}
		p := deriveProps(view{st: st})
		if p.canGoNext != c.next || p.canGoPrevious != c.prev || p.playbackStatus != c.status || p.canSeek != c.wantCanSeek {
			t.Errorf("%+v: next %v prev %v status %s seek %v", c, p.canGoNext, p.canGoPrevious, p.playbackStatus, p.canSeek)
		}
	}
}

func TestPositionExtrapolation(t *testing.T) {
	at := clockStart
	st := pausedAt(0, 10_000) // 180 s track
	v := view{st: st, at: at}
	if got := v.positionUS(at.Add(time.Minute)); got != 10_000_000 {
		t.Errorf("paused: %d µs a minute later, want 10000000", got)
	}
	v.st.Playing = true
	if got := v.positionUS(at.Add(2500 * time.Millisecond)); got != 12_500_000 {
		t.Errorf("playing: %d µs 2.5 s later, want 12500000", got)
	}
	if got := v.positionUS(at.Add(time.Hour)); got != 180_000_000 {
		t.Errorf("playing: %d µs an hour later, want the track length", got)
	}
	if got := v.positionUS(at.Add(-time.Second)); got != 10_000_000 {
		t.Errorf("clock stepped back: %d µs, want 10000000", got)
	}
}

// BenchmarkStatusToSignal is the work the server does per app status (one
// every 250 ms while playing): derive the properties and diff them.
func BenchmarkStatusToSignal(b *testing.B) {
	prev := deriveProps(view{st: pausedAt(0, 0)})
	st := pausedAt(0, 1000)
	st.Playing = true
	b.ReportAllocs()
	for b.Loop() {
		p := deriveProps(view{st: st, at: clockStart})
		if ch := p.changed(prev); len(ch) != 1 {
			b.Fatalf("changed %v", ch)
		}
	}
}
