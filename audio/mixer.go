package audio

import (
	"sync"
)

// maxMarks bounds the timeline kept between what was written and what the
// device consumed. Marks are added only at discontinuities inside a Read,
// and Reads happen only when the small device-side buffer has room, so the
// bound is never reached in practice; past it the oldest marks go.
const maxMarks = 4096

// mark starts a run of written frames: silence, or consecutive frames of
// one track starting at track frame pos.
type mark struct {
	at     int64 // index in the written stream
	track  Track
	pos    int64
	silent bool
}

// timed is an event that becomes true when the device consumes frame at.
type timed struct {
	at int64
	ev Event
}

// mixer is the io.Reader oto plays. It writes the current track, runs into
// the prepared next track within the same Read (gapless), writes silence
// when paused, stopped or starved, and keeps a timeline of what it wrote so
// the monitor can tell what the device consumed.
type mixer struct {
	mu     sync.Mutex
	rate   int
	ahead  int // chunks decoded ahead per track
	onErr  func(Track, error)
	cur    *stream
	next   *stream
	paused bool
	// held keeps writing silence after Stop until the device consumed
	// everything written before it (the frames the output mutes), so a
	// following Play is not muted with them.
	held   bool
	stopAt int64
	// ended: the current track ended with nothing prepared. A prepare
	// then plays at once: the app prepares a track when it hears the
	// current one start, and the device's buffer and ring put the mixer
	// up to their length ahead of what is heard, which a short track can
	// end within.
	ended   bool
	written int64
	// switched is written as of the last play, seek or resume: the
	// frames before it are of what played before, or the pause's silence
	// (Output.cutBefore).
	switched int64
	marks    []mark
	timed    []timed
	seq      uint64
}

func newMixer(rate, ahead int, onErr func(Track, error)) *mixer {
	return &mixer{rate: rate, ahead: ahead, onErr: onErr}
}

// Read fills p with whole frames and never blocks on decoding.
func (m *mixer) Read(p []byte) (int, error) {
	n, _, _ := m.read(p)
	return n, nil
}

// read is Read, also telling whether any of p is a track's (audible, even
// if the track is silent there) and whether the current track starved (its
// decoder was behind, so silence stands in for what it lacked). A read
// that starves after some of a track's frames returns those alone (n is
// less than len(p)); one that starves at once is silence throughout.
func (m *mixer) read(p []byte) (n int, audible, starved bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	total := len(p) / bytesPerFrame * bytesPerFrame
	i := 0
	for i < total {
		if m.paused || m.held || m.cur == nil {
			m.silence(p, i, total)
			break
		}
		s := m.cur
		n, pos, r := s.take(p[i:total])
		switch r {
		case takeOK:
			if g := s.gain.Load(); g != 0 {
				applyGain(p[i:i+n], g)
			}
			at := m.written + int64(i/bytesPerFrame)
			if !s.started {
				s.started = true
				m.addTimed(at, Started{Track: s.track, At: framesToDuration(pos, m.rate)})
			}
			m.addMark(mark{at: at, track: s.track, pos: pos})
			i += n
			audible = true
		case takeStarve:
			starved = true
			if i > 0 {
				// What the track gave comes back alone: silence in the
				// middle of a read would not be told from the track's.
				total = i
				break
			}
			i = m.silence(p, i, total)
		case takeEnd:
			if !s.failed {
				m.addTimed(m.written+int64(i/bytesPerFrame), Finished{Track: s.track})
			}
			s.close()
			m.cur, m.next = m.next, nil
			m.ended = m.cur == nil
		}
	}
	m.written += int64(total / bytesPerFrame)
	return total, audible, starved
}

// silence zeroes p[i:total], marks it and returns total.
func (m *mixer) silence(p []byte, i, total int) int {
	clear(p[i:total])
	m.addMark(mark{at: m.written + int64(i/bytesPerFrame), silent: true})
	return total
}

func (m *mixer) addMark(k mark) {
	if n := len(m.marks); n > 0 {
		last := m.marks[n-1]
		if last.silent && k.silent {
			return
		}
		if !last.silent && !k.silent && last.track == k.track && last.pos+(k.at-last.at) == k.pos {
			return
		}
	}
	if len(m.marks) >= maxMarks {
		m.marks = append(m.marks[:0], m.marks[len(m.marks)-maxMarks/2:]...)
	}
	m.marks = append(m.marks, k)
}

func (m *mixer) addTimed(at int64, ev Event) {
	if len(m.timed) >= maxMarks {
		m.timed = append(m.timed[:0], m.timed[len(m.timed)-maxMarks/2:]...)
	}
	m.timed = append(m.timed, timed{at: at, ev: ev})
}

// consumedState is what the device did up to a consumed frame count.
type consumedState struct {
	playing bool  // the last consumed frame was a track frame
	track   Track // track at the device, or the current one when silent
	pos     int64 // frames: position after the last consumed frame, or the cursor
	paused  bool
	events  []Event // timed events released by this consumption
}

// observe releases the timed events whose frame the device consumed and
// describes the last consumed frame. consumed never decreases.
func (m *mixer) observe(consumed int64) consumedState {
	m.mu.Lock()
	defer m.mu.Unlock()
	var st consumedState
	k := 0
	for k < len(m.timed) && m.timed[k].at < consumed {
		st.events = append(st.events, m.timed[k].ev)
		k++
	}
	m.timed = append(m.timed[:0], m.timed[k:]...)
	// The mark holding frame consumed-1 is the last with at < consumed.
	j := -1
	for x := len(m.marks) - 1; x >= 0; x-- {
		if m.marks[x].at < consumed {
			j = x
			break
		}
	}
	if j > 0 {
		m.marks = append(m.marks[:0], m.marks[j:]...)
		j = 0
	}
	st.paused = m.paused
	if j == 0 && !m.marks[0].silent {
		k := m.marks[0]
		st.playing = true
		st.track = k.track
		st.pos = k.pos + consumed - k.at
		return st
	}
	if m.cur != nil {
		st.track = m.cur.track
		st.pos = m.cur.cursor
	}
	return st
}

// posAt is the track and position after frame heard-1, as observe would
// tell them, without releasing or dropping anything; ok is false when that
// frame is silence or older than the marks kept.
func (m *mixer) posAt(heard int64) (t Track, pos int64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for x := len(m.marks) - 1; x >= 0; x-- {
		if k := m.marks[x]; k.at < heard {
			if k.silent {
				return Track{}, 0, false
			}
			return k.track, k.pos + heard - k.at, true
		}
	}
	return Track{}, 0, false
}

// settling reports frames in flight that the monitor must follow closely:
// a stop or pause being muted, or events waiting for the device to reach
// their frame (a track starting or ending).
func (m *mixer) settling() bool {
	held, _, timed := m.pending()
	return held || timed
}

// pending tells whether Stop's hold runs and, as first, the frame of the
// earliest timed event not yet released (ok false when none).
func (m *mixer) pending() (held bool, first int64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.timed) > 0 {
		first, ok = m.timed[0].at, true
	}
	return m.held, first, ok
}

// idle reports that the mixer has nothing to play (no track, or paused)
// and nothing in flight (see settling): the device may stop pulling.
func (m *mixer) idle() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return (m.cur == nil || m.paused) && !m.held && len(m.timed) == 0
}

// written returns the frames handed to the device so far.
func (m *mixer) writtenFrames() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.written
}

func (m *mixer) newTrack(src Source) Track {
	m.seq++
	return Track{ID: src.ID, Seq: m.seq}
}

// play replaces the current track (and drops the prepared one).
func (m *mixer) play(src Source, at int64) Track {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.newTrack(src)
	m.closeAll()
	m.cur = startStream(t, src, m.rate, at, m.ahead, m.onErr)
	m.paused, m.ended = false, false
	m.switched = m.written
	return t
}

// switchedAt is written as of the last play, seek or resume.
func (m *mixer) switchedAt() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.switched
}

// prepare sets the track that follows the current one without a gap.
func (m *mixer) prepare(src Source) Track {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.newTrack(src)
	if m.next != nil {
		m.next.close()
	}
	// The report is checked under the mutex, so clearNext cannot slip in
	// between the check and the report; s is assigned before the
	// goroutine can take the mutex.
	var s *stream
	s = startStream(t, src, m.rate, 0, m.ahead, func(t Track, err error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if !s.cleared {
			m.onErr(t, err)
		}
	})
	if m.ended && m.cur == nil {
		m.cur, m.ended = s, false // see ended
		return t
	}
	m.next = s
	return t
}

// clearNext drops the prepared track, and with it every later report of
// its decoding goroutine; the current track is untouched.
func (m *mixer) clearNext() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next != nil {
		m.next.cleared = true
		m.next.close()
		m.next = nil
	}
}

func (m *mixer) closeAll() {
	if m.cur != nil {
		m.cur.close()
		m.cur = nil
	}
	if m.next != nil {
		m.next.close()
		m.next = nil
	}
}

// stop drops both tracks. It returns true when frames written before it may
// still sound: the caller mutes the device until release says they are gone.
func (m *mixer) stop() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closeAll()
	m.paused, m.ended = false, false
	m.held = true
	m.stopAt = m.written
	return true
}

// release ends the hold of stop once the device consumed frame stopAt;
// true when it did (the caller unmutes).
func (m *mixer) release(consumed int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.held || consumed < m.stopAt {
		return false
	}
	m.held = false
	return true
}

// pause writes silence from now on. consumed is the first frame the device
// has not taken yet (-1 unknown): the caller mutes the device when pause
// returns true, so the frames after it are never heard, and the current
// track rewinds to the first of its frames among them to resume without
// losing them. When that frame is before the current track's first one
// (the silence before it, or the tail of the track before), the track
// starts again from there: its Started waits for the resume, and the
// events of the frames not heard (the tail's Finished) are due at once.
func (m *mixer) pause(consumed int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.paused {
		return false
	}
	m.paused = true
	if consumed < 0 || consumed >= m.written {
		return false
	}
	j := -1
	for x := len(m.marks) - 1; x >= 0; x-- {
		if m.marks[x].at <= consumed {
			j = x
			break
		}
	}
	if j < 0 {
		return false
	}
	k := m.marks[j]
	if s := m.cur; s != nil {
		if !k.silent && k.track == s.track {
			s.seek(k.pos + consumed - k.at)
		} else if x := m.firstMarkOf(s.track, j+1); x >= 0 {
			s.seek(m.marks[x].pos)
			m.unstart(s)
		}
	}
	for x := range m.timed {
		m.timed[x].at = min(m.timed[x].at, consumed)
	}
	if k.at == consumed {
		m.marks = m.marks[:j]
	} else {
		m.marks = m.marks[:j+1]
	}
	m.addMark(mark{at: consumed, silent: true})
	m.held = true
	m.stopAt = m.written
	return true
}

// firstMarkOf is the index of the first mark of track t from index from
// on, -1 when none.
func (m *mixer) firstMarkOf(t Track, from int) int {
	for x := from; x < len(m.marks); x++ {
		if !m.marks[x].silent && m.marks[x].track == t {
			return x
		}
	}
	return -1
}

// unstart drops s's Started while the device has not consumed its frame,
// so that it is written (and told) again when s next starts.
func (m *mixer) unstart(s *stream) {
	for x, e := range m.timed {
		if st, ok := e.ev.(Started); ok && st.Track == s.track {
			m.timed = append(m.timed[:x], m.timed[x+1:]...)
			s.started = false
			return
		}
	}
}

func (m *mixer) resume() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.paused {
		m.switched = m.written // the pause's silence before it
	}
	m.paused = false
}

func (m *mixer) isPaused() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.paused
}

// setGain sets the gain of track t, current or prepared; false when
// neither is t.
func (m *mixer) setGain(t Track, db float64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range []*stream{m.cur, m.next} {
		if s != nil && s.track == t {
			s.gain.Store(gainQ16(db))
			return true
		}
	}
	return false
}

// seek moves the current track to frame f; false when nothing is loaded.
func (m *mixer) seek(f int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur == nil {
		return false
	}
	m.cur.seek(f)
	m.switched = m.written
	return true
}
