//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// large is issue 20's benchmark: a 100,000-track collection.
func (b *bench) large(shutdowns int) error {
	data := filepath.Join(b.work, "data")
	h, _, err := b.headlessColdScan(data)
	if err != nil {
		return err
	}
	// What the scan leaves to do: the catalog the group sees is published
	// (read from the database, signed and stored) once the library is quiet.
	scanEnd := time.Now()
	c1, _ := cpuTicks(h.p.pid())
	if err := waitPublished(h, b.lib.Tracks, 10*time.Minute); err != nil {
		return err
	}
	c2, _ := cpuTicks(h.p.pid())
	b.report("catalog published to the group %v after the scan's end, %.1f s of CPU",
		time.Since(scanEnd).Round(100*time.Millisecond), float64(c2-c1)/clockTicks)

	// ctl, on the scanned collection.
	var plays []time.Duration
	for i := range 10 {
		p := b.lib.Paths[(i*7919)%len(b.lib.Paths)]
		t := time.Now()
		if _, err := h.ctl("play", p); err != nil {
			return err
		}
		plays = append(plays, time.Since(t))
	}
	sort.Slice(plays, func(i, j int) bool { return plays[i] < plays[j] })
	b.report("ctl play PATH: median %v, max %v (10 runs; the ctl process's own start included)",
		plays[len(plays)/2].Round(time.Millisecond), plays[len(plays)-1].Round(time.Millisecond))
	t := time.Now()
	if _, err := h.ctl("status"); err != nil {
		return err
	}
	b.report("ctl status: %v", time.Since(t).Round(time.Millisecond))
	t = time.Now()
	if _, err := h.ctl(append([]string{"enqueue"}, b.lib.Paths[:1000]...)...); err != nil {
		return err
	}
	b.report("ctl enqueue of 1,000 paths: %v", time.Since(t).Round(time.Millisecond))
	first, total, size, rss, err := b.ctlTracks(h)
	if err != nil {
		return err
	}
	b.report("ctl tracks: first track after %v, all %d MB after %v; server RSS %.0f MB after",
		first.Round(time.Millisecond), size>>20, total.Round(time.Millisecond), rss)
	t = time.Now()
	if _, err := h.ctl("scan"); err != nil {
		return err
	}
	if err := b.waitScanned(h, 10*time.Minute); err != nil {
		return err
	}
	b.report("rescan, nothing changed: %v", time.Since(t).Round(100*time.Millisecond))
	// Idle with the collection scanned and its folders watched (issue
	// 37: it must not grow with the library), beside a small one with the
	// same queue. The plays above left 1,000 short tracks queued: idle is
	// paused.
	if err := pauseIdle(h); err != nil {
		return err
	}
	idle, err := measure(fmt.Sprintf("headless idle, %dk tracks watched", b.lib.Tracks/1000), h.p.pid(), b.phase)
	if err != nil {
		return err
	}
	if _, err := h.p.term(30 * time.Second); err != nil {
		return err
	}
	small, err := b.smallIdle(1000)
	if err != nil {
		return err
	}
	b.report("%s\n%s", small, idle)

	if err := b.shutdownTimes(data, shutdowns); err != nil {
		return err
	}
	return b.largeWindow("")
}

// waitPublished waits for d's catalog to be published to the group with
// at least n tracks.
func waitPublished(d *device, n int, limit time.Duration) error {
	for k := 0; ; {
		l, next, err := d.p.waitLog(k, limit, "this device's catalog changed")
		if err != nil {
			return err
		}
		k = next
		if _, v, ok := strings.Cut(l.text, " tracks="); ok {
			if got, err := strconv.Atoi(strings.Fields(v)[0]); err == nil && got >= n {
				return nil
			}
		}
	}
}

// pauseIdle pauses d and waits until its output is suspended.
func pauseIdle(d *device) error {
	if _, err := d.ctl("pause"); err != nil {
		return err
	}
	if err := waitFor("the output paused", 20*time.Second, func() bool {
		st, err := d.status()
		return err == nil && !st.Output.Playing
	}); err != nil {
		return err
	}
	time.Sleep(8 * time.Second) // the output suspends after 5 s
	return nil
}

// smallIdle is a headless device on a collection of n tracks, scanned,
// published, holding the same queue as the large one and paused: the
// figure the 100k one is held against.
func (b *bench) smallIdle(n int) (sample, error) {
	lib, err := collection(filepath.Join(b.work, fmt.Sprintf("lib%d", n)), n)
	if err != nil {
		return sample{}, err
	}
	d := &device{bin: b.bin, dir: filepath.Join(b.work, fmt.Sprintf("data%d", n)), env: b.env}
	if err := d.start("--headless", "--music", lib.Dir); err != nil {
		return sample{}, err
	}
	defer func() { _, _ = d.p.term(30 * time.Second) }()
	if err := waitFor("the small scan", 5*time.Minute, func() bool {
		st, err := d.status()
		return err == nil && !st.Scan.Running && st.Scan.Found >= lib.Tracks
	}); err != nil {
		return sample{}, err
	}
	if err := waitPublished(d, lib.Tracks, 5*time.Minute); err != nil {
		return sample{}, err
	}
	// The queue the large device holds: a track played, 1,000 queued.
	if _, err := d.ctl("play", lib.Paths[0]); err != nil {
		return sample{}, err
	}
	if _, err := d.ctl(append([]string{"enqueue"}, lib.Paths[:min(1000, len(lib.Paths))]...)...); err != nil {
		return sample{}, err
	}
	if err := pauseIdle(d); err != nil {
		return sample{}, err
	}
	return measure(fmt.Sprintf("headless idle, %dk tracks watched", n/1000), d.p.pid(), b.phase)
}

// headlessColdScan starts a headless furudesk on the empty data dir data
// with the collection and reports its scan; it returns the device, still
// running, and how long the scan took.
func (b *bench) headlessColdScan(data string) (*device, time.Duration, error) {
	if err := os.RemoveAll(data); err != nil {
		return nil, 0, err
	}
	h := &device{bin: b.bin, dir: data, env: b.env}
	t0 := time.Now()
	if err := h.start("--headless", "--music", b.lib.Dir); err != nil {
		return nil, 0, err
	}
	c0, _ := cpuTicks(h.p.pid())
	peak := 0.0
	if err := waitFor("the cold scan", 30*time.Minute, func() bool {
		peak = max(peak, peakRSSMB(h.p.pid()))
		st, err := h.status()
		return err == nil && !st.Scan.Running && st.Scan.Found >= b.lib.Tracks
	}); err != nil {
		return nil, 0, err
	}
	scan := time.Since(t0)
	c1, _ := cpuTicks(h.p.pid())
	b.report("headless cold scan: %d files in %v (%.0f files/s), %.1f s of CPU, peak RSS %.0f MB, load %.2f",
		b.lib.Tracks+1, scan.Round(100*time.Millisecond), float64(b.lib.Tracks+1)/scan.Seconds(),
		float64(c1-c0)/clockTicks, peak, loadavg())
	return h, scan, nil
}

// ctlTracks times `ctl tracks` to its first track and to its end.
func (b *bench) ctlTracks(h *device) (first, total time.Duration, size int64, rss float64, err error) {
	cmd := exec.Command(b.bin, "ctl", "--data-dir", h.dir, "tracks")
	cmd.Env = b.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	t := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, 0, err
	}
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadString('\n')
		size += int64(len(line))
		if first == 0 && strings.Contains(line, "{") {
			first = time.Since(t)
		}
		if err != nil {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("ctl tracks: %v", err)
	}
	return first, time.Since(t), size, rssMB(h.p.pid()), nil
}

// shutdownTimes starts a headless furudesk on the scanned data dir n
// times and times SIGTERM to exit in turns of states: idle, playing, a
// scan running, streaming the catalog to ctl tracks, enqueueing 1,000
// paths.
func (b *bench) shutdownTimes(data string, n int) error {
	states := []struct {
		name string
		set  func(d *device) (func(), error)
	}{
		{"idle", func(*device) (func(), error) { return func() {}, nil }},
		{"playing", func(d *device) (func(), error) { _, err := d.ctl("play", b.long); return func() {}, err }},
		{"scanning", func(d *device) (func(), error) { _, err := d.ctl("scan"); return func() {}, err }},
		{"streaming ctl tracks", func(d *device) (func(), error) {
			cmd := exec.Command(b.bin, "ctl", "--data-dir", d.dir, "tracks")
			cmd.Env = b.env
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				return nil, err
			}
			// read a little, then stop reading: the server is mid-stream
			_, _ = out.Read(make([]byte, 4096))
			return func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }, nil
		}},
		{"enqueueing 1,000 paths", func(d *device) (func(), error) {
			cmd := exec.Command(b.bin, append([]string{"ctl", "--data-dir", d.dir, "enqueue"}, b.lib.Paths[1000:2000]...)...)
			cmd.Env = b.env
			if err := cmd.Start(); err != nil {
				return nil, err
			}
			time.Sleep(20 * time.Millisecond)
			return func() { _ = cmd.Wait() }, nil
		}},
	}
	byState := map[string][]time.Duration{}
	var all []time.Duration
	for i := range n {
		s := states[i%len(states)]
		d := &device{bin: b.bin, dir: data, env: b.env}
		if err := d.start("--headless"); err != nil {
			return err
		}
		time.Sleep(time.Second)
		cleanup, err := s.set(d)
		if err != nil {
			return fmt.Errorf("shutdown %d (%s): %v", i, s.name, err)
		}
		time.Sleep(500 * time.Millisecond)
		took, err := d.p.term(30 * time.Second)
		cleanup()
		if err != nil {
			return err
		}
		byState[s.name] = append(byState[s.name], took)
		all = append(all, took)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	var parts []string
	for _, s := range states {
		var ms []string
		for _, d := range byState[s.name] {
			ms = append(ms, fmt.Sprint(d.Round(time.Millisecond)))
		}
		parts = append(parts, s.name+" "+strings.Join(ms, ", "))
	}
	b.report("shutdown, SIGTERM to exit, %d times: max %v, median %v (%s)", n, all[len(all)-1].Round(time.Millisecond),
		all[len(all)/2].Round(time.Millisecond), strings.Join(parts, "; "))
	return nil
}

// largeWindow is the window's first launch on an empty data dir with the
// collection: the list while scanning and after, page switches, album
// grid scrolling, memory, the caret, warm launches and SIGTERM. step
// runs one part alone, for the work on it: "first" the first launch,
// "caret" the caret's CPU, "warm" the warm launches; the last two on the
// data dir an earlier run scanned (-work), scanned first when there is
// none.
func (b *bench) largeWindow(step string) error {
	dir := filepath.Join(b.work, "window")
	var w *device
	var err error
	switch step {
	case "", "first":
		var headless time.Duration
		if step == "first" {
			// The headless scan to compare with, in the same conditions.
			h, d, err := b.headlessColdScan(filepath.Join(b.work, "data"))
			if err != nil {
				return err
			}
			if _, err := h.p.term(30 * time.Second); err != nil {
				return err
			}
			headless = d
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if w, err = b.windowFirstLaunch(dir); err != nil {
			return err
		}
		if step == "first" {
			b.report("window scan / headless scan: %.2f×", b.windowScan.Seconds()/headless.Seconds())
			_, err := w.p.term(30 * time.Second)
			return err
		}
	case "caret", "warm":
		if _, err := os.Stat(filepath.Join(dir, "furudesk.db")); err != nil {
			if w, err = b.windowFirstLaunch(dir); err != nil {
				return err
			}
			if _, err := w.p.term(30 * time.Second); err != nil {
				return err
			}
		}
		if step == "warm" {
			_, err := b.warmLaunches(&device{bin: b.bin, dir: dir, env: b.env}, false)
			return err
		}
		w = &device{bin: b.bin, dir: dir, env: b.env}
		if err := w.start(); err != nil {
			return err
		}
		if _, _, err := windowListed(w.p, 0, b.lib.Tracks+1, 5*time.Minute); err != nil {
			return err
		}
		time.Sleep(20 * time.Second) // the launch's rescan and the group library's first publication
		if err := b.focusedFieldIdle(w.p.pid()); err != nil {
			return err
		}
		_, err := w.p.term(30 * time.Second)
		return err
	default:
		return fmt.Errorf("unknown step %q (first, caret or warm)", step)
	}
	if err := b.windowBrowse(w); err != nil {
		return err
	}
	// Issue 37: the window idle, then with the search field focused: its
	// caret blinks for 10 s after the focus (ui.caretBlinkTimeout), then
	// rests lit.
	if err := b.focusedFieldIdle(w.p.pid()); err != nil {
		return err
	}
	d, err := w.p.term(30 * time.Second)
	if err != nil {
		return err
	}
	terms, err := b.warmLaunches(w, true)
	if err != nil {
		return err
	}
	b.report("window SIGTERM to exit: %s (idle, idle after a restart, scanning)",
		strings.Join(append([]string{fmt.Sprint(d.Round(time.Millisecond))}, terms...), ", "))
	return nil
}

// windowFirstLaunch starts the window on the empty data dir dir and waits
// for its scan and its complete list; it reports when each came, the CPU
// of the scan, and the memory at its highest while scanning and after.
func (b *bench) windowFirstLaunch(dir string) (*device, error) {
	w := &device{bin: b.bin, dir: dir, env: b.env}
	t0 := time.Now()
	if err := w.start("--music", b.lib.Dir); err != nil {
		return nil, err
	}
	firstAt, k, err := windowListed(w.p, 0, 1, 10*time.Minute)
	if err != nil {
		return nil, err
	}
	var scanEnd time.Time
	var scanCPU float64
	c0, _ := cpuTicks(w.p.pid())
	if err := waitFor("the window's scan", 30*time.Minute, func() bool {
		st, err := w.status()
		if err == nil && !st.Scan.Running && st.Scan.Found >= b.lib.Tracks {
			scanEnd = time.Now()
			return true
		}
		return false
	}); err != nil {
		return nil, err
	}
	c1, _ := cpuTicks(w.p.pid())
	scanCPU = float64(c1-c0) / clockTicks
	fullAt, _, err := windowListed(w.p, k, b.lib.Tracks+1, 5*time.Minute)
	if err != nil {
		return nil, err
	}
	b.windowScan = scanEnd.Sub(t0)
	b.report("window first launch: the list showed its first tracks %v after the start (scanning), the scan ended after %v (%.1f s of CPU while it ran), the list was complete %v after the scan ended; load %.2f",
		firstAt.Sub(t0).Round(100*time.Millisecond), scanEnd.Sub(t0).Round(100*time.Millisecond), scanCPU,
		max(0, fullAt.Sub(scanEnd)).Round(10*time.Millisecond), loadavg())
	st, _ := w.stats()
	b.report("window RSS after the scan: %.0f MB, at its highest %.0f MB (%s)", rssMB(w.p.pid()),
		peakRSSMB(w.p.pid()), split(w.p.pid(), st))
	// What the first launch still does: publish the catalog to the group
	// (read whole again, compared, stored), a while after the scan.
	if err := waitPublished(w, b.lib.Tracks, 10*time.Minute); err != nil {
		return nil, err
	}
	b.report("window RSS once its catalog was published (%v after the scan's end): %.0f MB, at its highest %.0f MB",
		time.Since(scanEnd).Round(100*time.Millisecond), rssMB(w.p.pid()), peakRSSMB(w.p.pid()))
	return w, nil
}

// windowBrowse times page switches and the album grid's scrolling, and
// reports the memory after and once settled.
func (b *bench) windowBrowse(w *device) error {
	time.Sleep(3 * time.Second)
	// Page switches: from the click to the page on screen (the title and
	// the top of the page change together in one frame), watched through
	// the X server every few milliseconds.
	var switches []string
	var worst time.Duration
	for round := range 2 {
		for _, p := range []string{"Artists", "Albums", "Tracks", "Playlists", "Queue", "Devices", "Settings", "Tracks"} {
			d, err := probe("click", fmt.Sprint(sidebarX), fmt.Sprint(pageY[p]), "700", "120", "200", "0")
			if err != nil {
				return err
			}
			worst = max(worst, d)
			if round == 1 {
				switches = append(switches, fmt.Sprintf("%s %v", p, d))
			}
			time.Sleep(time.Second)
		}
	}
	b.report("page switch, click to page on screen: max %v (%s; first visits not counted)", worst, strings.Join(switches, ", "))

	// A fast scroll of the album grid: 40 notches 10 ms apart, then how
	// long it goes on changing after the last one.
	if err := showPage("Albums"); err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	var settles []string
	for range 3 {
		d, err := probe("wheel", fmt.Sprint(bodyX), fmt.Sprint(bodyY), "40", "900", "500", "220", "120")
		if err != nil {
			return err
		}
		settles = append(settles, fmt.Sprint(d))
		time.Sleep(time.Second)
	}
	st, _ := w.stats()
	b.report("album grid, 40 wheel notches 10 ms apart: on screen for good %s after the last notch; window RSS after visiting every page %.0f MB (%s), %d goroutines",
		strings.Join(settles, ", "), rssMB(w.p.pid()), split(w.p.pid(), st), st.Goroutines)
	// The window hands the heap's spare room back 10 s after a burst of
	// collections (internal/memrelease): what it holds once settled.
	time.Sleep(15 * time.Second)
	st, _ = w.stats()
	b.report("window RSS 15 s after the last page and scroll: %.0f MB (%s)", rssMB(w.p.pid()), split(w.p.pid(), st))
	// And once the sweep (70 s after memrelease's release) had Fyne drop
	// the textures of the pages no longer shown.
	time.Sleep(settleAfterBrowsing - 15*time.Second)
	st, _ = w.stats()
	b.report("window RSS %v after the last page and scroll: %.0f MB (%s)", settleAfterBrowsing, rssMB(w.p.pid()), split(w.p.pid(), st))
	return nil
}

// warmLaunches starts the window twice more on w's scanned data dir and
// reports when the whole list was shown; with scanAtEnd the second is
// asked to rescan just before its SIGTERM. It returns the SIGTERM times.
func (b *bench) warmLaunches(w *device, scanAtEnd bool) ([]string, error) {
	var terms []string
	for i := 1; i <= 2; i++ {
		w = &device{bin: b.bin, dir: w.dir, env: b.env}
		t0 := time.Now()
		if err := w.start(); err != nil {
			return nil, err
		}
		at, _, err := windowListed(w.p, 0, b.lib.Tracks+1, 5*time.Minute)
		if err != nil {
			return nil, err
		}
		// Issue 37: what the database knows is listed at once, the
		// launch's rescan after.
		b.report("window warm launch %d: the whole list shown %v after the start; load %.2f", i,
			at.Sub(t0).Round(10*time.Millisecond), loadavg())
		if i == 2 && scanAtEnd {
			if _, err := w.ctl("scan"); err != nil {
				return nil, err
			}
			time.Sleep(300 * time.Millisecond)
		}
		d, err := w.p.term(30 * time.Second)
		if err != nil {
			return nil, err
		}
		terms = append(terms, fmt.Sprint(d.Round(time.Millisecond)))
	}
	return terms, nil
}

// focusedFieldIdle reports the window's CPU idle, while a focused search
// field's caret blinks, and once it rests.
func (b *bench) focusedFieldIdle(pid int) error {
	idle, err := measure("window idle, nothing focused", pid, b.phase)
	if err != nil {
		return err
	}
	if err := xdo("key", "ctrl+f"); err != nil {
		return err
	}
	time.Sleep(200 * time.Millisecond)
	blink, err := measure("window, the caret blinking", pid, 9*time.Second)
	if err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	rest, err := measure("window, focused, the caret at rest", pid, b.phase)
	if err != nil {
		return err
	}
	b.report("%s\n%s\n%s", idle, blink, rest)
	return xdo("key", "Escape")
}
