package ui

import (
	"sync"

	"github.com/furudesk/furudesk/app"
)

// Prefs keeps the window's view settings between launches: the page shown
// last, each kind of list's sort and columns, the album grid's order. The
// front end keys them by data dir (cmd/furudesk keeps them in Fyne's
// preferences of this user); nil keeps them for this window only.
type Prefs interface {
	String(key string) string
	SetString(key, value string)
}

// memPrefs are Prefs in memory.
type memPrefs struct {
	mu sync.Mutex
	m  map[string]string
}

func (p *memPrefs) String(k string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[k]
}

func (p *memPrefs) SetString(k, v string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]string{}
	}
	p.m[k] = v
}

// setting reads a view setting.
func (u *UI) setting(k string) string { return u.prefs.String(k) }

// setSetting stores a view setting.
func (u *UI) setSetting(k, v string) { u.prefs.SetString(k, v) }

// sortKeys is what the lists sort by: the catalog's collation ranks and
// the play counts.
func (u *UI) sortKeys() sortKeys {
	return sortKeys{cat: u.cat, plays: u.plays, where: func(t *track) int64 { return whereRank(u.place(t)) }}
}

// playStatsOf converts the app's play counts.
func playStatsOf(m map[string]app.PlayStats) map[string]playStats {
	out := make(map[string]playStats, len(m))
	for k, v := range m {
		out[k] = playStats{plays: v.Plays, lastMS: v.LastMS}
	}
	return out
}
