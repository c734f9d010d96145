package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"reflect"
	"testing"
)

// TestProbeAgreesWithPlay: for every fuzz seed (valid, truncated and
// damaged files of every format), under the name of each format, Probe
// accepts exactly the files NewDecoder opens, and a file it accepts
// gives its first audio. The library lists what Probe accepts, so a
// file listed must play, and one refused must not.
func TestProbeAgreesWithPlay(t *testing.T) {
	names := []string{"x.mp3", "x.flac", "x.wav", "x.ogg", "x.m4a", "x.opus", "x"}
	for i, seed := range fuzzSeeds(t) {
		for _, name := range names {
			_, perr := Probe(bytes.NewReader(seed), name)
			err := startPlaying(seed, name)
			if (perr == nil) != (err == nil) {
				t.Fatalf("seed %d (%d bytes) as %s: Probe says %v, a play %v", i, len(seed), name, perr, err)
			}
			if perr != nil && !isPackageError(perr) {
				t.Fatalf("seed %d as %s: Probe's error wraps no package error: %v", i, name, perr)
			}
		}
	}
}

// startPlaying opens b as a play does and reads its first moments (what
// Probe's pure-Go path reads): nil when that gives audio or a clean end.
func startPlaying(b []byte, name string) error {
	d, err := NewDecoder(bytes.NewReader(b), name, 44100)
	if err != nil {
		return err
	}
	defer d.Close()
	n, err := d.Read(make([]byte, chunkFrames*bytesPerFrame))
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if n == 0 && err == nil {
		return errors.New("the first read gave nothing")
	}
	return nil
}

// TestProbeRefusesUndecodableFLAC: a FLAC file whose header (STREAMINFO:
// rate, channels, length) is fine but whose frames are gone is refused
// by Probe as damaged, not listed to fail when played. The probe learns
// the stream's parameters from its first decoded frame, so it must find
// one.
func TestProbeRefusesUndecodableFLAC(t *testing.T) {
	p := ffmpegSine(t, t.TempDir(), "s.flac", 440, 0.5, 44100)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Probe(bytes.NewReader(b), "s.flac"); err != nil {
		t.Fatalf("the intact file: %v", err)
	}
	// Find the end of the metadata blocks: the first frame starts there.
	off := 4
	for {
		if off+4 > len(b) {
			t.Fatal("no last metadata block")
		}
		last := b[off]&0x80 != 0
		off += 4 + int(binary.BigEndian.Uint32(b[off:off+4])&0xffffff)
		if last {
			break
		}
	}
	for i := off; i < len(b); i++ {
		b[i] = 0x5a // no frame sync (0xfff8) anywhere
	}
	_, err = Probe(bytes.NewReader(b), "s.flac")
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Probe of a FLAC without decodable frames: %v, want ErrCorrupt", err)
	}
	if err := startPlaying(b, "s.flac"); err == nil {
		t.Fatal("the FLAC without decodable frames plays")
	}
}

// TestProbeInfoMatchesPlay: what Probe tells of a file (rate, channels,
// bits, codec, length) is what a play's decoder tells, though the probe
// skips libavformat's stream analysis.
func TestProbeInfoMatchesPlay(t *testing.T) {
	if !haveFFmpeg() {
		t.Skip("the pure-Go probe decodes at its own output rate, not the file's")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		extra []string
	}{{"s.flac", []string{"-sample_fmt", "s32", "-bits_per_raw_sample", "24"}}, {"s.mp3", nil}, {"s.wav", nil}} {
		p := ffmpegSine(t, dir, c.name, 440, 0.5, 48000, c.extra...)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pi, err := Probe(bytes.NewReader(b), c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		d, err := NewDecoder(bytes.NewReader(b), c.name, 48000)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		di := d.Info()
		d.Close()
		pi.Tags = nil // only a probe reads them
		if !reflect.DeepEqual(pi, di) {
			t.Errorf("%s: Probe tells %+v, a play %+v", c.name, pi, di)
		}
	}
}
