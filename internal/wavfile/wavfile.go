// Package wavfile writes RIFF/WAVE files of 16-bit PCM with their tags.
package wavfile

import (
	"bufio"
	"encoding/binary"
	"io"
	"strconv"
)

// Tags are the LIST/INFO fields Write stores; empty ones and
// numbers ≤ 0 are left out.
type Tags struct {
	Title, Artist, Album, Genre string
	Track, Year                 int
}

// Write writes 16-bit PCM (interleaved when channels > 1) as a RIFF/WAVE
// file with a LIST/INFO chunk before the data chunk, as ffmpeg lays it out:
// the demo library, and the collections the tests and benchmarks generate.
func Write(w io.Writer, rate, channels int, samples []int16, tags Tags) error {
	var info []byte
	addInfo := func(id, v string) {
		if v == "" {
			return
		}
		b := append([]byte(v), 0)
		info = append(info, id...)
		info = binary.LittleEndian.AppendUint32(info, uint32(len(b)))
		info = append(info, b...)
		if len(b)%2 == 1 {
			info = append(info, 0)
		}
	}
	addInfo("INAM", tags.Title)
	addInfo("IART", tags.Artist)
	addInfo("IPRD", tags.Album)
	addInfo("IGNR", tags.Genre)
	if tags.Track > 0 {
		addInfo("IPRT", strconv.Itoa(tags.Track))
	}
	if tags.Year > 0 {
		addInfo("ICRD", strconv.Itoa(tags.Year))
	}
	dataLen := len(samples) * 2
	riffLen := 4 + 8 + 16 + 8 + dataLen
	if len(info) > 0 {
		riffLen += 8 + 4 + len(info)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	h := make([]byte, 0, 64)
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(riffLen))
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16)
	h = binary.LittleEndian.AppendUint16(h, 1)
	h = binary.LittleEndian.AppendUint16(h, uint16(channels))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate*channels*2))
	h = binary.LittleEndian.AppendUint16(h, uint16(channels*2))
	h = binary.LittleEndian.AppendUint16(h, 16)
	if _, err := bw.Write(h); err != nil {
		return err
	}
	if len(info) > 0 {
		l := make([]byte, 0, 12)
		l = append(l, "LIST"...)
		l = binary.LittleEndian.AppendUint32(l, uint32(4+len(info)))
		l = append(l, "INFO"...)
		if _, err := bw.Write(l); err != nil {
			return err
		}
		if _, err := bw.Write(info); err != nil {
			return err
		}
	}
	d := make([]byte, 8, 8+4096)
	copy(d, "data")
	binary.LittleEndian.PutUint32(d[4:], uint32(dataLen))
	for i, s := range samples {
		d = binary.LittleEndian.AppendUint16(d, uint16(s))
		if len(d) >= 4096 || i == len(samples)-1 {
			if _, err := bw.Write(d); err != nil {
				return err
			}
			d = d[:0]
		}
	}
	if len(samples) == 0 {
		if _, err := bw.Write(d); err != nil {
			return err
		}
	}
	return bw.Flush()
}
