package reach

import (
	"slices"
	"time"
)

// Moved compares this device's interface addresses (IPs) before and now
// and returns those that went away, sorted: connections bound to one of
// them are dead (the laptop left that network), whatever the peer's side
// still believes. A first look (before nil) finds nothing gone.
func Moved(before, now []string) []string {
	var gone []string
	for _, a := range before {
		if !slices.Contains(now, a) {
			gone = append(gone, a)
		}
	}
	slices.Sort(gone)
	return slices.Compact(gone)
}

// Replace decides whether a new connection of a member replaces the one
// this device holds, when the connections' order would keep the old one:
// the member came back from another address (it moved to another network)
// and the old connection has been quiet for longer than one keepalive
// period (a live connection is heard at least that often). Without this a
// member that roamed would be refused until the old connection was
// silent for the whole online window.
func Replace(oldSource, newSource string, oldHeard, now time.Time, keepalive time.Duration) bool {
	return oldSource != newSource && now.Sub(oldHeard) > keepalive
}
