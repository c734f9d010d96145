//go:build !unix

// Package cputime reads the CPU time this process has used: what the
// benchmarks report, because wall time on a shared machine measures the
// neighbours too.
package cputime

import "time"

// Process returns the user plus system CPU time of this process; false
// where the system cannot tell.
func Process() (time.Duration, bool) { return 0, false }
