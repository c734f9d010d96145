// Command mkico turns a PNG into a Windows .ico of winico.Sizes, for the
// Windows build's resources (scripts/package-windows.sh):
//
//	go run ./tools/mkico in.png out.ico
package main

import (
	"bytes"
	"fmt"
	"image/png"
	"os"

	"github.com/furudesk/furudesk/internal/winico"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mkico in.png out.ico")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "mkico:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	var buf bytes.Buffer
	if err := winico.Encode(&buf, img, winico.Sizes); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}
