//go:build linux

// Command deskbench measures the real furudesk binary the way a user runs
// it: its window under Xvfb, sound to a PulseAudio null sink, a generated
// collection (package benchlib). scripts/bench-desktop.sh sets up the
// display, the sound server and the session bus and runs it; it prints a
// report. Linux only: it reads /proc and drives an X server.
//
//	deskbench -mode idle   (issue 18) CPU and RSS of the headless player and
//	                       the window idle, playing, paused, hidden to the
//	                       tray, next to a one-label Fyne window, with a
//	                       10,000-track collection; then RSS and
//	                       goroutines over -browse of scripted browsing
//	deskbench -mode large  (issue 20) a 100,000-track collection: scan,
//	                       ctl timings, shutdown times, the window's first
//	                       launch, page switches, album grid scrolling, RSS;
//	                       -step first|caret|warm runs one part of the
//	                       window's alone (with -work to keep the data dir)
//	deskbench -mode play   (issue 37) the headless player's CPU playing MP3,
//	                       FLAC, AAC, Opus and Vorbis next to ffmpeg
//	                       playing the same files to PulseAudio, and the
//	                       ratio
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/furudesk/furudesk/internal/benchlib"
)

type bench struct {
	bin, floor string
	work       string
	lib        *benchlib.Collection
	long       string // a 10-minute FLAC in the collection
	env        []string
	phase      time.Duration
	out        *os.File
	windowScan time.Duration // the window's first scan, start to end
}

func (b *bench) report(format string, args ...any) {
	fmt.Fprintf(b.out, format+"\n", args...)
}

func main() {
	mode := flag.String("mode", "idle", "idle (issue 18), large (issue 20) or play (issue 37)")
	bin := flag.String("bin", "bin/furudesk", "the furudesk binary")
	floor := flag.String("floor", "", "the fynefloor binary (one-label Fyne window)")
	libDir := flag.String("lib", "", "the collection's folder (generated there when it has none)")
	tracks := flag.Int("tracks", 0, "tracks of the collection (0: 10,000 for idle, 100,000 for large)")
	phase := flag.Duration("phase", time.Minute, "length of each CPU measurement")
	browse := flag.Duration("browse", 30*time.Minute, "length of the scripted browsing (idle mode)")
	work := flag.String("work", "", "work folder (data dirs, logs); a temporary one when empty")
	shutdowns := flag.Int("shutdowns", 20, "SIGTERMs timed (large mode)")
	windowOnly := flag.Bool("window-only", false, "large mode: only the window (no headless scan, ctl timings or shutdowns)")
	step := flag.String("step", "", "large mode: only one part of the window's: first (its first launch), caret (CPU with the search field focused) or warm (warm launches); caret and warm reuse -work's scanned data dir")
	flag.Parse()
	log.SetFlags(log.Ltime)

	b := &bench{bin: *bin, floor: *floor, phase: *phase, out: os.Stdout}
	var err error
	if b.bin, err = filepath.Abs(b.bin); err != nil {
		log.Fatal(err)
	}
	if b.work = *work; b.work == "" {
		if b.work, err = os.MkdirTemp("", "deskbench-"); err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(b.work)
	}
	n := *tracks
	if n == 0 {
		n = map[string]int{"idle": 10_000, "large": 100_000, "play": 10}[*mode]
	}
	dir := *libDir
	if dir == "" {
		dir = filepath.Join(b.work, "music")
	}
	if b.lib, err = collection(dir, n); err != nil {
		log.Fatal(err)
	}
	if b.long, err = longTrack(dir); err != nil {
		log.Fatal(err)
	}
	// A collection made by an earlier run has the long track among its
	// files: it is counted apart (the +1 of the counts), once.
	b.lib.Paths = slices.DeleteFunc(b.lib.Paths, func(p string) bool { return p == b.long })
	b.lib.Tracks = len(b.lib.Paths)
	b.env = append(os.Environ(), "LANG=C.UTF-8")
	b.report("deskbench %s: %s, %d tracks (%d albums, %d with a cover), %d cores, load %.2f, %s",
		*mode, b.bin, b.lib.Tracks+1, b.lib.Albums, b.lib.Covers, numCPU(), loadavg(), time.Now().Format(time.RFC3339))
	switch *mode {
	case "idle":
		err = b.idle(*browse)
	case "large":
		if *windowOnly || *step != "" {
			err = b.largeWindow(*step)
		} else {
			err = b.large(*shutdowns)
		}
	case "play":
		err = b.play()
	default:
		err = fmt.Errorf("unknown mode %q", *mode)
	}
	if err != nil {
		b.report("FAILED: %v (logs in %s)", err, b.work)
		log.Fatal(err)
	}
}

// collection is the generated collection at dir: made there unless it
// was made before (a marker file says so).
func collection(dir string, n int) (*benchlib.Collection, error) {
	marker := filepath.Join(dir, fmt.Sprintf(".benchlib-%d", n))
	if _, err := os.Stat(marker); err == nil {
		return benchlib.Open(dir)
	}
	log.Printf("generating %d tracks in %s", n, dir)
	c, err := benchlib.Generate(dir, n)
	if err != nil {
		return nil, err
	}
	return c, os.WriteFile(marker, nil, 0o644)
}

// longTrack is a 10-minute FLAC (44.1 kHz stereo) in the collection, to
// play while measuring.
func longTrack(dir string) (string, error) {
	p := filepath.Join(dir, "Bench Artist", "Long Album", "01 Long Play.flac")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	out, err := exec.Command("ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
		"aevalsrc=exprs=0.3*sin(2*PI*440*t)+0.05*(random(0)-0.5)|0.3*sin(2*PI*660*t)+0.05*(random(1)-0.5):c=stereo:s=44100:d=600",
		"-metadata", "title=Long Play", "-metadata", "artist=Bench Artist", "-metadata", "album=Long Album",
		"-metadata", "track=1", p).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("ffmpeg: %v: %s", err, out)
	}
	return p, nil
}

func numCPU() int {
	raw, _ := os.ReadFile("/proc/cpuinfo")
	n := 0
	for i := 0; i+9 < len(raw); i++ {
		if string(raw[i:i+9]) == "processor" && (i == 0 || raw[i-1] == '\n') {
			n++
		}
	}
	return n
}
