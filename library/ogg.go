package library

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// maxOggPages bounds the pages read from one file (about 1.6 TB of audio at
// the usual 4 KiB pages, far beyond any real track).
const maxOggPages = 1 << 28

// hashOgg writes the audio identity of an Ogg Vorbis stream to h and returns
// its duration. It hashes the payload of every packet except the Vorbis
// comment header (packet 1 of the first logical stream). Page headers are
// left out too, because a retag that changes the comment's size renumbers
// the following pages and rewrites their checksums; the packets themselves
// do not change. A truncated last page ends the stream without error.
func hashOgg(r io.Reader, h io.Writer, buf []byte) (time.Duration, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		hdr         [27]byte
		segs        [255]byte
		serial      uint32
		packet      int // index of the current packet of the first stream
		rate        int
		lastGranule int64
	)
	if len(buf) < 255*255 {
		buf = make([]byte, 255*255)
	}
	for page := 0; page < maxOggPages; page++ {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			if page > 0 && (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)) {
				break
			}
			return 0, fmt.Errorf("%w: Ogg page %d: %v", ErrNotAudio, page, err)
		}
		if string(hdr[:4]) != "OggS" || hdr[4] != 0 {
			if page == 0 {
				return 0, fmt.Errorf("%w: no Ogg page", ErrNotAudio)
			}
			break // garbage after the stream: keep what was read
		}
		nseg := int(hdr[26])
		if _, err := io.ReadFull(br, segs[:nseg]); err != nil {
			break
		}
		total := 0
		for _, l := range segs[:nseg] {
			total += int(l)
		}
		data := buf[:total]
		if _, err := io.ReadFull(br, data); err != nil {
			break
		}
		ser := binary.LittleEndian.Uint32(hdr[14:18])
		granule := int64(binary.LittleEndian.Uint64(hdr[6:14]))
		if page == 0 {
			serial = ser
			switch {
			case len(data) >= 30 && string(data[:7]) == "\x01vorbis":
				rate = int(binary.LittleEndian.Uint32(data[12:16]))
			case len(data) >= 8 && string(data[:8]) == "OpusHead":
				return 0, fmt.Errorf("%w: Ogg Opus", ErrUnsupported)
			default:
				return 0, fmt.Errorf("%w: Ogg stream is not Vorbis", ErrUnsupported)
			}
		}
		if ser != serial {
			if _, err := h.Write(data); err != nil {
				return 0, err
			}
			continue
		}
		// Find the part of this page that belongs to packet 1 and hash the rest.
		skipFrom, skipTo := -1, -1
		off := 0
		for _, l := range segs[:nseg] {
			if packet == 1 {
				if skipFrom < 0 {
					skipFrom = off
				}
				skipTo = off + int(l)
			}
			off += int(l)
			if l < 255 {
				packet++
			}
		}
		if skipFrom < 0 {
			if _, err := h.Write(data); err != nil {
				return 0, err
			}
		} else {
			if _, err := h.Write(data[:skipFrom]); err != nil {
				return 0, err
			}
			if _, err := h.Write(data[skipTo:]); err != nil {
				return 0, err
			}
		}
		if granule > 0 && packet >= 3 {
			lastGranule = granule
		}
	}
	if rate <= 0 {
		return 0, fmt.Errorf("%w: Vorbis sample rate is 0", ErrNotAudio)
	}
	return samplesDuration(lastGranule, int64(rate)), nil
}
