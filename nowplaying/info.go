package nowplaying

import (
	"net/url"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/smtc"
)

// The keys of MPNowPlayingInfoCenter's nowPlayingInfo. They are the values
// of MediaPlayer's NSString constants (MPMediaItemPropertyTitle is
// @"title"; the MPNowPlayingInfoProperty ones are their own names), which
// a program without the SDK's headers cannot link against.
const (
	KeyTitle    = "title"            // MPMediaItemPropertyTitle
	KeyArtist   = "artist"           // MPMediaItemPropertyArtist
	KeyAlbum    = "albumTitle"       // MPMediaItemPropertyAlbumTitle
	KeyDuration = "playbackDuration" // MPMediaItemPropertyPlaybackDuration
	KeyArtwork  = "artwork"          // MPMediaItemPropertyArtwork

	KeyElapsed = "MPNowPlayingInfoPropertyElapsedPlaybackTime" // MPNowPlayingInfoPropertyElapsedPlaybackTime
	KeyRate    = "MPNowPlayingInfoPropertyPlaybackRate"        // MPNowPlayingInfoPropertyPlaybackRate
)

// PlaybackState is MPNowPlayingPlaybackState (the values are the enum's).
type PlaybackState uint

// The playback states.
const (
	StateUnknown PlaybackState = 0
	StatePlaying PlaybackState = 1
	StatePaused  PlaybackState = 2
	StateStopped PlaybackState = 3
)

func (s PlaybackState) String() string {
	switch s {
	case StatePlaying:
		return "playing"
	case StatePaused:
		return "paused"
	case StateStopped:
		return "stopped"
	}
	return "unknown"
}

// State is the playback state macOS shows for what SMTC would show.
func State(s smtc.PlaybackStatus) PlaybackState {
	switch s {
	case smtc.StatusPlaying:
		return StatePlaying
	case smtc.StatusPaused, smtc.StatusChanging:
		return StatePaused
	}
	return StateStopped
}

// Entry is one key of the now-playing dictionary: an NSString, or an
// NSNumber (a double) when IsNumber.
type Entry struct {
	Key      string
	Text     string
	Number   float64
	IsNumber bool
}

func text(key, s string) Entry           { return Entry{Key: key, Text: s} }
func number(key string, f float64) Entry { return Entry{Key: key, Number: f, IsNumber: true} }

// Entries is the now-playing dictionary of d, st being the status d was
// derived from: title, artist and album (those not empty), the duration
// (when known), the elapsed time and the rate (1 playing, 0 paused), in
// that order. Without a track it is nil: the dictionary is cleared. The
// artwork is not among them: it is an object the OS side keeps (Update).
//
// The elapsed time is st's position, not d's timeline: the OS advances it
// by the rate itself, so a dictionary rewritten for another reason (a new
// cover) must carry the position as of now, which d keeps only when its
// timeline was pushed.
func Entries(d smtc.Display, st app.Status) []Entry {
	if d.Status == smtc.StatusStopped || d.Status == smtc.StatusClosed || st.Track == nil {
		return nil
	}
	es := make([]Entry, 0, 6)
	for _, e := range []Entry{
		text(KeyTitle, d.Properties.Title),
		text(KeyArtist, d.Properties.Artist),
		text(KeyAlbum, d.Properties.Album),
	} {
		if e.Text != "" {
			es = append(es, e)
		}
	}
	if d.Timeline.End > 0 {
		es = append(es, number(KeyDuration, d.Timeline.End.Seconds()))
	}
	rate := 0.0
	if d.Status == smtc.StatusPlaying {
		rate = 1
	}
	return append(es, number(KeyElapsed, elapsed(st, d.Timeline.End).Seconds()), number(KeyRate, rate))
}

// elapsed is st's position within [0, end] (end 0: unknown, no bound).
func elapsed(st app.Status, end time.Duration) time.Duration {
	pos := max(time.Duration(st.PositionMS)*time.Millisecond, 0)
	if end > 0 {
		pos = min(pos, end)
	}
	return pos
}

// CoverPath is the file path of a cover's file:// URL (what
// mpris.CoverCache.ArtURL returns), "" for none or another scheme.
func CoverPath(artURL string) string {
	u, err := url.Parse(artURL)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return ""
	}
	return u.Path
}

// Update is what the OS side sets for one smtc.Push, in this order:
//
//  1. Artwork: drop the artwork kept so far and, when CoverPath is not
//     "", make one from that file and keep it.
//  2. Info: set nowPlayingInfo to Entries (nil: clear it), plus the kept
//     artwork, if any, under KeyArtwork.
//  3. State: setPlaybackState: PlaybackState.
//  4. Commands: setEnabled: Enabled[c] on each Command c.
//
// The dictionary is set whole every time (it is one property): whenever
// anything it holds changed.
type Update struct {
	Artwork       bool
	CoverPath     string
	Info          bool
	Entries       []Entry
	State         bool
	PlaybackState PlaybackState
	Commands      bool
	Enabled       [NumCommands]bool
}

// Empty reports whether there is nothing to set.
func (u Update) Empty() bool { return !u.Artwork && !u.Info && !u.State && !u.Commands }

// Plan is the Update of p, which smtc.Core.Step returned for st.
func Plan(p smtc.Push, st app.Status) Update {
	u := Update{
		Artwork:       p.Thumbnail,
		CoverPath:     CoverPath(p.Display.Properties.Thumbnail),
		Info:          p.Properties || p.Timeline || p.Thumbnail || p.Status,
		State:         p.Status,
		PlaybackState: State(p.Display.Status),
		// Seeking is enabled by the timeline's end, toggling by the state.
		Commands: p.Buttons || p.Status || p.Timeline,
		Enabled:  Enabled(p.Display),
	}
	if u.Info {
		u.Entries = Entries(p.Display, st)
	}
	return u
}
