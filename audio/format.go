package audio

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Format is an audio container/codec this package can decode.
type Format int

// The formats, detected from content by Sniff. FormatMP4 is the container;
// once decoded, Info.Format names its codec (FormatAAC, FormatALAC) when
// it is one of those.
const (
	FormatUnknown Format = iota
	FormatMP3
	FormatVorbis
	FormatWAV
	FormatFLAC
	FormatOpus    // Opus in Ogg
	FormatOggFLAC // FLAC in Ogg
	FormatMP4     // MP4/M4A container
	FormatAAC     // AAC: in MP4, or a raw ADTS stream
	FormatALAC    // Apple Lossless in MP4
	FormatAIFF    // AIFF and AIFF-C
)

// String returns the lower-case name of f ("mp3", "vorbis", "wav", "flac",
// "opus", "ogg-flac", "mp4", "aac", "alac", "aiff").
func (f Format) String() string {
	switch f {
	case FormatMP3:
		return "mp3"
	case FormatVorbis:
		return "vorbis"
	case FormatWAV:
		return "wav"
	case FormatFLAC:
		return "flac"
	case FormatOpus:
		return "opus"
	case FormatOggFLAC:
		return "ogg-flac"
	case FormatMP4:
		return "mp4"
	case FormatAAC:
		return "aac"
	case FormatALAC:
		return "alac"
	case FormatAIFF:
		return "aiff"
	}
	return "unknown"
}

// maxID3Skip bounds the ID3v2 tag Sniff skips (a tag is at most 256 MiB by
// its synchsafe size; real ones with cover art stay well under this).
const maxID3Skip = 64 << 20

// Sniff detects the container of r from its first bytes (magic numbers),
// not from name; name's extension is only a fallback for MP3 streams that
// start with junk. It leaves r positioned at the start. Whether this build
// can decode what it found is NewDecoder's answer.
func Sniff(r io.ReadSeeker, name string) (Format, error) {
	f, err := sniff(r, name)
	if _, serr := r.Seek(0, io.SeekStart); serr != nil && err == nil {
		err = serr
	}
	return f, err
}

func sniff(r io.ReadSeeker, name string) (Format, error) {
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return FormatUnknown, err
	}
	var head [64]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return FormatUnknown, err
	}
	b := head[:n]
	switch {
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WAVE":
		return FormatWAV, nil
	case len(b) >= 4 && string(b[:4]) == "fLaC":
		return FormatFLAC, nil
	case len(b) >= 12 && string(b[:4]) == "FORM" && (string(b[8:12]) == "AIFF" || string(b[8:12]) == "AIFC"):
		return FormatAIFF, nil
	case len(b) >= 4 && string(b[:4]) == "OggS":
		if bytes.Contains(b, []byte("\x01vorbis")) {
			return FormatVorbis, nil
		}
		if bytes.Contains(b, []byte("OpusHead")) {
			return FormatOpus, nil
		}
		if bytes.Contains(b, []byte("\x7fFLAC")) {
			return FormatOggFLAC, nil
		}
		return FormatUnknown, fmt.Errorf("%w: an Ogg stream that is not Vorbis, Opus or FLAC", ErrUnsupported)
	case len(b) >= 12 && string(b[4:8]) == "ftyp":
		return FormatMP4, nil
	case len(b) >= 10 && string(b[:3]) == "ID3":
		// ID3v2 precedes MP3 and, rarely, FLAC: look behind the tag.
		size := id3v2Len(b)
		if size > maxID3Skip {
			return FormatUnknown, fmt.Errorf("%w: ID3 tag of %d bytes", ErrTooLarge, size)
		}
		if _, err := r.Seek(size, io.SeekStart); err != nil {
			return FormatUnknown, err
		}
		var after [4]byte
		if _, err := io.ReadFull(r, after[:]); err == nil {
			switch {
			case string(after[:]) == "fLaC":
				return FormatFLAC, nil
			case isADTSSync(after[0], after[1]):
				return FormatAAC, nil
			}
		}
		return FormatMP3, nil
	case len(b) >= 2 && isMP3Sync(b[0], b[1]):
		return FormatMP3, nil
	case len(b) >= 2 && isADTSSync(b[0], b[1]):
		return FormatAAC, nil
	}
	if strings.EqualFold(filepath.Ext(name), ".mp3") && n > 0 {
		return FormatMP3, nil
	}
	return FormatUnknown, fmt.Errorf("%w: %q starts with % x", ErrUnknownFormat, filepath.Base(name), b[:min(len(b), 8)])
}

// id3v2Len is the length of the ID3v2 tag whose 10-byte header starts b,
// header and footer included.
func id3v2Len(b []byte) int64 {
	size := 10 + (int64(b[6]&0x7f)<<21 | int64(b[7]&0x7f)<<14 | int64(b[8]&0x7f)<<7 | int64(b[9]&0x7f))
	if b[5]&0x10 != 0 { // footer present
		size += 10
	}
	return size
}

// isMP3Sync reports an MPEG audio frame header: 11 sync bits, a valid
// version and a layer that is not "reserved".
func isMP3Sync(b0, b1 byte) bool {
	return b0 == 0xff && b1&0xe0 == 0xe0 && b1&0x18 != 0x08 && b1&0x06 != 0
}

// isADTSSync reports an ADTS (raw AAC) frame header: 12 sync bits and the
// layer bits MPEG audio never has.
func isADTSSync(b0, b1 byte) bool {
	return b0 == 0xff && b1&0xf6 == 0xf0
}
