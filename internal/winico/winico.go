// Package winico writes Windows icon (.ico) files whose images are PNGs,
// the form Windows Vista and later read, so the Windows build embeds the
// same artwork as the Linux package without an image tool on the build
// machine.
package winico

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"

	"github.com/nfnt/resize"
)

// Sizes are the edge lengths Encode writes: what Explorer, the taskbar,
// the Start menu and the title bar ask for at 100 % to 200 % scaling.
var Sizes = []int{16, 24, 32, 48, 64, 128, 256}

// ErrTooLarge is a source image an icon cannot hold (over 256 pixels wide
// or high after scaling, which an icon directory entry cannot express).
var ErrTooLarge = errors.New("winico: an icon image is at most 256x256")

// Encode writes src scaled to each of sizes (largest first is not
// required) as one .ico file to w. src should be square and at least as
// large as the largest size; it is scaled down, never up, with Lanczos.
func Encode(w io.Writer, src image.Image, sizes []int) error {
	if len(sizes) == 0 {
		return errors.New("winico: no sizes")
	}
	var images [][]byte
	for _, s := range sizes {
		if s <= 0 || s > 256 {
			return fmt.Errorf("%w: size %d", ErrTooLarge, s)
		}
		img := src
		if b := src.Bounds(); b.Dx() != s || b.Dy() != s {
			img = resize.Resize(uint(s), uint(s), src, resize.Lanczos3)
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return fmt.Errorf("winico: %dx%d: %w", s, s, err)
		}
		images = append(images, buf.Bytes())
	}
	// ICONDIR, then one ICONDIRENTRY per image, then the images.
	var out bytes.Buffer
	le := binary.LittleEndian
	_ = binary.Write(&out, le, [3]uint16{0, 1, uint16(len(images))})
	offset := 6 + 16*len(images)
	for i, data := range images {
		dim := byte(sizes[i]) // 256 is written as 0
		_ = binary.Write(&out, le, struct {
			W, H, Colors, Reserved byte
			Planes, BitCount       uint16
			Size, Offset           uint32
		}{dim, dim, 0, 0, 1, 32, uint32(len(data)), uint32(offset)})
		offset += len(data)
	}
	for _, data := range images {
		out.Write(data)
	}
	_, err := w.Write(out.Bytes())
	return err
}

// Entry is one image of an .ico file as Decode reads it.
type Entry struct {
	Size int // edge in pixels
	PNG  image.Image
}

// Decode reads an .ico file of PNG images, as Encode writes it.
func Decode(data []byte) ([]Entry, error) {
	le := binary.LittleEndian
	if len(data) < 6 || le.Uint16(data[0:]) != 0 || le.Uint16(data[2:]) != 1 {
		return nil, errors.New("winico: not an icon file")
	}
	n := int(le.Uint16(data[4:]))
	if len(data) < 6+16*n {
		return nil, errors.New("winico: truncated directory")
	}
	var out []Entry
	for i := 0; i < n; i++ {
		e := data[6+16*i:]
		size := int(e[0])
		if size == 0 {
			size = 256
		}
		length, off := int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if off < 0 || length < 0 || off+length > len(data) {
			return nil, fmt.Errorf("winico: image %d lies outside the file", i)
		}
		img, err := png.Decode(bytes.NewReader(data[off : off+length]))
		if err != nil {
			return nil, fmt.Errorf("winico: image %d: %w", i, err)
		}
		out = append(out, Entry{Size: size, PNG: img})
	}
	return out, nil
}
