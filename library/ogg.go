package library

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// maxOggPages bounds the pages read from one file (about 1.6 TB of audio at
// the usual 4 KiB pages, far beyond any real track).
const maxOggPages = 1 << 28

// oggInfo is what hashOgg learnt about an Ogg stream.
type oggInfo struct {
	codec    string // "vorbis", "opus" or "flac"
	duration time.Duration
	headers  [][]byte // the header packets of FLAC in Ogg (metadata blocks), for its tags
}

// Limits on the header packets kept from an Ogg FLAC stream (its tags and
// pictures).
const (
	maxOggHeaders     = 64
	maxOggHeaderBytes = 16 << 20
)

// hashOgg writes the audio identity of an Ogg stream of Vorbis, Opus or
// FLAC to h and returns its codec and duration. Page headers are left out,
// because a retag that changes the comment's size renumbers the following
// pages and rewrites their checksums; the packets themselves do not change.
// Of the first logical stream it leaves out the packets tags live in:
// Vorbis its comment header (packet 1; the identity of Vorbis files
// predates Opus and stays as it was), Opus both headers (OpusTags, and
// OpusHead whose output gain loudness tools rewrite), FLAC every header
// packet (its metadata blocks: tags, pictures). A truncated last page ends
// the stream without error.
func hashOgg(r io.Reader, h io.Writer, buf []byte) (oggInfo, error) {
	return walkOgg(r, h, buf, false)
}

// walkOgg is hashOgg; with headersOnly it stops after the header packets
// (no duration then).
func walkOgg(r io.Reader, h io.Writer, buf []byte, headersOnly bool) (oggInfo, error) {
	var info oggInfo
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		hdr         [27]byte
		segs        [255]byte
		serial      uint32
		packet      int // index of the current packet of the first stream
		headers     int // packets 0..headers-1 of the first stream are headers
		skipUpTo    int // packets 0..skipUpTo are not hashed (from skipFrom)
		skipFrom    int
		rate        int
		preSkip     int64
		lastGranule int64
		partial     []byte // a FLAC header packet continued on the next page
		kept        int
	)
	if len(buf) < 255*255 {
		buf = make([]byte, 255*255)
	}
	for page := 0; page < maxOggPages; page++ {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			if page > 0 && (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)) {
				break
			}
			return info, fmt.Errorf("%w: Ogg page %d: %v", ErrNotAudio, page, err)
		}
		if string(hdr[:4]) != "OggS" || hdr[4] != 0 {
			if page == 0 {
				return info, fmt.Errorf("%w: no Ogg page", ErrNotAudio)
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
				info.codec, headers, skipFrom, skipUpTo = "vorbis", 3, 1, 1
				rate = int(binary.LittleEndian.Uint32(data[12:16]))
			case len(data) >= 19 && string(data[:8]) == "OpusHead":
				info.codec, headers, skipFrom, skipUpTo = "opus", 2, 0, 1
				rate = 48000 // Opus granules count 48 kHz samples whatever the input rate
				preSkip = int64(binary.LittleEndian.Uint16(data[10:12]))
			case len(data) >= 51 && string(data[:5]) == "\x7fFLAC" && string(data[9:13]) == "fLaC":
				n := int(binary.BigEndian.Uint16(data[7:9])) // header packets after this one
				info.codec, headers, skipFrom, skipUpTo = "flac", n+1, 0, n
				rate = int(binary.BigEndian.Uint32(data[27:31]) >> 12)
				info.headers = append(info.headers, bytes.Clone(data[13:51])) // STREAMINFO block
			default:
				return info, fmt.Errorf("%w: an Ogg stream that is not Vorbis, Opus or FLAC", ErrUnsupported)
			}
		}
		if ser != serial {
			if _, err := h.Write(data); err != nil {
				return info, err
			}
			continue
		}
		// Hash the parts of this page that are not skipped packets.
		off, from := 0, 0
		for _, l := range segs[:nseg] {
			end := off + int(l)
			if packet >= skipFrom && packet <= skipUpTo {
				if _, err := h.Write(data[from:off]); err != nil {
					return info, err
				}
				from = end
				if info.codec == "flac" && packet >= 1 && kept+int(l) <= maxOggHeaderBytes {
					partial = append(partial, data[off:end]...)
					kept += int(l)
				}
			}
			off = end
			if l < 255 {
				if info.codec == "flac" && packet >= 1 && packet <= skipUpTo && len(info.headers) < maxOggHeaders {
					info.headers = append(info.headers, partial)
				}
				partial = nil
				packet++
			}
		}
		if _, err := h.Write(data[from:]); err != nil {
			return info, err
		}
		if granule > 0 && packet >= headers {
			lastGranule = granule
		}
		if headersOnly && packet >= headers {
			return info, nil
		}
	}
	if rate <= 0 {
		return info, fmt.Errorf("%w: %s sample rate is 0", ErrNotAudio, info.codec)
	}
	info.duration = samplesDuration(max(lastGranule-preSkip, 0), int64(rate))
	return info, nil
}

// oggFLACTags reads the tags of FLAC in Ogg (see oggFLACStream).
func oggFLACTags(blocks [][]byte) (tagInfo, error) {
	return readTags(bytes.NewReader(oggFLACStream(blocks)))
}

// oggFLACStream lays the header packets of FLAC in Ogg, which are FLAC
// metadata blocks (STREAMINFO first), out as a native FLAC stream's header
// for dhowden/tag.
func oggFLACStream(blocks [][]byte) []byte {
	var b bytes.Buffer
	b.WriteString("fLaC")
	n := 0
	for _, blk := range blocks {
		if len(blk) >= 4 {
			n++
		}
	}
	for _, blk := range blocks {
		if len(blk) < 4 {
			continue
		}
		n--
		first := blk[0] &^ 0x80
		if n == 0 {
			first |= 0x80 // the last metadata block
		}
		b.WriteByte(first)
		b.Write(blk[1:])
	}
	return b.Bytes()
}
