// The ALSA writer thread of alsa_linux.go: see there.
#ifndef FURUDESK_ALSA_H
#define FURUDESK_ALSA_H

#include <stddef.h>
#include <stdint.h>

// fd_alsa is shared with Go, which reads and writes the ring and the
// atomics directly (no cgo call while playing); the rest is the thread's.
typedef struct fd_alsa {
	int16_t *ring;      // cap stereo frames, written by Go
	uint64_t cap;       // frames
	uint64_t period;    // frames the thread takes at a time
	uint64_t low;       // the thread wakes Go when the ring falls below this
	uint64_t keep;      // frames Go leaves in the ring behind rpos: what the device may hold
	uint64_t wpos;      // frames Go put in the ring, ever (atomic)
	uint64_t rpos;      // frames the thread took, ever (atomic)
	uint32_t gain;      // float bits of the linear gain (atomic)
	int32_t err;        // the ALSA error that ended the thread, 0 while it runs (atomic)
	const char *where;  // where err happened, set before err
	uint64_t cuts;      // times the thread cut the device (the thread's; read for tests)
	struct fd_alsa_priv *priv;
} fd_alsa;

// fd_alsa_open opens the first ALSA playback device that works ("default",
// "plug:default", then the others ALSA names) for interleaved float stereo
// at rate with a buffer of buffer_frames in periods of about period_frames
// (ALSA rounds it), and starts its writer thread. The thread takes a
// period at a time from a ring of ring_frames (at least two periods and a
// buffer), silence where the ring lacks frames, and writes 1 to the
// eventfd efd after each period while what the ring holds ahead is below
// low_frames (at most the ring less a buffer and a period); Go writes cmd
// to wake it. On failure it returns NULL and writes the reasons to err.
fd_alsa *fd_alsa_open(int efd, int cmd, unsigned rate, unsigned buffer_frames, unsigned period_frames, unsigned ring_frames, unsigned low_frames, char *err, size_t errlen);

// fd_alsa_skip makes the thread pass over the ring's frames from..to
// (positions as wpos counts them) without a sound: frames muted, or
// silence the mixer wrote before a track began. A range not yet passed
// is widened to cover both.
void fd_alsa_skip(fd_alsa *a, uint64_t from, uint64_t to);

// fd_alsa_wake wakes the thread (the command eventfd): after a change of
// the gain, so that a mute cuts what the device holds at once.
void fd_alsa_wake(fd_alsa *a);

// fd_alsa_cut cuts what the device holds and waits until the thread did
// (not while it is suspended or after it ended: then -1); it returns rpos
// as the cut left it, the first frame not heard. With mute != 0 the
// thread sets the gain to 0 as it cuts, before it takes another frame.
int64_t fd_alsa_cut(fd_alsa *a, int mute);

// fd_alsa_suspend stops (on != 0) or restarts the thread's writing.
void fd_alsa_suspend(fd_alsa *a, int on);

// fd_alsa_stop ends the thread (after at most one period's write). The
// device and a stay: as with oto, closing a stream that may be stalled can
// hang, and a process opens one output in its lifetime.
void fd_alsa_stop(fd_alsa *a);

#endif
