package ui

import (
	"sync"

	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
)

// statusFeed hands the backend's statuses to the UI goroutine: at most one
// refresh waits in Fyne's queue, and it applies the newest status however
// many arrived meanwhile, so a busy UI goroutine (a scan's progress, a
// slow frame) never gets a backlog of redraws to work off.
type statusFeed struct {
	do    func(func()) // fyne.Do; tests queue the call themselves
	apply func(app.Status)

	mu      sync.Mutex
	latest  app.Status
	pending bool
}

// put makes st the newest status, asking the UI goroutine to apply it
// unless a request is already waiting. Safe from any goroutine.
func (f *statusFeed) put(st app.Status) {
	f.mu.Lock()
	f.latest = st
	ask := !f.pending
	f.pending = true
	f.mu.Unlock()
	if ask {
		f.do(f.run)
	}
}

// run applies the newest status, on the UI goroutine.
func (f *statusFeed) run() {
	f.mu.Lock()
	st := f.latest
	f.pending = false
	f.mu.Unlock()
	f.apply(st)
}

// setText changes a label's text only when it differs: Label.SetText
// redraws the label (and so the window) even for the same text.
func setText(l *widget.Label, s string) {
	if l.Text != s {
		l.SetText(s)
	}
}

// setSlider moves a slider to value of max, redrawing it only when its
// thumb moves by half a pixel or more (a long track's slider advances by
// less than that in a second).
func setSlider(s *widget.Slider, value, max float64) {
	if s.Max == max && s.Value == value {
		return
	}
	w := float64(s.Size().Width)
	if s.Max == max && max > s.Min && w > 0 {
		if d := (value - s.Value) / (max - s.Min) * w; d < 0.5 && d > -0.5 {
			return
		}
	}
	s.Max, s.Value = max, value
	s.Refresh()
}
