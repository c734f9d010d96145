package library

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/dhowden/tag"
)

// ErrNoCover is returned by EmbeddedCover for a file without a picture in
// its tags.
var ErrNoCover = errors.New("library: no embedded cover art")

// EmbeddedCover returns the picture in the tags of the file at path (the
// one AnalyzeFile saw when it set Track.Cover to CoverEmbedded): ID3v2
// APIC, FLAC and Vorbis/Opus METADATA_BLOCK_PICTURE, MP4 covr, also for
// FLAC behind an ID3v2 tag and FLAC in Ogg.
func EmbeddedCover(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := info.Size()
	var head [4]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoCover, err)
	}
	var pics []*tag.Picture
	add := func(m tag.Metadata, err error) {
		if err == nil && m != nil && m.Picture() != nil && len(m.Picture().Data) > 0 {
			pics = append(pics, m.Picture())
		}
	}
	switch {
	case string(head[:3]) == "ID3":
		if id3End, _, _, _, err := flacRegion(f, size); err == nil && id3End > 0 {
			add(readMetadata(io.NewSectionReader(f, id3End, size-id3End)))
		}
		add(readMetadata(f))
	case string(head[:]) == "OggS":
		og, err := walkOgg(f, io.Discard, nil, true)
		if err == nil && og.codec == "flac" {
			add(readMetadata(bytes.NewReader(oggFLACStream(og.headers))))
		} else {
			add(readMetadata(f))
		}
	default:
		add(readMetadata(f))
	}
	if len(pics) == 0 {
		return nil, ErrNoCover
	}
	return pics[0].Data, nil
}

// readMetadata is tag.ReadFrom from the start of r, a parser panic turned
// into an error.
func readMetadata(r io.ReadSeeker) (m tag.Metadata, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("library: tag parser panic: %v", p)
		}
	}()
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return tag.ReadFrom(r)
}
