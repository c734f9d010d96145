// The thin C layer between package audio and FFmpeg's libraries
// (libavformat, libavcodec, libswresample, libavutil 5.1 or newer): open a
// stream read through Go callbacks, decode its audio, trim what the
// container says is not music (encoder delay and padding), and convert it
// to 16-bit stereo at the output rate with libswresample. See ffmpeg.go.
#ifndef FURUDESK_FFMPEG_H
#define FURUDESK_FFMPEG_H

#include <stdint.h>

typedef struct fd_dec fd_dec;

// fd_info is what fd_open learnt about the stream.
typedef struct {
	int src_rate;       // sample rate of the audio stream
	int src_channels;   // channels of the audio stream
	int bits;           // bits per raw sample, 0 when the codec does not say
	int64_t src_frames; // frames of music at src_rate, -1 when unknown
	int exact;          // src_frames is counted, not estimated from the bit rate
	char codec[32];     // FFmpeg's codec name ("aac", "opus", ...)
	char layout[64];    // channel layout as FFmpeg names it ("5.1(side)")
} fd_info;

// Results of fd_read and fd_seek besides frame counts.
enum {
	FD_OK = 0,
	FD_ERR_OPEN = -1,        // not a stream the forced demuxer can read
	FD_ERR_NO_AUDIO = -2,    // no audio stream
	FD_ERR_NO_DECODER = -3,  // FFmpeg has no decoder for the codec
	FD_ERR_CORRUPT = -4,     // damaged data
	FD_ERR_IO = -5,          // reading the source failed
	FD_ERR_NOMEM = -6,
	FD_ERR_PROTECTED = -7,   // encrypted (DRM) stream
};

// fd_open opens the stream read through handle (a cgo.Handle of the Go
// reader) with the demuxer named format ("" probes), decodes its first
// audio frame and prepares conversion to 16-bit stereo at out_rate (0: at
// the stream's own rate, which builds no resampling filter). On
// failure it returns a negative FD_ERR_* and writes a reason into err;
// nothing stays allocated.
int fd_open(uintptr_t handle, const char *format, int out_rate, fd_dec **out, fd_info *info, char *err, int errlen);

// fd_read writes up to max_frames 16-bit stereo frames to out and returns
// how many; 0 at the end, a negative FD_ERR_* on failure (fd_error says
// why).
int fd_read(fd_dec *d, int16_t *out, int max_frames);

// fd_seek moves to output frame out_frame: the next fd_read starts there.
int fd_seek(fd_dec *d, int64_t out_frame);

// fd_error is the reason of the last failure of d.
const char *fd_error(fd_dec *d);

// fd_tags writes the container's tags, then the audio stream's, into buf
// as key=value lines, NUL-terminated, as many as fit in len bytes, and
// returns the bytes written.
int fd_tags(fd_dec *d, char *buf, int len);

// fd_skipped counts the packets and frames the decoder refused and d
// skipped (damage, as ffmpeg skips it) since fd_open.
int fd_skipped(fd_dec *d);

// fd_close frees d and everything it holds.
void fd_close(fd_dec *d);

// fd_load loads FFmpeg's libraries, once: from the folder dir when it has
// them (dir may be NULL or ""), else the system's. NULL when they are
// there, else why not. Call it (and have it answer NULL) before any other
// fd_ function. fd_loaded_from_dir says whether dir's were loaded, and
// fd_dir_error why not when dir had them but they could not be loaded.
const char *fd_load(const char *dir);
int fd_loaded_from_dir(void);
const char *fd_dir_error(void);

// fd_avcodec_version and fd_av_version_info are libavcodec's version
// number and FFmpeg's version string, once fd_load succeeded.
unsigned fd_avcodec_version(void);
const char *fd_av_version_info(void);

// fd_live counts the decoders opened and not yet closed (for leak tests).
long fd_live(void);

// fd_heap_in_use is the C heap in use (glibc's mallinfo2), -1 where it
// cannot be told (for leak tests).
long fd_heap_in_use(void);

#endif
