//go:build cgo && !noffmpeg && (linux || windows || ffmpeg)

package audio

// The FFmpeg decoders, bound with cgo to the system's libavformat,
// libavcodec, libswresample and libavutil (5.1 or newer, found with
// pkg-config). Linux builds use them by default; so do Windows builds with
// cgo, compiled against the headers of the cross-built DLLs
// (scripts/build-ffmpeg.sh --windows into build/windows/ffmpeg, as
// scripts/package-windows.sh does) and loading the DLLs from beside
// furudesk.exe. Elsewhere
// build with -tags ffmpeg once FFmpeg's development files are installed,
// and anywhere -tags noffmpeg leaves them out (the pure-Go decoders play
// MP3, Vorbis, FLAC and WAV; see decoders_go.go).
//
// ffmpeg.c is the whole C side: FFmpeg reads the file through the two
// callbacks below (so a Source can be anything seekable), trims encoder
// delay and padding (LAME/Xing headers and MP4 edit lists in libavformat,
// iTunSMPB in ffmpeg.c), and libswresample converts every sample format,
// rate and channel layout to 16-bit stereo at the output rate, downmixing
// with its standard matrix.

/*
#cgo !windows pkg-config: libavformat libavcodec libswresample libavutil
#cgo !windows LDFLAGS: -ldl
#cgo windows CFLAGS: -I${SRCDIR}/../build/windows/ffmpeg/include
#include <stdlib.h>
#include "ffmpeg.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/cgo"
	"strings"
	"sync"
	"unsafe"

	"github.com/furudesk/furudesk/formats"
)

// FFmpeg's libraries are loaded when something is first decoded or
// probed (ffmpeg_dl.h), not when the process starts: furudesk ctl, and a
// window over a library scanned before, never map them and the hundred
// libraries they pull in (14 MB of a window's memory, most of the 50 ms
// that starting a ctl command took). Where they cannot be loaded, the
// pure-Go decoders play what they can and the scan names what needs
// FFmpeg, as in a build without it.
var ffmpegLoad struct {
	once sync.Once
	err  error
	dir  string // the folder of the audio-only build asked for, "" for none

	mu     sync.Mutex
	loaded bool
	told   []func(string) // WhenLoaded's, until the load
}

// ffmpegErr loads FFmpeg's libraries at its first call: nil once they are
// there, else why not.
func ffmpegErr() error {
	ffmpegLoad.once.Do(func() {
		ffmpegLoad.dir = ffmpegDir()
		dir := C.CString(ffmpegLoad.dir)
		defer C.free(unsafe.Pointer(dir))
		if why := C.fd_load(dir); why != nil {
			ffmpegLoad.err = fmt.Errorf("audio: %s", C.GoString(why))
		}
		ffmpegLoad.mu.Lock()
		ffmpegLoad.loaded = true
		told := ffmpegLoad.told
		ffmpegLoad.told = nil
		ffmpegLoad.mu.Unlock()
		d := loadedDecoders(ffmpegLoad.err)
		for _, f := range told {
			go f(d)
		}
	})
	return ffmpegLoad.err
}

// WhenLoaded calls f, on a goroutine of its own, with Decoders() once the
// decoders are ready: when FFmpeg's libraries were loaded (or failed to),
// at the first decode or probe; at once when that happened already. It
// does not load them.
func WhenLoaded(f func(decoders string)) {
	ffmpegLoad.mu.Lock()
	defer ffmpegLoad.mu.Unlock()
	if !ffmpegLoad.loaded {
		ffmpegLoad.told = append(ffmpegLoad.told, f)
		return
	}
	go f(decoders())
}

// haveFFmpeg reports that this process decodes through FFmpeg (this
// build has it and its libraries loaded).
func haveFFmpeg() bool { return ffmpegErr() == nil }

// decoders is Decoders: FFmpeg's version, or the pure-Go decoders and why
// FFmpeg's libraries could not be loaded.
func decoders() string { return loadedDecoders(ffmpegErr()) }

// loadedDecoders names the decoders once FFmpeg's libraries were loaded
// (err nil) or failed to load: only after (or in) ffmpegLoad.once.
func loadedDecoders(err error) string {
	if err != nil {
		return pureGoDecoders + ", FFmpeg not loaded: " + err.Error()
	}
	v := uint(C.fd_avcodec_version())
	from := "the system's"
	if C.fd_loaded_from_dir() != 0 {
		from = "audio-only build in " + ffmpegLoad.dir
	} else if why := C.GoString(C.fd_dir_error()); why != "" {
		from += ", not the audio-only build: " + why
	}
	return fmt.Sprintf("FFmpeg %s (libavcodec %d.%d.%d, %s)", C.GoString(C.fd_av_version_info()), v>>16, v>>8&0xff, v&0xff, from)
}

// FFmpegDirEnv names the folder of the FFmpeg libraries built for
// furudesk (scripts/build-ffmpeg.sh: audio only, without the hundred
// libraries the system's pull in). Set, even empty, it is the only one
// looked at; unset, the folder ffmpeg beside the executable (bin/ffmpeg of
// a build) and lib/furudesk/ffmpeg beside its folder (an installed
// package) are; on Windows, the executable's own folder (the DLLs ship
// beside furudesk.exe). Without such a folder the system's libraries are
// loaded (on Windows, the DLLs of the search path).
const FFmpegDirEnv = "FURUDESK_FFMPEG_DIR"

// ffmpegDir is the folder of FFmpeg's libraries built for furudesk, or ""
// for the system's.
func ffmpegDir() string {
	if dir, ok := os.LookupEnv(FFmpegDirEnv); ok {
		return dir
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	bin := filepath.Dir(exe)
	if runtime.GOOS == "windows" {
		return filepath.Clean(bin)
	}
	for _, dir := range []string{filepath.Join(bin, "ffmpeg"), filepath.Join(bin, "..", "lib", "furudesk", "ffmpeg")} {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return filepath.Clean(dir)
		}
	}
	return ""
}

// avSource is what FFmpeg's I/O callbacks read: the Go reader and the
// first error it returned.
type avSource struct {
	r   io.ReadSeeker
	err error
	// A probe is over before a file could grow: it keeps the size FFmpeg
	// asks for (each time a WAV chunk ends) instead of three seeks a time.
	keepSize bool
	size     int64 // 0: not asked yet
}

// Values of FFmpeg's whence besides io.Seek*.
const avseekSize = 0x10000

//export furudeskAVRead
func furudeskAVRead(h C.uintptr_t, buf *C.uint8_t, size C.int) (n C.int) {
	s := cgo.Handle(h).Value().(*avSource)
	defer func() {
		// A panic cannot unwind through C: it becomes a read error.
		if r := recover(); r != nil {
			s.err = fmt.Errorf("audio: reading panicked: %v", r)
			n = -1
		}
	}()
	p := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(size))
	for tries := 0; tries < 8; tries++ {
		k, err := s.r.Read(p)
		if k > 0 {
			return C.int(k)
		}
		if errors.Is(err, io.EOF) {
			return 0
		}
		if err != nil {
			s.err = err
			return -1
		}
	}
	s.err = io.ErrNoProgress
	return -1
}

//export furudeskAVSeek
func furudeskAVSeek(h C.uintptr_t, off C.int64_t, whence C.int) (pos C.int64_t) {
	s := cgo.Handle(h).Value().(*avSource)
	defer func() {
		if r := recover(); r != nil {
			s.err = fmt.Errorf("audio: seeking panicked: %v", r)
			pos = -1
		}
	}()
	if whence == avseekSize {
		if s.size > 0 {
			return C.int64_t(s.size)
		}
		cur, err := s.r.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		size, err := s.r.Seek(0, io.SeekEnd)
		if err != nil {
			return -1
		}
		if _, err := s.r.Seek(cur, io.SeekStart); err != nil {
			s.err = err
			return -1
		}
		if s.keepSize {
			s.size = size
		}
		return C.int64_t(size)
	}
	p, err := s.r.Seek(int64(off), int(whence))
	if err != nil {
		return -1
	}
	return C.int64_t(p)
}

// demuxer names FFmpeg's demuxer for a container Sniff recognised
// (package formats' list): forcing it keeps FFmpeg from guessing at files
// that are not music.
func demuxer(f Format) string {
	if c := formats.ByName(f.Container()); c != nil {
		return c.Demuxer
	}
	return ""
}

// ffReader decodes through FFmpeg; it is a pcmReader with Close.
type ffReader struct {
	d      *C.fd_dec
	h      cgo.Handle
	src    *avSource
	format Format
}

// newFFmpeg opens r, already sniffed as format, for 16-bit stereo at rate;
// rate 0 keeps the stream's own rate (a probe).
func newFFmpeg(r io.ReadSeeker, format Format, name string, rate int) (*ffReader, Info, error) {
	info := Info{Format: format, SampleRate: rate, Channels: 2, Frames: -1, SourceFrames: -1}
	if err := ffmpegErr(); err != nil { // fd_open needs the libraries
		return nil, info, err
	}
	demux := demuxer(format)
	if demux == "" {
		return nil, info, fmt.Errorf("%w: %q", ErrUnknownFormat, name)
	}
	src := &avSource{r: r, keepSize: rate == 0}
	h := cgo.NewHandle(src)
	cfmt := C.CString(demux)
	defer C.free(unsafe.Pointer(cfmt))
	var errBuf [256]C.char
	var d *C.fd_dec
	var ci C.fd_info
	code := C.fd_open(C.uintptr_t(h), cfmt, C.int(rate), &d, &ci, &errBuf[0], C.int(len(errBuf)))
	if code != C.FD_OK {
		h.Delete()
		return nil, info, ffError(code, C.GoString(&errBuf[0]), format, src.err)
	}
	info.SourceRate = int(ci.src_rate)
	info.SourceChannels = int(ci.src_channels)
	info.SourceBits = int(ci.bits)
	info.Codec = C.GoString(&ci.codec[0])
	info.Layout = C.GoString(&ci.layout[0])
	if rate == 0 {
		info.SampleRate = info.SourceRate
	}
	if ci.src_frames > 0 {
		info.SourceFrames = int64(ci.src_frames)
	}
	if ci.src_frames > 0 && ci.exact != 0 {
		info.Frames = outFrames(int64(ci.src_frames), int64(ci.src_rate), int64(info.SampleRate))
	}
	switch {
	case format != FormatMP4:
	case info.Codec == "aac" || info.Codec == "aac_fixed":
		info.Format = FormatAAC
	case info.Codec == "alac":
		info.Format = FormatALAC
	}
	return &ffReader{d: d, h: h, src: src, format: info.Format}, info, nil
}

// ffError turns an fd_* failure into the package's errors.
func ffError(code C.int, why string, format Format, ioErr error) error {
	switch code {
	case C.FD_ERR_IO:
		if ioErr != nil {
			return fmt.Errorf("audio: reading the %s file: %w", format, ioErr)
		}
		return fmt.Errorf("%w: %s: %s", ErrCorrupt, format, why)
	case C.FD_ERR_NO_AUDIO:
		return fmt.Errorf("%w: %s", ErrNoAudio, format)
	case C.FD_ERR_NO_DECODER:
		return fmt.Errorf("%w: %s: %s", ErrUnsupported, format, why)
	case C.FD_ERR_PROTECTED:
		return fmt.Errorf("%w: %s", ErrProtected, format)
	case C.FD_ERR_NOMEM:
		return fmt.Errorf("audio: %s: %s", format, why)
	}
	return fmt.Errorf("%w: %s: %s", ErrCorrupt, format, why)
}

func (f *ffReader) Read(p []byte) (int, error) {
	frames := len(p) / bytesPerFrame
	if frames == 0 {
		return 0, nil
	}
	n := C.fd_read(f.d, (*C.int16_t)(unsafe.Pointer(&p[0])), C.int(frames))
	if n < 0 {
		return 0, ffError(n, C.GoString(C.fd_error(f.d)), f.format, f.src.err)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return int(n) * bytesPerFrame, nil
}

func (f *ffReader) SeekFrame(k int64) error {
	if code := C.fd_seek(f.d, C.int64_t(k)); code != C.FD_OK {
		return ffError(code, C.GoString(C.fd_error(f.d)), f.format, f.src.err)
	}
	return nil
}

// maxTagBytes bounds the tags tags reads: cover art is not among them
// (FFmpeg reads it as a picture stream), lyrics may be.
const maxTagBytes = 16 << 10

// tagBufs holds tags' buffers of maxTagBytes: a scan of 100,000 files
// made one each, 1.5 GB of garbage (issue 37).
var tagBufs = sync.Pool{New: func() any { return new([maxTagBytes]byte) }}

// tags are the stream's tags (see Info.Tags), the first of each key.
func (f *ffReader) tags() map[string]string {
	buf := tagBufs.Get().(*[maxTagBytes]byte)
	n := int(C.fd_tags(f.d, (*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf))))
	text := string(buf[:n])
	tagBufs.Put(buf)
	m := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if _, dup := m[k]; ok && k != "" && !dup {
			m[k] = v
		}
	}
	return m
}

// skipped counts the damaged packets and frames skipped so far.
func (f *ffReader) skipped() int {
	if f.d == nil {
		return 0
	}
	return int(C.fd_skipped(f.d))
}

// Close frees the FFmpeg state; the reader is not closed.
func (f *ffReader) Close() {
	if f.d == nil {
		return
	}
	C.fd_close(f.d)
	f.d = nil
	f.h.Delete()
}

// ffLive counts FFmpeg decoders not yet closed (leak tests).
func ffLive() int { return int(C.fd_live()) }

// cHeapInUse is the C heap in use, -1 where it cannot be told (leak
// tests).
func cHeapInUse() int64 { return int64(C.fd_heap_in_use()) }
