package audio

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// damaged writes a 10 s FLAC, MP3 and AAC file with the system's ffmpeg
// and a copy of each with 3,000 bytes of its middle overwritten by noise
// from the seed.
func damaged(t *testing.T, seed int64) (clean, bad map[string][]byte) {
	t.Helper()
	needTool(t, "ffmpeg")
	dir := t.TempDir()
	t.Logf("noise from seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	clean, bad = map[string][]byte{}, map[string][]byte{}
	for _, name := range []string{"d.flac", "d.mp3", "d.m4a"} {
		b, err := os.ReadFile(ffmpegSine(t, dir, name, 440, 10, 44100))
		if err != nil {
			t.Fatal(err)
		}
		clean[name] = b
		d := bytes.Clone(b)
		rng.Read(d[len(d)/2 : len(d)/2+3000])
		bad[name] = d
	}
	return clean, bad
}

// ffmpegFrames is how many frames the system's ffmpeg decodes of b.
func ffmpegFrames(t *testing.T, b []byte, name string) int {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	writeFile(t, p, b)
	out, err := exec.Command("ffmpeg", "-v", "quiet", "-i", p, "-ac", "2", "-ar", "44100", "-f", "s16le", "-").Output()
	if err != nil && len(out) == 0 {
		t.Fatalf("ffmpeg: %v", err)
	}
	return len(out) / bytesPerFrame
}

// TestDamagedFramesAreSkippedAndCounted: a file whose middle is noise
// plays to its end as ffmpeg plays it, the undecodable frames skipped and
// counted; the clean file counts none.
func TestDamagedFramesAreSkippedAndCounted(t *testing.T) {
	if !haveFFmpeg() {
		t.Skip("the pure-Go decoders stop at damage: " + Decoders())
	}
	clean, bad := damaged(t, 37)
	for name, b := range bad {
		t.Run(name, func(t *testing.T) {
			d, err := NewDecoder(bytes.NewReader(b), name, 44100)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			got := len(decodeAll(t, d))
			// At least what ffmpeg plays (its FLAC path drops a few
			// frames more around the damage), at most the 10 s.
			if want := ffmpegFrames(t, b, name); got < want-4096 || got > 10*44100+4096 {
				t.Errorf("played %d frames, ffmpeg %d", got, want)
			}
			if got < 9*44100 {
				t.Errorf("played %d frames of 10 s: it stopped at the damage", got)
			}
			dmg := d.Damage(true)
			if dmg == nil || dmg.Skipped == 0 {
				t.Errorf("Damage = %+v, want the skipped frames counted", dmg)
			} else if !strings.Contains(dmg.Error(), "undecodable frames skipped") {
				t.Errorf("Damage says %q", dmg)
			}
			c, err := NewDecoder(bytes.NewReader(clean[name]), name, 44100)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			decodeAll(t, c)
			if dmg := c.Damage(true); dmg != nil {
				t.Errorf("the clean file: Damage = %v", dmg)
			}
		})
	}
}

// TestCutShortIsTold: a FLAC whose end is gone (its header says 10 s)
// plays what is there and says it ended short.
func TestCutShortIsTold(t *testing.T) {
	if !haveFFmpeg() {
		t.Skip(Decoders())
	}
	clean, _ := damaged(t, 1)
	b := clean["d.flac"][:len(clean["d.flac"])*4/10]
	d, err := NewDecoder(bytes.NewReader(b), "cut.flac", 44100)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	decodeAll(t, d)
	dmg := d.Damage(true)
	if dmg == nil || dmg.Played < 3*time.Second || dmg.Played > 5*time.Second || dmg.Declared != 10*time.Second {
		t.Fatalf("Damage = %+v, want it ended after about 4 s of 10", dmg)
	}
	if !strings.Contains(dmg.Error(), "ends after 0:0") || !strings.Contains(dmg.Error(), "of 0:10.0") {
		t.Errorf("Damage says %q", dmg)
	}
}

// TestMixerTellsDamageOnceAndPlaysOn: a damaged track reports one
// *DamageError, never a DecodeError's failure, and plays to its end.
func TestMixerTellsDamageOnceAndPlaysOn(t *testing.T) {
	if !haveFFmpeg() {
		t.Skip(Decoders())
	}
	_, bad := damaged(t, 37)
	var log errLog
	m := newMixer(testRate, 16, log.add)
	tr := m.play(memSource("bad", "bad.flac", bad["d.flac"]), 0)
	var frames int
	ended := false
	waitFor(t, "the whole damaged track", func() bool {
		frames += len(pull(m, 4410))
		for _, ev := range m.observe(int64(frames)).events {
			if ev == (Finished{Track: tr}) {
				ended = true
			}
		}
		return ended
	})
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.errs) != 1 {
		t.Fatalf("reports %+v, want one", log.errs)
	}
	var dmg *DamageError
	if !errors.As(log.errs[0].Err, &dmg) || dmg.Skipped == 0 || log.errs[0].Track != tr {
		t.Fatalf("report %+v, want the damage of the track", log.errs[0])
	}
}
