package mpris

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/furudesk/furudesk/app"
	"github.com/godbus/dbus/v5"
)

// Limits on what a status can put into one D-Bus message.
const (
	// MaxStringBytes bounds each metadata string (titles come from tags).
	MaxStringBytes = 4096
	// MaxArtists bounds xesam:artist.
	MaxArtists = 32
	// SeekTolerance is how far a new status of the same track may be from
	// the extrapolated position before the server emits Seeked. It absorbs
	// the jitter of a remote owner's snapshots.
	SeekTolerance = time.Second
)

// view is one status as the server shows it: the status, when it arrived
// (Position is extrapolated from then) and the art URL of its track.
type view struct {
	st  app.Status
	at  time.Time
	art string
}

// positionUS is the position in µs at now: the status position, advanced
// by the time since it arrived while playing, within the track.
func (v view) positionUS(now time.Time) int64 {
	if v.st.Track == nil {
		return 0
	}
	pos := time.Duration(v.st.PositionMS) * time.Millisecond
	if v.st.Playing && now.After(v.at) {
		pos += now.Sub(v.at)
	}
	if d := time.Duration(v.st.Track.DurationMS) * time.Millisecond; d > 0 && pos > d {
		pos = d
	}
	if pos < 0 {
		pos = 0
	}
	return pos.Microseconds()
}

// lengthUS is the current track's length in µs, 0 when unknown.
func (v view) lengthUS() int64 {
	if v.st.Track == nil || v.st.Track.DurationMS <= 0 {
		return 0
	}
	return v.st.Track.DurationMS * 1000
}

// jumped reports whether next shows the same track as prev at a position
// that normal playback from prev does not explain.
func jumped(prev, next view) bool {
	if prev.st.Track == nil || next.st.Track == nil ||
		prev.st.Track.ContentID != next.st.Track.ContentID || prev.st.Index != next.st.Index {
		return false
	}
	d := time.Duration(next.positionUS(next.at)-prev.positionUS(next.at)) * time.Microsecond
	return d > SeekTolerance || d < -SeekTolerance
}

// metadata is the Metadata property in comparable form.
type metadata struct {
	trackID  dbus.ObjectPath
	lengthUS int64
	title    string
	artists  []string
	album    string
	artURL   string
	url      string
}

func (m metadata) equal(o metadata) bool {
	return m.trackID == o.trackID && m.lengthUS == o.lengthUS && m.title == o.title &&
		slices.Equal(m.artists, o.artists) && m.album == o.album && m.artURL == o.artURL && m.url == o.url
}

// dict is the a{sv} MPRIS clients read; empty when there is no track.
func (m metadata) dict() map[string]dbus.Variant {
	d := map[string]dbus.Variant{}
	if m.trackID == "" {
		return d
	}
	d["mpris:trackid"] = dbus.MakeVariant(m.trackID)
	if m.lengthUS > 0 {
		d["mpris:length"] = dbus.MakeVariant(m.lengthUS)
	}
	d["xesam:title"] = dbus.MakeVariant(m.title)
	if len(m.artists) > 0 {
		d["xesam:artist"] = dbus.MakeVariant(m.artists)
	}
	if m.album != "" {
		d["xesam:album"] = dbus.MakeVariant(m.album)
	}
	if m.artURL != "" {
		d["mpris:artUrl"] = dbus.MakeVariant(m.artURL)
	}
	if m.url != "" {
		d["xesam:url"] = dbus.MakeVariant(m.url)
	}
	return d
}

// playerProps are the org.mpris.MediaPlayer2.Player properties that
// change with the status (Position aside: it changes continuously and is
// never signalled).
type playerProps struct {
	playbackStatus string
	loopStatus     string
	shuffle        bool
	volume         float64
	meta           metadata
	canGoNext      bool
	canGoPrevious  bool
	canPlay        bool
	canPause       bool
	canSeek        bool
}

// deriveProps maps a view to the Player properties.
func deriveProps(v view) playerProps {
	st := v.st
	p := playerProps{
		playbackStatus: "Stopped",
		loopStatus:     loopStatus(st.Repeat),
		shuffle:        st.Shuffle,
		volume:         math.Min(1, math.Max(0, float64(st.Volume)/100)),
	}
	if st.Track == nil {
		return p
	}
	p.playbackStatus = "Paused"
	if st.Playing {
		p.playbackStatus = "Playing"
	}
	t := st.Track
	p.meta = metadata{
		trackID:  TrackID(t.ContentID),
		lengthUS: v.lengthUS(),
		title:    clean(t.Title),
		album:    clean(t.Album),
		artURL:   clean(v.art),
	}
	if p.meta.title == "" && t.Path != "" {
		p.meta.title = clean(filepath.Base(t.Path))
	}
	for i, a := range t.Artists {
		if i == MaxArtists {
			break
		}
		p.meta.artists = append(p.meta.artists, clean(a))
	}
	if t.Path != "" && filepath.IsAbs(t.Path) {
		p.meta.url = clean(FileURL(t.Path))
	}
	n := max(st.QueueLen, len(st.Queue))
	p.canPlay, p.canPause = true, true
	p.canSeek = t.DurationMS > 0
	p.canGoNext = st.Index+1 < n || (st.Repeat == "all" && n > 0)
	p.canGoPrevious = n > 0 // Prev restarts the first track
	return p
}

// values is the property map of GetAll without Position and the constants.
func (p playerProps) values() map[string]dbus.Variant {
	return map[string]dbus.Variant{
		"PlaybackStatus": dbus.MakeVariant(p.playbackStatus),
		"LoopStatus":     dbus.MakeVariant(p.loopStatus),
		"Shuffle":        dbus.MakeVariant(p.shuffle),
		"Volume":         dbus.MakeVariant(p.volume),
		"Metadata":       dbus.MakeVariant(p.meta.dict()),
		"CanGoNext":      dbus.MakeVariant(p.canGoNext),
		"CanGoPrevious":  dbus.MakeVariant(p.canGoPrevious),
		"CanPlay":        dbus.MakeVariant(p.canPlay),
		"CanPause":       dbus.MakeVariant(p.canPause),
		"CanSeek":        dbus.MakeVariant(p.canSeek),
	}
}

// changed is the PropertiesChanged payload from old to p (empty if none).
func (p playerProps) changed(old playerProps) map[string]dbus.Variant {
	all := p.values()
	out := map[string]dbus.Variant{}
	add := func(name string, diff bool) {
		if diff {
			out[name] = all[name]
		}
	}
	add("PlaybackStatus", p.playbackStatus != old.playbackStatus)
	add("LoopStatus", p.loopStatus != old.loopStatus)
	add("Shuffle", p.shuffle != old.shuffle)
	add("Volume", p.volume != old.volume)
	add("Metadata", !p.meta.equal(old.meta))
	add("CanGoNext", p.canGoNext != old.canGoNext)
	add("CanGoPrevious", p.canGoPrevious != old.canGoPrevious)
	add("CanPlay", p.canPlay != old.canPlay)
	add("CanPause", p.canPause != old.canPause)
	add("CanSeek", p.canSeek != old.canSeek)
	return out
}

// loopStatus maps the app's repeat mode to MPRIS.
func loopStatus(repeat string) string {
	switch repeat {
	case "one":
		return "Track"
	case "all":
		return "Playlist"
	}
	return "None"
}

// repeatMode maps an MPRIS LoopStatus to the app's repeat mode.
func repeatMode(loop string) (string, bool) {
	switch loop {
	case "None":
		return "off", true
	case "Track":
		return "one", true
	case "Playlist":
		return "all", true
	}
	return "", false
}

// volumePercent maps an MPRIS volume to 0..100 (out of range is clamped,
// as the specification asks for negative values).
func volumePercent(v float64) (int, bool) {
	if math.IsNaN(v) {
		return 0, false
	}
	return int(math.Round(math.Min(1, math.Max(0, v)) * 100)), true
}

// clean makes s a string D-Bus accepts (valid UTF-8 without NUL, which the
// daemon would answer by dropping the connection) and bounds its length.
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
