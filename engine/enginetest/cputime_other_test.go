//go:build !unix

package enginetest

import "time"

func cpuTime() time.Duration { return 0 }
