//go:build linux || freebsd || openbsd || netbsd || dragonfly

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/internal/pulsetest"
)

// The real window under a window manager (openbox on Xvfb), driven with
// the mouse as a person would (xdotool): dragging a row of the queue
// reorders the group's queue (checked with `furudesk ctl queue`), and
// after a restart the window is where and as large as it was left. Set
// FURUDESK_SHOTS=DIR to keep the screenshots.

// Where the first row of the queue's "Up next" is, in the window's
// content at Fyne's scale 1 (FYNE_SCALE=1): under the header, the
// now-playing line and the tabs; rows are rowStep apart.
const (
	queueRowX, queueRowY = 400, 232
	rowStep              = 39
)

type xwin struct {
	t       *testing.T
	env     []string
	shots   string
	display string
}

func (x *xwin) run(name string, args ...string) string {
	x.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = x.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		x.t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// focused is the id of the window with the input focus, "" when none
// has it: xdotool fails then (the focus is on the root or nowhere, as
// between a minimize and the next window's activation).
func (x *xwin) focused() string {
	cmd := exec.Command("xdotool", "getwindowfocus")
	cmd.Env = x.env
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// window waits for the furudesk window and returns its id.
func (x *xwin) window(n *node) string {
	x.t.Helper()
	var id string
	waitFor(x.t, 60*time.Second, "the furudesk window", func() bool {
		select {
		case <-n.exited:
			x.t.Fatalf("furudesk exited:\n%s", n.log.String())
		default:
		}
		cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^furudesk$")
		cmd.Env = x.env
		out, err := cmd.Output()
		if err != nil {
			return false
		}
		id = strings.Fields(string(out))[0]
		return true
	})
	return id
}

var xwinRe = regexp.MustCompile(`(?m)^\s*(Absolute upper-left X|Absolute upper-left Y|Width|Height):\s*(-?\d+)`)

// geometry is the window's content on the screen: x, y, width, height.
func (x *xwin) geometry(id string) [4]int {
	x.t.Helper()
	var g [4]int
	for _, m := range xwinRe.FindAllStringSubmatch(x.run("xwininfo", "-id", id), -1) {
		v, _ := strconv.Atoi(m[2])
		switch m[1] {
		case "Absolute upper-left X":
			g[0] = v
		case "Absolute upper-left Y":
			g[1] = v
		case "Width":
			g[2] = v
		case "Height":
			g[3] = v
		}
	}
	return g
}

// settle waits until the window's geometry stops changing (the window
// manager and furudesk have placed it).
func (x *xwin) settle(id string) [4]int {
	x.t.Helper()
	g := x.geometry(id)
	same := 0
	waitFor(x.t, 20*time.Second, "the window to settle", func() bool {
		n := x.geometry(id)
		if n == g {
			same++
		} else {
			g, same = n, 0
		}
		return same >= 6 // 300 ms unchanged
	})
	return g
}

func (x *xwin) shot(name string) {
	if x.shots == "" {
		return
	}
	// For the eye only: let the window paint what the last status said.
	time.Sleep(500 * time.Millisecond)
	if _, err := exec.LookPath("import"); err != nil {
		return
	}
	cmd := exec.Command("import", "-window", "root", filepath.Join(x.shots, name))
	cmd.Env = x.env
	_ = cmd.Run()
}

// drag presses the left button at (fx, fy), moves to (tx, ty) in small
// steps like a hand, and releases it.
func (x *xwin) drag(fx, fy, tx, ty int) {
	x.t.Helper()
	x.run("xdotool", "mousemove", strconv.Itoa(fx), strconv.Itoa(fy))
	time.Sleep(150 * time.Millisecond) // the pointer rests before the press, as a hand's does
	x.run("xdotool", "mousedown", "1")
	const steps = 12
	for i := 1; i <= steps; i++ {
		time.Sleep(30 * time.Millisecond) // motion events arrive over time, as from a hand
		x.run("xdotool", "mousemove", strconv.Itoa(fx+(tx-fx)*i/steps), strconv.Itoa(fy+(ty-fy)*i/steps))
	}
	time.Sleep(150 * time.Millisecond)
	x.run("xdotool", "mouseup", "1")
}

// xdesk is a screen with a window manager (openbox on Xvfb) and the
// environment of a user of it: a private home, runtime dir and no
// session bus. The furudesk window runs at Fyne's scale 1, so the
// window's coordinates (ctl window) are the screen's pixels.
type xdesk struct {
	*xwin
	home, run string
}

func startDesktop(t *testing.T, screen string) *xdesk {
	t.Helper()
	needE2E(t)
	needTool(t, "openbox")
	needTool(t, "xdotool")
	needTool(t, "xwininfo")
	display := startXvfbScreen(t, screen)
	root := t.TempDir()
	home, run := filepath.Join(root, "home"), filepath.Join(root, "run")
	for _, d := range []string{home, run} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := pulsetest.CleanEnv("DISPLAY="+display, "HOME="+home, "XDG_RUNTIME_DIR="+run, "LANG=C.UTF-8", "FYNE_SCALE=1",
		"DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(run, "no-bus"))
	x := &xwin{t: t, env: env, shots: os.Getenv("FURUDESK_SHOTS"), display: display}

	wm := exec.Command("openbox", "--sm-disable")
	wm.Env = env
	var wmLog syncBuf
	wm.Stdout, wm.Stderr = &wmLog, &wmLog
	if err := wm.Start(); err != nil {
		t.Fatal(err)
	}
	wmDone := make(chan struct{})
	go func() { _ = wm.Wait(); close(wmDone) }()
	t.Cleanup(func() { _ = wm.Process.Kill(); <-wmDone })
	return &xdesk{xwin: x, home: home, run: run}
}

// TestQueueDragAndWindowPlaceOnARealDesktop: see the file's comment.
func TestQueueDragAndWindowPlaceOnARealDesktop(t *testing.T) {
	dt := startDesktop(t, "1600x1000x24")
	x, env, home := dt.xwin, dt.env, dt.home
	dir := filepath.Join(t.TempDir(), "data")

	// The window opens on the queue: the page shown last is remembered
	// per data dir (and so is tested here too).
	prefsDir := filepath.Join(home, ".config", "fyne", appID)
	if err := os.MkdirAll(prefsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	prefs, _ := json.Marshal(map[string]any{"view." + dataDirKey(dir) + ".page": "Queue"})
	mustWrite(t, filepath.Join(prefsDir, "preferences.json"), prefs)

	args := []string{"-v", "--data-dir", dir, "--mdns=false", "--listen", "127.0.0.1:0"}
	n := &node{t: t, name: "window", dir: dir, env: env, args: args}
	n.start()
	t.Cleanup(func() { n.stop(false) })
	win := x.window(n)

	n.ctl("demo")
	var tracks []struct {
		ContentID string `json:"content_id"`
	}
	waitFor(t, 60*time.Second, "the demo library", func() bool {
		return json.Unmarshal(n.ctl("tracks"), &tracks) == nil && len(tracks) >= 3 && !n.status().Scan.Running
	})
	ids := []string{tracks[0].ContentID, tracks[1].ContentID, tracks[2].ContentID}
	n.ctl(append([]string{"play"}, ids...)...)
	queue := func() []string {
		var q struct {
			Queue []app.QueueItem `json:"queue"`
		}
		if err := json.Unmarshal(n.ctl("queue"), &q); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range q.Queue {
			out = append(out, it.ContentID)
		}
		return out
	}
	if got := queue(); strings.Join(got, ",") != strings.Join(ids, ",") {
		t.Fatalf("queue %v, want %v", got, ids)
	}

	// Up next lists the 2nd and 3rd tracks; drag the first of them one
	// row down.
	g := x.settle(win)
	x.shot("queue-before.png")
	fx, fy := g[0]+queueRowX, g[1]+queueRowY
	x.drag(fx, fy, fx, fy+rowStep+rowStep/3)
	want := []string{ids[0], ids[2], ids[1]}
	ok := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if strings.Join(queue(), ",") == strings.Join(want, ",") {
			ok = true
			break
		}
	}
	x.shot("queue-after.png")
	if !ok {
		t.Fatalf("after dragging up next's first row down: queue %v, want %v (set FURUDESK_SHOTS to see the window)\n%s",
			queue(), want, tail(n.log.String(), 2000))
	}
	if st := n.status(); st.Index != 0 || st.Track == nil || st.Track.ContentID != ids[0] {
		t.Fatalf("the drag changed what plays: index %d", st.Index)
	}

	// Place and size the window, quit, start again: it is where it was.
	x.run("xdotool", "windowsize", win, "1100", "720")
	x.run("xdotool", "windowmove", win, "230", "140")
	before := x.settle(win)
	x.shot("placed.png")
	// furudesk saves the place once the window stays put: wait for it
	// in Fyne's preferences file.
	saved := fmt.Sprintf(`"window.%s":"%d,%d,%d,%d"`, dataDirKey(dir), before[0], before[1], before[2], before[3])
	waitFor(t, 20*time.Second, "furudesk to save the window's place "+saved, func() bool {
		b, _ := os.ReadFile(filepath.Join(prefsDir, "preferences.json"))
		return strings.Contains(string(b), saved)
	})
	n.stop(false)
	if code := exitCode(n); code != 0 {
		t.Fatalf("furudesk exited %d on SIGINT", code)
	}
	firstLog := n.log.String()
	n.start()
	win = x.window(n)
	after := x.settle(win)
	x.shot("restarted.png")
	if after != before {
		t.Fatalf("the window was at %v (x, y, w, h), after a restart at %v\nfirst run:\n%s\nsecond run:\n%s",
			before, after, grepWindow(firstLog), grepWindow(n.log.String()))
	}
	if got := queue(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("after the restart the queue is %v", got)
	}
	t.Logf("window at %v before and after the restart", before)

	// The idle window's loop sleeps (internal/framegov): its holds end by
	// their timeout while nothing happens, at once on the user's input
	// and on the app's work for the window.
	holds := func() map[string]uint64 {
		var st ctlStats
		if err := json.Unmarshal(n.ctl("stats"), &st); err != nil {
			t.Fatal(err)
		}
		return st.LoopHolds
	}
	h := holds()
	waitFor(t, 30*time.Second, "the idle window's loop to be held (ctl stats loop_holds)", func() bool {
		return holds()["timeout"] >= h["timeout"]+3
	})
	// A move or a status that comes between two holds ends none (on a
	// loaded machine the loop spends longer between them): each is sent
	// again until one has ended a hold.
	h = holds()
	moves := 0
	waitFor(t, 30*time.Second, "the mouse to end a hold", func() bool {
		x.run("xdotool", "mousemove", strconv.Itoa(after[0]+200+40*(moves%2)), strconv.Itoa(after[1]+200))
		moves++
		return holds()["input"] > h["input"]
	})
	h = holds()
	volumes := 0
	waitFor(t, 30*time.Second, "a status to show to end a hold", func() bool {
		n.ctl("volume", strconv.Itoa(40+volumes%2))
		volumes++
		return holds()["work"] > h["work"]
	})
}

// grepWindow is what a log says of the window.
func grepWindow(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "window") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// exitCode is how the node's last process ended.
func exitCode(n *node) int {
	if n.lastExit == nil {
		return -1
	}
	return n.lastExit.ExitCode()
}
