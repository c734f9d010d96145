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
	mu        sync.Mutex
	err       error
	buffered  int
	gain      float64
	suspended bool
}

func (f *fakeDevice) Err() error        { f.mu.Lock(); defer f.mu.Unlock(); return f.err }
func (f *fakeDevice) Buffered() int     { f.mu.Lock(); defer f.mu.Unlock(); return f.buffered }
func (f *fakeDevice) SetGain(g float64) { f.mu.Lock(); defer f.mu.Unlock(); f.gain = g }
func (f *fakeDevice) Close()            {}
func (f *fakeDevice) Suspend() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.suspended = true
	return f.err
}
func (f *fakeDevice) Resume() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.suspended = false
	return f.err
}
func (f *fakeDevice) isSuspended() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.suspended }

// newTestOutput is an Output without oto and without the monitor goroutine:
// the test calls measure with its own clock.
func newTestOutput(t *testing.T) (*Output, *fakeDevice, *meter) {
	return newTestOutputWith(t, Options{})
}

// newTestOutputWith is newTestOutput with opts (defaults where zero).
func newTestOutputWith(t *testing.T, opts Options) (*Output, *fakeDevice, *meter) {
	if opts.BufferSize == 0 {
		opts.BufferSize = 40 * time.Millisecond // the figures below are for oto's default
	}
	o := newOutput(opts.withDefaults())
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

// testPrefill is the consumption of a device that opened but does not run
// yet, at the default options: twice BufferSize (40ms).
const testPrefill = 2 * 1764

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
	pull(o.mix, testPrefill+441)
	o.measure(m, t0.Add(10*time.Millisecond))
	if evs := drain(o); len(evs) != 1 || evs[0] != (Availability{Available: true}) {
		t.Fatalf("after consumption: %+v, want available", evs)
	}
	// No consumption for less than the stall timeout (3s): still available.
	o.measure(m, t0.Add(3010*time.Millisecond))
	if evs := drain(o); len(evs) != 0 || !o.Report().Available {
		t.Fatalf("within stall timeout: %+v %+v", evs, o.Report())
	}
	o.measure(m, t0.Add(3011*time.Millisecond))
	if evs := drain(o); len(evs) != 1 || evs[0].(Availability).Available || !errors.Is(evs[0].(Availability).Err, ErrNotConsuming) {
		t.Fatalf("stalled: %+v, want unavailable", evs)
	}
	pull(o.mix, 441)
	o.measure(m, t0.Add(3020*time.Millisecond))
	if evs := drain(o); len(evs) != 1 || !evs[0].(Availability).Available {
		t.Fatalf("consuming again: %+v", evs)
	}
	d.mu.Lock()
	d.err = errors.New("oto: ALSA error at snd_pcm_writei: broken pipe")
	d.mu.Unlock()
	pull(o.mix, 441)
	o.measure(m, t0.Add(3030*time.Millisecond))
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
		pull(o.mix, testPrefill+441)
		o.measure(m, t0.Add(2010*time.Millisecond))
		if evs := drain(o); len(evs) != 1 || evs[0] != (Availability{Available: true}) {
			t.Fatalf("first samples consumed: %+v, want available (and nothing before)", evs)
		}
		// Once running, a stall is judged by StallTimeout only.
		o.measure(m, t0.Add(5011*time.Millisecond))
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
	for _, o := range []Options{{SampleRate: 100}, {BufferSize: time.Second}, {Tick: -1}, {SteadyTick: 2 * time.Second}, {EventBuffer: 1}, {StallTimeout: time.Millisecond}, {StartupGrace: time.Minute}} {
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
	m.started = true // a running device: TestStartupPrefillStall covers the start
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

// sim drives measure on a fake clock every Tick (10ms), the device taking
// perTick frames per tick unless stalled(now) says it is stalled.
type sim struct {
	t       *testing.T
	o       *Output
	m       *meter
	now     time.Time
	perTick int
	before  func() // runs before each pull (waits for the decoder)
}

func (s *sim) run(d time.Duration, stalled func(at time.Duration) bool, check func(at time.Duration, evs []Event)) {
	s.t.Helper()
	for at := time.Duration(0); at < d; at += 10 * time.Millisecond {
		s.now = s.now.Add(10 * time.Millisecond)
		// A suspended device takes nothing, like oto's.
		if d, ok := s.o.device().(*fakeDevice); !stalled(at) && (!ok || !d.isSuspended()) {
			if s.before != nil {
				s.before()
			}
			pull(s.o.mix, s.perTick)
		}
		s.o.measure(s.m, s.now)
		check(at, drain(s.o))
	}
}

// availabilityAndActivity keeps the Availability and Activity events: a
// brief stall must change neither.
func availabilityAndActivity(evs []Event) []Event {
	var out []Event
	for _, ev := range evs {
		switch ev.(type) {
		case Availability, Activity:
			out = append(out, ev)
		}
	}
	return out
}

// TestStartupPrefillStall is QA N2 as measured on a private PulseAudio: the
// new stream takes its prefill (about BufferSize) within 20ms, then the
// idle sink stalls it for 1.9s, then it runs. That start is no outage: no
// Availability event before the device runs, none with an error, and the
// first is Available once it runs. A device that takes its prefill and
// never runs is reported unavailable after StartupGrace, not before.
func TestStartupPrefillStall(t *testing.T) {
	t0 := time.Unix(1000, 0)
	t.Run("slow start", func(t *testing.T) {
		o, _, m := newTestOutput(t)
		o.measure(m, t0)
		pull(o.mix, 2900) // the largest prefill seen: 1000-2999 frames
		s := &sim{t: t, o: o, m: m, now: t0.Add(20 * time.Millisecond), perTick: 441}
		var got []Event
		s.run(10*time.Second, func(at time.Duration) bool { return at < 1900*time.Millisecond }, func(at time.Duration, evs []Event) {
			got = append(got, evs...)
			r := o.Report()
			if r.Err != nil {
				t.Fatalf("at +%v: report %+v, want no error while starting", at, r)
			}
			if at < 1900*time.Millisecond && r.Available {
				t.Fatalf("at +%v: available before the device ran past its prefill", at)
			}
		})
		if len(got) != 1 || got[0] != (Availability{Available: true}) {
			t.Fatalf("events %+v, want only Available once it runs", got)
		}
	})
	t.Run("prefill then nothing", func(t *testing.T) {
		o, _, m := newTestOutput(t)
		o.measure(m, t0)
		pull(o.mix, 1764)
		s := &sim{t: t, o: o, m: m, now: t0, perTick: 441}
		s.run(6*time.Second, func(time.Duration) bool { return true }, func(at time.Duration, evs []Event) {
			// measured at t0+at+10ms
			switch {
			case at+10*time.Millisecond < 5*time.Second && len(evs) != 0:
				t.Fatalf("at +%v within StartupGrace: %+v", at, evs)
			case at+10*time.Millisecond == 5*time.Second:
				if len(evs) != 1 || !errors.Is(evs[0].(Availability).Err, ErrNotConsuming) {
					t.Fatalf("at StartupGrace: %+v, want unavailable (not consuming)", evs)
				}
			}
		})
	})
}

// TestBriefStallsAreNotOutages is QA N2's other half: PulseAudio stalls
// every stream for a moment when another client starts or stops. A running
// device, idle or playing, that stalls for less than StallTimeout (3s)
// stays available, and a playing one stays playing; a longer stall is an
// outage, reported once StallTimeout passed; a device error is reported at
// once, even within a stall.
func TestBriefStallsAreNotOutages(t *testing.T) {
	stalls := []struct{ from, to time.Duration }{
		{500 * time.Millisecond, 1100 * time.Millisecond},          // 0.6s
		{2 * time.Second, 3200 * time.Millisecond},                 // 1.2s
		{4 * time.Second, 6 * time.Second},                         // 2.0s
		{7 * time.Second, 9400 * time.Millisecond},                 // 2.4s
		{10 * time.Second, 10*time.Second + 2490*time.Millisecond}, // just under
	}
	stalled := func(at time.Duration) bool {
		for _, s := range stalls {
			if at >= s.from && at < s.to {
				return true
			}
		}
		return false
	}
	for _, playing := range []bool{false, true} {
		t.Run(map[bool]string{false: "idle", true: "playing"}[playing], func(t *testing.T) {
			// Idle here is a device kept running (IdleSuspend off): a
			// suspended one takes nothing by design (TestIdleSuspend).
			o, d, m := newTestOutputWith(t, Options{IdleSuspend: -1})
			s := &sim{t: t, o: o, m: m, now: time.Unix(1000, 0), perTick: 441}
			if playing {
				src, _ := toneSource("a", 440, 60*testRate)
				o.Play(src, 0)
				s.before = func() {
					waitFor(t, "decoded", func() bool { return decoded(o.mix, o.mix.cur) })
				}
			}
			// Start: run past the prefill.
			s.run(200*time.Millisecond, func(time.Duration) bool { return false }, func(time.Duration, []Event) {})
			if r := o.Report(); !r.Available || r.Playing != playing {
				t.Fatalf("running: %+v", r)
			}
			s.run(13*time.Second, stalled, func(at time.Duration, evs []Event) {
				if evs := availabilityAndActivity(evs); len(evs) != 0 {
					t.Fatalf("at +%v (stalls %v): %+v, want no change", at, stalls, evs)
				}
				if r := o.Report(); !r.Available || r.Err != nil || r.Playing != playing {
					t.Fatalf("at +%v: report %+v, want available, playing %v", at, r, playing)
				}
			})
			// A real outage: no consumption for longer than StallTimeout.
			var lost time.Duration = -1
			s.run(3500*time.Millisecond, func(time.Duration) bool { return true }, func(at time.Duration, evs []Event) {
				evs = availabilityAndActivity(evs)
				if len(evs) == 0 {
					return
				}
				if lost >= 0 {
					t.Fatalf("at +%v: %+v after the outage was reported", at, evs)
				}
				lost = at
				if a, ok := evs[0].(Availability); !ok || a.Available || !errors.Is(a.Err, ErrNotConsuming) {
					t.Fatalf("outage: %+v, want unavailable (not consuming) first", evs)
				}
			})
			// The last consumption was measured 10ms before the stall's first
			// measurement: the first past StallTimeout is 3s into the stall.
			if want := 3000 * time.Millisecond; lost != want {
				t.Fatalf("outage reported %v into the stall, want %v", lost, want)
			}
			if r := o.Report(); r.Available || r.Playing {
				t.Fatalf("after the outage: %+v", r)
			}
			s.run(20*time.Millisecond, func(time.Duration) bool { return false }, func(time.Duration, []Event) {})
			if r := o.Report(); !r.Available || r.Playing != playing {
				t.Fatalf("consuming again: %+v", r)
			}
			// A device error within a brief stall is reported at once.
			s.run(300*time.Millisecond, func(time.Duration) bool { return true }, func(time.Duration, []Event) {})
			d.mu.Lock()
			d.err = errors.New("oto: ALSA error at snd_pcm_writei: broken pipe")
			d.mu.Unlock()
			s.run(10*time.Millisecond, func(time.Duration) bool { return true }, func(at time.Duration, evs []Event) {
				evs = availabilityAndActivity(evs)
				if len(evs) == 0 || evs[0].(Availability).Err != d.err {
					t.Fatalf("device error: %+v, want it reported at once", evs)
				}
			})
		})
	}
}

// TestIdleSuspend: a running device with nothing to play for IdleSuspend
// is suspended and stays available (it takes nothing, and no stall is
// judged); Play starts it again, and from then on a stall counts as
// before; a pause suspends it again; a device error while suspended is
// reported at once.
func TestIdleSuspend(t *testing.T) {
	o, d, m := newTestOutput(t)
	s := &sim{t: t, o: o, m: m, now: time.Unix(1000, 0), perTick: 441}
	never := func(time.Duration) bool { return false }
	noChange := func(what string) func(time.Duration, []Event) {
		return func(at time.Duration, evs []Event) {
			if evs := availabilityAndActivity(evs); len(evs) != 0 {
				t.Fatalf("%s, at +%v: %+v, want no change", what, at, evs)
			}
			if r := o.Report(); !r.Available || r.Err != nil || r.Playing {
				t.Fatalf("%s, at +%v: report %+v, want available, not playing", what, at, r)
			}
		}
	}
	s.run(200*time.Millisecond, never, func(time.Duration, []Event) {})
	if r := o.Report(); !r.Available {
		t.Fatalf("running: %+v", r)
	}
	var suspendedAt time.Duration = -1
	s.run(6*time.Second, never, func(at time.Duration, evs []Event) {
		if d.isSuspended() && suspendedAt < 0 {
			suspendedAt = at
		}
		noChange("idle")(at, evs)
	})
	if suspendedAt < 4800*time.Millisecond || suspendedAt > 5*time.Second {
		t.Fatalf("suspended %v after the device went idle, want IdleSuspend (5s)", suspendedAt)
	}
	consumed := o.Report().Consumed
	s.run(30*time.Second, never, noChange("suspended"))
	if r := o.Report(); r.Consumed != consumed || !d.isSuspended() {
		t.Fatalf("suspended for 30 s: consumed %d -> %d, suspended %v", consumed, r.Consumed, d.isSuspended())
	}

	src, _ := toneSource("a", 440, 60*testRate)
	tr := o.Play(src, 0)
	s.before = func() { waitFor(t, "decoded", func() bool { return decoded(o.mix, o.mix.cur) }) }
	s.run(500*time.Millisecond, never, func(at time.Duration, evs []Event) {
		if evs := availabilityAndActivity(evs); len(evs) > 1 || len(evs) == 1 && evs[0] != (Activity{Playing: true}) {
			t.Fatalf("playing after the suspension, at +%v: %+v, want only Activity playing", at, evs)
		}
	})
	if r := o.Report(); d.isSuspended() || !r.Available || !r.Playing || r.Track != tr {
		t.Fatalf("after Play: suspended %v, report %+v, want the device running and playing", d.isSuspended(), r)
	}
	// Running again, a stall counts from when the device was resumed on.
	var lost time.Duration = -1
	s.run(3500*time.Millisecond, func(time.Duration) bool { return true }, func(at time.Duration, evs []Event) {
		for _, ev := range availabilityAndActivity(evs) {
			if a, ok := ev.(Availability); ok && !a.Available && lost < 0 {
				lost = at
			}
		}
	})
	if lost < 2900*time.Millisecond || lost > 3100*time.Millisecond {
		t.Fatalf("outage reported %v into a stall of a resumed device, want StallTimeout (3s)", lost)
	}
	s.run(200*time.Millisecond, never, func(time.Duration, []Event) {})
	if r := o.Report(); !r.Available || !r.Playing {
		t.Fatalf("consuming again: %+v", r)
	}

	o.Pause()
	s.before = nil
	s.run(6*time.Second, never, func(time.Duration, []Event) {})
	if r := o.Report(); !d.isSuspended() || !r.Available || r.Playing || !r.Paused {
		t.Fatalf("paused for 6 s: suspended %v, report %+v, want suspended, available, paused", d.isSuspended(), r)
	}
	d.mu.Lock()
	d.err = errors.New("oto: ALSA error at snd_pcm_writei: device unplugged")
	d.mu.Unlock()
	s.run(10*time.Millisecond, never, func(at time.Duration, evs []Event) {
		if len(evs) != 1 || evs[0].(Availability).Available || evs[0].(Availability).Err == nil {
			t.Fatalf("device error while suspended: %+v, want unavailable with the error", evs)
		}
	})
}

// TestReportTakesThePositionNow: while a track plays on, Report's position
// is what the device consumed when Report is called, not at the last
// measurement (the monitor measures every SteadyTick, 250 ms).
func TestReportTakesThePositionNow(t *testing.T) {
	o, d, m := newTestOutput(t)
	m.started = true
	a, _ := toneSource("a", 440, testRate)
	ta := o.Play(a, 0)
	waitFor(t, "decoded", func() bool { return decoded(o.mix, o.mix.cur) })
	pull(o.mix, 4410)
	o.measure(m, time.Unix(1, 0))
	pull(o.mix, 4410) // consumed since, not measured
	if r := o.Report(); !r.Playing || r.Track != ta || r.Pos != framesToDuration(2*4410, testRate) {
		t.Fatalf("report %+v, want playing at %d frames", r, 2*4410)
	}
	d.mu.Lock()
	d.buffered = 441 * bytesPerFrame
	d.mu.Unlock()
	if r := o.Report(); r.Pos != framesToDuration(2*4410-441, testRate) {
		t.Fatalf("report %+v, want %d frames: buffered frames are not heard", r, 2*4410-441)
	}
}

// TestNoPositionEventsWhenNegative: PositionInterval < 0 sends no Position.
func TestNoPositionEventsWhenNegative(t *testing.T) {
	o, _, m := newTestOutputWith(t, Options{PositionInterval: -1})
	m.started = true
	a, _ := toneSource("a", 440, testRate)
	o.Play(a, 0)
	waitFor(t, "decoded", func() bool { return decoded(o.mix, o.mix.cur) })
	for i := range 10 {
		pull(o.mix, 4410)
		o.measure(m, time.Unix(int64(i), 0))
	}
	for _, ev := range drain(o) {
		if _, ok := ev.(Position); ok {
			t.Fatalf("Position event %+v with PositionInterval -1", ev)
		}
	}
	if err := (Options{PositionInterval: -1}).Validate(); err != nil {
		t.Fatalf("PositionInterval -1: %v", err)
	}
}
