package winico

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"testing"
)

func TestEncodeWritesEverySizeAsAPNGDecodeReadsBack(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 256, 256))
	for y := 0; y < 256; y++ {
		for x := 0; x < 256; x++ {
			src.Set(x, y, color.NRGBA{R: 200, G: 40, B: 90, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := Encode(&buf, src, Sizes); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(Sizes) {
		t.Fatalf("%d images, want %d", len(got), len(Sizes))
	}
	for i, e := range got {
		if e.Size != Sizes[i] {
			t.Errorf("entry %d: size %d, want %d", i, e.Size, Sizes[i])
		}
		if b := e.PNG.Bounds(); b.Dx() != Sizes[i] || b.Dy() != Sizes[i] {
			t.Errorf("entry %d: image %v, want %dx%d", i, b, Sizes[i], Sizes[i])
		}
		r, g, b, a := e.PNG.At(e.Size/2, e.Size/2).RGBA()
		if r>>8 != 200 || g>>8 != 40 || b>>8 != 90 || a>>8 != 255 {
			t.Errorf("entry %d: centre colour %d,%d,%d,%d, want the source's", i, r>>8, g>>8, b>>8, a>>8)
		}
	}
}

func TestEncodeRefusesASizeAnIconCannotHold(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 512, 512))
	err := Encode(&bytes.Buffer{}, src, []int{512})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

func TestDecodeRefusesATruncatedFile(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 16, 16)), []int{16}); err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(buf.Bytes()[:buf.Len()-10]); err == nil {
		t.Fatal("a truncated icon decoded")
	}
}
