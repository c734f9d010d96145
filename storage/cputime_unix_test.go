//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package storage

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used, user and system. The search
// benchmark reports it because wall time on a shared 2-core machine measures
// the neighbours.
func cpuTime() (time.Duration, bool) {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0, false
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano()), true
}
