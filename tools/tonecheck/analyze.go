package main

import (
	"fmt"
	"math"
	"slices"
)

// blockMs is the length of the blocks a recording is judged sounding or
// silent in.
const blockMs = 10

// silentPeak is the largest peak of a block taken for silence (about
// -50 dBFS).
const silentPeak = 100

// Result is what Analyze hears in a recording.
type Result struct {
	Freq     float64 // pitch of the sounding stretches, Hz (0: none)
	Sounding float64 // share of blocks that sound, 0..1
	Dropouts int     // silent gaps between sounding stretches
	Seconds  float64 // length of the recording
}

// Analyze measures the first channel of interleaved samples: which blocks
// sound, and the pitch by zero crossings within each sounding stretch.
func Analyze(samples []int16, rate, channels int) Result {
	if channels < 1 || rate < 1 {
		return Result{}
	}
	ch := make([]int16, 0, len(samples)/channels)
	for i := 0; i < len(samples); i += channels {
		ch = append(ch, samples[i])
	}
	blk := rate * blockMs / 1000
	n := len(ch) / blk
	res := Result{Seconds: float64(len(ch)) / float64(rate)}
	if n == 0 {
		return res
	}
	sounding := make([]bool, n)
	count := 0
	for b := 0; b < n; b++ {
		peak := 0
		for _, s := range ch[b*blk : (b+1)*blk] {
			if a := int(math.Abs(float64(s))); a > peak {
				peak = a
			}
		}
		sounding[b] = peak > silentPeak
		if sounding[b] {
			count++
		}
	}
	res.Sounding = float64(count) / float64(n)
	// Stretches of sounding blocks; a gap between two is a dropout. The
	// pitch is the median period between upward zero crossings within the
	// stretches: the edges of a gap, partly silent, leave a few odd
	// periods that the median ignores.
	var periods []float64
	length := 0
	for b := 0; b < n; {
		if !sounding[b] {
			b++
			continue
		}
		e := b
		for e < n && sounding[e] {
			e++
		}
		if length > 0 {
			res.Dropouts++
		}
		seg := ch[b*blk : e*blk]
		last := -1.0
		for i := 1; i < len(seg); i++ {
			if seg[i-1] < 0 && seg[i] >= 0 {
				// Where the line between the two samples crosses zero.
				at := float64(i-1) + float64(seg[i-1])/float64(int(seg[i-1])-int(seg[i]))
				if last >= 0 {
					periods = append(periods, at-last)
				}
				last = at
			}
		}
		length += len(seg)
		b = e
	}
	if len(periods) > 0 {
		slices.Sort(periods)
		res.Freq = float64(rate) / periods[len(periods)/2]
	}
	return res
}

// Check returns why r is not the tone freq heard (within relative
// tolerance tol, sounding at least minSounding of the time), or nil.
func (r Result) Check(freq, tol, minSounding float64) error {
	if r.Sounding < minSounding {
		return fmt.Errorf("sounding %.0f%% of the time, want at least %.0f%%", 100*r.Sounding, 100*minSounding)
	}
	if math.Abs(r.Freq-freq) > tol*freq {
		return fmt.Errorf("heard %.1f Hz, want %.0f Hz ± %.0f%%", r.Freq, freq, 100*tol)
	}
	return nil
}
