// Command tonecheck says whether a recording of a sine tone is heard at its
// pitch, for scripts/test-windows.sh (recordings of the null sink made
// with parec):
//
//	tonecheck -freq 440 rec.raw     # s16le, 44.1 kHz, stereo
//
// It prints the pitch heard, the share of the recording that sounds and
// the number of dropouts (silent gaps between sounding stretches), and
// exits 1 when nothing sounds or the pitch is off by more than -tolerance.
// The pitch is measured on the sounding stretches only: a dropout
// (an underrun of a loaded machine) is counted, not taken for a pitch.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
)

func main() {
	freq := flag.Float64("freq", 0, "the tone's frequency in Hz")
	rate := flag.Int("rate", 44100, "sample rate")
	channels := flag.Int("channels", 2, "channels")
	tol := flag.Float64("tolerance", 0.03, "largest relative pitch error")
	minSounding := flag.Float64("min-sounding", 0.25, "smallest share of the recording that must sound")
	flag.Parse()
	if flag.NArg() != 1 || *freq <= 0 {
		fmt.Fprintln(os.Stderr, "usage: tonecheck -freq HZ rec.raw")
		os.Exit(2)
	}
	b, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tonecheck:", err)
		os.Exit(2)
	}
	samples := make([]int16, len(b)/2)
	for i := range samples {
		samples[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	r := Analyze(samples, *rate, *channels)
	fmt.Printf("heard %.1f Hz (want %.0f), sounding %.0f%% of %.1f s, %d dropouts\n",
		r.Freq, *freq, 100*r.Sounding, r.Seconds, r.Dropouts)
	if err := r.Check(*freq, *tol, *minSounding); err != nil {
		fmt.Println("tonecheck:", err)
		os.Exit(1)
	}
}
