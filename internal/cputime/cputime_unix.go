//go:build unix

// Package cputime reads the CPU time this process has used: what the
// benchmarks report, because wall time on a shared machine measures the
// neighbours too.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the user plus system CPU time of this process; false
// where the system cannot tell.
func Process() (time.Duration, bool) {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0, false
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano()), true
}
