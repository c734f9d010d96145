package ui

import (
	"fmt"
	"strings"
	"time"
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

// userError turns an error from the app into a sentence: the app's errors
// are already sentences, so only the "pkg: " prefixes of lower layers and a
// trailing period are normalised.
func userError(err error) string {
	s := err.Error()
	for _, p := range []string{"app: ", "engine: ", "library: ", "storage: ", "devicesync: ", "audio: "} {
		s = strings.TrimPrefix(s, p)
	}
	if s == "" {
		return "Something went wrong."
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}

func itoa(n int) string { return fmt.Sprint(n) }

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
