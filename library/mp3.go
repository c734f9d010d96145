package library

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"
)

// mp3Region returns the byte range of an MP3 file that holds audio frames:
// after any ID3v2 tags, before any APE, Lyrics3v2 and ID3v1 trailers, so a
// retag does not change the content id.
func mp3Region(r io.ReaderAt, size int64) (start, end int64, err error) {
	start, err = skipID3v2(r, 0, size)
	if err != nil {
		return 0, 0, err
	}
	end = size
	var b [32]byte
	if end-start >= 128 {
		if _, err := r.ReadAt(b[:3], end-128); err != nil {
			return 0, 0, err
		}
		if string(b[:3]) == "TAG" {
			end -= 128
		}
	}
	if end-start >= 15 {
		if _, err := r.ReadAt(b[:15], end-15); err != nil {
			return 0, 0, err
		}
		if string(b[6:15]) == "LYRICS200" {
			var n int64
			for _, c := range b[:6] {
				if c < '0' || c > '9' {
					n = -1
					break
				}
				n = n*10 + int64(c-'0')
			}
			if n >= 0 && end-15-n >= start {
				end -= 15 + n
			}
		}
	}
	if end-start >= 32 {
		if _, err := r.ReadAt(b[:32], end-32); err != nil {
			return 0, 0, err
		}
		if string(b[:8]) == "APETAGEX" {
			n := int64(binary.LittleEndian.Uint32(b[12:16]))
			if binary.LittleEndian.Uint32(b[20:24])&(1<<31) != 0 {
				n += 32
			}
			if n <= end-start {
				end -= n
			}
		}
	}
	return start, end, nil
}

// maxID3Tags bounds how many stacked ID3v2 tags are skipped.
const maxID3Tags = 8

// skipID3v2 returns the offset after the ID3v2 tags starting at off.
func skipID3v2(r io.ReaderAt, off, size int64) (int64, error) {
	var h [10]byte
	for i := 0; i < maxID3Tags && off+10 <= size; i++ {
		if _, err := r.ReadAt(h[:], off); err != nil {
			return 0, err
		}
		if string(h[:3]) != "ID3" {
			break
		}
		n := int64(h[6]&0x7f)<<21 | int64(h[7]&0x7f)<<14 | int64(h[8]&0x7f)<<7 | int64(h[9]&0x7f)
		n += 10
		if h[5]&0x10 != 0 {
			n += 10 // footer
		}
		if off+n > size {
			return 0, fmt.Errorf("%w: ID3v2 tag of %d bytes runs past the end", ErrNotAudio, n)
		}
		off += n
	}
	return off, nil
}

// mpegHeader is a decoded MPEG audio frame header.
type mpegHeader struct {
	length  int // whole frame, header included
	samples int // samples per channel in the frame
	rate    int
	mpeg1   bool
	mono    bool
}

var (
	mpegBitrates = [5][16]int{
		{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 0}, // V1 L1
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 0},    // V1 L2
		{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0},     // V1 L3
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256, 0},    // V2 L1
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0},         // V2 L2, L3
	}
	mpegRates = [3][3]int{{44100, 48000, 32000}, {22050, 24000, 16000}, {11025, 12000, 8000}}
)

// parseMPEGHeader decodes a 4-byte frame header; free-format and reserved
// values are rejected.
func parseMPEGHeader(b []byte) (mpegHeader, bool) {
	if b[0] != 0xff || b[1]&0xe0 != 0xe0 {
		return mpegHeader{}, false
	}
	ver := (b[1] >> 3) & 3 // 0: 2.5, 2: 2, 3: 1
	layer := (b[1] >> 1) & 3
	bri := b[2] >> 4
	sri := (b[2] >> 2) & 3
	if ver == 1 || layer == 0 || bri == 0 || bri == 15 || sri == 3 {
		return mpegHeader{}, false
	}
	h := mpegHeader{mpeg1: ver == 3, mono: b[3]>>6 == 3}
	pad := int(b[2]>>1) & 1
	var vi int
	switch ver {
	case 3:
		vi = 0
	case 2:
		vi = 1
	default:
		vi = 2
	}
	h.rate = mpegRates[vi][sri]
	var table int
	switch {
	case h.mpeg1:
		table = int(3 - layer) // layer bits 3: L1, 2: L2, 1: L3
	case layer == 3:
		table = 3
	default:
		table = 4
	}
	br := mpegBitrates[table][bri] * 1000
	switch layer {
	case 3: // Layer I
		h.samples = 384
		h.length = (12*br/h.rate + pad) * 4
	case 2: // Layer II
		h.samples = 1152
		h.length = 144*br/h.rate + pad
	default: // Layer III
		if h.mpeg1 {
			h.samples = 1152
			h.length = 144*br/h.rate + pad
		} else {
			h.samples = 576
			h.length = 72*br/h.rate + pad
		}
	}
	if h.length < 5 {
		return mpegHeader{}, false
	}
	return h, true
}

// firstFrame finds the first MPEG frame of the audio region: a valid header
// within its first bytes followed by another frame or by the region's end.
// This is the content check behind the .mp3 extension.
func firstFrame(r io.ReaderAt, start, end int64) (int64, mpegHeader, error) {
	n := end - start
	if n > 8192 {
		n = 8192
	}
	b := make([]byte, n)
	if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
		return 0, mpegHeader{}, err
	}
	for o := 0; o+4 <= len(b); o++ {
		h, ok := parseMPEGHeader(b[o:])
		if !ok {
			continue
		}
		next := int64(o + h.length)
		if start+next == end {
			return start + int64(o), h, nil
		}
		if int(next)+4 <= len(b) {
			if _, ok := parseMPEGHeader(b[next:]); ok {
				return start + int64(o), h, nil
			}
			continue
		}
		var nb [4]byte
		if start+next+4 <= end {
			if _, err := r.ReadAt(nb[:], start+next); err != nil {
				return 0, mpegHeader{}, err
			}
			if _, ok := parseMPEGHeader(nb[:]); ok {
				return start + int64(o), h, nil
			}
		}
	}
	return 0, mpegHeader{}, fmt.Errorf("%w: no MPEG audio frames", ErrNotAudio)
}

// mp3Frames is an io.Writer that walks MPEG frames in the bytes written to
// it and counts their samples, so the duration of a file without a
// Xing/Info header falls out of the same pass that hashes the audio.
type mp3Frames struct {
	hdr     [4]byte
	have    int
	skip    int
	samples int64
	rate    int
}

// Write implements io.Writer.
func (s *mp3Frames) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if s.skip > 0 {
			k := min(s.skip, len(p))
			s.skip -= k
			p = p[k:]
			continue
		}
		s.hdr[s.have] = p[0]
		s.have++
		p = p[1:]
		if s.have < 4 {
			continue
		}
		h, ok := parseMPEGHeader(s.hdr[:])
		if !ok {
			copy(s.hdr[:], s.hdr[1:])
			s.have = 3
			continue
		}
		if s.rate == 0 {
			s.rate = h.rate
		}
		s.samples += int64(h.samples)
		s.skip = h.length - 4
		s.have = 0
	}
	return n, nil
}

func (s *mp3Frames) duration() time.Duration {
	return samplesDuration(s.samples, int64(s.rate))
}

// xingFrames reads the encoder's header frame (Xing/Info with its LAME
// extension, also written by ffmpeg, or VBRI): the frame count and the
// encoder delay plus padding. ok is false for an ordinary audio frame.
func xingFrames(frame []byte, h mpegHeader) (frames, trim int64, ok bool) {
	side := 17
	switch {
	case h.mpeg1 && h.mono:
		side = 17
	case h.mpeg1:
		side = 32
	case h.mono:
		side = 9
	}
	b := frame[4:]
	if len(b) >= side+8 {
		tag := string(b[side : side+4])
		if tag == "Xing" || tag == "Info" {
			flags := binary.BigEndian.Uint32(b[side+4:])
			if flags&1 == 0 || len(b) < side+12 {
				return 0, 0, true
			}
			frames = int64(binary.BigEndian.Uint32(b[side+8:]))
			// The LAME extension follows the fields the flags announce.
			lame := side + 12
			if flags&2 != 0 {
				lame += 4
			}
			if flags&4 != 0 {
				lame += 100
			}
			if flags&8 != 0 {
				lame += 4
			}
			if len(b) >= lame+24 {
				d := b[lame+21:]
				delay := int64(d[0])<<4 | int64(d[1])>>4
				pad := int64(d[1]&0x0f)<<8 | int64(d[2])
				trim = delay + pad
			}
			return frames, trim, true
		}
	}
	if len(b) >= 32+18 && string(b[32:36]) == "VBRI" {
		return int64(binary.BigEndian.Uint32(b[32+14:])), 0, true
	}
	return 0, 0, false
}
