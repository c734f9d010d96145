//go:build unix

package enginetest

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: throughput figures on a
// shared machine are honest only in CPU seconds.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
