//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package storage

import "time"

// cpuTime is not available here; latency tests fall back to wall time.
func cpuTime() (time.Duration, bool) { return 0, false }
