package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/furudesk/furudesk/app"
)

// formatDuration renders a track time the way players do: 3:07, 1:02:03.
func formatDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	h, m, sec := s/3600, (s/60)%60, s%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, sec)
	}
	return fmt.Sprintf("%d:%02d", m, sec)
}

// joinArtists names a track's artists for one line of text.
func joinArtists(a []string) string {
	if len(a) == 0 {
		return "Unknown artist"
	}
	return strings.Join(a, ", ")
}

// orUnknown is s, or the placeholder a listener reads when a tag is missing.
func orUnknown(s, what string) string {
	if strings.TrimSpace(s) == "" {
		return "Unknown " + what
	}
	return s
}

// plural is "1 track", "2 tracks".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// untilText says how long until t, coarsely: "in 9 minutes".
func untilText(now, t time.Time) string {
	d := t.Sub(now)
	switch {
	case d <= 0:
		return "expired"
	case d < time.Minute:
		return "in less than a minute"
	case d < 2*time.Minute:
		return "in 1 minute"
	default:
		return fmt.Sprintf("in %d minutes", int(d/time.Minute))
	}
}

// userError turns an error from the app into a sentence the user reads:
// app.UserMessage (no package prefixes, the device, track or value
// concerned named), capitalised and ending in a full stop.
func userError(err error) string {
	return userSentence(app.UserMessage(err))
}

// userSentence makes s a sentence: capitalised, ending in a full stop.
func userSentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "Something went wrong."
	}
	r := []rune(s)
	s = strings.ToUpper(string(r[:1])) + string(r[1:])
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}

// How many letters of a device name a button and a menu item show (a
// name may be 256 bytes long; buttons and menu items do not truncate).
const (
	maxNameOnButton = 32
	maxNameInMenu   = 48
)

// shorten cuts s to at most n runes, ending in "…" when cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func itoa(n int) string { return fmt.Sprint(n) }

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
