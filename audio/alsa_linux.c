//go:build cgo && !oto

#define _GNU_SOURCE // pthread_setname_np

#include "alsa_linux.h"

#include <alsa/asoundlib.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fd_alsa_priv {
	snd_pcm_t *pcm;
	int efd;    // written to wake Go (a refill, an error)
	int cmd;    // written by Go to wake the thread (a control, Suspend, Stop)
	uint64_t rate;
	uint64_t margin; // frames: the least the device holds before silence fills an empty ring
	struct pollfd *pfd; // the device's poll descriptors and cmd
	int npfd;           // the device's
	float *out; // one period for the device
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	int suspended, quit; // under mu
	uint64_t cut_req, cut_done; // under mu: cuts asked by fd_alsa_cut, made
	uint64_t cut_pos;           // under mu: rpos right after the last of them
	int cut_mute;               // under mu: the asked cut also mutes (Pause)
	pthread_cond_t cut_cond;    // signalled when cut_done grows
	uint64_t skip_from, skip_to; // under mu: see fd_alsa_skip
};

static int set_params(snd_pcm_t *pcm, unsigned rate, snd_pcm_uframes_t *buffer, snd_pcm_uframes_t *period, const char **where) {
	snd_pcm_hw_params_t *p;
	int e;
	snd_pcm_hw_params_alloca(&p);
#define TRY(fn, args)        \
	if ((e = fn args) < 0) { \
		*where = #fn;        \
		return e;            \
	}
	TRY(snd_pcm_hw_params_any, (pcm, p));
	TRY(snd_pcm_hw_params_set_access, (pcm, p, SND_PCM_ACCESS_RW_INTERLEAVED));
	TRY(snd_pcm_hw_params_set_format, (pcm, p, SND_PCM_FORMAT_FLOAT_LE));
	TRY(snd_pcm_hw_params_set_channels, (pcm, p, 2));
	TRY(snd_pcm_hw_params_set_rate_resample, (pcm, p, 1));
	unsigned r = rate;
	TRY(snd_pcm_hw_params_set_rate_near, (pcm, p, &r, NULL));
	TRY(snd_pcm_hw_params_set_buffer_size_near, (pcm, p, buffer));
	TRY(snd_pcm_hw_params_set_period_size_near, (pcm, p, period, NULL));
	TRY(snd_pcm_hw_params, (pcm, p));
#undef TRY
	return 0;
}

// cut drops what the device holds and moves the ring's read position
// back over the frames it had not played yet (at most a->keep, which Go
// leaves in the ring behind it), so that they are taken again: with the
// gain or the skip of now. A control is then heard at once, whatever the
// device buffer's length.
static void cut(fd_alsa *a, struct fd_alsa_priv *v) {
	snd_pcm_sframes_t d = 0;
	if (snd_pcm_delay(v->pcm, &d) < 0 || d < 0) {
		d = 0;
	}
	snd_pcm_drop(v->pcm);
	snd_pcm_prepare(v->pcm);
	uint64_t r = __atomic_load_n(&a->rpos, __ATOMIC_ACQUIRE);
	uint64_t back = (uint64_t)d;
	if (back > a->keep) {
		back = a->keep;
	}
	if (back > r) {
		back = r;
	}
	__atomic_store_n(&a->rpos, r - back, __ATOMIC_RELEASE);
	a->cuts++;
}

// wait blocks until the device has room for a period or Go wrote the
// command eventfd (a control, Suspend, Stop); a second at most.
static void wait_room(struct fd_alsa_priv *v) {
	int n = snd_pcm_poll_descriptors(v->pcm, v->pfd, v->npfd);
	if (n < 0) {
		n = 0;
	}
	v->pfd[n].fd = v->cmd;
	v->pfd[n].events = POLLIN;
	v->pfd[n].revents = 0;
	if (poll(v->pfd, (nfds_t)n + 1, 1000) <= 0) {
		return;
	}
	if (v->pfd[n].revents & POLLIN) {
		uint64_t x;
		ssize_t ignored = read(v->cmd, &x, sizeof x);
		(void)ignored;
	}
	// The plugin's descriptors are read through it (the pulse plugin
	// clears its own wake-up there).
	unsigned short rev;
	snd_pcm_poll_descriptors_revents(v->pcm, v->pfd, (unsigned)n, &rev);
}

// ring_ready is how many frames the ring holds to take from r up to w
// (passing over the skip sf..st).
static uint64_t ring_ready(uint64_t r, uint64_t w, uint64_t sf, uint64_t st) {
	if (r >= sf && r < st) {
		r = st;
	}
	if (r >= w) {
		return 0;
	}
	uint64_t n = w - r;
	if (r < sf && sf < w) {
		n = sf - r + (w > st ? w - st : 0);
	}
	return n;
}

// wait_go waits for Go's refill (it writes the command eventfd after
// one) or a command, ms milliseconds at most.
static void wait_go(struct fd_alsa_priv *v, int ms) {
	struct pollfd p = {.fd = v->cmd, .events = POLLIN};
	if (poll(&p, 1, ms) > 0 && (p.revents & POLLIN)) {
		uint64_t x;
		ssize_t ignored = read(v->cmd, &x, sizeof x);
		(void)ignored;
	}
}

static void *loop(fd_alsa *a);

// run is the thread: loop, then let fd_alsa_cut's waiters go.
static void *run(void *arg) {
	fd_alsa *a = arg;
	struct fd_alsa_priv *v = a->priv;
	pthread_setname_np(pthread_self(), "furudesk-alsa"); // in top -H and /proc
	loop(a);
	pthread_mutex_lock(&v->mu);
	v->quit = 1;
	pthread_cond_broadcast(&v->cut_cond);
	pthread_mutex_unlock(&v->mu);
	return NULL;
}

static void *loop(fd_alsa *a) {
	struct fd_alsa_priv *v = a->priv;
	const uint64_t period = a->period;
	uint32_t taken_gain = __atomic_load_n(&a->gain, __ATOMIC_SEQ_CST);
	uint64_t cut_to = 0; // the end of the last skip that cut the device
	for (;;) {
		pthread_mutex_lock(&v->mu);
		while (v->suspended && !v->quit) {
			pthread_cond_wait(&v->cond, &v->mu);
		}
		int quit = v->quit;
		uint64_t sf = v->skip_from, st = v->skip_to;
		if (!quit && v->cut_done < v->cut_req) {
			cut(a, v);
			if (v->cut_mute) {
				// Muted before anything more is taken: with Go muting
				// after the cut, the period the thread took in between
				// sounded for a moment once the pause was heard.
				__atomic_store_n(&a->gain, 0, __ATOMIC_SEQ_CST);
				taken_gain = 0;
				v->cut_mute = 0;
			}
			v->cut_pos = __atomic_load_n(&a->rpos, __ATOMIC_RELAXED);
			v->cut_done = v->cut_req;
			pthread_cond_broadcast(&v->cut_cond);
		}
		pthread_mutex_unlock(&v->mu);
		if (quit) {
			return NULL;
		}
		// A mute or unmute (Pause, Stop, Resume, Play), or a skip of
		// frames the device holds already (a mute's, the silence before a
		// track), cuts the device; a change of volume is heard within the
		// device buffer.
		uint32_t gb = __atomic_load_n(&a->gain, __ATOMIC_SEQ_CST);
		uint64_t r = __atomic_load_n(&a->rpos, __ATOMIC_RELAXED);
		int muted = gb == 0, was = taken_gain == 0;
		if (muted != was || (sf < st && st != cut_to && sf < r && st + a->keep > r)) {
			cut(a, v);
			cut_to = st;
			r = __atomic_load_n(&a->rpos, __ATOMIC_RELAXED);
		}
		snd_pcm_sframes_t av = snd_pcm_avail_update(v->pcm);
		if (av < 0) {
			if (snd_pcm_recover(v->pcm, (int)av, 1) < 0) {
				a->where = "snd_pcm_avail_update or snd_pcm_recover";
				__atomic_store_n(&a->err, (int32_t)av, __ATOMIC_SEQ_CST);
				uint64_t one = 1;
				ssize_t ignored = write(v->efd, &one, sizeof one); // Go sees the error
				(void)ignored;
				return NULL;
			}
			continue;
		}
		if ((uint64_t)av < period) {
			wait_room(v);
			continue;
		}
		// The ring is empty (Go is refilling it, after a skip or a cut
		// took the device ahead): while the device holds more than
		// v->margin, wait for Go rather than write silence it would then
		// play before the frames that follow.
		uint64_t w0 = __atomic_load_n(&a->wpos, __ATOMIC_ACQUIRE);
		if (r >= sf && r < st) {
			// Pass over a skip before waiting: Go counts the ring's room
			// from rpos, so a skip as long as the ring (the silence after
			// a track that ended with nothing prepared) left it none, and
			// the thread waited for a refill that could not come.
			r = st < w0 ? st : w0;
			__atomic_store_n(&a->rpos, r, __ATOMIC_RELEASE);
		}
		uint64_t held = a->keep > (uint64_t)av ? a->keep - (uint64_t)av : 0;
		if (ring_ready(r, w0, sf, st) == 0 && held > v->margin) {
			uint64_t one = 1;
			ssize_t ignored = write(v->efd, &one, sizeof one); // Go refills the ring
			(void)ignored;
			uint64_t ms = (held - v->margin) * 1000 / v->rate;
			wait_go(v, ms < 1 ? 1 : ms > 20 ? 20 : (int)ms);
			continue;
		}
		taken_gain = gb;
		float g;
		memcpy(&g, &gb, sizeof g);
		g /= 32768.0f;
		uint64_t w = __atomic_load_n(&a->wpos, __ATOMIC_ACQUIRE);
		uint64_t n = 0; // frames of out filled
		while (n < period && r < w) {
			if (r >= sf && r < st) {
				r = st < w ? st : w;
				continue;
			}
			uint64_t end = w;
			if (r < sf && sf < end) {
				end = sf;
			}
			if (end - r > period - n) {
				end = r + (period - n);
			}
			for (; r < end; r++, n++) {
				const int16_t *f = a->ring + 2 * (r % a->cap);
				v->out[2 * n] = f[0] * g;
				v->out[2 * n + 1] = f[1] * g;
			}
		}
		// Frames short of a period go alone: silence after them would be
		// heard as a gap before the frames Go is bringing (after a resume
		// or a seek the decoder gives a chunk at a time). An empty ring
		// with the device about to run dry gets a period of silence.
		snd_pcm_uframes_t len = n > 0 ? n : period;
		memset(v->out + 2 * n, 0, (len - n) * 2 * sizeof(float));
		__atomic_store_n(&a->rpos, r, __ATOMIC_RELEASE);
		uint64_t one = 1;
		ssize_t ignored;
		if (w - r < a->low) {
			ignored = write(v->efd, &one, sizeof one); // Go refills the ring
			(void)ignored;
		}

		// The device has room for the period: the write does not wait
		// (unless the sound server stalls, then it waits for room).
		const float *p = v->out;
		snd_pcm_uframes_t left = len;
		while (left > 0) {
			snd_pcm_sframes_t k = snd_pcm_writei(v->pcm, p, left);
			if (k == -EAGAIN) {
				wait_room(v);
				continue;
			}
			if (k < 0) {
				k = snd_pcm_recover(v->pcm, (int)k, 1);
			}
			if (k < 0) {
				a->where = "snd_pcm_writei or snd_pcm_recover";
				__atomic_store_n(&a->err, (int32_t)k, __ATOMIC_SEQ_CST);
				ignored = write(v->efd, &one, sizeof one); // Go sees the error
				(void)ignored;
				return NULL;
			}
			p += 2 * k;
			left -= (snd_pcm_uframes_t)k;
		}
	}
}

// try_open opens and sets up the device name, or appends why it cannot to
// err ("\"name\": call: reason", comma-separated).
static int try_open(struct fd_alsa_priv *v, snd_pcm_uframes_t *period, const char *name, unsigned rate, unsigned buffer_frames, unsigned period_frames, char *err, size_t errlen) {
	const char *where = "snd_pcm_open";
	int e = snd_pcm_open(&v->pcm, name, SND_PCM_STREAM_PLAYBACK, 0);
	if (e >= 0) {
		snd_pcm_uframes_t buffer = buffer_frames;
		*period = period_frames;
		if ((e = set_params(v->pcm, rate, &buffer, period, &where)) >= 0 &&
			(where = "snd_pcm_nonblock", e = snd_pcm_nonblock(v->pcm, 1)) >= 0) {
			return 0;
		}
		snd_pcm_close(v->pcm);
		v->pcm = NULL;
	}
	size_t used = strlen(err);
	snprintf(err + used, errlen - used, "%s\"%s\": %s: %s", used ? ", " : "", name, where, snd_strerror(e));
	return e;
}

fd_alsa *fd_alsa_open(int efd, int cmd, unsigned rate, unsigned buffer_frames, unsigned period_frames, unsigned ring_frames, unsigned low_frames, char *err, size_t errlen) {
	fd_alsa *a = calloc(1, sizeof *a);
	struct fd_alsa_priv *v = calloc(1, sizeof *v);
	if (!a || !v) {
		free(a);
		free(v);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	a->priv = v;
	v->efd = efd;
	v->cmd = cmd;
	v->rate = rate;
	v->margin = rate / 100; // 10 ms
	err[0] = 0;
	snd_pcm_uframes_t period = 0;
	int e = try_open(v, &period, "default", rate, buffer_frames, period_frames, err, errlen);
	if (e < 0) {
		e = try_open(v, &period, "plug:default", rate, buffer_frames, period_frames, err, errlen);
	}
	void **hints = NULL;
	if (e < 0 && snd_device_name_hint(-1, "pcm", &hints) == 0) {
		for (void **h = hints; *h && e < 0; h++) {
			char *name = snd_device_name_get_hint(*h, "NAME");
			char *io = snd_device_name_get_hint(*h, "IOID");
			if (name && strcmp(name, "null") && strcmp(name, "default") && !(io && !strcmp(io, "Input"))) {
				e = try_open(v, &period, name, rate, buffer_frames, period_frames, err, errlen);
			}
			free(name);
			free(io);
		}
		snd_device_name_free_hint(hints);
	}
	if (e < 0) {
		free(v);
		free(a);
		return NULL;
	}
	a->period = period;
	a->keep = buffer_frames;
	a->cap = ring_frames > 2 * period + a->keep ? ring_frames : 2 * period + a->keep;
	a->low = low_frames < a->cap - a->keep - period ? low_frames : a->cap - a->keep - period;
	a->ring = calloc(a->cap, 2 * sizeof(int16_t));
	v->out = calloc(period, 2 * sizeof(float));
	v->npfd = snd_pcm_poll_descriptors_count(v->pcm);
	if (v->npfd < 0) {
		v->npfd = 0;
	}
	v->pfd = calloc((size_t)v->npfd + 1, sizeof *v->pfd);
	float one = 1;
	memcpy(&a->gain, &one, sizeof one);
	pthread_mutex_init(&v->mu, NULL);
	pthread_cond_init(&v->cond, NULL);
	pthread_cond_init(&v->cut_cond, NULL);
	if (!a->ring || !v->out || !v->pfd || pthread_create(&v->thread, NULL, run, a) != 0) {
		snprintf(err, errlen, "cannot start the audio thread");
		snd_pcm_close(v->pcm);
		free(a->ring);
		free(v->out);
		free(v->pfd);
		free(v);
		free(a);
		return NULL;
	}
	return a;
}

void fd_alsa_skip(fd_alsa *a, uint64_t from, uint64_t to) {
	struct fd_alsa_priv *v = a->priv;
	pthread_mutex_lock(&v->mu);
	uint64_t r = __atomic_load_n(&a->rpos, __ATOMIC_ACQUIRE);
	if (r < v->skip_to && v->skip_from < v->skip_to) { // not yet passed: widen
		from = from < v->skip_from ? from : v->skip_from;
		to = to > v->skip_to ? to : v->skip_to;
	}
	v->skip_from = from;
	v->skip_to = to;
	pthread_mutex_unlock(&v->mu);
	fd_alsa_wake(a);
}

void fd_alsa_wake(fd_alsa *a) {
	uint64_t one = 1;
	ssize_t ignored = write(a->priv->cmd, &one, sizeof one);
	(void)ignored;
}

int64_t fd_alsa_cut(fd_alsa *a, int mute) {
	struct fd_alsa_priv *v = a->priv;
	pthread_mutex_lock(&v->mu);
	uint64_t want = ++v->cut_req;
	v->cut_mute = mute;
	pthread_cond_signal(&v->cond);
	fd_alsa_wake(a);
	while (v->cut_done < want && !v->quit && !v->suspended) {
		pthread_cond_wait(&v->cut_cond, &v->mu);
	}
	int64_t pos = v->cut_done >= want ? (int64_t)v->cut_pos : -1;
	if (pos < 0) {
		v->cut_mute = 0; // not now: a later cut must not mute
	}
	pthread_mutex_unlock(&v->mu);
	return pos;
}

void fd_alsa_suspend(fd_alsa *a, int on) {
	struct fd_alsa_priv *v = a->priv;
	pthread_mutex_lock(&v->mu);
	v->suspended = on;
	pthread_cond_signal(&v->cond);
	pthread_mutex_unlock(&v->mu);
	fd_alsa_wake(a);
}

void fd_alsa_stop(fd_alsa *a) {
	struct fd_alsa_priv *v = a->priv;
	pthread_mutex_lock(&v->mu);
	v->quit = 1;
	pthread_cond_signal(&v->cond);
	pthread_mutex_unlock(&v->mu);
	fd_alsa_wake(a);
	pthread_join(v->thread, NULL);
}
