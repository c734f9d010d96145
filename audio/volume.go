package audio

import (
	"encoding/binary"
	"math"
)

// Gain maps a volume of 0..100 (clamped) to a linear amplitude factor on a
// perceptual curve: the cube of the fraction, which follows loudness closely
// (50 is about -18 dB, 10 is -60 dB, 0 is silence).
func Gain(volume int) float64 {
	v := float64(max(0, min(100, volume))) / 100
	return v * v * v
}

// gainQ16 is the amplitude factor of db decibels in 16.16 fixed point; 0
// (unity) for 0 dB and for values that are not numbers. db is clamped to
// -60..+24.
func gainQ16(db float64) int32 {
	if db == 0 || math.IsNaN(db) || math.IsInf(db, 0) {
		return 0
	}
	db = max(-60, min(db, 24))
	return int32(math.Round(math.Pow(10, db/20) * (1 << 16)))
}

// applyGain multiplies the 16-bit samples of p by the 16.16 factor g,
// rounding and clipping at full scale.
func applyGain(p []byte, g int32) {
	for i := 0; i+1 < len(p); i += 2 {
		v := (int64(int16(binary.LittleEndian.Uint16(p[i:])))*int64(g) + 1<<15) >> 16
		v = max(-32768, min(v, 32767))
		binary.LittleEndian.PutUint16(p[i:], uint16(int16(v)))
	}
}
