package notify

import (
	"strconv"
	"strings"
)

// Settings are the user's choices.
type Settings struct {
	On           bool // notify at all
	OtherDevices bool // also for tracks another device of the group plays
}

// Track is the track playing, as a notification shows it.
type Track struct {
	ContentID string
	Index     int // its place in the queue
	Title     string
	Artists   []string
	Album     string
	// Cover is the cover art's file:// URL, "" for none.
	Cover string
}

// Moment is what the rules look at: the current track (nil: none),
// whether it plays, whether this device owns the playback, whether the window
// has the focus.
type Moment struct {
	Track   *Track
	Playing bool
	Here    bool
	Focused bool
}

// Notification is one notification to show.
type Notification struct {
	Summary string // the title
	Body    string // "artist — album"
	Icon    string // the cover's file:// URL, or the application's icon name
}

// AppIcon is the icon name of a notification without a cover.
const AppIcon = "furudesk"

// Rules remembers the last track considered. The zero value is ready.
type Rules struct {
	last string
}

// Next returns the notification for moment m under s, if one is due (see
// the package doc).
func (r *Rules) Next(m Moment, s Settings) (Notification, bool) {
	if m.Track == nil || !m.Playing {
		return Notification{}, false
	}
	key := m.Track.ContentID + "#" + strconv.Itoa(m.Track.Index)
	if key == r.last {
		return Notification{}, false
	}
	r.last = key
	if !s.On || m.Focused || (!m.Here && !s.OtherDevices) {
		return Notification{}, false
	}
	return Of(*m.Track), true
}

// Of is the notification of t: the title (else "Unknown track"), the
// artists and the album, the cover or the application's icon.
func Of(t Track) Notification {
	n := Notification{Summary: t.Title, Icon: t.Cover}
	if n.Summary == "" {
		n.Summary = "Unknown track"
	}
	n.Body = strings.Join(t.Artists, ", ")
	if t.Album != "" {
		if n.Body != "" {
			n.Body += " — "
		}
		n.Body += t.Album
	}
	if n.Icon == "" {
		n.Icon = AppIcon
	}
	return n
}
