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

// The formats, detected from content by Sniff.
const (
	FormatUnknown Format = iota
	FormatMP3
	FormatVorbis
	FormatWAV
	FormatFLAC
)

// String returns the lower-case name of f ("mp3", "vorbis", "wav", "flac").
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
	}
	return "unknown"
}

// maxID3Skip bounds the ID3v2 tag Sniff skips (a tag is at most 256 MiB by
// its synchsafe size; real ones with cover art stay well under this).
const maxID3Skip = 64 << 20

// Sniff detects the format of r from its first bytes (magic numbers), not
// from name; name's extension is only a fallback for MP3 streams that start
// with junk. It leaves r positioned at the start.
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
	case len(b) >= 4 && string(b[:4]) == "OggS":
		if bytes.Contains(b, []byte("\x01vorbis")) {
			return FormatVorbis, nil
		}
		if bytes.Contains(b, []byte("OpusHead")) {
			return FormatUnknown, fmt.Errorf("%w: Opus in Ogg", ErrUnsupported)
		}
		if bytes.Contains(b, []byte("\x7fFLAC")) {
			return FormatUnknown, fmt.Errorf("%w: FLAC in Ogg", ErrUnsupported)
		}
		return FormatUnknown, fmt.Errorf("%w: Ogg stream without Vorbis", ErrUnsupported)
	case len(b) >= 10 && string(b[:3]) == "ID3":
		// ID3v2 precedes MP3 and, rarely, FLAC: look behind the tag.
		size := int64(b[6]&0x7f)<<21 | int64(b[7]&0x7f)<<14 | int64(b[8]&0x7f)<<7 | int64(b[9]&0x7f)
		if b[5]&0x10 != 0 { // footer present
			size += 10
		}
		if size > maxID3Skip {
			return FormatUnknown, fmt.Errorf("%w: ID3 tag of %d bytes", ErrTooLarge, size)
		}
		if _, err := r.Seek(10+size, io.SeekStart); err != nil {
			return FormatUnknown, err
		}
		var after [4]byte
		if _, err := io.ReadFull(r, after[:]); err == nil && string(after[:]) == "fLaC" {
			return FormatFLAC, nil
		}
		return FormatMP3, nil
	case len(b) >= 2 && isMP3Sync(b[0], b[1]):
		return FormatMP3, nil
	}
	if strings.EqualFold(filepath.Ext(name), ".mp3") && n > 0 {
		return FormatMP3, nil
	}
	return FormatUnknown, fmt.Errorf("%w: %q starts with % x", ErrUnknownFormat, filepath.Base(name), b[:min(len(b), 8)])
}

// isMP3Sync reports an MPEG audio frame header: 11 sync bits, a valid
// version and a layer that is not "reserved".
func isMP3Sync(b0, b1 byte) bool {
	return b0 == 0xff && b1&0xe0 == 0xe0 && b1&0x18 != 0x08 && b1&0x06 != 0
}
