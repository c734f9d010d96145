//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkPlayingCPU plays a file of each format on a `furudesk
// --headless` rendering to a PulseAudio null sink and reports the CPU time
// the process spends while it plays, in percent of one core (from
// /proc/PID/stat), and first the same process idle with nothing playing
// and the machine's load average. Goal (issue 15): mp3 at most 3% of a
// core.
//
//	go test -run '^$' -bench PlayingCPU -benchtime 1x ./cmd/furudesk
func BenchmarkPlayingCPU(b *testing.B) {
	needE2E(b)
	needTool(b, "ffmpeg")
	const secs = 30
	const window = 10 * time.Second
	src := func(rate int) string {
		return fmt.Sprintf("aevalsrc=exprs=0.3*sin(2*PI*440*t)+0.05*(random(0)-0.5)|0.3*sin(2*PI*660*t)+0.05*(random(1)-0.5):c=stereo:s=%d:d=%d", rate, secs)
	}
	formats := []struct {
		name, file string
		rate       int
		opts       []string
	}{
		{"mp3", "a.mp3", 44100, []string{"-c:a", "libmp3lame", "-b:a", "192k"}},
		{"aac", "b.m4a", 44100, []string{"-c:a", "aac", "-b:a", "192k"}},
		{"opus", "c.opus", 48000, []string{"-c:a", "libopus", "-b:a", "128k"}},
		{"vorbis", "d.ogg", 44100, []string{"-c:a", "libvorbis"}},
		{"flac-16-44k", "e.flac", 44100, nil},
		{"flac-24-96k", "f.flac", 96000, []string{"-sample_fmt", "s32", "-bits_per_raw_sample", "24"}},
	}
	for b.Loop() {
		c := newCluster(b, []string{"A"}, nil)
		n := c.node("A")
		for _, f := range formats {
			args := append([]string{"-loglevel", "error", "-y", "-f", "lavfi", "-i", src(f.rate)}, f.opts...)
			if out, err := exec.Command("ffmpeg", append(args, filepath.Join(n.music, f.file))...).CombinedOutput(); err != nil {
				b.Fatalf("ffmpeg: %v\n%s", err, out)
			}
		}
		n.start()
		waitFor(b, 60*time.Second, "the scan", func() bool {
			out, err := n.ctlErr("tracks")
			var tr []json.RawMessage
			return err == nil && json.Unmarshal(out, &tr) == nil && len(tr) == 2+len(formats)
		})
		n.ctl("transfer", n.id)
		// The machine's load says how much the figures below are worth:
		// on a shared machine the same process costs more when others run.
		if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
			if f := strings.Fields(string(raw)); len(f) > 0 {
				if v, err := strconv.ParseFloat(f[0], 64); err == nil {
					b.ReportMetric(v, "loadavg-1m")
				}
			}
		}
		b.ReportMetric(cpuPercent(b, n, window), "idle-%core")
		for _, f := range formats {
			n.ctl("play", filepath.Join(n.music, f.file))
			waitFor(b, 20*time.Second, f.name+" playing", func() bool { return n.status().Output.Playing })
			b.ReportMetric(cpuPercent(b, n, window), f.name+"-%core")
			n.ctl("pause")
		}
	}
}

// clockTicks is the unit of /proc/PID/stat's times: USER_HZ, 100 on every
// Linux architecture Go supports.
const clockTicks = 100

// cpuPercent measures the CPU the node's process uses over d, in percent
// of one core.
func cpuPercent(b *testing.B, n *node, d time.Duration) float64 {
	b.Helper()
	t0, c0 := time.Now(), procCPU(b, n.cmd.Process.Pid)
	time.Sleep(d) // the measurement window
	t1, c1 := time.Now(), procCPU(b, n.cmd.Process.Pid)
	return 100 * float64(c1-c0) / clockTicks / t1.Sub(t0).Seconds()
}

// procCPU is the user plus system time of process pid, in clock ticks.
func procCPU(b *testing.B, pid int) int64 {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The command name (field 2) may hold spaces: count from after it.
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		b.Fatalf("short /proc/%d/stat: %q", pid, s)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", pid, s)
	}
	return utime + stime
}
