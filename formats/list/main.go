// Command list prints one of package formats' lists, for the scripts
// that build with them (scripts/build-ffmpeg.sh's configure options, a
// desktop entry's MimeType):
//
//	go run ./formats/list [-sep ,] demuxers|decoders|parsers|extensions|mime
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/furudesk/furudesk/formats"
)

func main() {
	sep := flag.String("sep", ",", "what goes between the items")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: list [-sep ,] demuxers|decoders|parsers|extensions|mime")
	}
	flag.Parse()
	lists := map[string]func() []string{
		"demuxers": formats.Demuxers, "decoders": formats.Decoders, "parsers": formats.Parsers,
		"extensions": formats.Extensions, "mime": formats.MIMETypes,
	}
	if flag.NArg() != 1 || lists[flag.Arg(0)] == nil {
		flag.Usage()
		os.Exit(2)
	}
	fmt.Println(strings.Join(lists[flag.Arg(0)](), *sep))
}
