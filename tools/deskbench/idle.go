//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"log"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// idle is issue 18's benchmark: the cost of a player that waits.
func (b *bench) idle(browse time.Duration) error {
	if b.floor != "" {
		p, err := startProc("fynefloor", filepath.Join(b.work, "fynefloor.log"), b.env, b.floor)
		if err != nil {
			return err
		}
		time.Sleep(5 * time.Second)
		s, err := measure("Fyne floor (one-label window)", p.pid(), b.phase)
		if err != nil {
			return err
		}
		b.report("%s", s)
		_, _ = p.term(10 * time.Second)
	}

	data := filepath.Join(b.work, "data")
	h := &device{bin: b.bin, dir: data, env: b.env}
	if err := h.start("--headless", "--music", b.lib.Dir); err != nil {
		return err
	}
	if err := b.waitScanned(h, 10*time.Minute); err != nil {
		return err
	}
	if err := b.cpuPhases("headless", h); err != nil {
		return err
	}
	d, err := h.p.term(30 * time.Second)
	b.report("headless SIGTERM to exit: %v", d.Round(time.Millisecond))
	if err != nil {
		return err
	}

	host, err := startTrayHost()
	if err != nil {
		return err
	}
	defer host.conn.Close()
	w := &device{bin: b.bin, dir: data, env: b.env}
	if err := w.start(); err != nil {
		return err
	}
	if _, _, err := windowListed(w.p, 0, b.lib.Tracks, 2*time.Minute); err != nil {
		return err
	}
	if err := b.cpuPhases("window", w); err != nil {
		return err
	}
	id, err := windowID()
	if err != nil {
		return err
	}
	if err := closeWindow(id); err != nil {
		return err
	}
	if err := waitFor("the window to hide in the tray", 10*time.Second, func() bool { _, err := windowID(); return err != nil }); err != nil {
		return err
	}
	time.Sleep(3 * time.Second)
	if err := b.sample("window hidden to the tray, paused", w); err != nil {
		return err
	}
	if _, err := w.ctl("resume"); err != nil {
		return err
	}
	time.Sleep(3 * time.Second)
	if err := b.sample("window hidden to the tray, playing", w); err != nil {
		return err
	}
	if _, err := w.ctl("pause"); err != nil {
		return err
	}
	if _, err := w.ctl("raise"); err != nil {
		return err
	}
	if err := waitFor("the window shown again", 10*time.Second, func() bool { _, err := windowID(); return err == nil }); err != nil {
		return err
	}
	if err := b.browse(w, browse); err != nil {
		return err
	}
	d, err = w.p.term(30 * time.Second)
	b.report("window SIGTERM to exit: %v", d.Round(time.Millisecond))
	return err
}

// waitScanned waits for the device's scan of the collection to end.
func (b *bench) waitScanned(d *device, limit time.Duration) error {
	return waitFor("the scan", limit, func() bool {
		st, err := d.status()
		return err == nil && !st.Scan.Running && st.Scan.Found >= b.lib.Tracks
	})
}

// cpuPhases measures d idle, playing the long FLAC and paused.
func (b *bench) cpuPhases(what string, d *device) error {
	time.Sleep(10 * time.Second)
	if err := b.sample(what+" idle", d); err != nil {
		return err
	}
	if _, err := d.ctl("play", b.long); err != nil {
		return err
	}
	if err := waitFor("the output playing", 20*time.Second, func() bool {
		st, err := d.status()
		return err == nil && st.Output.Playing
	}); err != nil {
		return err
	}
	time.Sleep(3 * time.Second)
	if err := b.sample(what+" playing FLAC", d); err != nil {
		return err
	}
	if _, err := d.ctl("pause"); err != nil {
		return err
	}
	time.Sleep(8 * time.Second) // the output suspends after 5 s
	return b.sample(what+" paused", d)
}

func (b *bench) sample(what string, d *device) error {
	before, _ := d.stats()
	s, err := measure(what, d.p.pid(), b.phase)
	if err != nil {
		return err
	}
	st, _ := d.stats()
	b.report("%s, %d goroutines%s", s, st.Goroutines, holdsBetween(before, st))
	return nil
}

// browse drives the window like a person for dur: pages switched, lists
// and the album grid scrolled, searches typed, albums opened, tracks
// played, playback moved to a second device and back; it reports RSS and
// goroutines along the way.
func (b *bench) browse(w *device, dur time.Duration) error {
	peer := &device{bin: b.bin, dir: filepath.Join(b.work, "peer"), env: append(append([]string(nil), b.env...), "PULSE_SINK=peer")}
	if err := peer.start("--headless", "--name", "Peer"); err != nil {
		return err
	}
	defer func() { _, _ = peer.p.term(30 * time.Second) }()
	if err := pair(w, peer); err != nil {
		return err
	}
	wst, _ := w.status()
	pst, _ := peer.status()

	seed := uint64(time.Now().UnixNano())
	r := rand.New(rand.NewPCG(seed, 18))
	b.report("browsing for %v (seed %d)", dur, seed)
	t0 := time.Now()
	type point struct {
		at         time.Duration
		rss        float64
		goroutines int
		heap       float64
	}
	var points []point
	take := func() {
		st, _ := w.stats()
		points = append(points, point{time.Since(t0), rssMB(w.p.pid()), st.Goroutines, float64(st.HeapAlloc) / (1 << 20)})
	}
	take()
	next := 30 * time.Second
	pages := []string{"Artists", "Albums", "Tracks", "Playlists", "Queue", "Devices", "Settings"}
	queries := []string{"night glass", "grosse", "sigur ros", "cafe", "beyonce", "amber 1", "zephyr", "motley", "ember"}
	owner := wst.DeviceID
	actions := 0
	for time.Since(t0) < dur {
		if !w.p.alive() {
			return fmt.Errorf("the window exited while browsing")
		}
		var err error
		switch k := r.IntN(100); {
		case k < 30:
			err = showPage(pages[r.IntN(len(pages))])
		case k < 45:
			err = typeSearch(queries[r.IntN(len(queries))])
		case k < 65:
			err = wheel(bodyX, bodyY, r.IntN(30)-10)
		case k < 75:
			if err = showPage("Albums"); err == nil {
				time.Sleep(300 * time.Millisecond)
				err = click(300+170*r.IntN(4), 180+220*r.IntN(2))
			}
		case k < 90:
			_, err = w.ctl("play", b.lib.Paths[r.IntN(len(b.lib.Paths))], b.long)
		case k < 95:
			to := pst.DeviceID
			if owner == pst.DeviceID {
				to = wst.DeviceID
			}
			if _, err = w.ctl("transfer", to); err == nil {
				owner = to
			}
		default:
			_, err = w.ctl("toggle")
		}
		if err != nil {
			log.Printf("browse: %v", err) // a refused action is not the benchmark's failure
		}
		actions++
		time.Sleep(time.Duration(800+r.IntN(2200)) * time.Millisecond)
		if time.Since(t0) >= next {
			take()
			next += 30 * time.Second
		}
	}
	take()
	// RSS at 5 minutes and at the end are medians of the samples around
	// them (4-6 minutes, the last 2 minutes): a collection or a release
	// just before one sample moves it by 10 MB.
	around := func(from, to time.Duration) float64 {
		var v []float64
		for _, p := range points {
			if p.at >= from && p.at <= to {
				v = append(v, p.rss)
			}
		}
		if len(v) == 0 {
			return points[len(points)-1].rss
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	last := points[len(points)-1]
	at5 := around(4*time.Minute, 6*time.Minute+15*time.Second)
	end := around(last.at-2*time.Minute-15*time.Second, last.at)
	gs := make([]int, len(points))
	for i, p := range points {
		gs[i] = p.goroutines
	}
	sort.Ints(gs)
	var trail []string
	peak := 0.0
	for _, p := range points {
		trail = append(trail, fmt.Sprintf("%.0f", p.rss))
		peak = max(peak, p.rss)
	}
	b.report("browsing: %d actions in %v; RSS %.0f MB at start, %.0f MB at 5 minutes (median of 4-6 min), %.0f MB at the end (median of the last 2 min; %+.1f MB after the first 5 minutes), %.0f MB at most; goroutines %d..%d (%d at the end); Go heap %.0f MB at the end; load %.2f",
		actions, time.Since(t0).Round(time.Second), points[0].rss, at5, end, end-at5, peak,
		gs[0], gs[len(gs)-1], last.goroutines, last.heap, loadavg())
	b.report("RSS every 30 s (MB): %s", strings.Join(trail, " "))
	st, _ := w.stats()
	b.report("window memory at the end: %s", split(w.p.pid(), st))
	// Left alone: the window gives back what is free 10 s after the last
	// burst (internal/memrelease) and has Fyne drop the textures it no
	// longer draws 70 s later (cmd/furudesk's sweep).
	time.Sleep(settleAfterBrowsing)
	st, _ = w.stats()
	b.report("window left alone %v after the browsing: RSS %.0f MB (%s)", settleAfterBrowsing, rssMB(w.p.pid()), split(w.p.pid(), st))
	return nil
}

// settleAfterBrowsing is how long the window is left alone after the
// browsing before its memory is read again: past memrelease's quiet time
// (10 s) and the sweep (70 s after it, and a second).
const settleAfterBrowsing = 100 * time.Second

// pair joins peer to w's group through ctl (invite, pair, accept) and
// waits until both see each other online.
func pair(w, peer *device) error {
	out, err := w.ctl("invite")
	if err != nil {
		return err
	}
	var inv struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(out, &inv); err != nil {
		return fmt.Errorf("invite: %v: %s", err, out)
	}
	if _, err := peer.ctl("pair", inv.Code); err != nil {
		return err
	}
	var req string
	if err := waitFor("the pairing request", 30*time.Second, func() bool {
		st, err := w.status()
		if err == nil && len(st.Pairing) > 0 {
			req = st.Pairing[0].ID
		}
		return req != ""
	}); err != nil {
		return err
	}
	if _, err := w.ctl("accept", req); err != nil {
		return err
	}
	return waitFor("both devices online", 60*time.Second, func() bool {
		a, err1 := w.status()
		b, err2 := peer.status()
		online := func(st status) bool {
			n := 0
			for _, d := range st.Devices {
				if d.Online {
					n++
				}
			}
			return n >= 2
		}
		return err1 == nil && err2 == nil && online(a) && online(b)
	})
}
