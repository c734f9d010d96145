package library

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/furudesk/furudesk/internal/wavfile"
)

// DemoArtist and DemoAlbum tag every track GenerateDemo writes.
const (
	DemoArtist = "furudesk demo"
	DemoAlbum  = "First Light"
)

const demoRate = 44100

// demoTrack describes one synthesized piece: a chord progression played as
// a plucked arpeggio over a soft pad.
type demoTrack struct {
	title   string
	bpm     float64
	beats   int     // notes per chord
	chords  [][]int // MIDI notes per chord
	pattern []int   // arpeggio: indexes into the chord (+12 per octave above)
	pad     float64 // pad level
	pluck   float64 // arpeggio level
	bars    int     // chords played in total (the progression repeats)
}

var demoTracks = []demoTrack{
	{
		title: "Morning Arpeggio", bpm: 104, beats: 8,
		chords:  [][]int{{60, 64, 67}, {55, 59, 62}, {57, 60, 64}, {53, 57, 60}}, // C G Am F
		pattern: []int{0, 1, 2, 3, 2, 1, 2, 3}, pad: 0.10, pluck: 0.28, bars: 10,
	},
	{
		title: "Slow Tide", bpm: 72, beats: 8,
		chords:  [][]int{{57, 60, 64}, {53, 57, 60}, {48, 52, 55}, {55, 59, 62}}, // Am F C G
		pattern: []int{0, 2, 1, 3}, pad: 0.18, pluck: 0.16, bars: 8,
	},
	{
		title: "Small Waltz", bpm: 138, beats: 6,
		chords:  [][]int{{53, 57, 60}, {58, 62, 65}, {60, 64, 67}, {53, 57, 60}}, // F Bb C F
		pattern: []int{0, 2, 4, 3, 2, 1}, pad: 0.08, pluck: 0.26, bars: 16,
	},
}

// GenerateDemo writes a few short tracks (about 20-30 s each) synthesized by
// furudesk itself into dir (created if needed), as 16-bit stereo WAV files
// tagged with artist DemoArtist, album DemoAlbum, titles and track numbers,
// so a first run has something to play. Existing files of the same names are
// replaced. It returns the paths written.
func GenerateDemo(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("library: demo folder: %w", err)
	}
	var paths []string
	for i, d := range demoTracks {
		p := filepath.Join(dir, fmt.Sprintf("%02d - %s.wav", i+1, d.title))
		if err := writeDemoFile(p, d, i+1); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func writeDemoFile(path string, d demoTrack, n int) error {
	tmp := path + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("library: demo track: %w", err)
	}
	err = wavfile.Write(f, demoRate, 2, synthesize(d), wavfile.Tags{
		Title: d.title, Artist: DemoArtist, Album: DemoAlbum, Genre: "Ambient", Track: n, Year: 2025,
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("library: demo track: %w", err)
	}
	return nil
}

func midiFreq(note int) float64 { return 440 * math.Pow(2, float64(note-69)/12) }

// synthesize renders a demo track as interleaved stereo samples.
func synthesize(d demoTrack) []int16 {
	step := 60 / d.bpm / 2 // eighth notes
	noteLen := int(step * demoRate)
	chordLen := noteLen * d.beats
	total := chordLen*d.bars + 2*demoRate // let the last notes ring
	left := make([]float64, total)
	right := make([]float64, total)

	for bar := 0; bar < d.bars; bar++ {
		chord := d.chords[bar%len(d.chords)]
		start := bar * chordLen
		// Pad: the chord an octave down, slow attack and release.
		freqs := make([]float64, len(chord))
		for i, note := range chord {
			freqs[i] = midiFreq(note - 12)
		}
		addVoice(left, right, start, chordLen+demoRate/2, freqs, d.pad/3, 0.35, 0.5, true)
		// Arpeggio: plucked notes, panned by pitch.
		for k := 0; k < d.beats; k++ {
			idx := d.pattern[k%len(d.pattern)]
			note := chord[idx%len(chord)] + 12*(idx/len(chord)) + 12
			pan := 0.5 + 0.35*float64(idx%4-1)/2
			addVoice(left, right, start+k*noteLen, noteLen*3, []float64{midiFreq(note)}, d.pluck, 0.005, pan, false)
		}
	}
	out := make([]int16, 2*total)
	fade := demoRate
	for i := 0; i < total; i++ {
		g := 1.0
		if i < fade/4 {
			g = float64(i) / float64(fade/4)
		} else if total-i < fade {
			g = float64(total-i) / float64(fade)
		}
		out[2*i] = clip16(math.Tanh(left[i]*g) * 0.9)
		out[2*i+1] = clip16(math.Tanh(right[i]*g) * 0.9)
	}
	return out
}

// addVoice mixes one note (or a chord of notes with one envelope): sines
// with two soft harmonics under an attack/decay envelope; pads sustain,
// plucks decay exponentially. Oscillators run by rotation (no sin per
// sample) so a demo renders quickly.
func addVoice(left, right []float64, start, length int, freqs []float64, level, attack, pan float64, pad bool) {
	att := int(attack * demoRate)
	lg, rg := level*math.Cos(pan*math.Pi/2), level*math.Sin(pan*math.Pi/2)
	n := min(length, len(left)-start)
	if n <= 0 {
		return
	}
	// Oscillator state lives in fixed arrays on the stack: this loop runs
	// for every sample of every voice.
	const maxOsc = 12
	var c, sn, cw, sw, wt [maxOsc]float64
	nosc := 0
	for _, f := range freqs {
		for h, g := range [3]float64{1, 0.3, 0.12} {
			if nosc == maxOsc {
				break
			}
			w := 2 * math.Pi * f * float64(h+1) / demoRate
			c[nosc], sn[nosc], cw[nosc], sw[nosc], wt[nosc] = 1, 0, math.Cos(w), math.Sin(w), g
			nosc++
		}
	}
	decay := math.Exp(-3.2 / demoRate)
	env, pluckEnv := 0.0, 1.0
	l, r := left[start:start+n], right[start:start+n]
	for i := range l {
		switch {
		case i < att:
			env = float64(i) / float64(att)
		case pad:
			env = 1 - 0.6*float64(i-att)/float64(length-att)
			if rel := length - i; rel < demoRate/2 {
				env *= float64(rel) / float64(demoRate/2)
			}
		default:
			env = pluckEnv
			pluckEnv *= decay
		}
		v := 0.0
		for k := 0; k < nosc; k++ {
			v += wt[k] * sn[k]
			c[k], sn[k] = c[k]*cw[k]-sn[k]*sw[k], sn[k]*cw[k]+c[k]*sw[k]
		}
		v *= env
		l[i] += v * lg
		r[i] += v * rg
	}
}

func clip16(v float64) int16 {
	v *= 32767
	switch {
	case v > 32767:
		return 32767
	case v < -32768:
		return -32768
	}
	return int16(v)
}
