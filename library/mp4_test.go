package library

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"
)

// mp4Box is a box found in a file: where its header starts, its size and
// where its children start.
type mp4Box struct {
	at, size, body int64
}

// findBox finds the first box of type typ among the boxes in b[start:end].
func findBox(b []byte, start, end int64, typ string) (mp4Box, bool) {
	for pos := start; pos+8 <= end; {
		size := int64(binary.BigEndian.Uint32(b[pos:]))
		if size < 8 || pos+size > end {
			return mp4Box{}, false
		}
		if string(b[pos+4:pos+8]) == typ {
			return mp4Box{at: pos, size: size, body: pos + 8}, true
		}
		pos += size
	}
	return mp4Box{}, false
}

// boxPath follows a path of box types from the top of the file; "meta" is
// a full box (4 bytes of version and flags before its children).
func boxPath(t testing.TB, b []byte, types ...string) []mp4Box {
	t.Helper()
	var path []mp4Box
	start, end := int64(0), int64(len(b))
	for _, typ := range types {
		box, ok := findBox(b, start, end, typ)
		if !ok {
			t.Fatalf("no %q box on the path %v", typ, types)
		}
		if typ == "meta" {
			box.body += 4
		}
		path = append(path, box)
		start, end = box.body, box.at+box.size
	}
	return path
}

// freeformAtom is an iTunes "----" atom: mean com.apple.iTunes, name, and
// a UTF-8 data atom.
func freeformAtom(name, value string) []byte {
	atom := func(typ string, body []byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
		return append(append(b, typ...), body...)
	}
	full := func(s string) []byte { return append([]byte{0, 0, 0, 0}, s...) }
	data := append([]byte{0, 0, 0, 1, 0, 0, 0, 0}, value...)
	var inner []byte
	inner = append(inner, atom("mean", full("com.apple.iTunes"))...)
	inner = append(inner, atom("name", full(name))...)
	inner = append(inner, atom("data", data)...)
	return atom("----", inner)
}

// addFreeform writes name=value freeform atoms into the ilst of the M4A
// at path, as iTunes and foobar2000 do for iTunSMPB, iTunNORM and
// ReplayGain. The moov box must follow the media data (ffmpeg's default),
// so no chunk offset moves.
func addFreeform(t testing.TB, path string, kv ...string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mdat, _ := findBox(b, 0, int64(len(b)), "mdat")
	p := boxPath(t, b, "moov", "udta", "meta", "ilst")
	if p[0].at < mdat.at {
		t.Fatalf("moov before mdat: adding atoms would move the media data")
	}
	var add []byte
	for i := 0; i+1 < len(kv); i += 2 {
		add = append(add, freeformAtom(kv[i], kv[i+1])...)
	}
	ilst := p[3]
	at := ilst.at + ilst.size
	out := append(append(bytes.Clone(b[:at]), add...), b[at:]...)
	for _, box := range p {
		binary.BigEndian.PutUint32(out[box.at:], uint32(box.size)+uint32(len(add)))
	}
	writeFileT(t, path, out)
}

// protectM4A turns the sample entry of the M4A at path into iTunes'
// FairPlay one ("drms"), as a pre-2009 iTunes Store purchase has.
func protectM4A(t testing.TB, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := boxPath(t, b, "moov", "trak", "mdia", "minf", "stbl", "stsd")
	entry := p[5].body + 8
	if string(b[entry+4:entry+8]) != "mp4a" {
		t.Fatalf("sample entry %q, want mp4a", b[entry+4:entry+8])
	}
	copy(b[entry+4:], "drms")
	writeFileT(t, path, b)
}

func writeFileT(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
