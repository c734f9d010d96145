package web

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/audio"
)

// fakePCM is a decoded track whose frame k is (k*7 mod 30000, its
// negation), failing from frame failAt on (-1: never).
type fakePCM struct {
	pos, frames, failAt int64
	seeks               *[]int64
}

func fakeSample(k int64) int16 { return int16(k * 7 % 30000) }

func (f *fakePCM) Read(p []byte) (int, error) {
	if f.failAt >= 0 && f.pos >= f.failAt {
		return 0, fmt.Errorf("%w: a bad packet", audio.ErrCorrupt)
	}
	n := 0
	for n+4 <= len(p) && f.pos < f.frames && (f.failAt < 0 || f.pos < f.failAt) {
		binary.LittleEndian.PutUint16(p[n:], uint16(fakeSample(f.pos)))
		binary.LittleEndian.PutUint16(p[n+2:], uint16(-fakeSample(f.pos)))
		n += 4
		f.pos++
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (f *fakePCM) SeekFrame(k int64) error { *f.seeks = append(*f.seeks, k); f.pos = k; return nil }
func (f *fakePCM) Close()                  {}

// fakeWAV is what the hub should serve for a fakePCM of frames frames
// (produced frames of them, silence after) at rate.
func fakeWAV(rate int, frames, produced int64) []byte {
	b := wavHeader(rate, frames)
	for k := range frames {
		v := int16(0)
		if k < produced {
			v = fakeSample(k)
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
		b = binary.LittleEndian.AppendUint16(b, uint16(-v))
	}
	return b
}

// decodedHub is a hub playing track b3:aa, whose decoding is opener.
func decodedHub(t *testing.T, opener pcmOpener) (get func(path, rng string) (*http.Response, []byte, error), out *BrowserOutput) {
	t.Helper()
	h, out := newHubHarness(t, &memReserved{}, nil)
	out.openPCM = opener
	song := filepath.Join(t.TempDir(), "song.wv")
	if err := os.WriteFile(song, []byte("wvpk"), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Play(audio.Source{ID: "b3:aa", Path: song, Name: "Song"}, 0)
	ck := h.pair()
	return func(path, rng string) (*http.Response, []byte, error) {
		req, _ := http.NewRequest("GET", h.hs.URL+path, nil)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		req.AddCookie(ck)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp, body, err
	}, out
}

func TestDecodedTrackIsAWAVWhoseRangesAreSamples(t *testing.T) {
	const frames, rate = 50000, 44100
	var seeks []int64
	get, _ := decodedHub(t, func(io.ReadSeeker, string) (pcmStream, int, int64, error) {
		return &fakePCM{frames: frames, failAt: -1, seeks: &seeks}, rate, frames, nil
	})
	want := fakeWAV(rate, frames, frames)

	resp, body, err := get("/media/b3:aa?as=wav", "")
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "audio/wav" || !bytes.Equal(body, want) {
		t.Fatalf("whole: %v %d %q, %d bytes (want %d)", err, resp.StatusCode, resp.Header.Get("Content-Type"), len(body), len(want))
	}
	if resp.ContentLength != int64(len(want)) || resp.Header.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("whole: length %d, Accept-Ranges %q", resp.ContentLength, resp.Header.Get("Accept-Ranges"))
	}
	// A seek: a range starting inside a frame, inside the header, the end.
	for _, c := range []struct {
		rng        string
		start, end int
		seek       int64 // the frame the decoder must seek to; -1 none
	}{
		{"bytes=40006-40105", 40006, 40105, (40006 - 44) / 4},
		{"bytes=10-59", 10, 59, -1},
		{"bytes=-6", len(want) - 6, len(want) - 1, (int64(len(want)) - 6 - 44) / 4},
		{fmt.Sprintf("bytes=%d-", len(want)-100), len(want) - 100, len(want) - 1, (int64(len(want)) - 100 - 44) / 4},
		{"bytes=44-47", 44, 47, -1},
	} {
		seeks = nil
		resp, body, err := get("/media/b3:aa?as=wav&t=1", c.rng)
		cr := fmt.Sprintf("bytes %d-%d/%d", c.start, c.end, len(want))
		if err != nil || resp.StatusCode != http.StatusPartialContent || resp.Header.Get("Content-Range") != cr || !bytes.Equal(body, want[c.start:c.end+1]) {
			t.Fatalf("%s: %v %d %q, %d bytes", c.rng, err, resp.StatusCode, resp.Header.Get("Content-Range"), len(body))
		}
		if (c.seek < 0 && len(seeks) != 0) || (c.seek >= 0 && (len(seeks) != 1 || seeks[0] != c.seek)) {
			t.Fatalf("%s: the decoder sought %v, want frame %d", c.rng, seeks, c.seek)
		}
	}
	for _, rng := range []string{fmt.Sprintf("bytes=%d-", len(want)), "bytes=500-100", "bytes=0-10,20-30", "items=0-1", "bytes=x-"} {
		resp, _, _ := get("/media/b3:aa?as=wav", rng)
		if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable || resp.Header.Get("Content-Range") != fmt.Sprintf("bytes */%d", len(want)) {
			t.Fatalf("%s: %d %q", rng, resp.StatusCode, resp.Header.Get("Content-Range"))
		}
	}
	if resp, _, _ := get("/media/b3:zz?as=wav", ""); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a track the hub does not play: %d", resp.StatusCode)
	}
}

func TestDecodedTrackOfAnEstimatedLengthIsPaddedOrCut(t *testing.T) {
	for _, produced := range []int64{7000, 12000} {
		get, _ := decodedHub(t, func(io.ReadSeeker, string) (pcmStream, int, int64, error) {
			return &fakePCM{frames: produced, failAt: -1, seeks: new([]int64)}, 22050, 10000, nil
		})
		resp, body, err := get("/media/b3:aa?as=wav", "")
		if want := fakeWAV(22050, 10000, produced); err != nil || resp.StatusCode != 200 || !bytes.Equal(body, want) {
			t.Fatalf("%d frames for a stated 10000: %v %d, %d bytes (want %d)", produced, err, resp.StatusCode, len(body), len(want))
		}
	}
}

func TestDecodeErrorsAreClearAndTheHubServesOn(t *testing.T) {
	fail := errors.New("no")
	mode := "open"
	get, out := decodedHub(t, func(io.ReadSeeker, string) (pcmStream, int, int64, error) {
		switch mode {
		case "open":
			return nil, 0, 0, fmt.Errorf("%w: wv: %w", audio.ErrCorrupt, fail)
		case "first":
			return &fakePCM{frames: 100000, failAt: 0, seeks: new([]int64)}, 44100, 100000, nil
		case "mid":
			return &fakePCM{frames: 100000, failAt: 60000, seeks: new([]int64)}, 44100, 100000, nil
		}
		return &fakePCM{frames: 100, failAt: -1, seeks: new([]int64)}, 44100, 100, nil
	})
	resp, body, _ := get("/media/b3:aa?as=wav", "")
	if resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(string(body), "cannot be decoded") {
		t.Fatalf("an undecodable track: %d %q", resp.StatusCode, body)
	}
	ev := event(t, out)
	if de, ok := ev.(audio.DecodeError); !ok || de.Track.ID != "b3:aa" || !errors.Is(de.Err, fail) {
		t.Fatalf("the app was told %#v", ev)
	}
	mode = "first"
	if resp, _, _ := get("/media/b3:aa?as=wav", "bytes=4000-"); resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("a track that fails where the range starts: %d", resp.StatusCode)
	}
	mode = "mid"
	resp, body, err := get("/media/b3:aa?as=wav", "")
	if resp.StatusCode != http.StatusOK || err == nil || len(body) >= int(resp.ContentLength) || len(body) < 44+60000*4 {
		t.Fatalf("a failure mid-stream: %d, %d of %d bytes, read error %v", resp.StatusCode, len(body), resp.ContentLength, err)
	}
	if in := out.Info(); in.DecodeErrors != 3 || in.LastDecodeError == "" {
		t.Fatalf("ctl web info: %+v", in)
	}
	// One DecodeError per track, however many requests failed.
	select {
	case ev := <-out.Events():
		t.Fatalf("a second report for the same track: %#v", ev)
	default:
	}
	mode = "ok"
	if resp, body, err := get("/media/b3:aa?as=wav", ""); err != nil || resp.StatusCode != 200 || len(body) != 44+400 {
		t.Fatalf("after the failures: %v %d, %d bytes", err, resp.StatusCode, len(body))
	}
	// Busy: every decoding slot taken.
	for range maxDecodes {
		out.decodeSlot()
	}
	if resp, _, _ := get("/media/b3:aa?as=wav", ""); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("with every slot taken: %d", resp.StatusCode)
	}
}

// TestDecodedWAVHasTheTrackSamples decodes a real file with the audio
// package (FFmpeg when FURUDESK_FFMPEG_DIR points at it): the track's own
// rate, and a range deep in it holds the samples of the whole stream there.
func TestDecodedWAVHasTheTrackSamples(t *testing.T) {
	const rate, frames = 22050, 22050 * 3
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
		_ = binary.Write(&b, le, int16(10000*math.Sin(2*math.Pi*440*float64(i)/rate)))
	}
	h, out := newHubHarness(t, &memReserved{}, nil)
	song := filepath.Join(t.TempDir(), "tone.wav")
	if err := os.WriteFile(song, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Play(audio.Source{ID: "b3:tone", Path: song}, time.Second)
	ck := h.pair()
	get := func(rng string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", h.hs.URL+"/media/b3:tone?as=wav", nil)
		req.AddCookie(ck)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	resp, whole := get("")
	if resp.StatusCode != 200 || len(whole) != 44+frames*4 || !bytes.Equal(whole[:44], wavHeader(rate, frames)) {
		t.Fatalf("whole: %d, %d bytes (want %d at %d Hz)", resp.StatusCode, len(whole), 44+frames*4, rate)
	}
	if l, r := int16(le.Uint16(whole[44+4*100:])), int16(le.Uint16(whole[44+4*100+2:])); l != r || math.Abs(float64(l)-10000*math.Sin(2*math.Pi*440*100/rate)) > 2 {
		t.Fatalf("frame 100 decoded as %d/%d", l, r)
	}
	start := 44 + 4*(frames/2) + 2
	resp, part := get(fmt.Sprintf("bytes=%d-%d", start, start+8191))
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(part, whole[start:start+8192]) {
		t.Fatalf("a range in the middle: %d, %d bytes, equal %v", resp.StatusCode, len(part), bytes.Equal(part, whole[start:start+8192]))
	}
}
