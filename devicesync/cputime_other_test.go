//go:build !unix

package devicesync

import "time"

// cpuTime is not measured here: the CPU metric reads 0.
func cpuTime() time.Duration { return 0 }
