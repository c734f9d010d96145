package audio

import (
	"fmt"
	"time"
)

// Options configure Open. A zero field takes the default named in its
// comment; Validate rejects values outside the stated ranges.
type Options struct {
	// SampleRate of the output in Hz, 8000..192000; 0 means 44100.
	SampleRate int
	// BufferSize of the device buffer, 5ms..200ms; 0 means 200ms on
	// Linux's ALSA output, whose controls cut what the device holds (a
	// Pause, Stop, Play or seek is heard at once, a volume change within
	// the buffer), and 40ms with oto (macOS, Windows), whose Stop is silent
	// within about this plus the sound server's latency, Pause within about
	// 1.5 times it. Through PulseAudio on a loaded 2-core machine 20ms
	// underruns (dropouts).
	BufferSize time.Duration
	// ReadAhead is the decoded audio kept ready per track, 50ms..10s;
	// 0 means 500ms.
	ReadAhead time.Duration
	// Tick is how often the device is measured while something changes
	// (a device starting, a pause or stop, a track starting or ending, a
	// command), 1ms..100ms; 0 means 10ms.
	Tick time.Duration
	// SteadyTick is how often it is measured while it plays on or stays
	// silent, Tick..1s; 0 means 250ms (or Tick when that is longer). Each
	// wake-up of the process costs CPU: measured on a `furudesk
	// --headless` playing, 10 ms instead cost about 2.5% of a core more,
	// and 50 ms about 0.2% (issue 37). A track's start or end is measured
	// when it is due, and Report's position is taken when Report is
	// called; the rest of Report, and Position, are at most this old.
	SteadyTick time.Duration
	// PositionInterval between Position events while playing, 10ms..10s;
	// 0 means 250ms; negative means none (a caller that reads Report when
	// it needs the position: each event wakes it).
	PositionInterval time.Duration
	// StallTimeout after which a running device that stopped consuming is
	// reported unavailable, 100ms..10s; 0 means 3s. PulseAudio stalls
	// every stream for a moment when another client starts or stops, and a
	// loaded machine for longer: a shorter stall is not an outage. A device
	// error is reported at once.
	StallTimeout time.Duration
	// StartupGrace is how long a newly opened device may take to start
	// running (consume more than its prefill of about twice BufferSize)
	// before it is reported unavailable, 100ms..30s; 0 means 5s. A new
	// stream takes its prefill at once, then an idle PulseAudio sink stalls
	// it for 1-2 s (see PLATFORM.md). Until then the output is neither
	// available nor failed: Report has Available false and Err nil, and no
	// Availability event is sent. A device error is reported at once.
	StartupGrace time.Duration
	// EventBuffer is the capacity of the Events channel, 16..65536; 0 means
	// 1024.
	EventBuffer int
	// IdleSuspend is how long a running device goes on taking silence
	// while there is nothing to play (no track, or paused) before it is
	// suspended: it stops pulling samples, so an idle player costs no CPU
	// (a device fed silence wakes the process and the sound server about
	// 200 times a second). The next Play or Resume starts it again. While
	// suspended the output reports the availability it measured last (a
	// device error still counts at once) and nothing playing. 100ms..1h;
	// 0 means 5s; negative means never.
	IdleSuspend time.Duration
}

// Validate reports the first field outside its range, quoting its value.
func (o Options) Validate() error {
	checkD := func(name string, v, lo, hi time.Duration) error {
		if v != 0 && (v < lo || v > hi) {
			return fmt.Errorf("audio: Options.%s = %v, want 0 or %v..%v", name, v, lo, hi)
		}
		return nil
	}
	if o.SampleRate != 0 && (o.SampleRate < 8000 || o.SampleRate > 192000) {
		return fmt.Errorf("audio: Options.SampleRate = %d, want 0 or 8000..192000", o.SampleRate)
	}
	if o.EventBuffer != 0 && (o.EventBuffer < 16 || o.EventBuffer > 65536) {
		return fmt.Errorf("audio: Options.EventBuffer = %d, want 0 or 16..65536", o.EventBuffer)
	}
	for _, c := range []struct {
		name      string
		v, lo, hi time.Duration
	}{
		{"BufferSize", o.BufferSize, 5 * time.Millisecond, 200 * time.Millisecond},
		{"ReadAhead", o.ReadAhead, 50 * time.Millisecond, 10 * time.Second},
		{"Tick", o.Tick, time.Millisecond, 100 * time.Millisecond},
		{"SteadyTick", o.SteadyTick, time.Millisecond, time.Second},
		{"PositionInterval", max(o.PositionInterval, 0), 10 * time.Millisecond, 10 * time.Second},
		{"StallTimeout", o.StallTimeout, 100 * time.Millisecond, 10 * time.Second},
		{"StartupGrace", o.StartupGrace, 100 * time.Millisecond, 30 * time.Second},
		{"IdleSuspend", max(o.IdleSuspend, 0), 100 * time.Millisecond, time.Hour},
	} {
		if err := checkD(c.name, c.v, c.lo, c.hi); err != nil {
			return err
		}
	}
	return nil
}

// withDefaults returns o with the documented defaults in its zero fields.
func (o Options) withDefaults() Options {
	def := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	if o.SampleRate == 0 {
		o.SampleRate = 44100
	}
	if o.EventBuffer == 0 {
		o.EventBuffer = 1024
	}
	def(&o.BufferSize, defaultBufferSize)
	def(&o.ReadAhead, 500*time.Millisecond)
	def(&o.Tick, 10*time.Millisecond)
	def(&o.SteadyTick, 250*time.Millisecond)
	o.SteadyTick = max(o.SteadyTick, o.Tick)
	def(&o.PositionInterval, 250*time.Millisecond)
	def(&o.StallTimeout, 3*time.Second)
	def(&o.StartupGrace, 5*time.Second)
	def(&o.IdleSuspend, 5*time.Second)
	return o
}

// aheadChunks is ReadAhead in decode chunks.
func (o Options) aheadChunks() int {
	frames := durationToFrames(o.ReadAhead, o.SampleRate)
	return int(max(1, (frames+chunkFrames-1)/chunkFrames))
}
