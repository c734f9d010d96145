package library

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/furudesk/furudesk/internal/wavfile"
)

// The parsers behind content ids read whatever a music folder holds. For
// any bytes they must not panic, must not loop or allocate without bound,
// and what they return must lie inside the file: the audio region is
// hashed, so a region outside the file would be an error at best. Errors
// are ErrNotAudio or ErrUnsupported (or an I/O error of the reader). The
// seeds are valid files of each format, built here, with the tags and
// trailers a retag adds, and truncations of them; `go test` runs them.

func mpegFrame(first []byte) []byte {
	f := make([]byte, 417) // MPEG-1 layer III, 128 kbit/s, 44.1 kHz
	copy(f, []byte{0xff, 0xfb, 0x90, 0x00})
	copy(f[4:], first)
	return f
}

func seedMP3() [][]byte {
	id3 := []byte("ID3\x04\x00\x00\x00\x00\x00\x0a" + "0123456789")
	xing := make([]byte, 32+120)
	copy(xing[32:], "Xing")
	binary.BigEndian.PutUint32(xing[36:], 0x0f)
	binary.BigEndian.PutUint32(xing[40:], 3)
	frames := append(mpegFrame(xing), append(mpegFrame(nil), mpegFrame(nil)...)...)
	tag := append([]byte("TAG"), make([]byte, 125)...)
	ape := append([]byte("APETAGEX"), make([]byte, 24)...)
	binary.LittleEndian.PutUint32(ape[12:], 32)
	lyrics := []byte("LYRICSBEGINxx000011LYRICS200")
	return [][]byte{
		append(append([]byte{}, id3...), frames...),
		append(append(append(append([]byte{}, id3...), frames...), ape...), tag...),
		append(append(append([]byte{}, frames...), lyrics...), tag...),
		mpegFrame(nil),
	}
}

func seedFLAC() [][]byte {
	b := []byte("fLaC")
	b = append(b, 0x80, 0, 0, 34) // last block, STREAMINFO, 34 bytes
	info := make([]byte, 34)
	const rate, channels, bits, samples = 44100, 2, 16, 88200
	binary.BigEndian.PutUint64(info[10:], rate<<44|(channels-1)<<41|(bits-1)<<36|samples)
	b = append(b, info...)
	b = append(b, 0xff, 0xf8, 0x69, 0x08, 0x00, 0x00)
	padded := []byte("fLaC")
	padded = append(padded, 0x01, 0, 0, 4, 0, 0, 0, 0) // a padding block first
	padded = append(padded, b[4:]...)
	padded[8+4] = 0x80
	return [][]byte{b, append(append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), b...), append([]byte("TAG"), make([]byte, 125)...)...), padded}
}

func seedWAV(t testing.TB) [][]byte {
	var plain, tagged bytes.Buffer
	if err := wavfile.Write(&plain, 8000, 1, make([]int16, 80), wavfile.Tags{}); err != nil {
		t.Fatal(err)
	}
	if err := wavfile.Write(&tagged, 44100, 2, make([]int16, 200), wavfile.Tags{Title: "Tone", Artist: "Sigur Rós", Track: 3, Year: 1999}); err != nil {
		t.Fatal(err)
	}
	id3 := append([]byte("id3 \x14\x00\x00\x00"), []byte("ID3\x04\x00\x00\x00\x00\x00\x0a0123456789")...)
	withID3 := append(append([]byte{}, plain.Bytes()...), id3...)
	binary.LittleEndian.PutUint32(withID3[4:], uint32(len(withID3)-8))
	return [][]byte{plain.Bytes(), tagged.Bytes(), withID3}
}

func oggPage(serial uint32, seq uint32, granule int64, packets ...[]byte) []byte {
	var segs, data []byte
	for _, p := range packets {
		n := len(p)
		for n >= 255 {
			segs = append(segs, 255)
			n -= 255
		}
		segs = append(segs, byte(n))
		data = append(data, p...)
	}
	h := make([]byte, 27)
	copy(h, "OggS")
	binary.LittleEndian.PutUint64(h[6:], uint64(granule))
	binary.LittleEndian.PutUint32(h[14:], serial)
	binary.LittleEndian.PutUint32(h[18:], seq)
	h[26] = byte(len(segs))
	return append(append(h, segs...), data...)
}

func seedOgg() [][]byte {
	ident := make([]byte, 30)
	copy(ident, "\x01vorbis")
	binary.LittleEndian.PutUint32(ident[12:], 44100)
	comment := append([]byte("\x03vorbis"), make([]byte, 300)...)
	setup := append([]byte("\x05vorbis"), make([]byte, 40)...)
	f := oggPage(7, 0, 0, ident)
	f = append(f, oggPage(7, 1, 0, comment, setup)...)
	f = append(f, oggPage(7, 2, 44100, make([]byte, 100), make([]byte, 60))...)
	opus := oggPage(9, 0, 0, append([]byte("OpusHead"), make([]byte, 11)...))
	return [][]byte{f, opus, append(append([]byte{}, f...), oggPage(8, 0, 5, []byte("x"))...)}
}

// addSeeds adds each seed and its truncations at a few lengths.
func addSeeds(f *testing.F, seeds [][]byte) {
	for _, s := range seeds {
		f.Add(s)
		for _, n := range []int{0, 3, 10, 31, len(s) / 2, len(s) - 1} {
			if n >= 0 && n < len(s) {
				f.Add(s[:n])
			}
		}
	}
}

func wantAudioErr(t *testing.T, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, ErrNotAudio) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("unexpected error %v", err)
	}
}

func wantRange(t *testing.T, what string, start, end, size int64) {
	t.Helper()
	if start < 0 || end < start || end > size {
		t.Fatalf("%s [%d, %d) outside a file of %d bytes", what, start, end, size)
	}
}

func FuzzMP3Region(f *testing.F) {
	addSeeds(f, seedMP3())
	f.Fuzz(func(t *testing.T, data []byte) {
		r, size := bytes.NewReader(data), int64(len(data))
		start, end, err := mp3Region(r, size)
		wantAudioErr(t, err)
		if err != nil {
			return
		}
		wantRange(t, "mp3 region", start, end, size)
		off, h, err := firstFrame(r, start, end)
		wantAudioErr(t, err)
		if err != nil {
			return
		}
		if off < start || off >= end || h.length < 5 || h.rate <= 0 {
			t.Fatalf("first frame at %d (%+v) in [%d, %d)", off, h, start, end)
		}
		frame := data[off:min(off+int64(h.length), end)]
		if n, trim, ok := xingFrames(frame, h); ok && (n < 0 || trim < 0) {
			t.Fatalf("xing frames %d trim %d", n, trim)
		}
		var fr mp3Frames
		if _, err := fr.Write(data[off:end]); err != nil || fr.duration() < 0 {
			t.Fatalf("frames: %v, %v", err, fr.duration())
		}
	})
}

func FuzzFLACRegion(f *testing.F) {
	addSeeds(f, seedFLAC())
	f.Fuzz(func(t *testing.T, data []byte) {
		id3End, start, end, dur, err := flacRegion(bytes.NewReader(data), int64(len(data)))
		wantAudioErr(t, err)
		if err == nil {
			wantRange(t, "flac region", start, end, int64(len(data)))
			wantRange(t, "flac id3v2 tags", 0, id3End, start)
			if dur < 0 {
				t.Fatalf("duration %v", dur)
			}
		}
	})
}

func FuzzParseWAV(f *testing.F) {
	addSeeds(f, seedWAV(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		size := int64(len(data))
		w, err := parseWAV(bytes.NewReader(data), size)
		wantAudioErr(t, err)
		if err != nil {
			return
		}
		wantRange(t, "wav data", w.dataStart, w.dataEnd, size)
		if w.id3Len > 0 {
			wantRange(t, "wav id3 chunk", w.id3Start, w.id3Start+w.id3Len, size)
		}
		if w.duration < 0 {
			t.Fatalf("duration %v", w.duration)
		}
	})
}

func FuzzHashOgg(f *testing.F) {
	addSeeds(f, seedOgg())
	f.Fuzz(func(t *testing.T, data []byte) {
		var h bytes.Buffer
		info, err := hashOgg(bytes.NewReader(data), &h, nil)
		wantAudioErr(t, err)
		if err == nil && (info.duration < 0 || h.Len() > len(data)) {
			t.Fatalf("duration %v, %d bytes hashed of %d", info.duration, h.Len(), len(data))
		}
	})
}

// The seeds are what they claim: each format's parser accepts its valid
// seeds (so the fuzzer starts from files that reach the deep code).
func TestFuzzSeedsAreValid(t *testing.T) {
	for i, s := range seedMP3() {
		start, end, err := mp3Region(bytes.NewReader(s), int64(len(s)))
		if err == nil {
			_, _, err = firstFrame(bytes.NewReader(s), start, end)
		}
		if err != nil {
			t.Errorf("mp3 seed %d: %v", i, err)
		}
	}
	for i, s := range seedFLAC() {
		if _, _, _, dur, err := flacRegion(bytes.NewReader(s), int64(len(s))); err != nil || dur <= 0 {
			t.Errorf("flac seed %d: %v %v", i, dur, err)
		}
	}
	for i, s := range seedWAV(t) {
		if _, err := parseWAV(bytes.NewReader(s), int64(len(s))); err != nil {
			t.Errorf("wav seed %d: %v", i, err)
		}
	}
	if info, err := hashOgg(bytes.NewReader(seedOgg()[0]), io.Discard, nil); err != nil || info.duration <= 0 {
		t.Errorf("ogg seed: %v %v", info.duration, err)
	}
}
