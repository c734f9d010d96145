// Command genlib writes a benchmark music collection (package benchlib):
//
//	go run ./tools/genlib -n 10000 DIR
//
// It prints the collection's shape as one line of JSON.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/furudesk/furudesk/internal/benchlib"
)

func main() {
	n := flag.Int("n", 10000, "number of tracks")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genlib -n TRACKS DIR")
		os.Exit(2)
	}
	c, err := benchlib.Generate(flag.Arg(0), *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genlib:", err)
		os.Exit(1)
	}
	b, _ := json.Marshal(map[string]any{"dir": c.Dir, "tracks": c.Tracks, "albums": c.Albums, "artists": c.Artists, "covers": c.Covers})
	fmt.Println(string(b))
}
