package ui

// Files and folders dropped on the window from a file manager play now or
// go to the end of the queue: the choice is Settings → Opening files,
// kept with the view settings.

import (
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/openfiles"
)

// dropKey is the view setting of what a drop does: dropPlay (also when
// unset) or dropEnqueue.
const (
	dropKey     = "drop.action"
	dropPlay    = "play"
	dropEnqueue = "enqueue"
)

// Labels of the drop choice.
const (
	dropPlayLabel    = "Play them now"
	dropEnqueueLabel = "Add them to the queue"
)

func (u *UI) setupDrop() { u.win.SetOnDropped(u.dropped) }

// dropped is the window's drop callback: it runs on the UI goroutine and
// hands the files to the backend on another (it reads each of them).
// What could not be played is in the backend's notice.
func (u *UI) dropped(_ fyne.Position, uris []fyne.URI) {
	if len(uris) == 0 {
		return
	}
	args := make([]string, len(uris))
	for i, x := range uris {
		args[i] = x.String()
	}
	paths, probs := openfiles.Paths(args, "")
	for _, p := range probs {
		u.showError("Could not play " + p.String())
	}
	if len(paths) == 0 {
		return
	}
	enqueue := u.setting(dropKey) == dropEnqueue
	u.runThen(func() error {
		_, err := u.b.OpenFiles(paths, enqueue)
		return err
	}, func(err error) {
		if err != nil && !errors.Is(err, app.ErrNothingToOpen) { // that one is in the backend's notice
			u.showError("Could not play the dropped files: " + userError(err))
		}
	})
}

// dropChoice is the Settings control of what a drop does.
func (u *UI) dropChoice() fyne.CanvasObject {
	r := widget.NewRadioGroup([]string{dropPlayLabel, dropEnqueueLabel}, nil)
	r.Horizontal = true
	r.Required = true
	r.SetSelected(dropPlayLabel)
	if u.setting(dropKey) == dropEnqueue {
		r.SetSelected(dropEnqueueLabel)
	}
	r.OnChanged = func(s string) {
		v := dropPlay
		if s == dropEnqueueLabel {
			v = dropEnqueue
		}
		u.setSetting(dropKey, v)
	}
	hint := newSubtle("What files and folders dropped on this window do. Folders play in track order; " +
		"files outside the music folders play from where they are, without being added.")
	hint.Wrapping = fyne.TextWrapWord
	return widget.NewCard("Opening files", "", container.NewVBox(widget.NewForm(widget.NewFormItem("Dropped files", r)), hint))
}
