//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package storage

import "time"

// cpuTime is not available here; the search benchmark reports wall time only.
func cpuTime() (time.Duration, bool) { return 0, false }
