package smtc

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/furudesk/furudesk/app"
)

// Limits and periods of what Core pushes.
const (
	// MaxStringBytes bounds each display string (titles come from tags).
	MaxStringBytes = 4096
	// MaxArtists is how many of a track's artists the artist line joins.
	MaxArtists = 8
	// SeekTolerance is how far a new status may be from the position the
	// timeline last pushed, advanced by the time since, before the timeline
	// is pushed again. It absorbs the jitter of a remote owner's snapshots.
	SeekTolerance = time.Second
	// TimelineRefresh is how often Tick pushes the position while the
	// music plays.
	TimelineRefresh = 5 * time.Second
)

// PlaybackStatus is Windows.Media.MediaPlaybackStatus (the values are
// the enum's).
type PlaybackStatus int32

// The playback statuses.
const (
	StatusClosed   PlaybackStatus = 0
	StatusChanging PlaybackStatus = 1
	StatusStopped  PlaybackStatus = 2
	StatusPlaying  PlaybackStatus = 3
	StatusPaused   PlaybackStatus = 4
)

func (s PlaybackStatus) String() string {
	switch s {
	case StatusClosed:
		return "Closed"
	case StatusChanging:
		return "Changing"
	case StatusStopped:
		return "Stopped"
	case StatusPlaying:
		return "Playing"
	case StatusPaused:
		return "Paused"
	}
	return fmt.Sprintf("PlaybackStatus(%d)", int32(s))
}

// Buttons are the buttons the OS offers.
type Buttons struct {
	Play, Pause, Stop, Next, Previous bool
}

// Properties are the music display properties and the thumbnail.
type Properties struct {
	Title, Artist, Album string
	// Thumbnail is the cover's URI (file:///C:/...), "" for none.
	Thumbnail string
}

// Timeline is the seek bar: from 0 to End, at Position. End 0 is a track
// of unknown length (no seek bar).
type Timeline struct {
	End, Position time.Duration
}

// Display is everything the OS shows of one status.
type Display struct {
	Status     PlaybackStatus
	Buttons    Buttons
	Properties Properties
	Timeline   Timeline
}

// Push is what Core.Step asks the caller to push: Display is what the OS
// should show now; the flags say which parts differ from what was pushed
// before (all of them the first time).
type Push struct {
	Display    Display
	Status     bool // put_PlaybackStatus
	Buttons    bool // put_Is*Enabled
	Properties bool // the display updater's music properties, then Update
	Thumbnail  bool // the display updater's thumbnail, then Update
	Timeline   bool // UpdateTimelineProperties
}

// Empty reports whether there is nothing to push.
func (p Push) Empty() bool {
	return !p.Status && !p.Buttons && !p.Properties && !p.Thumbnail && !p.Timeline
}

// Core computes what to push from successive statuses. It does no I/O
// and reads no clock: the caller passes the time each status arrived. It
// is not safe for concurrent use; one goroutine (the one that pushes)
// owns it.
type Core struct {
	art func(contentID string) string

	pushed  bool
	shown   Display
	last    app.Status
	lastAt  time.Time
	tlAt    time.Time // when the timeline was last pushed
	artKey  string
	artURI  string
	playing bool // the timeline was pushed while playing
}

// NewCore returns a Core whose thumbnails come from art (the cover's
// URI of a content id, "" for none); art may be nil (no thumbnails). art
// is called when the track or the library version changes, never per
// status.
func NewCore(art func(contentID string) string) *Core {
	return &Core{art: art}
}

// Step makes st, which arrived at now, the shown status and returns what
// to push.
func (c *Core) Step(st app.Status, now time.Time) Push {
	c.last, c.lastAt = st, now
	next := c.derive(st)
	if !c.pushed {
		c.pushed, c.shown, c.tlAt, c.playing = true, next, now, st.Playing
		return Push{Display: next, Status: true, Buttons: true, Properties: true, Thumbnail: true, Timeline: true}
	}
	prev := c.shown
	p := Push{
		Display:    next,
		Status:     next.Status != prev.Status,
		Buttons:    next.Buttons != prev.Buttons,
		Properties: next.Properties.Title != prev.Properties.Title || next.Properties.Artist != prev.Properties.Artist || next.Properties.Album != prev.Properties.Album,
		Thumbnail:  next.Properties.Thumbnail != prev.Properties.Thumbnail,
	}
	p.Timeline = next.Timeline.End != prev.Timeline.End || st.Playing != c.playing ||
		p.Properties || c.jumped(next.Timeline.Position, now)
	if !p.Timeline {
		// What the OS shows is still the last pushed position.
		p.Display.Timeline.Position = prev.Timeline.Position
	}
	c.shown = p.Display
	if p.Timeline {
		c.tlAt, c.playing = now, st.Playing
	}
	return p
}

// Tick is Step with the last status at now: while the music plays, the
// timeline is pushed again once TimelineRefresh has passed since its last
// push, with the position advanced by the time since the status arrived.
// Before the first Step it pushes nothing.
func (c *Core) Tick(now time.Time) Push {
	if !c.pushed || !c.last.Playing || now.Sub(c.tlAt) < TimelineRefresh {
		return Push{Display: c.shown}
	}
	d := c.shown
	d.Timeline.Position = advance(c.last, now.Sub(c.lastAt))
	c.shown, c.tlAt = d, now
	return Push{Display: d, Timeline: true}
}

// Shown is what was pushed last.
func (c *Core) Shown() Display { return c.shown }

// jumped reports whether pos, at now, is not where the last pushed
// timeline has got to by then.
func (c *Core) jumped(pos time.Duration, now time.Time) bool {
	want := c.shown.Timeline.Position
	if c.playing && now.After(c.tlAt) {
		want += now.Sub(c.tlAt)
	}
	if end := c.shown.Timeline.End; end > 0 && want > end {
		want = end
	}
	d := pos - want
	return d > SeekTolerance || d < -SeekTolerance
}

// derive maps a status to what the OS shows.
func (c *Core) derive(st app.Status) Display {
	d := Display{Status: StatusStopped}
	t := st.Track
	if t == nil {
		c.artKey, c.artURI = "", ""
		return d
	}
	d.Status = StatusPaused
	if st.Playing {
		d.Status = StatusPlaying
	}
	n := max(st.QueueLen, len(st.Queue))
	d.Buttons = Buttons{
		Play:     true,
		Pause:    true,
		Stop:     true,
		Next:     st.Index+1 < n || (st.Repeat == "all" && n > 0),
		Previous: n > 0, // Prev restarts the first track
	}
	d.Properties = Properties{Title: clean(t.Title), Album: clean(t.Album)}
	if d.Properties.Title == "" && t.Path != "" {
		d.Properties.Title = clean(filepath.Base(t.Path))
	}
	d.Properties.Artist = clean(strings.Join(t.Artists[:min(len(t.Artists), MaxArtists)], ", "))
	if c.art != nil {
		key := fmt.Sprintf("%s\x00%d", t.ContentID, st.LibraryVersion)
		if key != c.artKey {
			c.artKey, c.artURI = key, clean(c.art(t.ContentID))
		}
		d.Properties.Thumbnail = c.artURI
	}
	if t.DurationMS > 0 {
		d.Timeline.End = time.Duration(t.DurationMS) * time.Millisecond
	}
	d.Timeline.Position = advance(st, 0)
	return d
}

// advance is st's position after since more of playing, within the track.
func advance(st app.Status, since time.Duration) time.Duration {
	if st.Track == nil {
		return 0
	}
	pos := time.Duration(st.PositionMS) * time.Millisecond
	if st.Playing && since > 0 {
		pos += since
	}
	if end := time.Duration(st.Track.DurationMS) * time.Millisecond; end > 0 && pos > end {
		pos = end
	}
	return max(pos, 0)
}

// clean makes s valid UTF-8 without NUL (an HSTRING may hold NULs, but
// what shows them may not) and bounds its length.
func clean(s string) string {
	if len(s) > MaxStringBytes {
		cut := MaxStringBytes
		for cut > MaxStringBytes-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
			cut-- // do not split a character
		}
		s = s[:cut]
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}
