package audio

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeDevice stands in for oto: the test decides what was consumed.
type fakeDevice struct {
	mu       sync.Mutex
	err      error
	buffered int
	gain     float64
}

func (f *fakeDevice) Err() error        { f.mu.Lock(); defer f.mu.Unlock(); return f.err }
func (f *fakeDevice) Buffered() int     { f.mu.Lock(); defer f.mu.Unlock(); return f.buffered }
func (f *fakeDevice) SetGain(g float64) { f.mu.Lock(); defer f.mu.Unlock(); f.gain = g }
func (f *fakeDevice) Close()            {}

// newTestOutput is an Output without oto and without the monitor goroutine:
// the test calls measure with its own clock.
func newTestOutput(t *testing.T) (*Output, *fakeDevice, *meter) {
	o := newOutput(Options{}.withDefaults())
	o.latency = 0 // TestHeardLagsConsumption covers the device-buffer lag
	d := &fakeDevice{}
	o.attach(d)
	return o, d, &meter{}
}

func drain(o *Output) []Event {
	var evs []Event
	for {
		select {
		case ev := <-o.events:
			evs = append(evs, ev)
		default:
			return evs
		}
	}
}

// TestAvailabilityIsMeasured: available only while the device consumes;
// a stall past StallTimeout or a device error makes it unavailable, with
// the reason.
func TestAvailabilityIsMeasured(t *testing.T) {
	o, d, m := newTestOutput(t)
	t0 := time.Unix(1000, 0)
	o.measure(m, t0)
	if evs := drain(o); len(evs) != 0 {
		t.Fatalf("before any consumption: %+v, want nothing (still starting)", evs)
	}
	if r := o.Report(); r.Available || r.Playing || r.Err != nil {
		t.Fatalf("report %+v, want neither available nor failed", r)
	}
	pull(o.mix, 441)
	o.measure(m, t0.Add(10*time.Millisecond))
	if evs := drain(o); len(evs) != 1 || evs[0] != (Availability{Available: true}) {
		t.Fatalf("after consumption: %+v, want available", evs)
	}
	// No consumption for less than the stall timeout: still available.
	o.measure(m, t0.Add(500*time.Millisecond))
	if evs := drain(o); len(evs) != 0 || !o.Report().Available {
		t.Fatalf("within stall timeout: %+v %+v", evs, o.Report())
	}
	o.measure(m, t0.Add(511*time.Millisecond))
	if evs := drain(o); len(evs) != 1 || evs[0].(Availability).Available || !errors.Is(evs[0].(Availability).Err, ErrNotConsuming) {
		t.Fatalf("stalled: %+v, want unavailable", evs)
	}
	pull(o.mix, 441)
	o.measure(m, t0.Add(520*time.Millisecond))
	if evs := drain(o); len(evs) != 1 || !evs[0].(Availability).Available {
		t.Fatalf("consuming again: %+v", evs)
	}
	d.mu.Lock()
	d.err = errors.New("oto: ALSA error at snd_pcm_writei: broken pipe")
	d.mu.Unlock()
	pull(o.mix, 441)
	o.measure(m, t0.Add(530*time.Millisecond))
	evs := drain(o)
	if len(evs) != 1 || evs[0].(Availability).Available || !strings.Contains(evs[0].(Availability).Err.Error(), "ALSA") {
		t.Fatalf("device error: %+v, want unavailable with the ALSA error", evs)
	}
	if r := o.Report(); r.Available || r.Err == nil || !strings.Contains(r.Err.Error(), "ALSA") {
		t.Fatalf("report %+v", r)
	}
}

// TestStartupGrace: a new stream on an idle PulseAudio sink stalls for 1-2 s.
// Until the device consumes its first samples, or StartupGrace passes, the
// output is neither available nor failed: no Availability event, no error
// in the report. Only then is a silent device reported unavailable.
func TestStartupGrace(t *testing.T) {
	t0 := time.Unix(1000, 0)
	t.Run("slow start", func(t *testing.T) {
		o, _, m := newTestOutput(t)
		for d := time.Duration(0); d <= 2*time.Second; d += 10 * time.Millisecond {
			o.measure(m, t0.Add(d))
		}
		if evs := drain(o); len(evs) != 0 {
			t.Fatalf("a device silent for 2 s after opening: %+v, want no event yet", evs)
		}
		if r := o.Report(); r.Available || r.Err != nil {
			t.Fatalf("report %+v, want not available, no error", r)
		}
		pull(o.mix, 441)
		o.measure(m, t0.Add(2010*time.Millisecond))
		if evs := drain(o); len(evs) != 1 || evs[0] != (Availability{Available: true}) {
			t.Fatalf("first samples consumed: %+v, want available (and nothing before)", evs)
		}
		// Past the first samples, a stall is judged by StallTimeout only.
		o.measure(m, t0.Add(2521*time.Millisecond))
		if evs := drain(o); len(evs) != 1 || !errors.Is(evs[0].(Availability).Err, ErrNotConsuming) {
			t.Fatalf("stalled after starting: %+v, want unavailable", evs)
		}
	})
	t.Run("never starts", func(t *testing.T) {
		o, _, m := newTestOutput(t)
		o.measure(m, t0)
		o.measure(m, t0.Add(4990*time.Millisecond))
		if evs := drain(o); len(evs) != 0 {
			t.Fatalf("within the grace: %+v", evs)
		}
		o.measure(m, t0.Add(5*time.Second))
		evs := drain(o)
		if len(evs) != 1 || evs[0].(Availability).Available || !errors.Is(evs[0].(Availability).Err, ErrNotConsuming) {
			t.Fatalf("silent past the grace: %+v, want unavailable (not consuming)", evs)
		}
		if r := o.Report(); r.Available || !errors.Is(r.Err, ErrNotConsuming) {
			t.Fatalf("report %+v", r)
		}
	})
	t.Run("device error", func(t *testing.T) {
		o, d, m := newTestOutput(t)
		d.err = errors.New("oto: ALSA error at snd_pcm_writei: broken pipe")
		o.measure(m, t0)
		if evs := drain(o); len(evs) != 1 || evs[0].(Availability).Available || evs[0].(Availability).Err != d.err {
			t.Fatalf("device error within the grace: %+v, want it reported at once", evs)
		}
	})
	t.Run("configurable", func(t *testing.T) {
		o := newOutput(Options{StartupGrace: 200 * time.Millisecond}.withDefaults())
		o.attach(&fakeDevice{})
		m := &meter{}
		o.measure(m, t0)
		o.measure(m, t0.Add(200*time.Millisecond))
		if evs := drain(o); len(evs) != 1 || !errors.Is(evs[0].(Availability).Err, ErrNotConsuming) {
			t.Fatalf("silent past a 200ms grace: %+v", evs)
		}
	})
}

// TestFailedDeviceReported: a device that never opened reports its error.
func TestFailedDeviceReported(t *testing.T) {
	o := newOutput(Options{}.withDefaults())
	o.attach(failedDevice{err: errors.New("oto: ALSA error at snd_pcm_open: \"default\": Connection refused")})
	o.measure(&meter{}, time.Unix(0, 0))
	evs := drain(o)
	if len(evs) != 1 || evs[0].(Availability).Available || !strings.Contains(evs[0].(Availability).Err.Error(), "snd_pcm_open") {
		t.Fatalf("events %+v", evs)
	}
}

// TestActivityFollowsConsumption: playing turns true when the device
// consumed track frames and false when it consumed the pause's silence,
// with the position of the last consumed frame; buffered frames do not count.
func TestActivityFollowsConsumption(t *testing.T) {
	o, d, m := newTestOutput(t)
	a, _ := toneSource("a", 440, testRate)
	ta := o.Play(a, 0)
	waitFor(t, "decoded", func() bool { return decoded(o.mix, o.mix.cur) })
	t0 := time.Unix(1000, 0)
	pull(o.mix, 4410)
	d.mu.Lock()
	d.buffered = 441 * bytesPerFrame // 441 frames still inside the device
	d.mu.Unlock()
	o.measure(m, t0)
	evs := drain(o)
	want := []Event{Started{Track: ta}, Availability{Available: true}, Activity{Playing: true}, Position{Track: ta, Pos: framesToDuration(4410-441, testRate)}}
	if len(evs) != len(want) {
		t.Fatalf("events %+v, want %+v", evs, want)
	}
	for i := range want {
		if evs[i] != want[i] {
			t.Fatalf("event %d = %+v, want %+v", i, evs[i], want[i])
		}
	}
	if r := o.Report(); !r.Available || !r.Playing || r.Track != ta || r.Pos != framesToDuration(3969, testRate) {
		t.Fatalf("report %+v", r)
	}
	o.Pause()
	if r := o.Report(); !r.Paused || !r.Playing {
		t.Fatalf("right after Pause the device still plays its buffer: %+v", r)
	}
	pull(o.mix, 441)
	d.mu.Lock()
	d.buffered = 0
	d.mu.Unlock()
	o.measure(m, t0.Add(10*time.Millisecond))
	if evs := drain(o); len(evs) != 1 || evs[0] != (Activity{Playing: false}) {
		t.Fatalf("after the pause reached the device: %+v", evs)
	}
	if r := o.Report(); r.Playing || r.Pos != framesToDuration(3969, testRate) {
		t.Fatalf("paused report %+v, want position 3969 frames (rewound to the first frame the device had not taken)", r)
	}
	o.SetVolume(50)
	if d.gain != 0.125 {
		t.Fatalf("gain %v after SetVolume(50)", d.gain)
	}
}

// TestEventsDropWhenNotDrained: a full event channel never blocks the
// output; drops are counted.
func TestEventsDropWhenNotDrained(t *testing.T) {
	o := newOutput(Options{EventBuffer: 16}.withDefaults())
	for i := 0; i < 20; i++ {
		o.emit(Activity{Playing: i%2 == 0})
	}
	if r := o.Report(); r.Dropped != 4 {
		t.Fatalf("dropped = %d, want 4", r.Dropped)
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{{SampleRate: 100}, {BufferSize: time.Second}, {Tick: -1}, {EventBuffer: 1}, {StallTimeout: time.Millisecond}, {StartupGrace: time.Minute}} {
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "Options.") {
			t.Errorf("Validate(%+v) = %v, want an error naming the field", o, err)
		}
	}
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("zero options: %v", err)
	}
}

// TestHeardLagsConsumption: a frame the device consumed counts as heard only
// after the device buffer (BufferSize) played out ahead of it.
func TestHeardLagsConsumption(t *testing.T) {
	o, _, m := newTestOutput(t)
	o.latency = 1764
	a, _ := toneSource("a", 440, testRate)
	ta := o.Play(a, 0)
	waitFor(t, "decoded", func() bool { return decoded(o.mix, o.mix.cur) })
	pull(o.mix, 1764)
	o.measure(m, time.Unix(1, 0))
	if r := o.Report(); r.Playing || r.Consumed != 1764 {
		t.Fatalf("only the device buffer filled: %+v, want consumed but not yet playing", r)
	}
	pull(o.mix, 441)
	o.measure(m, time.Unix(2, 0))
	if r := o.Report(); !r.Playing || r.Track != ta || r.Pos != framesToDuration(441, testRate) {
		t.Fatalf("report %+v, want playing at 441 frames", r)
	}
}

// TestReasonIsShort: what a user reads about a failed device is a short
// phrase, without package prefixes or ALSA call sites.
func TestReasonIsShort(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{ErrNotConsuming, "the device is not taking any sound"},
		{fmt.Errorf("open: %w", ErrClosed), "the output was closed"},
		{errors.New(`oto: ALSA error at snd_pcm_open: "default": Connection refused`), "connection refused"},
		{errors.New("oto: ALSA error at snd_pcm_writei: EPIPE"), "EPIPE"},
		{errors.New("no device"), "no device"},
		{errors.New("x: " + strings.Repeat("é", 200)), strings.Repeat("é", 60) + "…"},
	} {
		if got := Reason(c.err); got != c.want {
			t.Errorf("Reason(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
