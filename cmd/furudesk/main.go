// Command furudesk is the furudesk music player.
//
//	furudesk [flags]                       open the player window
//	furudesk [flags] FILE|FOLDER|URI...    play them (--enqueue: append), in the running furudesk if any
//	furudesk --headless [flags]            the same player without a window
//	furudesk ctl --data-dir DIR <command>  control the running instance of DIR
//	furudesk --version                     print the version
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	// Before Fyne's lang package reads the locale: see its doc.
	_ "github.com/furudesk/furudesk/cmd/furudesk/internal/clocale"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/cmd/furudesk/internal/userdir"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/storage"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// options are the parsed command line of one launch.
type options struct {
	dataDir  string
	version  bool
	headless bool
	listen   string
	peers    []string
	music    []string
	passive  bool
	// carry: carry streams between members that cannot reach each other
	// (default: on with --headless, the always-on box).
	carry    bool
	carrySet bool // --carry given: it wins over the stored choice
	// public: --public-addr, the addresses this device is reachable at
	// from outside (a forwarded port); publicSet: the flag was given.
	public    []string
	publicSet bool
	// portMap: --portmap, map the port on the router (UPnP-IGD, NAT-PMP);
	// portMapSet: the flag was given (it wins over the stored choice).
	portMap    bool
	portMapSet bool
	name       string
	configJSON string
	config     *engine.Config
	mdns       bool
	// mdnsExclude lists the interfaces --mdns-exclude named; mdnsExcludeSet
	// says whether the flag was given at all (an empty value clears).
	mdnsExclude    []string
	mdnsExcludeSet bool
	verbose        bool
	// web is the address of the web player (empty: off).
	web string
	// open are the files, folders and file:// URIs to play, absolute;
	// enqueue appends them instead.
	open      []string
	openGiven bool // files were given, even if none of them names a file
	enqueue   bool
	// shown is called when the window first listed the library (the GUI
	// sets it: the held group library starts).
	shown func()
	// webHub makes this device the web hub: it plays through the browser
	// page chosen last (issue 34).
	webHub bool
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	attachConsole()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "ctl" {
		return runCtl(args[1:], stdout, stderr)
	}
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
	// Windows: the user alone may read it (an ACL); elsewhere its 0700.
	// A filesystem without ACLs (FAT, some shares) is no reason not to
	// start: it is said, and furudesk goes on.
	if err := userdir.Secure(opts.dataDir); err != nil {
		fmt.Fprintln(stderr, "furudesk: warning:", err)
	}
	if opts.headless {
		err := runHeadless(opts, stderr)
		if errors.Is(err, storage.ErrLocked) && opts.openGiven {
			return openInRunning(opts.dataDir, opts.open, opts.enqueue, err, stdout, stderr) // open.go
		}
		if err != nil {
			fmt.Fprintln(stderr, "furudesk:", err)
			return 1
		}
		return 0
	}
	profileLaunch() // FURUDESK_CPUPROFILE (cpuprofile.go)
	expectWindow()  // a raise arriving before the window waits for it (instance.go)
	dev, err := openDevice(opts, stderr)
	if errors.Is(err, storage.ErrLocked) && opts.openGiven {
		return openInRunning(opts.dataDir, opts.open, opts.enqueue, err, stdout, stderr) // open.go
	}
	if errors.Is(err, storage.ErrLocked) {
		return raiseRunning(opts.dataDir, err, stdout, stderr) // one instance per data dir
	}
	if err != nil {
		fmt.Fprintln(stderr, "furudesk:", err)
		return 1
	}
	// A quit signal saves and exits within a second even when the
	// window's loop is busy: the device closes without waiting for it.
	go openAtLaunch(dev.app, opts.open, opts.enqueue, stderr)
	stopGuard := guardQuit(stderrLogger(opts), windowQuitWait, func() {
		code := 0
		if err := dev.close(); err != nil {
			fmt.Fprintln(stderr, "furudesk:", err)
			code = 1
		}
		os.Exit(code)
	})
	opts.shown = dev.startGroupLib
	gerr := runGUI(dev.app, dev.web, opts)
	stopGuard()
	if err := dev.close(); err != nil && gerr == nil {
		gerr = err
	}
	if gerr != nil {
		fmt.Fprintln(stderr, "furudesk:", gerr)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var opts options
	fs := flag.NewFlagSet("furudesk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "furudesk %s: a music player whose devices act as one.\n\nUsage:\n  furudesk [flags]\n  furudesk [flags] FILE|FOLDER|file://URI... (play them, in the running furudesk if one runs)\n  furudesk ctl --data-dir DIR <command> (see furudesk ctl --help)\n\nFlags:\n", version)
		fs.PrintDefaults()
	}
	var peers, music, mdnsEx, public listFlag
	fs.StringVar(&opts.dataDir, "data-dir", "", "where furudesk keeps its database and identity (default: the platform's per-user data dir)")
	fs.BoolVar(&opts.version, "version", false, "print the version and exit")
	fs.BoolVar(&opts.headless, "headless", false, "run without a window (an always-on box, tests); control it with furudesk ctl")
	fs.StringVar(&opts.listen, "listen", ":0", "host:port for the other devices of the group (port 0 picks one)")
	fs.Var(&peers, "peer", "host:port of another device to connect to (repeatable)")
	fs.Var(&music, "music", "a music folder to add to the library (repeatable)")
	fs.BoolVar(&opts.passive, "passive", false, "always-on profile: never take the output by itself, play only when picked")
	fs.StringVar(&opts.name, "name", "", "this device's name shown on the others")
	fs.StringVar(&opts.configJSON, "config-json", "", `playback config to store at launch, e.g. {"owner_timeout_ms":2000}`)
	fs.BoolVar(&opts.mdns, "mdns", true, "find the group's devices on the LAN with mDNS")
	fs.Var(&mdnsEx, "mdns-exclude", "a network interface mDNS must stay off, such as tun0 or docker*; repeatable, kept for later launches (an empty value clears)")
	fs.StringVar(&opts.web, "web", "", "serve the web player on host:port (e.g. :8443) for phones and browsers of the network; off when empty")
	fs.BoolVar(&opts.carry, "carry", false, "carry other devices' traffic: connect members that cannot reach each other directly through this device (default: on with --headless)")
	fs.Var(&public, "public-addr", "host:port this device is reachable at from outside its network (a port forwarded on the router); repeatable, kept for later launches (an empty value clears)")
	fs.BoolVar(&opts.portMap, "portmap", false, "map this device's port on the router (UPnP-IGD or NAT-PMP) so devices outside the network reach it; kept for later launches")
	fs.BoolVar(&opts.webHub, "web-hub", false, "be the web hub: a device of its own that plays through the browser chosen last (\"Play on this browser\"); needs --web; passive unless set otherwise")
	fs.BoolVar(&opts.verbose, "v", false, "log debug messages")
	fs.BoolVar(&opts.enqueue, "enqueue", false, "append the files given to the queue instead of playing them now")
	if err := fs.Parse(args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		opts.openGiven = true
		opts.open = openArgs(fs.Args(), stderr) // open.go
	}
	opts.peers, opts.music, opts.mdnsExclude = peers, music, mdnsEx
	for _, p := range public {
		if p != "" {
			opts.public = append(opts.public, p)
		}
	}
	fs.Visit(func(f *flag.Flag) {
		opts.publicSet = opts.publicSet || f.Name == "public-addr"
		opts.portMapSet = opts.portMapSet || f.Name == "portmap"
		opts.mdnsExcludeSet = opts.mdnsExcludeSet || f.Name == "mdns-exclude"
		opts.carrySet = opts.carrySet || f.Name == "carry"
	})
	if !opts.carrySet {
		opts.carry = opts.headless // unless the user chose in Settings (wire.go)
	}
	if opts.configJSON != "" {
		c, err := engine.ParseConfig([]byte(opts.configJSON))
		if err != nil {
			return opts, fmt.Errorf("--config-json: %s", app.UserMessage(err))
		}
		opts.config = &c
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
