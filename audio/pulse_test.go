package audio

import (
	"bufio"
	"context"
	"encoding/binary"
	"github.com/furudesk/furudesk/internal/pulsetest"
	"os/exec"
	"sort"
	"sync"
	"testing"
	"time"
)

// pulse is a private PulseAudio server with a null sink "vsink" and ALSA
// routed to it (the recipe of PLATFORM.md), for capture tests.
type pulse struct {
	env []string // environment for clients: PULSE_SERVER, HOME with .asoundrc
}

// startPulse starts the server; it skips when pulseaudio is not installed,
// except on CI (CI=true), where that is a failure.
func startPulse(t *testing.T) *pulse {
	t.Helper()
	bin := needTool(t, "pulseaudio")
	needTool(t, "pactl")
	needTool(t, "parec")
	return &pulse{env: pulsetest.Start(t, bin, "vsink").Env}
}

// recorder captures vsink.monitor with parec (raw s16le stereo) and notes
// when each block arrived, so a recorded frame can be placed in wall time.
type recorder struct {
	mu       sync.Mutex
	left     []int16
	arrivals []arrival
	cancel   context.CancelFunc
	done     chan struct{}
}

type arrival struct {
	frames int64 // total frames received after this block
	at     time.Time
}

func (p *pulse) record(t *testing.T) *recorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "parec", "--latency-msec=10", "-d", "vsink.monitor",
		"--format=s16le", "--rate=44100", "--channels=2", "--raw")
	cmd.Env = p.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("parec: %v", err)
	}
	r := &recorder{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		br := bufio.NewReaderSize(out, 1<<16)
		buf := make([]byte, 1764) // 10 ms
		var carry []byte
		for {
			n, err := br.Read(buf)
			now := time.Now()
			if n > 0 {
				b := append(carry, buf[:n]...)
				whole := len(b) / 4 * 4
				r.mu.Lock()
				for i := 0; i < whole; i += 4 {
					r.left = append(r.left, int16(binary.LittleEndian.Uint16(b[i:])))
				}
				if br.Buffered() == 0 { // a fresh block, not a backlog
					r.arrivals = append(r.arrivals, arrival{frames: int64(len(r.left)), at: now})
				}
				r.mu.Unlock()
				carry = append([]byte(nil), b[whole:]...)
			}
			if err != nil {
				_ = cmd.Wait()
				return
			}
		}
	}()
	t.Cleanup(r.stop)
	waitFor(t, "the recorder's first samples", func() bool { return r.frames() > 4410 })
	return r
}

func (r *recorder) stop() { r.cancel(); <-r.done }

func (r *recorder) frames() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int64(len(r.left))
}

// lastArrival is the wall time of the newest block.
func (r *recorder) lastArrival() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.arrivals) == 0 {
		return time.Time{}
	}
	return r.arrivals[len(r.arrivals)-1].at
}

// snapshot returns the samples and a function placing a frame in wall time.
// A block arrives after its frames were rendered, so the earliest bound over
// all later blocks (arrival minus the frames still to come, at 44.1 kHz) is
// the tightest estimate; it can only be late by the capture latency, which
// makes the measured latencies conservative.
func (r *recorder) snapshot() ([]int16, func(frame int) time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	x := append([]int16(nil), r.left...)
	arr := append([]arrival(nil), r.arrivals...)
	// sufMin[k] = min over j>=k of at_j - frames_j/rate, in ns since epoch.
	sufMin := make([]int64, len(arr)+1)
	sufMin[len(arr)] = 1<<63 - 1
	for k := len(arr) - 1; k >= 0; k-- {
		v := arr[k].at.UnixNano() - arr[k].frames*int64(time.Second)/44100
		sufMin[k] = min(v, sufMin[k+1])
	}
	return x, func(frame int) time.Time {
		k := sort.Search(len(arr), func(k int) bool { return arr[k].frames > int64(frame) })
		if k == len(arr) {
			return time.Time{}
		}
		return time.Unix(0, sufMin[k]+int64(frame)*int64(time.Second)/44100)
	}
}

// segment is a run of sound in a recording, in frames; end is exclusive.
type segment struct{ start, end int }

func (s segment) dur() time.Duration { return framesToDuration(int64(s.end-s.start), 44100) }

// segments finds runs of |x| > thr separated by more than minGap quiet frames.
func segments(x []int16, thr int16, minGap int) []segment {
	var segs []segment
	last := -1 << 30
	for i, v := range x {
		if v > thr || v < -thr {
			if i-last > minGap {
				segs = append(segs, segment{start: i})
			}
			segs[len(segs)-1].end = i + 1
			last = i
		}
	}
	return segs
}

// longestQuiet is the longest run of |x| <= thr inside s.
func longestQuiet(x []int16, s segment, thr int16) int {
	best, run := 0, 0
	for _, v := range x[s.start:s.end] {
		if v <= thr && v >= -thr {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

func peak(x []int16) float64 {
	p := 0
	for _, v := range x {
		p = max(p, int(v), -int(v))
	}
	return float64(p) / 32768
}
