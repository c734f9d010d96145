//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package audio

import "time"

// cpuTime is not available here; the benchmarks compare wall time.
func cpuTime() (time.Duration, bool) { return 0, false }
