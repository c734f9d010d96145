// Command furudesk is the furudesk music player.
//
//	furudesk [flags]              open the player window
//	furudesk --version            print the version
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// options are the parsed command line of one launch.
type options struct {
	dataDir string
	version bool
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "furudesk:", err)
		return 2
	}
	if opts.version {
		fmt.Fprintln(stdout, "furudesk", version)
		return 0
	}
	if err := os.MkdirAll(opts.dataDir, 0o700); err != nil {
		fmt.Fprintf(stderr, "furudesk: cannot create the data directory: %v\n", err)
		return 1
	}
	if err := runGUI(opts); err != nil {
		fmt.Fprintln(stderr, "furudesk:", err)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var opts options
	fs := flag.NewFlagSet("furudesk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "furudesk %s: a music player whose devices act as one.\n\nUsage:\n  furudesk [flags]\n\nFlags:\n", version)
		fs.PrintDefaults()
	}
	fs.StringVar(&opts.dataDir, "data-dir", "", "where furudesk keeps its database and identity (default: the platform's per-user data dir)")
	fs.BoolVar(&opts.version, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	if opts.dataDir == "" {
		d, err := defaultDataDir()
		if err != nil {
			return opts, err
		}
		opts.dataDir = d
	}
	abs, err := filepath.Abs(opts.dataDir)
	if err != nil {
		return opts, fmt.Errorf("--data-dir %q: %w", opts.dataDir, err)
	}
	opts.dataDir = abs
	return opts, nil
}
