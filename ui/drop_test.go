package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"
)

// findRadio is the radio group of the settings page with option opt.
func findRadio(t *testing.T, root fyne.CanvasObject, opt string) *widget.RadioGroup {
	t.Helper()
	var found *widget.RadioGroup
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.RadioGroup:
			if slices.Contains(w.Options, opt) {
				found = w
			}
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case *widget.Card:
			walk(w.Content)
		case *widget.Form:
			for _, it := range w.Items {
				walk(it.Widget)
			}
		case *container.Scroll:
			walk(w.Content)
		}
	}
	walk(root)
	if found == nil {
		t.Fatalf("no radio group with %q on the settings page", opt)
	}
	return found
}

// Issue 39: files and folders dropped on the window play now, or, with
// Settings → Opening files set so (and remembered), go to the end of the
// queue; an address that is not a file is named and nothing else changes.
// Fyne's test window does not deliver drops: this drives the window's
// drop callback itself.
func TestDroppedFilesPlayOrGoToTheQueue(t *testing.T) {
	h := newHarness(t, 3)
	song, album := storage.NewFileURI("/home/u/Downloads/a b.flac"), storage.NewFileURI("/home/u/Albums/Kid A")
	h.u.dropped(fyne.NewPos(10, 10), []fyne.URI{song, album})
	if got := h.b.Calls(); !slices.Equal(got, []string{"OpenFiles(/home/u/Downloads/a b.flac,/home/u/Albums/Kid A,false)"}) {
		t.Fatalf("a drop called %q", got)
	}
	if q := h.b.Status().Queue; len(q) != 2 || q[0].Title != "a b.flac" {
		t.Fatalf("queue after the drop: %+v", q)
	}

	h.b.ResetCalls()
	findRadio(t, h.u.settings.view, dropEnqueueLabel).SetSelected(dropEnqueueLabel)
	h.u.dropped(fyne.NewPos(10, 10), []fyne.URI{song})
	if got := h.b.Calls(); !slices.Equal(got, []string{"OpenFiles(/home/u/Downloads/a b.flac,true)"}) {
		t.Fatalf("a drop with Add to the queue called %q", got)
	}
	if h.u.setting(dropKey) != dropEnqueue {
		t.Errorf("the choice is not kept: %q", h.u.setting(dropKey))
	}
	// The next window over the same settings shows the choice.
	u2 := newUI(h.u.fa, h.b, Options{Now: h.clock.now, Prefs: h.u.prefs}, func(f func()) { f() })
	t.Cleanup(func() { u2.Close(); u2.win.Close() })
	if r := findRadio(t, u2.settings.view, dropEnqueueLabel); r.Selected != dropEnqueueLabel {
		t.Errorf("a new window shows %q", r.Selected)
	}

	h.b.ResetCalls()
	web, err := storage.ParseURI("https://example.com/x.mp3")
	if err != nil {
		t.Fatal(err)
	}
	h.u.dropped(fyne.NewPos(10, 10), []fyne.URI{web})
	if got := h.b.Calls(); len(got) != 0 {
		t.Errorf("a web address was handed on: %q", got)
	}
	if n := h.u.notices.texts(); len(n) == 0 || !strings.Contains(n[len(n)-1], "furudesk opens files, not https addresses") {
		t.Errorf("notices %q", n)
	}
}
