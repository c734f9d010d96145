package audio

import (
	"sync"
	"sync/atomic"
	"time"
)

// device is what the monitor needs from the sound device.
type device interface {
	// Err returns the device error, nil while it works.
	Err() error
	// Buffered returns the bytes read from the mixer and not yet consumed.
	Buffered() int
	// SetGain sets the linear amplitude factor.
	SetGain(g float64)
	// Close stops pulling samples.
	Close()
	// Suspend stops pulling samples until Resume; the samples already
	// taken stay where they are.
	Suspend() error
	// Resume pulls samples again after Suspend.
	Resume() error
}

// Output is the local audio output. Its methods are safe for concurrent use,
// return quickly and never panic on bad input.
type Output struct {
	opts   Options
	mix    *mixer
	events chan Event

	devMu sync.Mutex
	dev   device // nil until the device is ready
	gain  float64
	muted bool // Stop muted the device until its buffered frames are gone

	emitMu  sync.Mutex
	closed  bool
	dropped atomic.Uint64

	repMu  sync.Mutex
	report Report

	latency int64 // frames between consumption and sound: the device buffer
	volume  atomic.Int64
	quit    chan struct{}
	done    chan struct{}
	wake    chan struct{} // a command: measure at the fast pace (Tick) again
	closeMu sync.Once
}

func newOutput(o Options) *Output {
	out := &Output{
		opts:    o,
		events:  make(chan Event, o.EventBuffer),
		quit:    make(chan struct{}),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		gain:    1,
		latency: durationToFrames(o.BufferSize, o.SampleRate),
	}
	out.volume.Store(100)
	out.report = Report{Volume: 100} // not yet known: within StartupGrace
	out.mix = newMixer(o.SampleRate, o.aheadChunks(), func(t Track, err error) {
		if dmg, ok := err.(*DamageError); ok {
			out.emit(Damaged{Track: t, Err: dmg})
			return
		}
		out.emit(DecodeError{Track: t, Err: err})
	})
	return out
}

// attach hands the ready device (or its failure) to the monitor.
func (o *Output) attach(d device) {
	o.devMu.Lock()
	defer o.devMu.Unlock()
	select {
	case <-o.quit:
		d.Close()
		return
	default:
	}
	o.dev = d
	if !o.muted {
		d.SetGain(o.gain)
	}
}

func (o *Output) device() device {
	o.devMu.Lock()
	defer o.devMu.Unlock()
	return o.dev
}

// emit queues ev without blocking; a full queue drops it and counts.
func (o *Output) emit(ev Event) {
	o.emitMu.Lock()
	defer o.emitMu.Unlock()
	if o.closed {
		return
	}
	select {
	case o.events <- ev:
	default:
		o.dropped.Add(1)
	}
}

// Events returns the channel of events. Drain it: when it is full, events
// are dropped and counted in Report().Dropped. It is closed by Close.
func (o *Output) Events() <-chan Event { return o.events }

// Play starts src at position at (clamped to the track), replacing the
// current track and dropping the prepared one, and clears Pause. The file is
// opened and decoded on another goroutine: failures arrive as DecodeError.
// The returned Track is echoed in this play's events.
func (o *Output) Play(src Source, at time.Duration) Track {
	defer o.poke()
	t := o.mix.play(src, durationToFrames(at, o.opts.SampleRate))
	o.cutBefore(o.mix.switchedAt())
	return t
}

// cutBefore lets a device that buffers ahead of the mixer (ALSA's ring)
// pass over the frames the mixer wrote before frame f, what played before
// a Play or a seek, so that the change is heard after the device buffer
// at most, not after the ring too.
func (o *Output) cutBefore(f int64) {
	o.devMu.Lock()
	defer o.devMu.Unlock()
	if d, ok := o.dev.(interface{ cutBefore(int64) }); ok {
		d.cutBefore(f)
	}
}

// PrepareNext decodes src ahead so it follows the current track without a
// gap. A second call replaces the prepared track; Play, Stop and
// ClearNext drop it.
func (o *Output) PrepareNext(src Source) Track {
	defer o.poke()
	return o.mix.prepare(src)
}

// ClearNext drops the prepared track, if any, so the output goes silent
// after the current track instead of playing it. The current track plays
// on untouched. No event follows for the dropped track, not even a
// DecodeError from its decoding goroutine.
func (o *Output) ClearNext() { o.mix.clearNext() }

// Pause makes the output silent within about BufferSize (at once where
// the device cuts what it holds, Linux's ALSA output): the device mutes
// what it buffers and the track rewinds to the first frame not yet heard
// (handed to the device, where it cannot cut), so Resume loses nothing.
// The device stays open and measured.
func (o *Output) Pause() {
	defer o.poke()
	consumed := o.consumedNow()
	d, cuts := o.device().(interface{ cutNow() int64 })
	if cuts {
		if f := d.cutNow(); f >= 0 {
			consumed = f // what the device held was not heard
		}
	}
	o.devMu.Lock()
	muted := o.muted
	o.devMu.Unlock()
	switch {
	case o.mix.pause(consumed):
		o.setMuted(true)
	case cuts:
		o.setMuted(muted) // the cut muted the device: its gain again
	}
}

// Resume continues after Pause at the position where the sound stopped.
func (o *Output) Resume() {
	o.mix.resume()
	o.cutBefore(o.mix.switchedAt())
	o.poke()
}

// posNow is the position of track t now, as the monitor would measure it:
// at least last, the one measured last (heard frames only grow).
func (o *Output) posNow(t Track, last time.Duration) time.Duration {
	c := o.consumedNow()
	if c < 0 {
		return last
	}
	if got, pos, ok := o.mix.posAt(c - o.latency); ok && got == t {
		return max(last, framesToDuration(pos, o.opts.SampleRate))
	}
	return last
}

// consumedNow is the first frame the device has not taken, or -1 without
// a device. written is read before Buffered, so it errs early: a rewind
// repeats a few frames rather than losing them.
func (o *Output) consumedNow() int64 {
	d := o.device()
	if d == nil {
		return -1
	}
	w := o.mix.writtenFrames()
	return w - int64(d.Buffered()/bytesPerFrame)
}

// Stop drops the current and prepared tracks and mutes what the device
// still buffers: silence within about BufferSize. No Finished follows for
// them. A Play right after starts once the muted frames are gone.
func (o *Output) Stop() {
	defer o.poke()
	if o.mix.stop() {
		o.setMuted(true)
	}
}

func (o *Output) setMuted(m bool) {
	o.devMu.Lock()
	defer o.devMu.Unlock()
	o.muted = m
	if o.dev == nil {
		return
	}
	if m {
		o.dev.SetGain(0)
		if d, ok := o.dev.(interface{ dropMuted() }); ok {
			d.dropMuted()
		}
	} else {
		o.dev.SetGain(o.gain)
	}
}

// Seek moves the current track to d (clamped to the track); it reports
// false when nothing is loaded.
func (o *Output) Seek(d time.Duration) bool {
	defer o.poke()
	if !o.mix.seek(durationToFrames(d, o.opts.SampleRate)) {
		return false
	}
	o.cutBefore(o.mix.switchedAt())
	return true
}

// SetGain changes the gain of track t (Source.GainDB: ReplayGain) while
// it plays or waits prepared; it applies to what the device takes next.
// It reports false when t is neither.
func (o *Output) SetGain(t Track, db float64) bool { return o.mix.setGain(t, db) }

// SetVolume sets the volume, 0..100 (clamped), on the perceptual curve of
// Gain. It applies to what the device consumes next.
func (o *Output) SetVolume(v int) {
	v = max(0, min(100, v))
	o.volume.Store(int64(v))
	o.devMu.Lock()
	defer o.devMu.Unlock()
	o.gain = Gain(v)
	if o.dev != nil && !o.muted {
		o.dev.SetGain(o.gain)
	}
}

// Report returns the truth now (as of the last measurement, at most
// Options.SteadyTick old while nothing changes, but for the position of a
// track playing on, which is taken now), for the engine's heartbeat.
func (o *Output) Report() Report {
	o.repMu.Lock()
	r := o.report
	o.repMu.Unlock()
	if r.Playing {
		r.Pos = o.posNow(r.Track, r.Pos)
	}
	r.Paused = o.mix.isPaused()
	r.Volume = int(o.volume.Load())
	r.Dropped = o.dropped.Load()
	return r
}

// Close stops the output: the device stops pulling, the track goroutines
// end, and Events is closed. The oto context stays (it cannot be closed),
// so a process opens one Output in its lifetime.
func (o *Output) Close() error {
	o.closeMu.Do(func() {
		close(o.quit)
		<-o.done
		o.mix.stop()
		o.devMu.Lock()
		if o.dev != nil {
			o.dev.Close()
		}
		o.devMu.Unlock()
		o.emitMu.Lock()
		o.closed = true
		close(o.events)
		o.emitMu.Unlock()
		o.repMu.Lock()
		o.report.Available, o.report.Playing, o.report.Err = false, false, ErrClosed
		o.repMu.Unlock()
	})
	return nil
}

// poke tells the monitor a command changed what the device will play, so
// it measures at the fast pace until things settle.
func (o *Output) poke() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// monitor measures the device every Tick while something is changing (a
// device starting, a pause or stop being muted, a track starting or
// ending, a command just given) and every SteadyTick while it plays on or
// stays silent, and turns what the device consumed into events and the
// report. A process that plays wakes far less often that way (every wake
// of the Go runtime costs CPU, see Options.SteadyTick).
func (o *Output) monitor() {
	defer close(o.done)
	t := time.NewTimer(o.opts.Tick)
	defer t.Stop()
	due := time.Now().Add(o.opts.Tick)
	var m meter
	for {
		select {
		case <-o.quit:
			return
		case <-o.wake:
			if soon := time.Now().Add(o.opts.Tick); soon.Before(due) {
				due = soon
				t.Reset(o.opts.Tick)
			}
		case now := <-t.C:
			o.measure(&m, now)
			if m.suspended || m.failed && !o.mix.settling() {
				// Nothing to measure until a command wakes the monitor:
				// a device that failed to open stays failed, and
				// measuring it every Tick cost a box without sound
				// 1 % of a core and 500 wakeups a second.
				due = now.Add(time.Hour)
				continue
			}
			next := o.opts.SteadyTick
			held, first, timed := o.mix.pending()
			switch {
			case !m.started || !m.known || held:
				next = o.opts.Tick
			case timed:
				// A track's start or end is due when the device gets to
				// its frame: measured then, not every Tick until then
				// (the ring and the device hold up to 500 ms ahead).
				next = min(max(framesToDuration(first-m.heard, o.opts.SampleRate), o.opts.Tick), next)
			}
			due = now.Add(next)
			t.Reset(next)
		}
	}
}

// meter is the monitor's memory between measurements.
type meter struct {
	start       time.Time // the first measurement: StartupGrace runs from it
	consumed    int64
	heard       int64
	lastAdvance time.Time
	started     bool // consumed more than the prefill: the device runs
	known       bool // an Availability was emitted
	available   bool
	errText     string
	playing     bool
	lastPos     time.Time
	idleSince   time.Time // running with nothing to play since; zero when not
	suspended   bool      // the device is suspended (Options.IdleSuspend)
	failed      bool      // the device did not open, and that was told (Availability)
}

func (o *Output) measure(m *meter, now time.Time) {
	if m.start.IsZero() {
		m.start = now
	}
	dev := o.device()
	if m.suspended && dev != nil && !o.mix.idle() {
		// Something to play: pull samples again. The stall clock starts
		// over, as the device took nothing while suspended.
		if err := dev.Resume(); err == nil {
			m.suspended, m.lastAdvance = false, now
		}
	}
	var devErr error
	if dev != nil {
		written := o.mix.writtenFrames() // before Buffered: never overestimates
		devErr = dev.Err()
		c := written - int64(dev.Buffered()/bytesPerFrame)
		if c > m.consumed {
			m.consumed = c
			m.lastAdvance = now
		}
	}
	// A new stream takes its prefill (the sound server's buffer, about
	// BufferSize) at once, then an idle PulseAudio sink can stall it for
	// 1-2 s: only consumption past the prefill shows a running device.
	if !m.started && m.consumed > o.prefill() {
		m.started = true
	}
	// Once running, a stall counts only after StallTimeout: PulseAudio
	// stalls every stream briefly when another client comes or goes.
	available := dev != nil && devErr == nil && m.started &&
		(m.suspended && m.available || now.Sub(m.lastAdvance) <= o.opts.StallTimeout)
	var why error
	switch {
	case available:
	case devErr != nil:
		why = devErr
	case !m.started && now.Sub(m.start) < o.opts.StartupGrace:
		// Starting: not yet known, so neither available nor an error.
	default:
		why = ErrNotConsuming
	}
	if o.mix.release(m.consumed) {
		o.setMuted(false)
	}
	// What the device consumed is still in its own buffer (about
	// BufferSize, which the blocking writes keep full) before it is heard.
	heard := max(0, m.consumed-o.latency)
	if heard < m.heard {
		heard = m.heard
	}
	m.heard = heard
	st := o.mix.observe(heard)
	playing := available && st.playing
	for _, ev := range st.events {
		o.emit(ev)
	}
	if dev != nil && (available || why != nil) {
		text := ""
		if why != nil {
			text = why.Error()
		}
		if !m.known || available != m.available || text != m.errText {
			m.known, m.available, m.errText = true, available, text
			o.emit(Availability{Available: available, Err: why})
		}
	}
	_, m.failed = dev.(failedDevice)
	m.failed = m.failed && m.known
	if playing != m.playing {
		m.playing = playing
		o.emit(Activity{Playing: playing})
		m.lastPos = time.Time{}
	}
	pos := framesToDuration(st.pos, o.opts.SampleRate)
	if playing && o.opts.PositionInterval > 0 && now.Sub(m.lastPos) >= o.opts.PositionInterval {
		m.lastPos = now
		o.emit(Position{Track: st.track, Pos: pos})
	}
	o.repMu.Lock()
	o.report = Report{Available: available, Err: why, Playing: playing, Track: st.track, Pos: pos, Consumed: m.consumed}
	o.repMu.Unlock()
	o.suspendIdle(m, dev, available, now)
}

// suspendIdle suspends a running device that had nothing to play for
// Options.IdleSuspend (measure resumes it when there is).
func (o *Output) suspendIdle(m *meter, dev device, available bool, now time.Time) {
	if m.suspended || o.opts.IdleSuspend < 0 {
		return
	}
	if !available || !o.mix.idle() {
		m.idleSince = time.Time{}
		return
	}
	if m.idleSince.IsZero() {
		m.idleSince = now
	}
	if now.Sub(m.idleSince) >= o.opts.IdleSuspend && dev.Suspend() == nil {
		m.suspended, m.idleSince = true, time.Time{}
	}
}

// prefill is how many frames a device may take when it opens without
// running: its own buffer (BufferSize), counted twice for the sound
// server's rounding of it.
func (o *Output) prefill() int64 {
	return 2 * durationToFrames(o.opts.BufferSize, o.opts.SampleRate)
}

// failedDevice stands for a device that did not open.
type failedDevice struct{ err error }

func (f failedDevice) Err() error      { return f.err }
func (f failedDevice) Buffered() int   { return 0 }
func (f failedDevice) SetGain(float64) {}
func (f failedDevice) Close()          {}
func (f failedDevice) Suspend() error  { return f.err }
func (f failedDevice) Resume() error   { return f.err }
