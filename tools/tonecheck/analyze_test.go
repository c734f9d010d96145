package main

import (
	"math"
	"testing"
)

// tone is stereo samples of a sine at freq, silent where gap says so.
func tone(freq float64, rate int, seconds float64, gap func(t float64) bool) []int16 {
	n := int(seconds * float64(rate))
	out := make([]int16, 0, 2*n)
	for i := 0; i < n; i++ {
		t := float64(i) / float64(rate)
		v := int16(0)
		if !gap(t) {
			v = int16(4000 * math.Sin(2*math.Pi*freq*t))
		}
		out = append(out, v, v)
	}
	return out
}

func TestAToneWithDropoutsIsHeardAtItsPitchAndTheDropoutsCounted(t *testing.T) {
	// Three 100 ms gaps in 3 s, as a starved output leaves them.
	gap := func(t float64) bool { return t >= 0.5 && t < 0.6 || t >= 1.2 && t < 1.3 || t >= 2.0 && t < 2.1 }
	r := Analyze(tone(440, 44100, 3, gap), 44100, 2)
	if math.Abs(r.Freq-440) > 2 {
		t.Errorf("pitch %.1f Hz, want 440", r.Freq)
	}
	if r.Dropouts != 3 {
		t.Errorf("%d dropouts, want 3", r.Dropouts)
	}
	if math.Abs(r.Sounding-0.9) > 0.02 {
		t.Errorf("sounding %.2f, want 0.90", r.Sounding)
	}
	if err := r.Check(440, 0.03, 0.25); err != nil {
		t.Error(err)
	}
	if err := r.Check(554, 0.03, 0.25); err == nil {
		t.Error("a 440 Hz tone passed for 554 Hz")
	}
}

func TestSilenceIsNotHeard(t *testing.T) {
	r := Analyze(make([]int16, 2*44100), 44100, 2)
	if r.Sounding != 0 || r.Freq != 0 {
		t.Fatalf("silence heard as %+v", r)
	}
	if err := r.Check(440, 0.03, 0.25); err == nil {
		t.Fatal("silence passed")
	}
}
