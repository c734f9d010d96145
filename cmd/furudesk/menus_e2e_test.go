//go:build linux || freebsd || openbsd || netbsd || dragonfly

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/ui"
)

// Every menu and dialog of the window, opened with a real mouse on a real
// desktop (openbox on Xvfb, xdotool): on every page, each button and
// column title that opens a menu, a dialog or a pop-up, and a right-click
// on the first row, card or list of each kind. Each must open (ctl window
// lists the pop-up) and the window must live; Escape closes it, and the
// keyboard's shortcuts work after it. (The device button and a playlist's
// "…" crashed the window: Fyne's CanvasForObject was given a widget that
// is not on the canvas.) Set FURUDESK_SHOTS=DIR to keep a screenshot of
// each pop-up.

// view is the window as ctl window describes it.
func (x *xwin) view(n *node) ui.View {
	x.t.Helper()
	var v ui.View
	if err := json.Unmarshal(n.ctl("window"), &v); err != nil {
		x.t.Fatal(err)
	}
	return v
}

// click presses button (1 left, 3 right) on the middle of c; origin is
// the window's content on the screen.
func (x *xwin) click(origin [4]int, c ui.Control, button string) {
	x.t.Helper()
	px, py := origin[0]+int(c.X+c.W/2), origin[1]+int(c.Y+c.H/2)
	x.run("xdotool", "mousemove", strconv.Itoa(px), strconv.Itoa(py))
	time.Sleep(100 * time.Millisecond) // the pointer rests before the press, as a hand's does
	x.run("xdotool", "click", button)
}

// alive fails the test when the window's process ended.
func alive(t *testing.T, n *node, what string) {
	t.Helper()
	select {
	case <-n.exited:
		t.Fatalf("furudesk died after %s:\n%s", what, tail(n.log.String(), 4000))
	default:
	}
}

func TestEveryMenuAndDialogOpensOnARealDesktop(t *testing.T) {
	dt := startDesktop(t, "1400x900x24")
	x := dt.xwin
	dir := filepath.Join(t.TempDir(), "data")
	n := &node{t: t, name: "window", dir: dir, env: dt.env, args: []string{"-v", "--data-dir", dir, "--mdns=false", "--listen", "127.0.0.1:0"}}
	n.start()
	t.Cleanup(func() { n.stop(false) })
	win := x.window(n)

	// A library, a playlist, a queue playing, and (no sound server) a
	// problem in the problems list.
	n.ctl("demo")
	var tracks []struct {
		ContentID string `json:"content_id"`
	}
	waitFor(t, 60*time.Second, "the demo library", func() bool {
		return json.Unmarshal(n.ctl("tracks"), &tracks) == nil && len(tracks) >= 3 && !n.status().Scan.Running
	})
	var made struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(n.ctl("playlist", "create", "Road trip"), &made); err != nil || made.ID == "" {
		t.Fatalf("playlist create: %v %+v", err, made)
	}
	n.ctl("playlist", "add", made.ID, tracks[0].ContentID, tracks[1].ContentID)
	n.ctl("play", tracks[0].ContentID, tracks[1].ContentID, tracks[2].ContentID)
	origin := x.settle(win)

	pages := []string{ui.PageArtists, ui.PageAlbums, ui.PageTracks, ui.PagePlaylists, ui.PageQueue, ui.PageDevices, ui.PageSettings}
	opened := 0
	for _, page := range pages {
		nav, ok := findControl(x.view(n), func(c ui.Control) bool { return c.Kind == "nav" && c.Text == page })
		if !ok {
			t.Fatalf("no sidebar entry %q", page)
		}
		x.click(origin, nav, "1")
		waitFor(t, 10*time.Second, "the "+page+" page", func() bool { return x.view(n).Page == page })
		alive(t, n, "opening "+page)
		if page == ui.PagePlaylists { // its "…" shows with a list open
			row, ok := findControl(x.view(n), func(c ui.Control) bool { return c.Kind == "playlist" && c.Text == "Road trip" })
			if !ok {
				t.Fatal("the playlist is not listed")
			}
			x.click(origin, row, "1")
		}
		done := map[string]bool{}
		for {
			v := x.view(n)
			if len(v.Overlays) > 0 {
				t.Fatalf("%s: a pop-up is open before any click: %+v", page, v.Overlays)
			}
			c, button, ok := nextOpener(v, done)
			if !ok {
				break
			}
			what := fmt.Sprintf("%s: %s %q %q (button %s)", page, c.Kind, c.Text, c.Tip, button)
			x.click(origin, c, button)
			var got ui.View
			waitFor(t, 10*time.Second, "a pop-up after a click on "+what, func() bool {
				alive(t, n, what)
				got = x.view(n)
				return len(got.Overlays) > 0
			})
			top := got.Overlays[len(got.Overlays)-1]
			want := c.Opens
			if button == "3" {
				want = c.Secondary
			}
			if (want == "menu") != (top.Kind == "menu") {
				t.Fatalf("%s opened a %s, want a %s", what, top.Kind, want)
			}
			if c.Tip == "Where the music plays: pick a device" && (len(top.Items) < 2 || top.Items[0] != "Play on…") {
				t.Fatalf("the device menu lists %q", top.Items)
			}
			if top.X < 0 || top.Y < 0 || top.X+top.W > v.W+1 || top.Y+top.H > v.H+1 {
				t.Fatalf("%s opened off the window: %+v in %vx%v", what, top, v.W, v.H)
			}
			x.shot(fmt.Sprintf("menu-%02d.png", opened))
			opened++
			x.run("xdotool", "key", "Escape")
			waitFor(t, 10*time.Second, "Escape to close what "+what+" opened", func() bool {
				alive(t, n, "Escape after "+what)
				return len(x.view(n).Overlays) == 0
			})
		}
	}
	if opened < 15 {
		t.Fatalf("only %d menus and dialogs opened", opened)
	}
	// After all that the window's own keys work: F1 lists them, Escape
	// closes the list.
	x.run("xdotool", "key", "F1")
	waitFor(t, 10*time.Second, "F1 to list the shortcuts", func() bool { return x.view(n).Dialogs == 1 })
	x.run("xdotool", "key", "Escape")
	waitFor(t, 10*time.Second, "Escape to close the shortcuts", func() bool { return x.view(n).Dialogs == 0 })
	t.Logf("%d menus and dialogs opened and closed", opened)
}

// findControl is the first control of v that ok accepts.
func findControl(v ui.View, ok func(ui.Control) bool) (ui.Control, bool) {
	for _, c := range v.Controls {
		if ok(c) {
			return c, true
		}
	}
	return ui.Control{}, false
}

// nextOpener is the next control of v to click that opens something and
// that done has not seen: every enabled button that opens one, every
// column title (right-click) and the first row, card or list of each
// kind (right-click). It marks it done.
func nextOpener(v ui.View, done map[string]bool) (ui.Control, string, bool) {
	for _, c := range v.Controls {
		key, button := c.Kind+"|"+c.Text+"|"+c.Tip, "1"
		switch {
		case c.Opens != "" && !c.Disabled:
		case c.Secondary != "" && c.Kind == "header":
			button = "3"
		case c.Secondary != "" && !strings.Contains("header button", c.Kind):
			key, button = c.Kind, "3"
		default:
			continue
		}
		if done[key] {
			continue
		}
		done[key] = true
		return c, button, true
	}
	return ui.Control{}, "", false
}
