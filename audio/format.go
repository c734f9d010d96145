package audio

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/furudesk/furudesk/formats"
)

// Format is an audio container/codec this package can decode.
type Format int

// The formats, detected from content by Sniff. FormatMP4 is the container;
// once decoded, Info.Format names its codec (FormatAAC, FormatALAC) when
// it is one of those. The formats after FormatAIFF are the other
// containers of package formats, which only FFmpeg plays.
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
	FormatOgg     // Ogg of another codec than Vorbis, Opus or FLAC (Speex)
	FormatMatroska
	FormatCAF
	FormatWavPack
	FormatWMA
	FormatW64
	FormatAPE
	FormatTTA
	FormatMusepack
	FormatMusepack8
	FormatDSF
	FormatDFF
	FormatAU
	FormatAC3
	FormatEAC3
	FormatDTS
	FormatShorten
	FormatTAK
	FormatAMR
	formatEnd
)

// containers names each Format's container in package formats (the
// library's name of the format).
var containers = [formatEnd]string{
	FormatMP3: "mp3", FormatVorbis: "ogg", FormatWAV: "wav", FormatFLAC: "flac", FormatOpus: "opus",
	FormatOggFLAC: "ogg", FormatMP4: "m4a", FormatAAC: "aac", FormatALAC: "m4a", FormatAIFF: "aiff",
	FormatOgg: "ogg", FormatMatroska: "mka", FormatCAF: "caf", FormatWavPack: "wv", FormatWMA: "wma",
	FormatW64: "w64", FormatAPE: "ape", FormatTTA: "tta", FormatMusepack: "mpc", FormatMusepack8: "mpc8",
	FormatDSF: "dsf", FormatDFF: "dff", FormatAU: "au", FormatAC3: "ac3", FormatEAC3: "eac3",
	FormatDTS: "dts", FormatShorten: "shn", FormatTAK: "tak", FormatAMR: "amr",
}

// ofContainer is the Format Sniff gives for each container of package
// formats (Ogg is told apart by its codec after).
var ofContainer = func() map[string]Format {
	m := map[string]Format{}
	for f := formatEnd - 1; f > FormatUnknown; f-- {
		if c := containers[f]; c != "" {
			m[c] = f
		}
	}
	m["ogg"], m["m4a"], m["aac"] = FormatVorbis, FormatMP4, FormatAAC
	return m
}()

// Container is the name of f's container in package formats ("flac",
// "m4a", "wv"): what the library stores as a track's format. "" for
// FormatUnknown.
func (f Format) Container() string {
	if f <= FormatUnknown || f >= formatEnd {
		return ""
	}
	return containers[f]
}

// String returns the lower-case name of f ("mp3", "vorbis", "wav", "flac",
// "opus", "ogg-flac", "mp4", "aac", "alac", "aiff", "ogg", then the
// container's name: "mka", "wv"…).
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
	if c := f.Container(); c != "" {
		return c
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
	var head [formats.HeadLen]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return FormatUnknown, err
	}
	b := head[:n]
	if len(b) >= 10 && string(b[:3]) == "ID3" {
		// ID3v2 precedes MP3 and, rarely, FLAC, ADTS or others: look
		// behind the tag.
		size := id3v2Len(b)
		if size > maxID3Skip {
			return FormatUnknown, fmt.Errorf("%w: ID3 tag of %d bytes", ErrTooLarge, size)
		}
		if _, err := r.Seek(size, io.SeekStart); err != nil {
			return FormatUnknown, err
		}
		k, _ := io.ReadFull(r, head[:])
		if f := ofContainer[formats.Detect(head[:k])]; f != FormatUnknown {
			return f, nil
		}
		return FormatMP3, nil
	}
	c := formats.Detect(b)
	if c == "ogg" {
		switch {
		case bytes.Contains(b, []byte("\x01vorbis")):
			return FormatVorbis, nil
		case bytes.Contains(b, []byte("\x7fFLAC")):
			return FormatOggFLAC, nil
		}
		return FormatOgg, nil
	}
	if f := ofContainer[c]; f != FormatUnknown {
		return f, nil
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

// isMP3Sync reports an MPEG audio frame header.
func isMP3Sync(b0, b1 byte) bool { return formats.IsMPEGAudioSync(b0, b1) }
