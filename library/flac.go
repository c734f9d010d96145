package library

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"
)

// maxFLACBlocks bounds the metadata blocks walked in one file.
const maxFLACBlocks = 1024

// flacRegion returns the byte range of a FLAC file's audio frames (after the
// metadata blocks, where tags and pictures live, and before an ID3v1
// trailer) and the duration from STREAMINFO. id3End is where the FLAC
// stream starts when ID3v2 tags precede it, else 0.
func flacRegion(r io.ReaderAt, size int64) (id3End, start, end int64, dur time.Duration, err error) {
	pos, err := skipID3v2(r, 0, size)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	id3End = pos
	var b [34]byte
	if _, err := r.ReadAt(b[:4], pos); err != nil || string(b[:4]) != "fLaC" {
		return 0, 0, 0, 0, fmt.Errorf("%w: no fLaC marker", ErrNotAudio)
	}
	pos += 4
	var rate, total uint64
	seenInfo := false
	for i := 0; ; i++ {
		if i == maxFLACBlocks {
			return 0, 0, 0, 0, fmt.Errorf("%w: more than %d FLAC metadata blocks", ErrNotAudio, maxFLACBlocks)
		}
		if _, err := r.ReadAt(b[:4], pos); err != nil {
			return 0, 0, 0, 0, fmt.Errorf("%w: FLAC metadata truncated", ErrNotAudio)
		}
		last := b[0]&0x80 != 0
		typ := b[0] & 0x7f
		n := int64(b[1])<<16 | int64(b[2])<<8 | int64(b[3])
		if typ == 127 || pos+4+n > size {
			return 0, 0, 0, 0, fmt.Errorf("%w: bad FLAC metadata block", ErrNotAudio)
		}
		if typ == 0 {
			if n < 34 {
				return 0, 0, 0, 0, fmt.Errorf("%w: short STREAMINFO", ErrNotAudio)
			}
			if _, err := r.ReadAt(b[:34], pos+4); err != nil {
				return 0, 0, 0, 0, err
			}
			v := binary.BigEndian.Uint64(b[10:18])
			rate = v >> 44
			total = v & (1<<36 - 1)
			seenInfo = true
		}
		pos += 4 + n
		if last {
			break
		}
	}
	if !seenInfo || rate == 0 {
		return 0, 0, 0, 0, fmt.Errorf("%w: no STREAMINFO", ErrNotAudio)
	}
	end = size
	if end-pos >= 128 {
		if _, err := r.ReadAt(b[:3], end-128); err == nil && string(b[:3]) == "TAG" {
			end -= 128
		}
	}
	if end-pos < 2 {
		return 0, 0, 0, 0, fmt.Errorf("%w: no FLAC frames", ErrNotAudio)
	}
	if _, err := r.ReadAt(b[:2], pos); err != nil {
		return 0, 0, 0, 0, err
	}
	if b[0] != 0xff || b[1]&0xfe != 0xf8 {
		return 0, 0, 0, 0, fmt.Errorf("%w: no FLAC frame sync after metadata", ErrNotAudio)
	}
	dur = samplesDuration(int64(total), int64(rate))
	return id3End, pos, end, dur, nil
}
