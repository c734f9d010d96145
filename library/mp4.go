package library

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"
)

// Limits on what an MP4 file may make the parser do.
const (
	maxMP4Boxes = 1 << 16 // boxes visited in one file
	maxMP4Depth = 12      // nesting of container boxes
	maxMP4Table = 1 << 20 // entries read from one stts or elst table
)

// mp4Info is what an MP4/M4A file's boxes say about its audio.
type mp4Info struct {
	mdat      [][2]int64 // byte ranges [start, end) of the media data: the audio identity
	codec     string     // sample entry type of the audio track: "mp4a" (AAC), "alac", ...
	protected bool       // the audio is encrypted (iTunes FairPlay, CENC)
	video     bool       // the file has a video track
	duration  time.Duration

	movieScale uint32 // mvhd timescale: the unit of edit list durations
	audio      *mp4Track
}

// mp4Track is the first sound track.
type mp4Track struct {
	scale     uint32 // mdhd timescale (the sample rate for audio)
	duration  uint64 // mdhd duration in scale units
	stts      uint64 // sum of the sample durations in scale units
	edits     uint64 // sum of the non-empty edit list segments, in movie timescale
	hasEdits  bool
	entryType string
	sinf      bool
}

// parseMP4 walks the boxes of an MP4 file: the sound track's timescale,
// durations, edit list and sample entry (AAC, ALAC, or encrypted), whether
// a video track is there, and where the media data lies.
func parseMP4(r io.ReaderAt, size int64) (mp4Info, error) {
	var m mp4Info
	var b [8]byte
	if size < 8 {
		return m, fmt.Errorf("%w: too short for MP4", ErrNotAudio)
	}
	if _, err := r.ReadAt(b[:8], 0); err != nil {
		return m, err
	}
	if string(b[4:8]) != "ftyp" {
		return m, fmt.Errorf("%w: no MP4 ftyp box", ErrNotAudio)
	}
	p := mp4Parser{r: r, m: &m}
	if err := p.boxes(0, size, 0); err != nil {
		return m, err
	}
	if m.audio == nil {
		if m.video {
			return m, fmt.Errorf("%w: a video without sound", ErrNotAudio)
		}
		return m, fmt.Errorf("%w: no sound track in the MP4 file", ErrNotAudio)
	}
	if len(m.mdat) == 0 {
		return m, fmt.Errorf("%w: MP4 file without media data", ErrNotAudio)
	}
	t := m.audio
	m.codec = t.entryType
	m.protected = t.sinf || t.entryType == "drms" || t.entryType == "drmi" || t.entryType == "enca" || t.entryType == "aavd"
	switch {
	case t.hasEdits && m.movieScale > 0:
		m.duration = samplesDuration(int64(t.edits), int64(m.movieScale))
	case t.duration > 0 && t.scale > 0:
		m.duration = samplesDuration(int64(t.duration), int64(t.scale))
	case t.scale > 0:
		m.duration = samplesDuration(int64(t.stts), int64(t.scale))
	}
	return m, nil
}

type mp4Parser struct {
	r     io.ReaderAt
	m     *mp4Info
	count int       // boxes visited
	trak  *mp4Track // the track being walked
	sound bool      // its handler is "soun"
}

// boxes walks the boxes in [start, end) at nesting depth.
func (p *mp4Parser) boxes(start, end int64, depth int) error {
	if depth > maxMP4Depth {
		return fmt.Errorf("%w: MP4 boxes nested deeper than %d", ErrNotAudio, maxMP4Depth)
	}
	var h [16]byte
	for pos := start; pos+8 <= end; {
		if p.count++; p.count > maxMP4Boxes {
			return fmt.Errorf("%w: more than %d MP4 boxes", ErrNotAudio, maxMP4Boxes)
		}
		if _, err := p.r.ReadAt(h[:8], pos); err != nil {
			return fmt.Errorf("%w: MP4 box at %d: %v", ErrNotAudio, pos, err)
		}
		size := int64(binary.BigEndian.Uint32(h[:4]))
		typ := string(h[4:8])
		body := pos + 8
		switch size {
		case 0: // to the end of the file
			size = end - pos
		case 1:
			if _, err := p.r.ReadAt(h[8:16], pos+8); err != nil {
				return fmt.Errorf("%w: MP4 box at %d: %v", ErrNotAudio, pos, err)
			}
			size = int64(binary.BigEndian.Uint64(h[8:16]))
			body += 8
		}
		if size < body-pos || size > end-pos {
			if typ == "mdat" && depth == 0 {
				size = end - pos // a download cut short: the audio that is there
			} else {
				return fmt.Errorf("%w: MP4 box %q of %d bytes at %d runs past its parent", ErrNotAudio, typ, size, pos)
			}
		}
		if err := p.box(typ, body, pos+size, depth); err != nil {
			return err
		}
		pos += size
	}
	return nil
}

func (p *mp4Parser) box(typ string, body, end int64, depth int) error {
	switch typ {
	case "mdat":
		if depth == 0 {
			p.m.mdat = append(p.m.mdat, [2]int64{body, end})
		}
	case "moov", "mdia", "minf", "stbl", "edts":
		return p.boxes(body, end, depth+1)
	case "trak":
		p.trak, p.sound = &mp4Track{}, false
		if err := p.boxes(body, end, depth+1); err != nil {
			return err
		}
		if p.sound && p.m.audio == nil {
			p.m.audio = p.trak
		}
		p.trak = nil
	case "mvhd":
		b, err := p.read(body, end, 32)
		if err != nil {
			return err
		}
		if b[0] == 1 {
			p.m.movieScale = binary.BigEndian.Uint32(b[20:24])
		} else {
			p.m.movieScale = binary.BigEndian.Uint32(b[12:16])
		}
	case "hdlr":
		b, err := p.read(body, end, 12)
		if err != nil {
			return err
		}
		switch string(b[8:12]) {
		case "soun":
			p.sound = true
		case "vide":
			p.m.video = true
		}
	case "mdhd":
		if p.trak == nil {
			return nil
		}
		n := 24
		if b, err := p.read(body, end, 1); err != nil {
			return err
		} else if b[0] == 1 {
			n = 36
		}
		b, err := p.read(body, end, n)
		if err != nil {
			return err
		}
		if b[0] == 1 {
			p.trak.scale = binary.BigEndian.Uint32(b[20:24])
			p.trak.duration = binary.BigEndian.Uint64(b[24:32])
		} else {
			p.trak.scale = binary.BigEndian.Uint32(b[12:16])
			p.trak.duration = uint64(binary.BigEndian.Uint32(b[16:20]))
		}
	case "elst":
		if p.trak == nil {
			return nil
		}
		return p.elst(body, end)
	case "stts":
		if p.trak == nil {
			return nil
		}
		return p.stts(body, end)
	case "stsd":
		if p.trak == nil {
			return nil
		}
		// version/flags, entry count, then the first sample entry: a box
		// whose type names the codec; encrypted entries carry a sinf box
		// after the 28 bytes of an audio sample entry's fields.
		b, err := p.read(body, end, 16)
		if err != nil {
			return err
		}
		if binary.BigEndian.Uint32(b[4:8]) == 0 {
			return nil
		}
		p.trak.entryType = string(b[12:16])
		entry := body + 8
		esize := int64(binary.BigEndian.Uint32(b[8:12]))
		if esize >= 36 && entry+esize <= end {
			p.trak.sinf = p.hasSinf(entry+36, entry+esize)
		}
	}
	return nil
}

// hasSinf reports a protection scheme box among the boxes in [start,
// end); a malformed codec box there is the decoder's business.
func (p *mp4Parser) hasSinf(start, end int64) bool {
	var h [8]byte
	for pos := start; pos+8 <= end; {
		if p.count++; p.count > maxMP4Boxes {
			return false
		}
		if _, err := p.r.ReadAt(h[:], pos); err != nil {
			return false
		}
		size := int64(binary.BigEndian.Uint32(h[:4]))
		if size < 8 || size > end-pos {
			return false
		}
		if string(h[4:8]) == "sinf" {
			return true
		}
		pos += size
	}
	return false
}

// read returns the first n bytes of a box body.
func (p *mp4Parser) read(body, end int64, n int) ([]byte, error) {
	if end-body < int64(n) {
		return nil, fmt.Errorf("%w: MP4 box of %d bytes, want %d", ErrNotAudio, end-body, n)
	}
	b := make([]byte, n)
	if _, err := p.r.ReadAt(b, body); err != nil {
		return nil, err
	}
	return b, nil
}

// elst sums the segments of an edit list that show media (media time not
// -1): the length of the music, in the movie's timescale.
func (p *mp4Parser) elst(body, end int64) error {
	b, err := p.read(body, end, 8)
	if err != nil {
		return err
	}
	version, n := b[0], int64(binary.BigEndian.Uint32(b[4:8]))
	entry := int64(12)
	if version == 1 {
		entry = 20
	}
	if n > maxMP4Table || 8+n*entry > end-body {
		return fmt.Errorf("%w: MP4 edit list of %d entries", ErrNotAudio, n)
	}
	b, err = p.read(body, end, int(8+n*entry))
	if err != nil {
		return err
	}
	for i := int64(0); i < n; i++ {
		e := b[8+i*entry:]
		var dur uint64
		var media int64
		if version == 1 {
			dur, media = binary.BigEndian.Uint64(e), int64(binary.BigEndian.Uint64(e[8:]))
		} else {
			dur, media = uint64(binary.BigEndian.Uint32(e)), int64(int32(binary.BigEndian.Uint32(e[4:])))
		}
		if media >= 0 {
			p.trak.edits += dur
			p.trak.hasEdits = true
		}
	}
	return nil
}

// stts sums the sample durations of the time-to-sample table.
func (p *mp4Parser) stts(body, end int64) error {
	b, err := p.read(body, end, 8)
	if err != nil {
		return err
	}
	n := int64(binary.BigEndian.Uint32(b[4:8]))
	if n > maxMP4Table || 8+n*8 > end-body {
		return fmt.Errorf("%w: MP4 time table of %d entries", ErrNotAudio, n)
	}
	b, err = p.read(body, end, int(8+n*8))
	if err != nil {
		return err
	}
	for i := int64(0); i < n; i++ {
		e := b[8+i*8:]
		p.trak.stts += uint64(binary.BigEndian.Uint32(e)) * uint64(binary.BigEndian.Uint32(e[4:]))
	}
	return nil
}
