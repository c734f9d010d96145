//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times.
const clockTicks = 100

// cpuTicks is the user plus system time of process pid so far.
func cpuTicks(pid int) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return u + k, nil
}

// rssMB is the resident memory of pid in MB.
func rssMB(pid int) float64 { return statusMB(pid, "VmRSS:") }

// peakRSSMB is the highest resident memory of pid so far in MB (the
// kernel's high-water mark, VmHWM): no peak between two samples is missed.
func peakRSSMB(pid int) float64 { return statusMB(pid, "VmHWM:") }

// statusMB is the field key (in kB) of /proc/PID/status in MB.
func statusMB(pid int, key string) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == key {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// loadavg is the machine's 1-minute load average.
func loadavg() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// sample is one CPU measurement of a process over a window.
type sample struct {
	what    string
	pct     float64 // of one core, CPU time over wall time
	secs    float64
	rss     float64
	loadBeg float64
	loadEnd float64
	wakeups float64 // context switches of all its threads, per second
}

func (s sample) String() string {
	return fmt.Sprintf("%-34s %6.2f%% of a core over %3.0f s, %4.0f wakeups/s, RSS %5.0f MB, load %.2f→%.2f",
		s.what, s.pct, s.secs, s.wakeups, s.rss, s.loadBeg, s.loadEnd)
}

// measure samples the CPU of pid over d.
func measure(what string, pid int, d time.Duration) (sample, error) {
	l0 := loadavg()
	t0 := time.Now()
	c0, err := cpuTicks(pid)
	if err != nil {
		return sample{}, err
	}
	w0 := switches(pid)
	time.Sleep(d)
	c1, err := cpuTicks(pid)
	if err != nil {
		return sample{}, err
	}
	w1 := switches(pid)
	secs := time.Since(t0).Seconds()
	return sample{what: what, pct: 100 * float64(c1-c0) / clockTicks / secs, secs: secs, rss: rssMB(pid),
		loadBeg: l0, loadEnd: loadavg(), wakeups: float64(w1-w0) / secs}, nil
}

// switches is the number of context switches, voluntary or not, of every
// thread of pid so far: each is a wakeup of that thread (a thread that
// ended between two calls takes its count with it, so measure processes
// whose threads live on).
func switches(pid int) int64 {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	var n int64
	for _, t := range tasks {
		raw, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(raw), "\n") {
			if f := strings.Fields(l); len(f) == 2 && (f[0] == "voluntary_ctxt_switches:" || f[0] == "nonvoluntary_ctxt_switches:") {
				v, _ := strconv.ParseInt(f[1], 10, 64)
				n += v
			}
		}
	}
	return n
}

// proc is a furudesk (or other) process the benchmark started.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	log  *lineLog
}

// lineLog keeps a process's output lines with when they came.
type lineLog struct {
	mu    sync.Mutex
	lines []logLine
	file  *os.File
	wake  chan struct{}
}

type logLine struct {
	at   time.Time
	text string
}

func (l *lineLog) add(s string) {
	l.mu.Lock()
	l.lines = append(l.lines, logLine{time.Now(), s})
	if l.file != nil {
		fmt.Fprintln(l.file, s)
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// since returns the lines after the first n, and the count.
func (l *lineLog) since(n int) ([]logLine, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n > len(l.lines) {
		n = len(l.lines)
	}
	return append([]logLine(nil), l.lines[n:]...), len(l.lines)
}

func startProc(name, logPath string, env []string, bin string, args ...string) (*proc, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = cmd.Stderr
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{}), log: &lineLog{file: f, wake: make(chan struct{}, 1)}}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.log.add(sc.Text())
		}
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		_ = f.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// term sends SIGTERM and waits for the exit; it returns how long that
// took (the process is killed after limit).
func (p *proc) term(limit time.Duration) (time.Duration, error) {
	t0 := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return time.Since(t0), nil
	case <-time.After(limit):
		_ = syscall.Kill(-p.pid(), syscall.SIGKILL)
		<-p.done
		return time.Since(t0), fmt.Errorf("%s still running %v after SIGTERM: killed", p.name, limit)
	}
}

// waitLog waits for a log line containing every one of parts, from line
// n on; it returns the line, when it came, and the index after it.
func (p *proc) waitLog(n int, limit time.Duration, parts ...string) (logLine, int, error) {
	deadline := time.After(limit)
	for {
		lines, k := p.log.since(n)
		for i, l := range lines {
			ok := true
			for _, s := range parts {
				if !strings.Contains(l.text, s) {
					ok = false
					break
				}
			}
			if ok {
				return l, n + i + 1, nil
			}
		}
		n = k
		select {
		case <-p.log.wake:
		case <-p.done:
			return logLine{}, n, fmt.Errorf("%s exited while waiting for %q", p.name, parts)
		case <-deadline:
			return logLine{}, n, fmt.Errorf("%s: no %q within %v", p.name, parts, limit)
		}
	}
}

// device is a furudesk data dir with its process.
type device struct {
	bin, dir string
	env      []string
	p        *proc
}

func (d *device) start(extra ...string) error {
	args := append([]string{"--data-dir", d.dir, "--mdns=false", "--listen", "127.0.0.1:0", "-v"}, extra...)
	p, err := startProc(filepath.Base(d.dir), filepath.Join(d.dir, "..", filepath.Base(d.dir)+".log"), d.env, d.bin, args...)
	if err != nil {
		return err
	}
	d.p = p
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := d.ctl("status"); err == nil {
			return nil
		}
		if !p.alive() {
			return fmt.Errorf("%s exited at start: see %s.log", d.dir, d.dir)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s: ctl did not answer within 60 s", d.dir)
}

// ctl runs `furudesk ctl` on the device and returns its output.
func (d *device) ctl(args ...string) ([]byte, error) {
	cmd := exec.Command(d.bin, append([]string{"ctl", "--data-dir", d.dir}, args...)...)
	cmd.Env = d.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("ctl %v: %v: %s", args, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// status is the part of `ctl status` the benchmark reads.
type status struct {
	DeviceID string `json:"device_id"`
	Owner    string `json:"owner"`
	Playing  bool   `json:"playing"`
	Output   struct {
		Playing bool `json:"playing"`
	} `json:"output"`
	Scan struct {
		Running bool `json:"running"`
		Done    int  `json:"done"`
		Found   int  `json:"found"`
	} `json:"scan"`
	Devices []struct {
		DeviceID string `json:"device_id"`
		Online   bool   `json:"online"`
	} `json:"devices"`
	Pairing []struct {
		ID string `json:"id"`
	} `json:"pairing"`
}

func (d *device) status() (status, error) {
	var st status
	out, err := d.ctl("status")
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(out, &st)
}

// stats is `ctl stats`.
type stats struct {
	Goroutines   int    `json:"goroutines"`
	HeapAlloc    uint64 `json:"heap_alloc_bytes"`
	HeapInuse    uint64 `json:"heap_inuse_bytes"`
	HeapIdle     uint64 `json:"heap_idle_bytes"`
	GoSys        uint64 `json:"go_sys_bytes"`
	HeapReleased uint64 `json:"heap_released_bytes"`
	RSS          uint64 `json:"rss_bytes"`
	// LoopHolds: the window loop's holds by how they ended (framegov).
	LoopHolds map[string]uint64 `json:"loop_holds"`
}

// holdsBetween says how the window's loop was held between two stats:
// ", loop holds: 236 timeout, 12 work, 0 input, 0 busy"; "" when it was
// not (headless, or FURUDESK_FRAMEGOV=off).
func holdsBetween(a, b stats) string {
	if len(b.LoopHolds) == 0 {
		return ""
	}
	var parts []string
	for _, k := range []string{"timeout", "work", "input", "busy"} {
		parts = append(parts, fmt.Sprintf("%d %s", b.LoopHolds[k]-a.LoopHolds[k], k))
	}
	return ", loop holds: " + strings.Join(parts, ", ")
}

// split says where a process's resident memory is: the Go runtime's
// (what it got from the system less what it gave back), the rest of its
// anonymous memory (C: GL textures and shaders, SQLite, FFmpeg) and the
// mapped files (the binary and its libraries, Mesa's libLLVM).
func split(pid int, st stats) string {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	var anon, file float64
	for _, l := range strings.Split(string(raw), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "RssAnon:":
			anon = kb / 1024
		case "RssFile:":
			file = kb / 1024
		}
	}
	goMB := float64(st.GoSys-st.HeapReleased) / (1 << 20)
	return fmt.Sprintf("Go %.0f MB (heap %.0f MB allocated in %.0f MB of spans, %.0f MB spare not given back), other anonymous %.0f MB, files %.0f MB",
		goMB, float64(st.HeapAlloc)/(1<<20), float64(st.HeapInuse)/(1<<20), float64(st.HeapIdle-st.HeapReleased)/(1<<20), anon-goMB, file)
}

func (d *device) stats() (stats, error) {
	var st stats
	out, err := d.ctl("stats")
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(out, &st)
}

// waitFor polls cond every 100 ms until it holds or limit passes.
func waitFor(what string, limit time.Duration, cond func() bool) error {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}
