//go:build race

package enginetest

// RaceEnabled is true when the race detector is on; tests shrink their
// default seed counts under it.
const RaceEnabled = true
