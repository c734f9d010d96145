//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package audio

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used, user and system: what a
// decode costs, whatever the neighbours on a shared machine do.
func cpuTime() (time.Duration, bool) {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0, false
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano()), true
}
