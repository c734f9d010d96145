package audio

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// chunkFrames is the unit of decode-ahead: about 46 ms at 44.1 kHz.
const chunkFrames = 2048

// maxIdleReads bounds decoder reads that return nothing and no error before
// the stream is declared corrupt (a decoder stuck in a loop).
const maxIdleReads = 64

// chunk is decoded audio handed from a stream's goroutine to the mixer.
type chunk struct {
	gen  uint64 // seek generation it belongs to
	data []byte // whole frames
	pos  int64  // track frame of data[0]
	end  bool   // nothing follows in this generation
	err  error  // why it ended, nil at a clean end
}

type seekReq struct {
	gen   uint64
	frame int64
}

// stream decodes one track ahead of the mixer on its own goroutine, so a
// slow file or decoder never blocks the device thread or the caller.
type stream struct {
	track  Track
	chunks chan chunk
	seekCh chan seekReq // capacity 1: a newer seek replaces an unserved one
	quit   chan struct{}
	done   chan struct{}
	once   sync.Once
	// endSent is set when the goroutine handed over its last chunk; tests
	// wait on it instead of sleeping.
	endSent atomic.Bool
	// gain scales the samples as the mixer hands them to the device
	// (gainQ16; 0 is unity), so a change applies at once.
	gain atomic.Int32
	// interrupt, once the source is open, stops a read of it that waits
	// (an Interrupter's): close calls it.
	interrupt atomic.Pointer[func()]

	// Reader side, guarded by the mixer's mutex.
	gen     uint64
	cur     chunk
	cursor  int64 // track frame the mixer writes next
	started bool  // first frame was written
	primed  bool  // enough is decoded to start sounding without starving
	ended   bool
	failed  bool
	cleared bool // dropped by clearNext: its failures are not reported
}

// startStream opens src on a new goroutine and decodes from frame at.
// onErr is called (from that goroutine) when opening or decoding fails,
// and once, with a *DamageError, when the track reached its end damaged
// (it did not fail).
func startStream(t Track, src Source, rate int, at int64, ahead int, onErr func(Track, error)) *stream {
	s := &stream{
		track:  t,
		chunks: make(chan chunk, max(ahead, 1)),
		seekCh: make(chan seekReq, 1),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
		cursor: at,
	}
	s.gain.Store(gainQ16(src.GainDB))
	go s.run(src, rate, at, onErr)
	return s
}

// Interrupter is a source reader whose reads may wait (a track fetched
// from another device while it plays). When the output drops the track,
// it calls Interrupt from another goroutine, so a read that waits returns
// at once instead of holding the decoding goroutine.
type Interrupter interface{ Interrupt() }

func (s *stream) close() {
	s.once.Do(func() {
		close(s.quit)
		if f := s.interrupt.Load(); f != nil {
			(*f)()
		}
	})
}

func (s *stream) run(src Source, rate int, at int64, onErr func(Track, error)) {
	defer close(s.done)
	var gen uint64
	fail := func(err error) {
		onErr(s.track, err)
		select {
		case s.chunks <- chunk{gen: gen, end: true, err: err}:
		case <-s.quit:
		}
	}
	f, err := openSource(src)
	if err != nil {
		fail(err)
		return
	}
	defer func() { _ = f.Close() }() // read-only: nothing to lose on close
	if i, ok := f.(Interrupter); ok {
		stop := i.Interrupt
		s.interrupt.Store(&stop)
		select {
		case <-s.quit: // closed while it opened
			stop()
		default:
		}
	}
	dec, err := NewDecoder(f, src.name(), rate)
	if err != nil {
		fail(err)
		return
	}
	defer dec.Close()
	if at > 0 {
		if err := dec.SeekFrame(at); err != nil {
			fail(err)
			return
		}
	}
	ended := false
	idle := 0
	damageTold := false // a DamageError is reported once a play
	seek := func(req seekReq) {
		gen, ended, idle = req.gen, false, 0
		if err := dec.SeekFrame(req.frame); err != nil {
			fail(err)
			ended = true
		}
	}
	for {
		select {
		case <-s.quit:
			return
		case req := <-s.seekCh:
			seek(req)
			continue
		default:
		}
		if ended { // nothing left to decode: wait for a seek or the end
			select {
			case <-s.quit:
				return
			case req := <-s.seekCh:
				seek(req)
			}
			continue
		}
		c := chunk{gen: gen, pos: dec.Pos()}
		buf := make([]byte, chunkFrames*bytesPerFrame)
		n, err := dec.Read(buf)
		c.data = buf[:n]
		switch {
		case errors.Is(err, io.EOF):
			c.end = true
			if dmg := dec.Damage(true); dmg != nil && !damageTold {
				damageTold = true
				onErr(s.track, dmg)
			}
		case err != nil:
			c.end, c.err = true, err
			onErr(s.track, err)
		case n == 0:
			if idle++; idle > maxIdleReads {
				c.end, c.err = true, fmt.Errorf("%w: decoder makes no progress", ErrCorrupt)
				onErr(s.track, c.err)
			} else {
				continue
			}
		default:
			idle = 0
		}
		ended = c.end
		select {
		case s.chunks <- c:
			if c.end {
				s.endSent.Store(true)
			}
		case <-s.quit:
			return
		case req := <-s.seekCh:
			gen, ended, idle = req.gen, false, 0
			if err := dec.SeekFrame(req.frame); err != nil {
				fail(err)
				ended = true
			}
		}
	}
}

// openSource opens src, turning a panicking Open func into an error.
func openSource(src Source) (f io.ReadSeekCloser, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("audio: opening %q panicked: %v", src.name(), r)
		}
	}()
	f, err = src.open()
	if err == nil && f == nil {
		err = ErrNoSource
	}
	return f, err
}

// takeResult says why take returned no frames.
type takeResult int

const (
	takeOK     takeResult = iota
	takeStarve            // nothing decoded yet: write silence, try later
	takeEnd               // the track ended (cleanly, or failed: see failed)
)

// take copies decoded frames into p without blocking. Mixer side: the
// caller holds the mixer's mutex.
func (s *stream) take(p []byte) (n int, pos int64, r takeResult) {
	if !s.primed {
		// Start (or restart after a seek or an underrun) only with half
		// the read-ahead decoded, or the whole track: otherwise a decoder
		// slower than real time at first (a busy machine, a cold file)
		// stutters instead of starting a little later.
		if len(s.chunks) < (cap(s.chunks)+1)/2 && !s.endSent.Load() && len(s.cur.data) == 0 {
			select {
			case <-s.done:
			default:
				return 0, 0, takeStarve
			}
		}
		s.primed = true
	}
	for {
		if len(s.cur.data) > 0 {
			n = copy(p, s.cur.data)
			pos = s.cur.pos
			s.cur.data = s.cur.data[n:]
			s.cur.pos += int64(n / bytesPerFrame)
			s.cursor = s.cur.pos
			return n, pos, takeOK
		}
		if s.ended || s.cur.end {
			s.ended = true
			s.failed = s.cur.err != nil
			return 0, 0, takeEnd
		}
		select {
		case c := <-s.chunks:
			if c.gen == s.gen {
				s.cur = c
			}
		default:
			select {
			case <-s.done:
				// The goroutine gave up (open failed) and nothing is left.
				if len(s.chunks) == 0 {
					s.ended, s.failed = true, true
					return 0, 0, takeEnd
				}
				continue
			default:
			}
			s.primed = false
			return 0, 0, takeStarve
		}
	}
}

// seek asks the goroutine for frame f; chunks of older generations are
// dropped as they arrive. Mixer side.
func (s *stream) seek(f int64) {
	s.gen++
	s.cur = chunk{}
	s.ended, s.failed, s.primed = false, false, false
	s.cursor = f
	select {
	case <-s.seekCh:
	default:
	}
	s.seekCh <- seekReq{gen: s.gen, frame: f} // never blocks: one sender, drained above
}
