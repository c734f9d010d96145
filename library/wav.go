package library

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

const (
	// maxRIFFChunks bounds the chunks walked in one WAV file.
	maxRIFFChunks = 4096
	// maxInfoChunk bounds the LIST/INFO chunk read into memory.
	maxInfoChunk = 1 << 20
)

// wavInfo is what a WAV (or AIFF, parseAIFF) file's chunks say about it.
type wavInfo struct {
	dataStart, dataEnd int64
	duration           time.Duration
	tags               tagInfo
	hasTags            bool
	id3Start, id3Len   int64 // an "id3 " chunk, read with dhowden/tag
	coded              bool  // a codec whose byte rate is an average (ADPCM, MP3): the decoder tells the length
}

// parseWAV walks the RIFF chunks: fmt (format and byte rate), data (the
// audio region hashed for the content id), LIST/INFO (title, artist, album,
// genre, date, track) and id3 (an ID3v2 tag, as written by some taggers).
func parseWAV(r io.ReaderAt, size int64) (wavInfo, error) {
	var w wavInfo
	var b [40]byte
	if size < 12 {
		return w, fmt.Errorf("%w: too short for RIFF", ErrNotAudio)
	}
	if _, err := r.ReadAt(b[:12], 0); err != nil {
		return w, err
	}
	if string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return w, fmt.Errorf("%w: no RIFF/WAVE header", ErrNotAudio)
	}
	var byteRate int64
	haveFmt, haveData := false, false
	pos := int64(12)
	for i := 0; i < maxRIFFChunks && pos+8 <= size; i++ {
		if _, err := r.ReadAt(b[:8], pos); err != nil {
			return w, err
		}
		id := string(b[:4])
		n := int64(binary.LittleEndian.Uint32(b[4:8]))
		body := pos + 8
		if n > size-body {
			n = size - body // streaming writers leave 0xFFFFFFFF
		}
		switch id {
		case "fmt ":
			if n < 16 {
				return w, fmt.Errorf("%w: short fmt chunk", ErrNotAudio)
			}
			if _, err := r.ReadAt(b[:16], body); err != nil {
				return w, err
			}
			// Any codec (µ-law, A-law, ADPCM, MP3 in WAV): the
			// decoder's probe tells whether it plays.
			switch binary.LittleEndian.Uint16(b[0:2]) {
			case 1, 3, 0xfffe, 6, 7: // PCM, float, extensible, A-law, µ-law
			default:
				w.coded = true
			}
			byteRate = int64(binary.LittleEndian.Uint32(b[8:12]))
			haveFmt = true
		case "data":
			if !haveData {
				w.dataStart, w.dataEnd = body, body+n
				haveData = true
			}
		case "LIST":
			if n >= 4 && n <= maxInfoChunk {
				buf := make([]byte, n)
				if _, err := r.ReadAt(buf, body); err != nil {
					return w, err
				}
				if string(buf[:4]) == "INFO" {
					w.tags = parseInfo(buf[4:])
					w.hasTags = true
				}
			}
		case "id3 ", "ID3 ":
			w.id3Start, w.id3Len = body, n
		}
		pos = body + n + n&1
	}
	if !haveFmt || !haveData || byteRate <= 0 && !w.coded {
		return w, fmt.Errorf("%w: WAV without fmt or data chunk", ErrNotAudio)
	}
	w.duration = samplesDuration(w.dataEnd-w.dataStart, byteRate)
	return w, nil
}

// parseInfo reads the sub-chunks of a LIST/INFO chunk.
func parseInfo(b []byte) tagInfo {
	var t tagInfo
	for len(b) >= 8 {
		id := string(b[:4])
		n := int(binary.LittleEndian.Uint32(b[4:8]))
		b = b[8:]
		if n > len(b) {
			n = len(b)
		}
		v := cleanTag(string(b[:n]))
		switch id {
		case "INAM":
			t.title = v
		case "IART":
			t.artists = splitArtists(v)
		case "IPRD":
			t.album = v
		case "IGNR":
			t.genre = v
		case "ICRD":
			t.year = leadingInt(v)
		case "IPRT", "ITRK":
			t.track = leadingInt(v)
		}
		n += n & 1
		if n > len(b) {
			n = len(b)
		}
		b = b[n:]
	}
	return t
}

// leadingInt parses the digits at the start of s ("3/10" → 3, "2021-05" →
// 2021); 0 when there are none.
func leadingInt(s string) int {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	v, _ := strconv.Atoi(s[:i])
	return v
}

// samplesDuration converts a count of units at rate units per second to a
// duration without overflowing for long streams; beyond maxDuration it is
// unknown (0).
func samplesDuration(n, rate int64) time.Duration {
	if rate <= 0 || n <= 0 || n/rate >= int64(maxDuration/time.Second) {
		return 0
	}
	return time.Duration(n/rate)*time.Second + time.Duration(n%rate)*time.Second/time.Duration(rate)
}

// maxDuration bounds a duration read from a file's headers: no track is
// 1000 hours long, and a count beyond it (a broken header) would overflow
// a time.Duration. Such a duration is unknown (0).
const maxDuration = 1000 * time.Hour
