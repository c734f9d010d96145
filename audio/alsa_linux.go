//go:build cgo && !oto

package audio

// The Linux output: ALSA (through which PulseAudio and PipeWire are
// reached too) written by a C thread of our own (alsa_linux.c) rather
// than by oto.
//
// oto writes to ALSA from a goroutine, with a cgo call that blocks for a
// device period (13-20 ms). The Go runtime takes the P away from a cgo
// call blocked for more than 10 ms, and each time its sysmon thread then
// polls every 20 µs for a while: on `furudesk --headless` playing an MP3
// through PulseAudio, 2,100-2,300 context switches a second (issues 15
// and 18 ask for 3 % of a core in all). Here the blocking writes happen
// on a C thread the Go runtime does not know. It takes a period at a time
// from a ring of 16-bit frames in C memory, and while the ring is low it
// writes to an eventfd; a goroutine waiting on that eventfd (through the
// runtime's poller) refills the ring from the mixer, writing the ring and
// its positions directly, with no cgo call. Measured the same way: 700
// context switches a second and 2.75-3.0 % of a core (oto's: 6.75-7.55 %
// on the same quiet machine).
//
// Semantics are oto's: the device buffer is BufferSize (200 ms by
// default, taken half at a time), Buffered is what the ring holds,
// the gain applies as a period is taken, a ring that runs dry gives
// silence rather than an underrun, and Suspend stops the writes. The
// ring is long, so the feeding goroutine may be late (a loaded machine)
// without a dropout, yet its length adds no latency: a mute drops what it
// holds (dropMuted), a Play or seek passes over what it holds of what
// played before (cutBefore), and the thread passes over the mixer's
// silence that precedes a track's frames (refill). The device buffer's
// length adds none either: a mute, an unmute or such a skip cuts what the
// device holds (snd_pcm_drop) and takes again the frames it had not
// played, so Play, Resume, Pause and seeks are heard at once (after the
// sound server's latency); a volume change is heard within the device
// buffer. The long buffer is what makes playing cheap: measured on
// `furudesk --headless` playing FLAC through PulseAudio, the thread
// switches context some 30 times a second and the plugin's 50 (with a
// 100 ms buffer 58 and 100; see openDevice). Frames short of a period are
// written alone, never padded with silence (a gap before the frames that
// follow).
//
// Build with -tags oto to use oto's ALSA driver instead.

/*
#cgo pkg-config: alsa
#cgo LDFLAGS: -lpthread
#include <stdlib.h>
#include <alsa/asoundlib.h>
#include "alsa_linux.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// defaultBufferSize is Options.BufferSize's default here: a long device
// buffer, so that the thread and the sound server wake ten times a
// second while music plays, and each control cuts what the device holds
// (cut in alsa_linux.c), so that a Pause, Stop, Play or seek is still
// heard at once. A volume change is heard within it.
const defaultBufferSize = 200 * time.Millisecond

// alsaDevice is the device of alsa_linux.c and the goroutine that keeps
// its ring full from the mixer.
type alsaDevice struct {
	a      *C.fd_alsa
	ring   []byte // the C ring, cap frames
	cap    uint64
	wpos   *uint64 // C's, atomic
	rpos   *uint64
	gain   *uint32
	cerr   *int32
	ev     *os.File // the eventfd the thread writes while the ring is low
	cmd    int      // the eventfd that wakes the thread (fd_alsa_wake)
	src    *mixer
	period uint64 // frames the thread takes at a time
	keep   uint64 // frames left in the ring behind rpos (a->keep)
	// silentFrom is where the ring's run of the mixer's silence began, -1
	// when the last frames were a track's (feed's own).
	silentFrom int64
	done       chan struct{}
	mu         sync.Mutex
	err        error // from waiting for the thread
	closed     bool
}

// openDevice opens the default device for o and starts pulling from src;
// it blocks until the device is open (or failed).
func openDevice(o Options, src *mixer) (device, error) {
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("audio: eventfd: %w", err)
	}
	cmd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(efd)
		return nil, fmt.Errorf("audio: eventfd: %w", err)
	}
	buffer := durationToFrames(o.BufferSize, o.SampleRate)
	// The device takes half its buffer at a time: the thread and the
	// sound server's plugin wake about every 100 ms at the default 200 ms
	// (a shorter buffer, or periods of a quarter, made the plugin wake
	// twice as often). The ring holds two and a half device buffers: one
	// behind what the thread took (the device may not have played it
	// yet, see cut in alsa_linux.c) and up to one and a half ahead,
	// refilled when it holds less than three quarters: the goroutine
	// wakes about every 150 ms and may be late by as long again before
	// the device gets silence. The device and the ring put the mixer up
	// to 500 ms ahead of what is heard. A control cuts that (see refill,
	// dropMuted and cut), but the app prepares the next track when it
	// hears the current one start, so a longer lookahead (db71198's
	// 1.2 s) ran past the end of 1 s tracks before they were prepared.
	period, ring, low := buffer/2, 5*buffer/2, 3*buffer/4
	errBuf := (*C.char)(C.malloc(1024))
	defer C.free(unsafe.Pointer(errBuf))
	a := C.fd_alsa_open(C.int(efd), C.int(cmd), C.uint(o.SampleRate), C.uint(buffer), C.uint(period), C.uint(ring), C.uint(low), errBuf, 1024)
	if a == nil {
		unix.Close(efd)
		unix.Close(cmd)
		return nil, fmt.Errorf("audio: ALSA error at snd_pcm_open: %s", C.GoString(errBuf))
	}
	d := &alsaDevice{
		a:          a,
		ring:       unsafe.Slice((*byte)(unsafe.Pointer(a.ring)), int(a.cap)*bytesPerFrame),
		cap:        uint64(a.cap),
		wpos:       (*uint64)(unsafe.Pointer(&a.wpos)),
		rpos:       (*uint64)(unsafe.Pointer(&a.rpos)),
		gain:       (*uint32)(unsafe.Pointer(&a.gain)),
		cerr:       (*int32)(unsafe.Pointer(&a.err)),
		ev:         os.NewFile(uintptr(efd), "furudesk-alsa-eventfd"),
		cmd:        cmd,
		src:        src,
		period:     uint64(a.period),
		keep:       uint64(a.keep),
		silentFrom: -1,
		done:       make(chan struct{}),
	}
	d.refill()
	go d.feed()
	return d, nil
}

// feed refills the ring each time the thread asks, until Close closes the
// eventfd or the thread fails.
func (d *alsaDevice) feed() {
	defer close(d.done)
	var b [8]byte
	for {
		if _, err := d.ev.Read(b[:]); err != nil {
			if !errors.Is(err, os.ErrClosed) {
				d.fail(fmt.Errorf("audio: waiting for the ALSA thread: %w", err))
			}
			return
		}
		if atomic.LoadInt32(d.cerr) != 0 {
			return
		}
		d.refill()
	}
}

// refill tops the ring up from the mixer a period at a time. It stops
// early when the track starved (its decoder is behind, after a seek or a
// resume): the silence standing in is then at most a period, and the
// thread asks again a period later while the ring is low. When a track's
// frames follow the mixer's own silence, the thread is told to pass over
// that silence, so a Play or Resume is heard after the device buffer, not
// after the ring too.
func (d *alsaDevice) refill() {
	w := atomic.LoadUint64(d.wpos)
	// The device buffer's worth behind rpos stays: the thread may take it
	// again (a cut).
	held := w - atomic.LoadUint64(d.rpos) + d.keep
	if held >= d.cap {
		return
	}
	free := d.cap - held
	for free > 0 {
		at := w % d.cap
		n := min(free, d.cap-at, d.period) // never across the ring's end
		got, audible, starved := d.src.read(d.ring[at*bytesPerFrame : (at+n)*bytesPerFrame])
		n = uint64(got / bytesPerFrame)
		switch {
		case audible && d.silentFrom >= 0:
			C.fd_alsa_skip(d.a, C.uint64_t(d.silentFrom), C.uint64_t(w))
			d.silentFrom = -1
		case !audible && d.silentFrom < 0:
			d.silentFrom = int64(w)
		}
		w += n
		free -= n
		atomic.StoreUint64(d.wpos, w)
		if starved {
			break
		}
	}
	// The thread may be waiting for these frames (wait_go).
	C.fd_alsa_wake(d.a)
}

func (d *alsaDevice) fail(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err == nil {
		d.err = err
	}
}

func (d *alsaDevice) Err() error {
	if atomic.LoadInt32(d.cerr) != 0 {
		return fmt.Errorf("audio: ALSA error at %s: %s", C.GoString(d.a.where), C.GoString(C.snd_strerror(C.int(atomic.LoadInt32(d.cerr)))))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

func (d *alsaDevice) Buffered() int {
	r := atomic.LoadUint64(d.rpos)
	return int(atomic.LoadUint64(d.wpos)-r) * bytesPerFrame
}

// SetGain applies to the frames the thread takes next; a mute or an
// unmute also cuts what the device holds, so that it is heard at once.
func (d *alsaDevice) SetGain(g float64) {
	if old := atomic.SwapUint32(d.gain, math.Float32bits(float32(g))); (old == 0) != (g == 0) {
		C.fd_alsa_wake(d.a)
	}
}

// dropMuted lets the thread skip what the ring holds now: after a mute
// (Pause, Stop) nothing of it is to be heard, and a Play or Resume then
// need not wait for the ring to play out in silence.
func (d *alsaDevice) dropMuted() { C.fd_alsa_skip(d.a, 0, C.uint64_t(atomic.LoadUint64(d.wpos))) }

// cutNow cuts what the device holds, muted (gain 0) from then on, and
// returns, once the thread did, the first frame not heard (ring positions
// count the mixer's frames), or -1 when the thread does not run
// (suspended, ended; then nothing changed): for Pause, which sets the
// gain again after.
func (d *alsaDevice) cutNow() int64 { return int64(C.fd_alsa_cut(d.a, 1)) }

// cutBefore lets the thread pass over the ring's frames before f (ring
// positions count the mixer's frames), and cut the device if it holds
// some: what played before a Play or a seek.
func (d *alsaDevice) cutBefore(f int64) {
	if w := int64(atomic.LoadUint64(d.wpos)); f > w {
		f = w
	}
	if f > 0 {
		C.fd_alsa_skip(d.a, 0, C.uint64_t(f))
	}
}

func (d *alsaDevice) Suspend() error {
	if err := d.Err(); err != nil {
		return err
	}
	C.fd_alsa_suspend(d.a, 1)
	return nil
}

func (d *alsaDevice) Resume() error {
	if err := d.Err(); err != nil {
		return err
	}
	C.fd_alsa_suspend(d.a, 0)
	return nil
}

// Close ends the thread and the goroutine; the device stays open (see
// fd_alsa_stop).
func (d *alsaDevice) Close() {
	d.mu.Lock()
	closed := d.closed
	d.closed = true
	d.mu.Unlock()
	if closed {
		return
	}
	C.fd_alsa_stop(d.a)
	d.ev.Close()
	<-d.done
	unix.Close(d.cmd)
}
