package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/furudesk/furudesk/internal/framegov"
)

// ctlStats is what `ctl stats` prints: how much the running furudesk
// holds, for a user (or a benchmark) looking into its memory.
type ctlStats struct {
	PID         int    `json:"pid"` // the process, for a script that started it indirectly (gio open) and ends it
	Goroutines  int    `json:"goroutines"`
	HeapAlloc   uint64 `json:"heap_alloc_bytes"`    // live Go objects (and not yet collected ones)
	HeapInuse   uint64 `json:"heap_inuse_bytes"`    // Go heap spans in use
	HeapObjects uint64 `json:"heap_objects"`        // Go objects allocated and not freed
	GoSys       uint64 `json:"go_sys_bytes"`        // all memory the Go runtime got from the system
	HeapIdle    uint64 `json:"heap_idle_bytes"`     // Go heap not in use; HeapReleased of it went back
	HeapRelease uint64 `json:"heap_released_bytes"` // returned to the system
	NumGC       uint32 `json:"num_gc"`
	// RSS is the resident memory of the process (Linux; 0 elsewhere):
	// the Go heap plus C libraries (GL, SQLite's page cache, FFmpeg).
	RSS uint64 `json:"rss_bytes"`
	// HeapProfile is where a heap profile (pprof) was written, when
	// FURUDESK_HEAPPROFILE names a folder: one file per `ctl stats`, to
	// look into what the Go heap holds (go tool pprof FILE).
	HeapProfile string `json:"heap_profile,omitempty"`
	// LoopHolds counts the window loop's holds by how they ended
	// (internal/framegov); none without a window or when its loop runs at
	// Fyne's rate.
	LoopHolds map[string]uint64 `json:"loop_holds,omitempty"`
}

// heapProfiles numbers the heap profiles of this process.
var heapProfiles atomic.Int32

func runtimeStats() ctlStats {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return ctlStats{PID: os.Getpid(), Goroutines: runtime.NumGoroutine(), HeapAlloc: m.HeapAlloc, HeapInuse: m.HeapInuse,
		HeapObjects: m.HeapObjects, GoSys: m.Sys, HeapIdle: m.HeapIdle, HeapRelease: m.HeapReleased,
		NumGC: m.NumGC, RSS: residentBytes(), HeapProfile: writeHeapProfile(os.Getenv("FURUDESK_HEAPPROFILE")),
		LoopHolds: framegov.Installed().Holds()}
}

// writeHeapProfile writes the Go heap's profile into dir, after a
// collection so it shows what is live; "" when dir is "" or on an error.
func writeHeapProfile(dir string) string {
	if dir == "" {
		return ""
	}
	runtime.GC()
	p := filepath.Join(dir, fmt.Sprintf("heap-%d-%03d.pb.gz", os.Getpid(), heapProfiles.Add(1)))
	f, err := os.Create(p)
	if err != nil {
		return ""
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err != nil || cerr != nil {
		return ""
	}
	return p
}

// residentBytes is VmRSS of this process, 0 where /proc does not tell.
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
