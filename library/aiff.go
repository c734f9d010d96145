package library

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"time"
)

// parseAIFF walks the chunks of an AIFF or AIFF-C file (big-endian IFF):
// COMM (frames and rate), SSND (the sound data), ID3 (an ID3v2 tag, as
// iTunes and most taggers write) and the NAME, AUTH and ANNO text chunks.
func parseAIFF(r io.ReaderAt, size int64) (wavInfo, error) {
	var a wavInfo
	var b [26]byte
	if size < 12 {
		return a, fmt.Errorf("%w: too short for AIFF", ErrNotAudio)
	}
	if _, err := r.ReadAt(b[:12], 0); err != nil {
		return a, err
	}
	if string(b[:4]) != "FORM" || string(b[8:12]) != "AIFF" && string(b[8:12]) != "AIFC" {
		return a, fmt.Errorf("%w: no FORM/AIFF header", ErrNotAudio)
	}
	var frames uint32
	var rate float64
	haveComm, haveData := false, false
	pos := int64(12)
	for i := 0; i < maxRIFFChunks && pos+8 <= size; i++ {
		if _, err := r.ReadAt(b[:8], pos); err != nil {
			return a, err
		}
		id := string(b[:4])
		n := int64(binary.BigEndian.Uint32(b[4:8]))
		body := pos + 8
		if n > size-body {
			n = size - body // a file cut short: the sound that is there
		}
		switch id {
		case "COMM":
			if n < 18 {
				return a, fmt.Errorf("%w: short COMM chunk", ErrNotAudio)
			}
			if _, err := r.ReadAt(b[:18], body); err != nil {
				return a, err
			}
			frames = binary.BigEndian.Uint32(b[2:6])
			rate = extended80(b[8:18])
			haveComm = true
		case "SSND":
			if n < 8 {
				return a, fmt.Errorf("%w: short SSND chunk", ErrNotAudio)
			}
			if _, err := r.ReadAt(b[:4], body); err != nil {
				return a, err
			}
			off := int64(binary.BigEndian.Uint32(b[:4]))
			a.dataStart, a.dataEnd = min(body+8+off, body+n), body+n
			haveData = true
		case "ID3 ", "id3 ":
			a.id3Start, a.id3Len = body, n
		case "NAME", "AUTH":
			if n <= maxTagLen {
				text := make([]byte, n)
				if _, err := r.ReadAt(text, body); err != nil {
					return a, err
				}
				if id == "NAME" {
					a.tags.title = cleanTag(string(text))
				} else {
					a.tags.artists = splitArtists(string(text))
				}
				a.hasTags = true
			}
		}
		pos = body + n + n&1
	}
	if !haveComm || !haveData || !(rate >= 1 && rate <= 1e7) {
		return a, fmt.Errorf("%w: AIFF without COMM or SSND chunk", ErrNotAudio)
	}
	a.duration = time.Duration(float64(frames) / rate * float64(time.Second))
	if r := math.Round(rate); r == rate {
		a.duration = samplesDuration(int64(frames), int64(r))
	}
	return a, nil
}

// extended80 reads the 80-bit IEEE 754 extended float AIFF stores its
// sample rate in.
func extended80(b []byte) float64 {
	exp := int(binary.BigEndian.Uint16(b[:2]) & 0x7fff)
	mant := binary.BigEndian.Uint64(b[2:10])
	if exp == 0 && mant == 0 {
		return 0
	}
	v := float64(mant) * math.Pow(2, float64(exp-16383-63))
	if b[0]&0x80 != 0 {
		v = -v
	}
	return v
}
