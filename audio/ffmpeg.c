//go:build cgo && !noffmpeg && (linux || windows || ffmpeg)

#ifdef _WIN32
// mingw's own scanf: the iTunSMPB parse below reads a %llx.
#define __USE_MINGW_ANSI_STDIO 1
#endif

#include "ffmpeg.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avstring.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/mathematics.h>
#include <libswresample/swresample.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#define NOMINMAX
#include <windows.h>
#else
#include <dlfcn.h>
#include <pthread.h>
#endif

#include "ffmpeg_dl.h"

#if LIBAVUTIL_VERSION_INT < AV_VERSION_INT(57, 24, 100) || LIBAVCODEC_VERSION_INT < AV_VERSION_INT(59, 24, 100)
#error "furudesk needs FFmpeg 5.1 or newer (libavutil 57.24, libavcodec 59.24); build with -tags noffmpeg to use the pure-Go decoders instead"
#endif

// The FFmpeg functions, found by fd_load (see ffmpeg_dl.h).
#define X(name) __typeof__(name) *fd_dl_##name;
FD_FUNCS(X)
#undef X

static char fd_load_err[512];

#define FD_STR2(x) #x
#define FD_STR(x) FD_STR2(x)
#if defined(_WIN32)
// What FFmpeg's shared build for Windows (mingw) names them.
#define FD_SONAME(lib, major) lib "-" FD_STR(major) ".dll"
#elif defined(__APPLE__)
#define FD_SONAME(lib, major) "lib" lib "." FD_STR(major) ".dylib"
#else
#define FD_SONAME(lib, major) "lib" lib ".so." FD_STR(major)
#endif

// The three calls of the loader, dlopen's or Windows'.
#ifdef _WIN32
typedef HMODULE fd_lib;

// fd_lib_open loads path (UTF-8). Given a full path, the DLLs it needs are
// looked for in its folder first (LOAD_WITH_ALTERED_SEARCH_PATH), and a
// library already loaded under the same name is the one used, as with
// sonames. No error box: a missing DLL is an error returned.
static fd_lib fd_lib_open(const char *path, int full, char *err, size_t errlen) {
	wchar_t wpath[4096];
	if (!MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wpath, sizeof wpath / sizeof wpath[0])) {
		snprintf(err, errlen, "FFmpeg could not be loaded: %s: not a usable path", path);
		return NULL;
	}
	DWORD mode;
	SetThreadErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX, &mode);
	HMODULE h = LoadLibraryExW(wpath, NULL, full ? LOAD_WITH_ALTERED_SEARCH_PATH : 0);
	DWORD code = GetLastError();
	SetThreadErrorMode(mode, NULL);
	if (!h) {
		char why[256] = "";
		FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, why, sizeof why, NULL);
		size_t n = strlen(why);
		while (n > 0 && (why[n - 1] == '\r' || why[n - 1] == '\n' || why[n - 1] == ' ' || why[n - 1] == '.'))
			why[--n] = 0;
		snprintf(err, errlen, "FFmpeg could not be loaded: %s: %s (error %lu)", path, why[0] ? why : "LoadLibrary failed", (unsigned long)code);
	}
	return h;
}
static void *fd_lib_sym(fd_lib lib, const char *name) { return (void *)GetProcAddress(lib, name); }
static void fd_lib_close(fd_lib lib) { FreeLibrary(lib); }
#define FD_PATH_SEP "\\"
#else
typedef void *fd_lib;

static fd_lib fd_lib_open(const char *path, int full, char *err, size_t errlen) {
	(void)full;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		snprintf(err, errlen, "FFmpeg could not be loaded: %s", dlerror());
	return h;
}
static void *fd_lib_sym(fd_lib lib, const char *name) { return dlsym(lib, name); }
static void fd_lib_close(fd_lib lib) { dlclose(lib); }
#define FD_PATH_SEP "/"
#endif

enum { FD_NLIBS = 4 };

// fd_open_libs opens the four libraries, in the order they need each other,
// from dir (a folder of libraries built for furudesk: scripts/build-ffmpeg.sh)
// or, with dir NULL, from the system's search path. Opened in that order,
// each library's own needs are the ones already loaded (the loader matches
// them by soname), so a folder's libavcodec does not pull in the system's
// libavutil. On failure it closes what it opened and says why in err.
static int fd_open_libs(const char *dir, fd_lib libs[FD_NLIBS], char *err, size_t errlen) {
	// The major versions this file was compiled against: their ABI.
	const char *names[FD_NLIBS] = {
		FD_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR),
		FD_SONAME("swresample", LIBSWRESAMPLE_VERSION_MAJOR),
		FD_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR),
		FD_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR),
	};
	for (int i = 0; i < FD_NLIBS; i++) {
		char path[4096];
		const char *name = names[i];
		if (dir) {
			snprintf(path, sizeof path, "%s" FD_PATH_SEP "%s", dir, names[i]);
			name = path;
		}
		libs[i] = fd_lib_open(name, dir != NULL, err, errlen);
		if (!libs[i]) {
			while (--i >= 0)
				fd_lib_close(libs[i]);
			return -1;
		}
	}
	return 0;
}

static const char *fd_load_dir;
static char fd_dir_err[512]; // why fd_load_dir's libraries are not the ones loaded
static int fd_from_dir;

static void fd_load_libs(void) {
	fd_lib libs[FD_NLIBS];
	if (fd_load_dir && fd_load_dir[0] && fd_open_libs(fd_load_dir, libs, fd_dir_err, sizeof fd_dir_err) == 0)
		fd_from_dir = 1;
	else if (fd_open_libs(NULL, libs, fd_load_err, sizeof fd_load_err) != 0)
		return;
#define X(name)                                                                           \
	for (int i = 0; i < FD_NLIBS && !fd_dl_##name; i++)                               \
		fd_dl_##name = (__typeof__(fd_dl_##name))fd_lib_sym(libs[i], #name);       \
	if (!fd_dl_##name) {                                                              \
		snprintf(fd_load_err, sizeof fd_load_err, "FFmpeg's libraries have no %s", #name); \
		return;                                                                   \
	}
	FD_FUNCS(X)
#undef X
}

#ifdef _WIN32
static INIT_ONCE fd_load_once = INIT_ONCE_STATIC_INIT;
static BOOL CALLBACK fd_load_libs_once(PINIT_ONCE once, PVOID arg, PVOID *ctx) {
	(void)once, (void)arg, (void)ctx;
	fd_load_libs();
	return TRUE;
}
#define FD_LOAD_ONCE() InitOnceExecuteOnce(&fd_load_once, fd_load_libs_once, NULL, NULL)
#else
static pthread_once_t fd_load_once = PTHREAD_ONCE_INIT;
#define FD_LOAD_ONCE() pthread_once(&fd_load_once, fd_load_libs)
#endif

const char *fd_load(const char *dir) {
	fd_load_dir = dir; // read only by the first call's fd_load_libs
	FD_LOAD_ONCE();
	fd_load_dir = NULL;
	return fd_load_err[0] ? fd_load_err : NULL;
}

int fd_loaded_from_dir(void) { return fd_from_dir; }

const char *fd_dir_error(void) { return fd_dir_err; }

unsigned fd_avcodec_version(void) { return avcodec_version(); }

const char *fd_av_version_info(void) { return av_version_info(); }

// The Go side of the I/O (ffmpeg.go).
extern int furudeskAVRead(uintptr_t h, uint8_t *buf, int size);
extern int64_t furudeskAVSeek(uintptr_t h, int64_t off, int whence);

enum {
	IO_BUFFER = 64 << 10,
	PROBE_IO_BUFFER = 8 << 10,
	// Consecutive packets the decoder may refuse (a damaged stretch it
	// skips, as ffmpeg does) before the stream counts as corrupt.
	MAX_BAD_PACKETS = 256,
	// Packets read in one fd_read without a decoded frame before the
	// stream counts as stuck.
	MAX_IDLE_PACKETS = 1 << 16,
	// Source frames decoded before a seek target so the codec's state
	// (MDCT overlap, bit reservoir, Opus pre-roll) has settled there.
	DECODER_PREROLL = 4096,
	// Source frames fed to the resampler before a seek target so its
	// filter has history: more than libswresample's default filter.
	RESAMPLER_HISTORY = 256,
	// What a stream may declare (decode.go's minSourceRate and
	// maxSourceRate): a damaged header's 900 MHz would make the resampler
	// take minutes and gigabytes.
	MIN_RATE = 1000,
	MAX_RATE = 768000,
	MAX_CHANNELS = 64,
};

static atomic_long live;

long fd_live(void) { return atomic_load(&live); }

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
long fd_heap_in_use(void) { return (long)mallinfo2().uordblks; }
#else
long fd_heap_in_use(void) { return -1; }
#endif

struct fd_dec {
	AVFormatContext *fmt;
	AVIOContext *io;
	AVCodecContext *dec;
	SwrContext *swr;
	AVPacket *pkt;
	AVFrame *frame;
	int stream;
	int out_rate;
	int src_rate; // the stream's rate: positions count in it

	// The input the resampler is configured for.
	int swr_fmt, swr_rate;
	AVChannelLayout swr_layout;

	int pending;    // frame holds a decoded frame not converted yet
	int pending_err; // a failure to report at the next fd_read
	int demux_eof;  // the demuxer ended and the decoder was drained
	int finished;   // the resampler was flushed: nothing follows
	int bad;        // consecutive refused packets
	int skipped;    // refused packets and frames in all, skipped

	int64_t origin;  // pts of source frame 0 (stream time base)
	int64_t pos;     // source frame of the next decoded sample
	int64_t limit;   // source frames of music (iTunSMPB), -1 unknown
	int64_t skip_to; // after a seek: drop source frames before it, -1 none
	int resync;      // after a seek: the next frame's pts gives pos
	int64_t drop_out; // after a seek: output frames to drop

	int16_t *buf; // converted stereo frames waiting for fd_read
	int cap, len, off;

	char err[256];
};

static int fail(fd_dec *d, int code, const char *what, int averr) {
	char e[AV_ERROR_MAX_STRING_SIZE] = {0};
	if (averr) {
		av_strerror(averr, e, sizeof e);
		snprintf(d->err, sizeof d->err, "%s: %s", what, e);
	} else {
		snprintf(d->err, sizeof d->err, "%s", what);
	}
	return code;
}

static int io_read(void *opaque, uint8_t *buf, int size) {
	int n = furudeskAVRead((uintptr_t)opaque, buf, size);
	if (n == 0) return AVERROR_EOF;
	if (n < 0) return AVERROR(EIO);
	return n;
}

static int64_t io_seek(void *opaque, int64_t off, int whence) {
	return furudeskAVSeek((uintptr_t)opaque, off, whence & ~AVSEEK_FORCE);
}

static void release(fd_dec *d) {
	if (d->fmt) avformat_close_input(&d->fmt);
	if (d->io) {
		av_freep(&d->io->buffer);
		avio_context_free(&d->io);
	}
	avcodec_free_context(&d->dec);
	swr_free(&d->swr);
	av_packet_free(&d->pkt);
	av_frame_free(&d->frame);
	av_channel_layout_uninit(&d->swr_layout);
	av_freep(&d->buf);
}

// next_frame leaves the next decoded frame of the audio stream in
// d->frame: 1, 0 at the end, or a negative FD_ERR_*.
static int next_frame(fd_dec *d) {
	if (d->pending) {
		d->pending = 0;
		return 1;
	}
	for (int idle = 0;; idle++) {
		if (idle > MAX_IDLE_PACKETS) return fail(d, FD_ERR_CORRUPT, "the decoder makes no progress", 0);
		int r = avcodec_receive_frame(d->dec, d->frame);
		if (r == 0) {
			d->bad = 0;
			return 1;
		}
		if (r == AVERROR_EOF) return 0;
		if (r != AVERROR(EAGAIN)) {
			d->skipped++;
			if (++d->bad > MAX_BAD_PACKETS) return fail(d, FD_ERR_CORRUPT, "undecodable audio", r);
			continue;
		}
		if (d->demux_eof) return 0;
		r = av_read_frame(d->fmt, d->pkt);
		if (r < 0) {
			if (d->fmt->pb && d->fmt->pb->error && r != AVERROR_EOF)
				return fail(d, FD_ERR_IO, "reading the file", d->fmt->pb->error);
			if (r != AVERROR_EOF && !avio_feof(d->fmt->pb))
				return fail(d, FD_ERR_CORRUPT, "damaged container", r);
			// The end, or a file cut short: play what is there.
			d->demux_eof = 1;
			avcodec_send_packet(d->dec, NULL);
			continue;
		}
		if (d->pkt->stream_index != d->stream) {
			av_packet_unref(d->pkt);
			continue;
		}
		r = avcodec_send_packet(d->dec, d->pkt);
		av_packet_unref(d->pkt);
		if (r < 0 && r != AVERROR(EAGAIN)) {
			// A damaged packet: skip it like ffmpeg does, unless the
			// stream is nothing but damage.
			d->skipped++;
			if (++d->bad > MAX_BAD_PACKETS) return fail(d, FD_ERR_CORRUPT, "undecodable audio", r);
		}
	}
}

// setup_swr configures the resampler for the input of frame f.
static int setup_swr(fd_dec *d, const AVFrame *f) {
	AVChannelLayout in = {0}, out = AV_CHANNEL_LAYOUT_STEREO;
	int r;
	if (f->sample_rate < MIN_RATE || f->sample_rate > MAX_RATE) {
		snprintf(d->err, sizeof d->err, "sample rate %d Hz", f->sample_rate);
		return FD_ERR_CORRUPT;
	}
	if (f->ch_layout.nb_channels > MAX_CHANNELS) {
		snprintf(d->err, sizeof d->err, "%d channels", f->ch_layout.nb_channels);
		return FD_ERR_CORRUPT;
	}
	if (f->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || f->ch_layout.nb_channels <= 0) {
		if (f->ch_layout.nb_channels <= 0) return fail(d, FD_ERR_CORRUPT, "frame without channels", 0);
		av_channel_layout_default(&in, f->ch_layout.nb_channels);
	} else if ((r = av_channel_layout_copy(&in, &f->ch_layout)) < 0) {
		return fail(d, FD_ERR_NOMEM, "channel layout", r);
	}
	swr_free(&d->swr);
	r = swr_alloc_set_opts2(&d->swr, &out, AV_SAMPLE_FMT_S16, d->out_rate, &in, f->format, f->sample_rate, 0, NULL);
	if (r >= 0 && in.nb_channels == 1) {
		// Mono plays at full level on both sides, as a mono recording
		// sounds from one speaker, not 3 dB down as a centre channel.
		const double m[2] = {1, 1};
		r = swr_set_matrix(d->swr, m, 1);
	}
	if (r >= 0) r = swr_init(d->swr);
	if (r < 0) {
		av_channel_layout_uninit(&in);
		swr_free(&d->swr);
		return fail(d, FD_ERR_CORRUPT, "cannot convert this audio", r);
	}
	av_channel_layout_uninit(&d->swr_layout);
	d->swr_layout = in;
	d->swr_fmt = f->format;
	d->swr_rate = f->sample_rate;
	return 0;
}

static int reserve(fd_dec *d, int frames) {
	if (frames <= d->cap) return 0;
	int16_t *b = av_realloc_array(d->buf, frames, 2 * sizeof(int16_t));
	if (!b) return fail(d, FD_ERR_NOMEM, "out of memory", 0);
	d->buf = b;
	d->cap = frames;
	return 0;
}

// drop_output removes the output frames a seek asked to skip.
static void drop_output(fd_dec *d) {
	if (d->drop_out <= 0 || d->len == 0) return;
	int n = d->drop_out < d->len ? (int)d->drop_out : d->len;
	memmove(d->buf, d->buf + 2 * n, (size_t)(d->len - n) * 2 * sizeof(int16_t));
	d->len -= n;
	d->drop_out -= n;
}

// convert_frame turns the music of d->frame (after seek skipping and the
// end limit) into output frames in d->buf.
static int convert_frame(fd_dec *d) {
	AVFrame *f = d->frame;
	int n = f->nb_samples;
	if (d->resync) {
		int64_t ts = f->best_effort_timestamp;
		if (ts != AV_NOPTS_VALUE) {
			AVRational tb = d->fmt->streams[d->stream]->time_base;
			d->pos = av_rescale_q(ts - d->origin, tb, (AVRational){1, d->src_rate});
		}
		d->resync = 0;
	}
	int from = 0, to = n;
	if (d->skip_to >= 0) {
		if (d->pos + n <= d->skip_to) {
			d->pos += n;
			return 0;
		}
		if (d->skip_to > d->pos) from = (int)(d->skip_to - d->pos);
		d->skip_to = -1;
	}
	if (d->limit >= 0 && d->pos + to > d->limit) to = d->limit > d->pos ? (int)(d->limit - d->pos) : 0;
	d->pos += n;
	if (to <= from) return 0;
	if (!d->swr || f->format != d->swr_fmt || f->sample_rate != d->swr_rate ||
	    av_channel_layout_compare(&f->ch_layout, &d->swr_layout) != 0) {
		// (An unspecified layout never compares equal to the default the
		// resampler got, so check the channel count for those.)
		if (!(d->swr && f->format == d->swr_fmt && f->sample_rate == d->swr_rate &&
		      f->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC && f->ch_layout.nb_channels == d->swr_layout.nb_channels)) {
			int r = setup_swr(d, f);
			if (r < 0) return r;
		}
	}
	int count = to - from;
	int channels = f->ch_layout.nb_channels;
	int planar = av_sample_fmt_is_planar(f->format);
	int bps = av_get_bytes_per_sample(f->format);
	const uint8_t *stack[8];
	const uint8_t **in = stack;
	int planes = planar ? channels : 1;
	if (planes > 8) {
		in = av_malloc_array(planes, sizeof *in);
		if (!in) return fail(d, FD_ERR_NOMEM, "out of memory", 0);
	}
	for (int i = 0; i < planes; i++)
		in[i] = f->extended_data[i] + (size_t)from * bps * (planar ? 1 : channels);
	int need = swr_get_out_samples(d->swr, count);
	int r = need < 0 ? fail(d, FD_ERR_CORRUPT, "converting the audio", need) : reserve(d, d->len + need);
	if (r >= 0) {
		uint8_t *out = (uint8_t *)(d->buf + 2 * d->len);
		int got = swr_convert(d->swr, &out, need, in, count);
		if (got < 0)
			r = fail(d, FD_ERR_CORRUPT, "converting the audio", got);
		else
			d->len += got;
	}
	if (in != stack) av_free(in);
	if (r < 0) return r;
	drop_output(d);
	return 0;
}

// flush_swr drains what the resampler still holds at the end.
static int flush_swr(fd_dec *d) {
	if (!d->swr) return 0;
	int need = swr_get_out_samples(d->swr, 0);
	if (need <= 0) return 0;
	int r = reserve(d, d->len + need);
	if (r < 0) return r;
	uint8_t *out = (uint8_t *)(d->buf + 2 * d->len);
	r = swr_convert(d->swr, &out, need, NULL, 0);
	if (r < 0) return fail(d, FD_ERR_CORRUPT, "converting the audio", r);
	d->len += r;
	drop_output(d);
	return 0;
}

// Looking a demuxer up by name and a decoder up by id walks FFmpeg's whole
// list of them (strcmp on each name): a scan probes 100,000 files with a
// handful of formats, so the answers are kept. The pointers are FFmpeg's
// own constant tables; a race stores the same value twice.
enum { LOOKUP_CACHE = 32 };

// The demuxers package audio forced so far, by the name it gives (package
// formats' Demuxer). Slots are claimed once, never freed; past
// LOOKUP_CACHE names each lookup walks the list.
static struct {
	atomic_int used; // 0 free, 1 being written, 2 set
	char name[24];
	const AVInputFormat *fmt;
} demuxer_cache[LOOKUP_CACHE];

static const AVInputFormat *find_demuxer(const char *name) {
	for (int i = 0; i < LOOKUP_CACHE; i++) {
		if (atomic_load(&demuxer_cache[i].used) != 2) continue;
		if (strcmp(demuxer_cache[i].name, name) == 0) return demuxer_cache[i].fmt;
	}
	const AVInputFormat *f = av_find_input_format(name);
	if (!f || strlen(name) >= sizeof demuxer_cache[0].name) return f;
	for (int i = 0; i < LOOKUP_CACHE; i++) {
		int expected = 0;
		if (atomic_compare_exchange_strong(&demuxer_cache[i].used, &expected, 1)) {
			snprintf(demuxer_cache[i].name, sizeof demuxer_cache[i].name, "%s", name);
			demuxer_cache[i].fmt = f;
			atomic_store(&demuxer_cache[i].used, 2);
			break;
		}
	}
	return f;
}

static struct {
	atomic_int id;
	_Atomic(const AVCodec *) codec;
} decoder_cache[LOOKUP_CACHE];

static const AVCodec *find_decoder(enum AVCodecID id) {
	for (int i = 0; i < LOOKUP_CACHE; i++) {
		int cid = atomic_load(&decoder_cache[i].id);
		if (cid == AV_CODEC_ID_NONE) break;
		if (cid == (int)id) {
			const AVCodec *c = atomic_load(&decoder_cache[i].codec);
			if (c) return c;
			break;
		}
	}
	const AVCodec *c = avcodec_find_decoder(id);
	if (!c) return NULL;
	for (int i = 0; i < LOOKUP_CACHE; i++) {
		int expected = AV_CODEC_ID_NONE;
		if (atomic_load(&decoder_cache[i].id) == (int)id ||
		    atomic_compare_exchange_strong(&decoder_cache[i].id, &expected, (int)id)) {
			atomic_store(&decoder_cache[i].codec, c);
			break;
		}
	}
	return c;
}

// A probe builds the converter a play will need, at the file's own rate,
// to learn that libswresample takes this audio. Its answer depends only
// on the sample format, rate and channel layout, and a collection has a
// handful of those: the probe builds it once for each.
typedef struct {
	int format, rate, order, channels;
	uint64_t mask;
} conversion;

static struct {
	atomic_int used; // 0 free, 1 being written, 2 set
	conversion c;
} converted[LOOKUP_CACHE];

static int conversion_of(const AVFrame *f, conversion *c) {
	const AVChannelLayout *l = &f->ch_layout;
	if (l->order != AV_CHANNEL_ORDER_NATIVE && l->order != AV_CHANNEL_ORDER_UNSPEC) return 0;
	memset(c, 0, sizeof *c);
	c->format = f->format;
	c->rate = f->sample_rate;
	c->order = l->order;
	c->channels = l->nb_channels;
	c->mask = l->order == AV_CHANNEL_ORDER_NATIVE ? l->u.mask : 0;
	return 1;
}

static int converted_before(const AVFrame *f) {
	conversion c;
	if (!conversion_of(f, &c)) return 0;
	for (int i = 0; i < LOOKUP_CACHE; i++) {
		if (atomic_load(&converted[i].used) != 2) continue;
		if (memcmp(&converted[i].c, &c, sizeof c) == 0) return 1;
	}
	return 0;
}

static void remember_converted(const AVFrame *f) {
	conversion c;
	if (!conversion_of(f, &c)) return;
	for (int i = 0; i < LOOKUP_CACHE; i++) {
		int expected = 0;
		if (atomic_compare_exchange_strong(&converted[i].used, &expected, 1)) {
			converted[i].c = c;
			atomic_store(&converted[i].used, 2);
			return;
		}
	}
}

static int protected_tag(uint32_t tag) {
	return tag == MKTAG('d', 'r', 'm', 's') || tag == MKTAG('d', 'r', 'm', 'i') || tag == MKTAG('e', 'n', 'c', 'a') ||
	       tag == MKTAG('a', 'a', 'v', 'd');
}

int fd_open(uintptr_t handle, const char *format, int out_rate, fd_dec **out, fd_info *info, char *err, int errlen) {
	*out = NULL;
	memset(info, 0, sizeof *info);
	av_log_set_level(AV_LOG_QUIET);
	fd_dec *d = av_mallocz(sizeof *d);
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return FD_ERR_NOMEM;
	}
	d->out_rate = out_rate;
	d->limit = -1;
	d->skip_to = -1;
	d->stream = -1;
	int r, code = FD_ERR_NOMEM;
	// A probe reads the headers and one frame: a small buffer spares it
	// reading and copying what it will not look at.
	int iosize = out_rate > 0 ? IO_BUFFER : PROBE_IO_BUFFER;
	uint8_t *iobuf = av_malloc(iosize);
	if (!iobuf) {
		fail(d, code, "out of memory", 0);
		goto bad;
	}
	d->io = avio_alloc_context(iobuf, iosize, 0, (void *)handle, io_read, NULL, io_seek);
	if (!d->io) {
		av_free(iobuf);
		fail(d, code, "out of memory", 0);
		goto bad;
	}
	d->fmt = avformat_alloc_context();
	if (!d->fmt) {
		fail(d, code, "out of memory", 0);
		goto bad;
	}
	d->fmt->pb = d->io;
	// Ours to free (release), also when the context is closed before
	// avformat_open_input marked it so: avio_close would take the Go
	// handle for FFmpeg's own I/O state.
	d->fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
	const AVInputFormat *ifmt = NULL;
	if (format && *format) {
		ifmt = find_demuxer(format);
		if (!ifmt) {
			code = fail(d, FD_ERR_NO_DECODER, "FFmpeg was built without this container", 0);
			goto bad;
		}
	}
	// Demuxers that are not sure of the codec their header names (WAV's
	// 16-bit PCM might be S/PDIF or MP3 under the PCM tag) ask libavformat
	// to run every demuxer's probe on the first packets, up to 32 of them,
	// holding them back meanwhile. The decoder is opened from the header's
	// codec before the first packet is read, so that answer never changes
	// what plays: look at the first packet only. (The header's own S/PDIF
	// check, which does change the codec, still runs.)
	d->fmt->max_probe_packets = 0;
	AVDictionary *opts = NULL;
	if (out_rate <= 0 && ifmt && strcmp(format, "wav") == 0) {
		// A probe decodes one packet: a small one keeps that probe short.
		av_dict_set(&opts, "max_size", "1024", 0);
	}
	r = avformat_open_input(&d->fmt, NULL, ifmt, &opts);
	av_dict_free(&opts);
	if (r < 0) {
		// avformat_open_input freed the context.
		code = fail(d, d->io->error ? FD_ERR_IO : FD_ERR_OPEN, "not a readable stream", d->io->error ? d->io->error : r);
		goto bad;
	}
	r = av_find_best_stream(d->fmt, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
	AVCodecParameters *par = r >= 0 ? d->fmt->streams[r]->codecpar : NULL;
	// Raw streams (ADTS, MP3) and FLAC say their rate and channels only in
	// their frames: avformat_find_stream_info opens a decoder of its own
	// and decodes the first frame to learn them. A probe decodes that
	// frame itself just below, and the frame has them, so it skips this
	// when the header named the codec (a stream whose first frame does
	// not decode is refused there, as here). A play keeps it: seeking
	// and durations use what it learns.
	int need_info = !par || par->codec_id == AV_CODEC_ID_NONE || par->sample_rate <= 0 || par->ch_layout.nb_channels <= 0;
	if (need_info && out_rate <= 0) {
		// (av_find_best_stream passes over audio streams without a rate.)
		for (unsigned i = 0; i < d->fmt->nb_streams; i++) {
			AVCodecParameters *p = d->fmt->streams[i]->codecpar;
			if (p->codec_type == AVMEDIA_TYPE_AUDIO && p->codec_id != AV_CODEC_ID_NONE) {
				r = (int)i;
				need_info = 0;
				break;
			}
		}
	}
	if (need_info) {
		d->fmt->probesize = 1 << 20;
		if ((r = avformat_find_stream_info(d->fmt, NULL)) < 0) {
			code = fail(d, FD_ERR_CORRUPT, "reading the stream", r);
			goto bad;
		}
		r = av_find_best_stream(d->fmt, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
	}
	if (r < 0) {
		code = fail(d, FD_ERR_NO_AUDIO, "no audio stream", 0);
		goto bad;
	}
	d->stream = r;
	AVStream *st = d->fmt->streams[r];
	par = st->codecpar;
	for (unsigned i = 0; i < d->fmt->nb_streams; i++)
		if ((int)i != d->stream) d->fmt->streams[i]->discard = AVDISCARD_ALL;
	if (par->sample_rate > MAX_RATE || par->ch_layout.nb_channels > MAX_CHANNELS) {
		snprintf(d->err, sizeof d->err, "%d Hz, %d channels", par->sample_rate, par->ch_layout.nb_channels);
		code = FD_ERR_CORRUPT;
		goto bad;
	}
	if (protected_tag(par->codec_tag)) {
		code = fail(d, FD_ERR_PROTECTED, "DRM-protected", 0);
		goto bad;
	}
	const AVCodec *codec = find_decoder(par->codec_id);
	if (!codec) {
		snprintf(d->err, sizeof d->err, "no decoder for %s", avcodec_get_name(par->codec_id));
		code = FD_ERR_NO_DECODER;
		goto bad;
	}
	d->dec = avcodec_alloc_context3(codec);
	d->pkt = av_packet_alloc();
	d->frame = av_frame_alloc();
	if (!d->dec || !d->pkt || !d->frame) {
		fail(d, code, "out of memory", 0);
		goto bad;
	}
	if ((r = avcodec_parameters_to_context(d->dec, par)) < 0) {
		code = fail(d, FD_ERR_CORRUPT, "codec parameters", r);
		goto bad;
	}
	d->dec->pkt_timebase = st->time_base;
	d->dec->thread_count = 1;
	if ((r = avcodec_open2(d->dec, codec, NULL)) < 0) {
		code = fail(d, FD_ERR_CORRUPT, "opening the decoder", r);
		goto bad;
	}
	// iTunes writes the priming and padding of AAC in iTunSMPB; libavformat
	// trims the priming and leaves the padding to us.
	AVDictionaryEntry *e = av_dict_get(d->fmt->metadata, "iTunSMPB", NULL, 0);
	if (e) {
		unsigned priming = 0, padding = 0;
		unsigned long long samples = 0;
		if (sscanf(e->value, " %*x %x %x %llx", &priming, &padding, &samples) == 3 && samples > 0 && samples < (1ULL << 40))
			d->limit = (int64_t)samples;
	}

	// MP4 edit lists say where the music ends; libavformat trims the
	// priming they skip but not the padding after the end.
	if (ifmt && av_match_name("mov", ifmt->name) && st->duration > 0 && par->sample_rate > 0) {
		int64_t n = av_rescale_q(st->duration, st->time_base, (AVRational){1, par->sample_rate});
		if (d->limit < 0 || n < d->limit) d->limit = n;
	}

	// Decode the first frame: a stream that cannot give one is not
	// playable, and its pts is where the music starts.
	r = next_frame(d);
	if (r <= 0) {
		code = r < 0 ? r : fail(d, FD_ERR_CORRUPT, "no audio in the file", 0);
		goto bad;
	}
	d->pending = 1;
	d->src_rate = d->frame->sample_rate > 0 ? d->frame->sample_rate : par->sample_rate;
	if (d->src_rate <= 0) {
		code = fail(d, FD_ERR_CORRUPT, "no sample rate", 0);
		goto bad;
	}
	int probe = d->out_rate <= 0;
	if (probe) d->out_rate = d->src_rate; // no resampling filter to build
	d->origin = d->frame->best_effort_timestamp;
	if (d->origin == AV_NOPTS_VALUE) d->origin = st->start_time != AV_NOPTS_VALUE ? st->start_time : 0;
	if (!probe || !converted_before(d->frame)) {
		if ((r = setup_swr(d, d->frame)) < 0) {
			code = r;
			goto bad;
		}
		if (probe) remember_converted(d->frame);
	}

	info->src_rate = d->src_rate;
	info->src_channels = d->frame->ch_layout.nb_channels;
	// (Without avformat_find_stream_info, a probe of FLAC learns it from
	// the decoder.)
	info->bits = par->bits_per_raw_sample > 0 ? par->bits_per_raw_sample : d->dec->bits_per_raw_sample;
	info->src_frames = -1;
	if (st->duration != AV_NOPTS_VALUE && st->duration > 0)
		info->src_frames = av_rescale_q(st->duration, st->time_base, (AVRational){1, d->src_rate});
	else if (d->fmt->duration != AV_NOPTS_VALUE && d->fmt->duration > 0)
		info->src_frames = av_rescale_q(d->fmt->duration, AV_TIME_BASE_Q, (AVRational){1, d->src_rate});
	// Decoders with a delay (Opus pre-skip) say it here; libavformat's
	// durations count it.
	if (info->src_frames > 0 && par->initial_padding > 0 && par->initial_padding < info->src_frames)
		info->src_frames -= par->initial_padding;
	if (d->limit >= 0 && (info->src_frames < 0 || d->limit < info->src_frames)) info->src_frames = d->limit;
	int estimated = 0;
	if (info->src_frames < 0) {
		// A probe of a raw stream (ADTS, AC-3, DTS) or of a container that
		// leaves the length to avformat_find_stream_info (W64, CAF): the
		// file's size at the bit rate the header or the first frame
		// says, as avformat_find_stream_info would estimate it.
		int64_t br = par->bit_rate > 0 ? par->bit_rate : d->dec->bit_rate > 0 ? d->dec->bit_rate : d->fmt->bit_rate;
		int64_t size = avio_size(d->fmt->pb);
		if (br > 0 && size > 0) {
			info->src_frames = av_rescale_rnd(size, 8 * (int64_t)d->src_rate, br, AV_ROUND_DOWN);
			estimated = 1;
		}
	}
	// MP3 durations count the LAME encoder delay and padding that the
	// decoder trims; estimates from the bit rate are no count at all.
	info->exact = !estimated && d->fmt->duration_estimation_method != AVFMT_DURATION_FROM_BITRATE &&
	              par->codec_id != AV_CODEC_ID_MP3 && par->codec_id != AV_CODEC_ID_MP2 && par->codec_id != AV_CODEC_ID_MP1;
	snprintf(info->codec, sizeof info->codec, "%s", codec->name);
	av_channel_layout_describe(&d->frame->ch_layout, info->layout, sizeof info->layout);
	atomic_fetch_add(&live, 1);
	*out = d;
	return FD_OK;
bad:
	snprintf(err, errlen, "%s", d->err);
	release(d);
	av_free(d);
	return code;
}

int fd_read(fd_dec *d, int16_t *out, int max_frames) {
	if (d->pending_err) {
		int r = d->pending_err;
		d->pending_err = 0;
		return r;
	}
	int done = 0;
	while (done < max_frames) {
		if (d->off >= d->len) {
			d->off = d->len = 0;
			if (d->finished) break;
			int r = next_frame(d);
			if (r == 0) r = flush_swr(d), d->finished = 1;
			else if (r > 0) r = convert_frame(d);
			if (r < 0) {
				// Hand over what was decoded; the error comes next time.
				if (done > 0) {
					d->pending_err = r;
					return done;
				}
				return r;
			}
			continue;
		}
		int n = d->len - d->off;
		if (n > max_frames - done) n = max_frames - done;
		memcpy(out + 2 * done, d->buf + 2 * d->off, (size_t)n * 2 * sizeof(int16_t));
		d->off += n;
		done += n;
	}
	return done;
}

static int64_t gcd64(int64_t a, int64_t b) {
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

int fd_seek(fd_dec *d, int64_t k) {
	if (k < 0) k = 0;
	int64_t src = d->src_rate, out = d->out_rate;
	int64_t target = av_rescale_rnd(k, src, out, AV_ROUND_DOWN);
	// The resampler restarts at s0, a source frame whose output index is
	// whole, early enough to have history at the target; the frames
	// before the target are decoded and dropped.
	int64_t s0 = target, base = k;
	if (src != out) {
		int64_t g = gcd64(src, out), us = src / g, uo = out / g;
		s0 = target - RESAMPLER_HISTORY;
		s0 = s0 > 0 ? s0 / us * us : 0;
		base = s0 / us * uo;
	}
	AVStream *st = d->fmt->streams[d->stream];
	// Near the start too: before the music lie the encoder's priming
	// frames, which the decoder needs as much as any pre-roll.
	int64_t from = s0 - DECODER_PREROLL;
	int64_t ts = d->origin + av_rescale_q(from, (AVRational){1, d->src_rate}, st->time_base);
	int r = av_seek_frame(d->fmt, d->stream, ts, AVSEEK_FLAG_BACKWARD);
	if (r < 0) r = avformat_seek_file(d->fmt, d->stream, INT64_MIN, ts, ts, 0);
	if (r < 0) {
		// No index and no way to seek by time: start over and decode
		// forward.
		if ((r = av_seek_frame(d->fmt, d->stream, 0, AVSEEK_FLAG_BYTE)) < 0) return fail(d, FD_ERR_CORRUPT, "seeking", r);
	}
	avcodec_flush_buffers(d->dec);
	swr_free(&d->swr);
	d->pending = d->pending_err = d->demux_eof = d->finished = d->bad = 0;
	d->len = d->off = 0;
	d->pos = from;
	d->resync = 1;
	d->skip_to = s0;
	d->drop_out = k - base;
	return FD_OK;
}

const char *fd_error(fd_dec *d) { return d->err; }

int fd_skipped(fd_dec *d) { return d->skipped; }

// put_tags appends m's entries to buf as key=value lines (a line break in
// a value becomes a space); entries that do not fit are left out.
static int put_tags(const AVDictionary *m, char *buf, int len, int used) {
	const AVDictionaryEntry *e = NULL;
	while ((e = av_dict_get(m, "", e, AV_DICT_IGNORE_SUFFIX))) {
		size_t k = strlen(e->key), v = strlen(e->value);
		if (used + (int)(k + v + 2) >= len) continue;
		memcpy(buf + used, e->key, k);
		buf[used + k] = '=';
		for (size_t i = 0; i < v; i++) {
			char c = e->value[i];
			buf[used + k + 1 + i] = c == '\n' || c == '\r' ? ' ' : c;
		}
		used += (int)(k + v + 2);
		buf[used - 1] = '\n';
	}
	return used;
}

int fd_tags(fd_dec *d, char *buf, int len) {
	if (len <= 0) return 0;
	int used = put_tags(d->fmt->metadata, buf, len, 0);
	used = put_tags(d->fmt->streams[d->stream]->metadata, buf, len, used);
	buf[used] = 0;
	return used;
}

void fd_close(fd_dec *d) {
	if (!d) return;
	release(d);
	av_free(d);
	atomic_fetch_sub(&live, 1);
}
