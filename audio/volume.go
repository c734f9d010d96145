package audio

// Gain maps a volume of 0..100 (clamped) to a linear amplitude factor on a
// perceptual curve: the cube of the fraction, which follows loudness closely
// (50 is about -18 dB, 10 is -60 dB, 0 is silence).
func Gain(volume int) float64 {
	v := float64(max(0, min(100, volume))) / 100
	return v * v * v
}
