package web

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/furudesk/furudesk/audio"
)

// The hub decodes a track the browser cannot play (canPlayType says no:
// ALAC, WavPack, APE, WMA in Chromium) with the audio package's decoders
// into a WAV of 16-bit stereo PCM at the track's own rate: a format every
// browser plays, and one whose bytes map onto samples, so a Range request
// (a seek) starts the decoder at the sample it names.

// wavHeaderLen is the size of the canonical WAV header before the samples.
const wavHeaderLen = 44

// pcmFrameBytes is one frame of the decoded stream: 16-bit stereo.
const pcmFrameBytes = 4

// maxWAVFrames bounds a decoded stream to what a WAV header can state
// (32-bit sizes); a longer track is served without a length or Range.
const maxWAVFrames = (1<<32 - 1 - wavHeaderLen) / pcmFrameBytes

// pcmStream is a track decoded for the browser (*audio.Decoder is one):
// 16-bit little-endian stereo frames at Rate.
type pcmStream interface {
	Read(p []byte) (int, error)
	SeekFrame(f int64) error
	Close()
}

// pcmOpener opens r (named name, for errors and format sniffing) decoded:
// the stream, its rate and its length in frames (-1 when unknown).
type pcmOpener func(r io.ReadSeeker, name string) (pcm pcmStream, rate int, frames int64, err error)

// openDecoded is the hub's pcmOpener: the audio package's decoder (FFmpeg
// when the build has it) at the track's own rate when a browser plays
// that rate, else 48 kHz.
func openDecoded(r io.ReadSeeker, name string) (pcmStream, int, int64, error) {
	info, err := audio.Probe(r, name)
	if err != nil {
		return nil, 0, 0, err
	}
	rate := info.SourceRate
	if rate < 8000 || rate > 192000 {
		rate = 48000
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, 0, 0, err
	}
	d, err := audio.NewDecoder(r, name, rate)
	if err != nil {
		return nil, 0, 0, err
	}
	frames := d.Info().Frames
	if frames < 0 && info.SourceFrames > 0 && info.SourceRate > 0 {
		frames = info.SourceFrames * int64(rate) / int64(info.SourceRate) // an estimate: padded or cut to it
	}
	return d, rate, frames, nil
}

// wavHeader is the header of a stream of frames frames at rate (-1: a
// length the header cannot state).
func wavHeader(rate int, frames int64) []byte {
	data := uint32(0xFFFFFFFF)
	riff := uint32(0xFFFFFFFF)
	if frames >= 0 && frames <= maxWAVFrames {
		data = uint32(frames * pcmFrameBytes)
		riff = data + wavHeaderLen - 8
	}
	h := make([]byte, 0, wavHeaderLen)
	le := binary.LittleEndian
	h = append(h, "RIFF"...)
	h = le.AppendUint32(h, riff)
	h = append(h, "WAVEfmt "...)
	h = le.AppendUint32(h, 16)
	h = le.AppendUint16(h, 1) // PCM
	h = le.AppendUint16(h, 2)
	h = le.AppendUint32(h, uint32(rate))
	h = le.AppendUint32(h, uint32(rate*pcmFrameBytes))
	h = le.AppendUint16(h, pcmFrameBytes)
	h = le.AppendUint16(h, 16)
	h = append(h, "data"...)
	return le.AppendUint32(h, data)
}

// byteRange is one parsed Range of a size-byte resource: [start, end].
// ok is false when the header asks for nothing satisfiable.
func byteRange(header string, size int64) (start, end int64, ok bool) {
	spec, found := strings.CutPrefix(header, "bytes=")
	if !found || strings.Contains(spec, ",") { // several ranges: no browser asks for them for media
		return 0, 0, false
	}
	a, b, found := strings.Cut(strings.TrimSpace(spec), "-")
	if !found {
		return 0, 0, false
	}
	if a == "" { // the last b bytes
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n <= 0 {
			return 0, 0, false
		}
		return max(0, size-n), size - 1, size > 0
	}
	start, err := strconv.ParseInt(a, 10, 64)
	if err != nil || start < 0 || start >= size {
		return 0, 0, false
	}
	end = size - 1
	if b != "" {
		e, err := strconv.ParseInt(b, 10, 64)
		if err != nil || e < start {
			return 0, 0, false
		}
		end = min(e, size-1)
	}
	return start, end, true
}

// decodeChunk is how many frames one read of the decoder asks for.
const decodeChunk = 4096

// serveDecoded serves src decoded as WAV, with Range. The decoder is
// started at the requested sample, and its first samples are decoded
// before the status is written, so a track that cannot be decoded there is
// a 415 with the reason; a failure later ends the body early (the browser
// sees a cut response) and is reported to the app as the track's decode
// error. The hub keeps running either way.
func (s *Server) serveDecoded(w http.ResponseWriter, r *http.Request, src audio.Source) {
	out := s.opts.Output
	if !out.decodeSlot() {
		http.Error(w, "The hub is decoding too many tracks at once: try again.", http.StatusServiceUnavailable)
		return
	}
	defer out.decodeDone()
	f, err := openSource(src)
	if err != nil {
		s.log.Warn("web: media", "id", src.ID, "error", err)
		http.Error(w, "The file of this track cannot be read.", http.StatusNotFound)
		return
	}
	defer f.Close()
	name := src.Name
	if src.Path != "" {
		name = src.Path
	}
	pcm, rate, frames, err := out.openPCM(f, name)
	if err != nil {
		out.decodeFailed(src.ID, err, false)
		s.log.Warn("web: decode", "id", src.ID, "error", err)
		http.Error(w, "This track cannot be decoded: "+audio.Reason(err)+".", http.StatusUnsupportedMediaType)
		return
	}
	defer pcm.Close()
	head := wavHeader(rate, frames)
	sized := frames >= 0 && frames <= maxWAVFrames
	size := int64(-1)
	start, end := int64(0), int64(-1)
	status := http.StatusOK
	if sized {
		size = wavHeaderLen + frames*pcmFrameBytes
		end = size - 1
		if rh := r.Header.Get("Range"); rh != "" {
			var ok bool
			if start, end, ok = byteRange(rh, size); !ok {
				w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", size))
				http.Error(w, "That range is outside the decoded track.", http.StatusRequestedRangeNotSatisfiable)
				return
			}
			status = http.StatusPartialContent
		}
	}
	// Where the decoder starts: the frame of start, skip bytes into it.
	var skip int64
	if start > wavHeaderLen {
		off := start - wavHeaderLen
		if err := pcm.SeekFrame(off / pcmFrameBytes); err != nil {
			out.decodeFailed(src.ID, err, false)
			s.log.Warn("web: decode: seek", "id", src.ID, "frame", off/pcmFrameBytes, "error", err)
			http.Error(w, "This track cannot be decoded from there: "+audio.Reason(err)+".", http.StatusUnsupportedMediaType)
			return
		}
		skip = off % pcmFrameBytes
	}
	buf := make([]byte, decodeChunk*pcmFrameBytes)
	n, rerr := io.ReadFull(pcm, buf)
	if rerr != nil && !errors.Is(rerr, io.EOF) && !errors.Is(rerr, io.ErrUnexpectedEOF) {
		out.decodeFailed(src.ID, rerr, false)
		s.log.Warn("web: decode", "id", src.ID, "error", rerr)
		http.Error(w, "This track cannot be decoded: "+audio.Reason(rerr)+".", http.StatusUnsupportedMediaType)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "audio/wav")
	h.Set("Cache-Control", "no-store")
	if sized {
		h.Set("Accept-Ranges", "bytes")
		h.Set("Content-Length", strconv.FormatInt(end-start+1, 10))
		if status == http.StatusPartialContent {
			h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end, size))
		}
	} else {
		h.Set("Accept-Ranges", "none")
	}
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	// left is what the response still owes (-1: until the decoder ends).
	left := int64(-1)
	if sized {
		left = end - start + 1
	}
	write := func(b []byte) bool {
		if left >= 0 {
			b = b[:min(int64(len(b)), left)]
			left -= int64(len(b))
		}
		_, err := w.Write(b)
		return err == nil
	}
	if start < wavHeaderLen && !write(head[start:]) {
		return
	}
	chunk := buf[min(int64(n), skip):n]
	for left != 0 {
		if len(chunk) > 0 && !write(chunk) {
			return // the browser went (a seek closes the old request)
		}
		if rerr != nil {
			break
		}
		n, rerr = io.ReadFull(pcm, buf)
		chunk = buf[:n]
		if rerr != nil && !errors.Is(rerr, io.EOF) && !errors.Is(rerr, io.ErrUnexpectedEOF) {
			if n > 0 {
				write(chunk)
			}
			out.decodeFailed(src.ID, rerr, true)
			s.log.Warn("web: decode: mid-stream", "id", src.ID, "error", rerr)
			return // the body ends short of its length: the browser sees a cut response
		}
	}
	// A length that was an estimate: silence up to it.
	zero := make([]byte, len(buf))
	for left > 0 {
		if !write(zero) {
			return
		}
	}
}

// maxDecodes bounds the decoded streams the hub serves at once (a page
// seeking opens a new one as the old one closes).
const maxDecodes = 4

// decodeSlot takes one of the maxDecodes slots; false when none is free.
func (o *BrowserOutput) decodeSlot() bool {
	select {
	case o.decodes <- struct{}{}:
		return true
	default:
		return false
	}
}

func (o *BrowserOutput) decodeDone() { <-o.decodes }

// decodeFailed counts a failed decoding of content id and, the first time
// for the track the hub plays now, reports it to the app as that track's
// DecodeError (the app says so and goes on, as for a local output).
func (o *BrowserOutput) decodeFailed(id string, err error, midStream bool) {
	o.mu.Lock()
	o.decodeErrors++
	o.lastDecodeError = audio.Reason(err)
	var ev audio.Event
	if o.cur.Seq != 0 && o.cur.ID == id && o.decodeErrorOf != o.cur.Seq {
		o.decodeErrorOf = o.cur.Seq
		if midStream {
			err = fmt.Errorf("decoding for the browser stopped: %w", err)
		}
		ev = audio.DecodeError{Track: o.cur, Err: err}
	}
	o.mu.Unlock()
	if ev != nil {
		o.events <- ev
	}
}

// decURL is the address of content id decoded, for track seq.
func decURL(id string, seq uint64) string { return fmt.Sprintf("/media/%s?as=wav&t=%d", id, seq) }

// openSource opens src's bytes: its Open when set, else its file.
func openSource(src audio.Source) (io.ReadSeekCloser, error) {
	if src.Open != nil {
		return src.Open()
	}
	return os.Open(src.Path)
}
