package notify

import (
	"context"
	"errors"
	"log/slog"

	"github.com/furudesk/furudesk/app"
)

// Follower turns the app's statuses into notifications by the Rules. Its
// funcs are called on the goroutine of Status or Run.
type Follower struct {
	Settings func() Settings
	Focused  func() bool
	// Cover is the file:// URL of a track's cover art, "" for none; asked
	// only for a notification about to be shown. nil: no covers.
	Cover func(contentID string) string
	Show  func(Notification) error
	Log   *slog.Logger

	rules   Rules
	warned  bool
	Skipped int // notifications the service refused or missed
}

// MomentOf is what the rules look at in st.
func MomentOf(st app.Status, focused bool) Moment {
	m := Moment{Playing: st.Playing, Here: st.Owner != "" && st.Owner == st.DeviceID, Focused: focused}
	if t := st.Track; t != nil {
		m.Track = &Track{ContentID: t.ContentID, Index: st.Index, Title: t.Title, Artists: t.Artists, Album: t.Album}
	}
	return m
}

// Status considers one status and shows the notification it calls for.
func (f *Follower) Status(st app.Status) {
	m := MomentOf(st, f.Focused())
	n, ok := f.rules.Next(m, f.Settings())
	if !ok {
		return
	}
	if f.Cover != nil {
		if u := f.Cover(m.Track.ContentID); u != "" {
			n.Icon = u
		}
	}
	if err := f.Show(n); err != nil {
		f.Skipped++
		// Said once: a desktop without a notification service stays so.
		if !f.warned && f.Log != nil {
			level := slog.LevelWarn
			if errors.Is(err, ErrNoService) {
				level = slog.LevelInfo
			}
			f.Log.Log(context.Background(), level, "track change notifications are not shown", "err", err)
			f.warned = true
		}
	}
}

// Run follows updates (a latest-value channel of statuses) until it is
// closed or stop is.
func (f *Follower) Run(updates <-chan app.Status, stop <-chan struct{}) {
	for {
		select {
		case st, ok := <-updates:
			if !ok {
				return
			}
			f.Status(st)
		case <-stop:
			return
		}
	}
}
