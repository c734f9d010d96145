package main

import (
	"os"
	"runtime/pprof"
	"time"
)

// cpuProfileFor is how long FURUDESK_CPUPROFILE profiles the launch.
const cpuProfileFor = 15 * time.Second

// profileLaunch writes a CPU profile (pprof) of the process's first
// cpuProfileFor to the file FURUDESK_CPUPROFILE names, when it names one:
// what a launch spends its time on (go tool pprof FILE). Errors are
// ignored; a profile is a developer's tool.
func profileLaunch() {
	path := os.Getenv("FURUDESK_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		return
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return
	}
	time.AfterFunc(cpuProfileFor, func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	})
}
