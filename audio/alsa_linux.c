//go:build cgo && !oto

#include "alsa_linux.h"

#include <alsa/asoundlib.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fd_alsa_priv {
	snd_pcm_t *pcm;
	int efd;
	float *out; // one period for the device
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	int suspended, quit; // under mu
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

static void *run(void *arg) {
	fd_alsa *a = arg;
	struct fd_alsa_priv *v = a->priv;
	const uint64_t period = a->period;
	for (;;) {
		pthread_mutex_lock(&v->mu);
		while (v->suspended && !v->quit) {
			pthread_cond_wait(&v->cond, &v->mu);
		}
		int quit = v->quit;
		uint64_t sf = v->skip_from, st = v->skip_to;
		pthread_mutex_unlock(&v->mu);
		if (quit) {
			return NULL;
		}
		// The gain of before the frames are taken: a mute (Pause, Stop)
		// given in between lets one more period sound rather than silence
		// frames already counted as heard.
		uint32_t gb = __atomic_load_n(&a->gain, __ATOMIC_SEQ_CST);
		float g;
		memcpy(&g, &gb, sizeof g);
		g /= 32768.0f;
		uint64_t r = __atomic_load_n(&a->rpos, __ATOMIC_RELAXED);
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
		memset(v->out + 2 * n, 0, (period - n) * 2 * sizeof(float));
		__atomic_store_n(&a->rpos, r, __ATOMIC_RELEASE);
		uint64_t one = 1;
		ssize_t ignored;
		if (w - r < a->low) {
			ignored = write(v->efd, &one, sizeof one); // Go refills the ring
			(void)ignored;
		}

		const float *p = v->out;
		snd_pcm_uframes_t left = period;
		while (left > 0) {
			snd_pcm_sframes_t k = snd_pcm_writei(v->pcm, p, left);
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
static int try_open(struct fd_alsa_priv *v, snd_pcm_uframes_t *period, const char *name, unsigned rate, unsigned buffer_frames, char *err, size_t errlen) {
	const char *where = "snd_pcm_open";
	int e = snd_pcm_open(&v->pcm, name, SND_PCM_STREAM_PLAYBACK, 0);
	if (e >= 0) {
		snd_pcm_uframes_t buffer = buffer_frames;
		*period = buffer_frames / 2;
		if ((e = set_params(v->pcm, rate, &buffer, period, &where)) >= 0) {
			return 0;
		}
		snd_pcm_close(v->pcm);
		v->pcm = NULL;
	}
	size_t used = strlen(err);
	snprintf(err + used, errlen - used, "%s\"%s\": %s: %s", used ? ", " : "", name, where, snd_strerror(e));
	return e;
}

fd_alsa *fd_alsa_open(int efd, unsigned rate, unsigned buffer_frames, unsigned ring_frames, unsigned low_frames, char *err, size_t errlen) {
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
	err[0] = 0;
	snd_pcm_uframes_t period = 0;
	int e = try_open(v, &period, "default", rate, buffer_frames, err, errlen);
	if (e < 0) {
		e = try_open(v, &period, "plug:default", rate, buffer_frames, err, errlen);
	}
	void **hints = NULL;
	if (e < 0 && snd_device_name_hint(-1, "pcm", &hints) == 0) {
		for (void **h = hints; *h && e < 0; h++) {
			char *name = snd_device_name_get_hint(*h, "NAME");
			char *io = snd_device_name_get_hint(*h, "IOID");
			if (name && strcmp(name, "null") && strcmp(name, "default") && !(io && !strcmp(io, "Input"))) {
				e = try_open(v, &period, name, rate, buffer_frames, err, errlen);
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
	a->cap = ring_frames > 2 * period ? ring_frames : 2 * period;
	a->low = low_frames < a->cap - period ? low_frames : a->cap - period;
	a->ring = calloc(a->cap, 2 * sizeof(int16_t));
	v->out = calloc(period, 2 * sizeof(float));
	float one = 1;
	memcpy(&a->gain, &one, sizeof one);
	pthread_mutex_init(&v->mu, NULL);
	pthread_cond_init(&v->cond, NULL);
	if (!a->ring || !v->out || pthread_create(&v->thread, NULL, run, a) != 0) {
		snprintf(err, errlen, "cannot start the audio thread");
		snd_pcm_close(v->pcm);
		free(a->ring);
		free(v->out);
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
}

void fd_alsa_suspend(fd_alsa *a, int on) {
	struct fd_alsa_priv *v = a->priv;
	pthread_mutex_lock(&v->mu);
	v->suspended = on;
	pthread_cond_signal(&v->cond);
	pthread_mutex_unlock(&v->mu);
}

void fd_alsa_stop(fd_alsa *a) {
	struct fd_alsa_priv *v = a->priv;
	pthread_mutex_lock(&v->mu);
	v->quit = 1;
	pthread_cond_signal(&v->cond);
	pthread_mutex_unlock(&v->mu);
	pthread_join(v->thread, NULL);
}
