package audio

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"sync"
	"testing"
	"time"
)

const testRate = 44100

// waitFor polls cond until it holds or a generous deadline passes: the
// decode goroutines are real, so their progress is awaited, never slept on.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// decoded reports that s has decoded everything it will decode ahead.
func decoded(m *mixer, s *stream) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return s.endSent.Load() || len(s.chunks) == cap(s.chunks)
}

// pull reads n frames from m as the device would and returns the left channel.
func pull(m *mixer, n int) []int16 {
	buf := make([]byte, n*bytesPerFrame)
	got, _ := m.Read(buf)
	out := make([]int16, got/bytesPerFrame)
	for i := range out {
		out[i] = int16(binary.LittleEndian.Uint16(buf[i*bytesPerFrame:]))
	}
	return out
}

type errLog struct {
	mu   sync.Mutex
	errs []DecodeError
}

func (l *errLog) add(t Track, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, DecodeError{Track: t, Err: err})
}

func (l *errLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.errs)
}

func toneSource(id string, freq float64, frames int) (Source, func(i int) int16) {
	gen := sine(freq, 0.5, testRate)
	b := wavBytes(testRate, 2, frames, gen)
	return memSource(id, id+".wav", b), func(i int) int16 {
		return int16(int64(gen(i, 0)*32767 + 0.5*sign(gen(i, 0))))
	}
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

// TestMixerGapless: the prepared track's first frame directly follows the
// current track's last frame, and Finished/Started are released only when
// the device has consumed that frame.
func TestMixerGapless(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 16, log.add)
	a, wantA := toneSource("a", 440, 8820)
	b, wantB := toneSource("b", 660, 8820)
	ta := m.play(a, 0)
	tb := m.prepare(b)
	waitFor(t, "both tracks decoded", func() bool { return decoded(m, m.cur) && decoded(m, m.next) })

	var got []int16
	var evs []Event
	for len(got) < 8820*2+441 {
		got = append(got, pull(m, 441)...)
		evs = append(evs, m.observe(int64(len(got))-441).events...) // one read still buffered
	}
	for i := 0; i < 8820; i++ {
		if got[i] != wantA(i) {
			t.Fatalf("frame %d = %d, want track a's %d", i, got[i], wantA(i))
		}
		if got[8820+i] != wantB(i) {
			t.Fatalf("frame %d = %d, want track b's frame %d = %d (gap or overlap at the boundary)", 8820+i, got[8820+i], i, wantB(i))
		}
	}
	for i := 2 * 8820; i < len(got); i++ {
		if got[i] != 0 {
			t.Fatalf("frame %d = %d after both tracks, want silence", i, got[i])
		}
	}
	want := []Event{Started{Track: ta}, Finished{Track: ta}, Started{Track: tb}}
	if len(evs) != len(want) {
		t.Fatalf("events = %+v, want %+v", evs, want)
	}
	for i := range want {
		if evs[i] != want[i] {
			t.Fatalf("event %d = %+v, want %+v", i, evs[i], want[i])
		}
	}
	if st := m.observe(int64(len(got))); len(st.events) != 1 || st.events[0] != (Finished{Track: tb}) || st.playing {
		t.Fatalf("after the end: %+v, want Finished b and not playing", st)
	}
	if log.len() != 0 {
		t.Fatalf("decode errors: %+v", log.errs)
	}
}

// TestMixerPauseResume: pause writes silence at once and rewinds to the
// first frame the device had not taken (the caller mutes the rest), and
// resume continues exactly there once the muted frames are gone.
func TestMixerPauseResume(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 16, log.add)
	a, want := toneSource("a", 440, testRate)
	ta := m.play(a, 0)
	waitFor(t, "decoded", func() bool { return decoded(m, m.cur) })
	got := pull(m, 1000)[:600] // the device took 600; 400 are buffered and get muted
	if !m.pause(600) {
		t.Fatal("pause with frames buffered must ask for a mute")
	}
	if m.pause(600) {
		t.Fatal("a second pause must do nothing")
	}
	for i, v := range pull(m, 441) {
		if v != 0 {
			t.Fatalf("paused frame %d = %d, want silence", i, v)
		}
	}
	if st := m.observe(600); !st.playing || st.pos != 600 {
		t.Fatalf("state at 600 = %+v, want playing at 600", st)
	}
	st := m.observe(1000 + 441)
	if st.playing || st.track != ta || st.pos != 600 || !st.paused {
		t.Fatalf("paused state = %+v, want not playing, track a at frame 600", st)
	}
	m.resume()
	for i, v := range pull(m, 100) {
		if v != 0 {
			t.Fatalf("frame %d before the muted frames are gone = %d, want silence", i, v)
		}
	}
	if m.release(999) {
		t.Fatal("released before the device took every muted frame")
	}
	if !m.release(1000) {
		t.Fatal("not released after the device took every muted frame")
	}
	waitFor(t, "sound after resume", func() bool {
		x := pull(m, 64)
		for i, v := range x {
			if v != 0 {
				got = append(got, x[i:]...)
				return true
			}
		}
		return false
	})
	got = append(got, pull(m, 1000)...)
	for i, v := range got {
		if v != want(i) {
			t.Fatalf("frame %d across pause/resume = %d, want %d", i, v, want(i))
		}
	}
}

// TestMixerSeek: after Seek the next track frames written are those at the
// target.
func TestMixerSeek(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 16, log.add)
	a, want := toneSource("a", 440, testRate)
	m.play(a, 0)
	waitFor(t, "decoded", func() bool { return decoded(m, m.cur) })
	pull(m, 100)
	if !m.seek(30000) {
		t.Fatal("seek with a track loaded returned false")
	}
	var first []int16
	waitFor(t, "sound after seek", func() bool {
		x := pull(m, 64)
		for i, v := range x {
			if v != 0 {
				first = x[i:]
				return true
			}
		}
		return false
	})
	for i, v := range first {
		if v != want(30000+i) {
			t.Fatalf("frame %d after seek = %d, want %d", i, v, want(30000+i))
		}
	}
}

// TestMixerDecodeErrorMovesOn: a corrupt track yields DecodeError, never
// Started or Finished, and the prepared track plays.
func TestMixerDecodeErrorMovesOn(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 16, log.add)
	bad := memSource("bad", "bad.mp3", []byte("RIFF\x10\x00\x00\x00WAVEfmt \x02\x00\x00\x00"))
	b, wantB := toneSource("b", 660, 4410)
	tbad := m.play(bad, 0)
	tb := m.prepare(b)
	waitFor(t, "decode error", func() bool { return log.len() == 1 })
	if e := log.errs[0]; e.Track != tbad || !errors.Is(e.Err, ErrCorrupt) {
		t.Fatalf("decode error = %+v, want track bad with ErrCorrupt", e)
	}
	waitFor(t, "next decoded", func() bool { return decoded(m, m.next) || (m.next == nil && decoded(m, m.cur)) })
	var got []int16
	waitFor(t, "track b", func() bool {
		got = append(got, pull(m, 441)...)
		for len(got) > 0 && got[0] == 0 && wantB(0) == 0 && len(got) > 1 && got[1] == 0 {
			got = got[1:]
		}
		return len(got) >= 4410
	})
	start := 0
	for start < len(got) && got[start] == 0 && got[start+1] == 0 {
		start++
	}
	for i := 0; i < 4000; i++ {
		if got[start+i] != wantB(i) {
			t.Fatalf("frame %d = %d, want track b's %d", i, got[start+i], wantB(i))
		}
	}
	pull(m, 441) // the device reads on past the end
	evs := m.observe(1 << 40).events
	if len(evs) != 2 || evs[0] != (Started{Track: tb}) || evs[1] != (Finished{Track: tb}) {
		t.Fatalf("events = %+v, want only Started and Finished of b", evs)
	}
}

// TestMixerStop: Stop writes silence from the next frame on and drops the
// prepared track.
func TestMixerStop(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 16, log.add)
	a, _ := toneSource("a", 440, testRate)
	b, _ := toneSource("b", 660, testRate)
	m.play(a, 0)
	m.prepare(b)
	waitFor(t, "decoded", func() bool { return decoded(m, m.cur) })
	pull(m, 1000)
	m.stop()
	for i, v := range pull(m, 44100) {
		if v != 0 {
			t.Fatalf("frame %d after stop = %d, want silence", i, v)
		}
	}
	if st := m.observe(2000); st.playing || st.track != (Track{}) {
		t.Fatalf("after stop: %+v", st)
	}
}

// TestBadSourcesNeverPanic: nil opener results, panicking openers, missing
// files and empty sources are decode errors.
func TestBadSourcesNeverPanic(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 4, log.add)
	srcs := []Source{
		{ID: "none"},
		{ID: "missing", Path: "/nonexistent/x.flac"},
		{ID: "nil", Open: func() (io.ReadSeekCloser, error) { return nil, nil }},
		{ID: "panic", Open: func() (io.ReadSeekCloser, error) { panic("boom") }},
		memSource("empty", "e.mp3", nil),
	}
	for _, s := range srcs {
		m.play(s, durationToFrames(-time.Hour, testRate))
	}
	waitFor(t, "all errors", func() bool { return log.len() == len(srcs) })
	for i, e := range log.errs {
		if e.Err == nil {
			t.Fatalf("error %d is nil", i)
		}
	}
}

// TestMixerClearNext: dropping the prepared track leaves the current one
// playing to its end, then silence: no frame, Started or DecodeError of
// the dropped track, even when its decoding fails after the drop.
func TestMixerClearNext(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 16, log.add)
	a, wantA := toneSource("a", 440, 8820)
	b, _ := toneSource("b", 660, 8820)
	ta := m.play(a, 0)
	m.prepare(b)
	waitFor(t, "both tracks decoded", func() bool { return decoded(m, m.cur) && decoded(m, m.next) })
	got := pull(m, 4410)
	m.clearNext()
	got = append(got, pull(m, 8820)...)
	for i := 0; i < 8820; i++ {
		if got[i] != wantA(i) {
			t.Fatalf("frame %d = %d, want track a's %d (the current track was touched)", i, got[i], wantA(i))
		}
	}
	for i := 8820; i < len(got); i++ {
		if got[i] != 0 {
			t.Fatalf("frame %d = %d after the current track, want silence (the dropped track played)", i, got[i])
		}
	}
	evs := m.observe(int64(len(got))).events
	if len(evs) != 2 || evs[0] != (Started{Track: ta}) || evs[1] != (Finished{Track: ta}) {
		t.Fatalf("events = %+v, want only Started and Finished of a", evs)
	}

	// A prepared track whose opening fails only after the drop.
	release := make(chan struct{})
	failing := Source{ID: "late", Open: func() (io.ReadSeekCloser, error) {
		<-release
		return nil, errors.New("gone")
	}}
	c, _ := toneSource("c", 440, 8820)
	m.play(c, 0)
	m.prepare(failing)
	m.mu.Lock()
	dropped := m.next
	m.mu.Unlock()
	m.clearNext()
	close(release)
	<-dropped.done
	if n := log.len(); n != 0 {
		t.Fatalf("decode errors after the drop: %+v, want none", log.errs)
	}
	m.clearNext() // nothing prepared: a no-op
	if m.cur == nil {
		t.Fatal("clearNext dropped the current track")
	}
}

// TestMixerGain: a track plays at its Source.GainDB (ReplayGain), each
// track of a gapless pair at its own, a gain change applies to the very
// next frames, and a boost clips at full scale instead of wrapping.
func TestMixerGain(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 16, log.add)
	a, wantA := toneSource("a", 440, 4410)
	b, wantB := toneSource("b", 660, 8820)
	a.GainDB = -20 * math.Log10(2) // half
	b.GainDB = 12                  // a 0.5 sine boosted 4 times clips
	ta := m.play(a, 0)
	tb := m.prepare(b)
	waitFor(t, "both tracks decoded", func() bool { return decoded(m, m.cur) && decoded(m, m.next) })
	got := pull(m, 4410+441)
	for i := 0; i < 4410; i++ {
		if want := float64(wantA(i)) / 2; math.Abs(float64(got[i])-want) > 1 {
			t.Fatalf("track a frame %d = %d, want half of %d", i, got[i], wantA(i))
		}
	}
	clipped := 0
	for i := 0; i < 441; i++ {
		v, w := got[4410+i], float64(wantB(i))*math.Pow(10, 12.0/20)
		switch {
		case w >= 32767 && v == 32767, w <= -32768 && v == -32768:
			clipped++
		case math.Abs(w) < 32767 && math.Abs(float64(v)-w) > 2:
			t.Fatalf("track b frame %d = %d, want %.0f", i, v, w)
		}
	}
	if clipped == 0 {
		t.Fatalf("a 0.5 sine at +12 dB never reached full scale")
	}
	if m.setGain(ta, 0) || !m.setGain(tb, 0) {
		t.Fatalf("setGain: the finished track must be gone, the playing one found")
	}
	next := pull(m, 441)
	for i, v := range next {
		if v != wantB(441+i) {
			t.Fatalf("after setGain(0) frame %d = %d, want %d", i, v, wantB(441+i))
		}
	}
}

// TestMixerSettling: the monitor measures at the fast pace exactly while
// frames in flight need it: a track's Started waiting for the device, a
// stop being muted; at the steady pace while a track plays on.
func TestMixerSettling(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 16, log.add)
	if m.settling() {
		t.Fatal("settling with nothing loaded")
	}
	a, _ := toneSource("a", 440, 44100)
	m.play(a, 0)
	waitFor(t, "the track decoded ahead", func() bool { return decoded(m, m.cur) })
	pull(m, 441)
	if !m.settling() {
		t.Fatal("not settling while the track's Started waits for the device")
	}
	m.observe(441)
	pull(m, 441)
	m.observe(882)
	if m.settling() {
		t.Fatal("settling while the track plays on")
	}
	m.stop()
	if !m.settling() {
		t.Fatal("not settling while a stop is muted")
	}
	pull(m, 441)
	if !m.release(m.writtenFrames()) || m.settling() {
		t.Fatal("still settling after the stop's frames were consumed")
	}
}

// TestMixerReadTellsSilence: read says whether a track's frames are in
// what it returned and whether the track starved, which the Linux device
// uses to pass over the mixer's silence before a track and to wait for a
// late decoder rather than fill its ring with silence.
func TestMixerReadTellsSilence(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 16, log.add)
	buf := make([]byte, 512*bytesPerFrame)
	if _, audible, starved := m.read(buf); audible || starved {
		t.Fatalf("nothing loaded: audible %v starved %v, want neither", audible, starved)
	}
	a, _ := toneSource("a", 440, testRate)
	m.play(a, 0)
	waitFor(t, "decoded", func() bool { return decoded(m, m.cur) })
	if _, audible, starved := m.read(buf); !audible || starved {
		t.Fatalf("decoded track: audible %v starved %v, want audible only", audible, starved)
	}
	m.pause(-1)
	if _, audible, _ := m.read(buf); audible {
		t.Fatal("paused: audible, want the mixer's silence")
	}
	m.resume()
	// A decoder that has produced nothing yet: the track starves.
	release := make(chan struct{})
	defer close(release)
	m.play(Source{ID: "slow", Name: "slow.wav", Open: func() (io.ReadSeekCloser, error) {
		<-release
		return nil, io.ErrUnexpectedEOF
	}}, 0)
	if _, audible, starved := m.read(buf); audible || !starved {
		t.Fatalf("stalled decoder: audible %v starved %v, want starved only", audible, starved)
	}
}

// readAudible reads frames of 64 until a read holds a track's, and
// returns the left channel of that read and n more frames.
func readAudible(t *testing.T, m *mixer, n int) []int16 {
	t.Helper()
	buf := make([]byte, 64*bytesPerFrame)
	var got []int16
	waitFor(t, "a track's frames", func() bool {
		k, audible, _ := m.read(buf)
		if !audible {
			return false
		}
		for i := 0; i < k/bytesPerFrame; i++ {
			got = append(got, int16(binary.LittleEndian.Uint16(buf[i*bytesPerFrame:])))
		}
		return true
	})
	return append(got, pull(m, n)...)
}

// resumesFromTheFirstFrame resumes m, paused at frame 1500 by a pause that
// muted, and checks that b (track tb, frames want) then plays from its
// first frame, its Started once.
func resumesFromTheFirstFrame(t *testing.T, m *mixer, tb Track, want func(int) int16) {
	t.Helper()
	m.resume()
	if !m.release(1500) {
		t.Fatal("pause's hold not released")
	}
	got := readAudible(t, m, 1000)
	for i, v := range got {
		if v != want(i) {
			t.Fatalf("frame %d after resume = %d, want b's %d (restarted from its first frame)", i, v, want(i))
		}
	}
	if st := m.observe(m.writtenFrames()); len(st.events) != 1 || st.events[0] != (Started{Track: tb}) {
		t.Fatalf("events after resume = %+v, want Started b once", st.events)
	}
}

// TestMixerPauseInTheSilenceBeforeATrackRestartsIt: a pause whose first
// unheard frame is in the silence written before the current track (the
// device buffers ahead of what is heard) mutes, and the resume plays the
// track from its first frame with its Started then, not before.
func TestMixerPauseInTheSilenceBeforeATrackRestartsIt(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 16, log.add)
	b, want := toneSource("b", 660, testRate)
	pull(m, 100) // nothing plays: silence
	m.stop()     // holds silence until the device took frame 100
	tb := m.play(b, 0)
	pull(m, 400) // held: silence
	if !m.release(100) {
		t.Fatal("stop's hold not released")
	}
	waitFor(t, "decoded", func() bool { return decoded(m, m.cur) })
	pull(m, 1000) // b's frames 0..999 at 500..1499, Started at 500
	if !m.pause(300) {
		t.Fatal("a pause before the track's frames must ask for a mute")
	}
	if st := m.observe(1500); len(st.events) != 0 || st.playing || st.track != tb || st.pos != 0 {
		t.Fatalf("paused: %+v, want no event (Started not heard), not playing, track b at 0", st)
	}
	resumesFromTheFirstFrame(t, m, tb, want)
}

// TestMixerPauseInTheTailOfTheTrackBeforeMutes: a pause whose first
// unheard frame is in the tail of the track before (the mixer ran into
// the prepared one) mutes, the ended track's Finished is due at once,
// and the resume plays the new track from its first frame.
func TestMixerPauseInTheTailOfTheTrackBeforeMutes(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 16, log.add)
	a, _ := toneSource("a", 440, 1000)
	b, wantB := toneSource("b", 660, testRate)
	ta := m.play(a, 0)
	tb := m.prepare(b)
	waitFor(t, "both decoded", func() bool { return decoded(m, m.cur) && decoded(m, m.next) })
	pull(m, 1500) // a 0..999, b 0..499
	if !m.pause(800) {
		t.Fatal("a pause in the tail of the track before must ask for a mute")
	}
	st := m.observe(801)
	if len(st.events) != 2 || st.events[0] != (Started{Track: ta}) || st.events[1] != (Finished{Track: ta}) {
		t.Fatalf("events at the pause = %+v, want Started a, Finished a (its tail is not heard)", st.events)
	}
	if st := m.observe(1500); len(st.events) != 0 || st.playing || st.track != tb {
		t.Fatalf("paused: %+v, want no Started b, not playing, track b", st)
	}
	resumesFromTheFirstFrame(t, m, tb, wantB)
}

// TestMixerPrepareAfterTheEndPlaysAtOnce: a track prepared after the
// current one ended in the mixer (nothing was prepared when it did)
// plays at once, from its first frame.
func TestMixerPrepareAfterTheEndPlaysAtOnce(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 16, log.add)
	a, _ := toneSource("a", 440, 1000)
	b, wantB := toneSource("b", 660, testRate)
	ta := m.play(a, 0)
	waitFor(t, "decoded", func() bool { return decoded(m, m.cur) })
	pull(m, 2000) // a, then silence: a ended with nothing prepared
	tb := m.prepare(b)
	got := readAudible(t, m, 1000)
	for i, v := range got {
		if v != wantB(i) {
			t.Fatalf("frame %d = %d, want b's %d", i, v, wantB(i))
		}
	}
	st := m.observe(m.writtenFrames())
	want := []Event{Started{Track: ta}, Finished{Track: ta}, Started{Track: tb}}
	if len(st.events) != len(want) {
		t.Fatalf("events = %+v, want %+v", st.events, want)
	}
	for i := range want {
		if st.events[i] != want[i] {
			t.Fatalf("event %d = %+v, want %+v", i, st.events[i], want[i])
		}
	}
}
