package app

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode"

	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/playlists"
	"github.com/furudesk/furudesk/playlists/m3u"
)

// maxReportLines bounds the lines an import or export report names; the
// counts stay exact.
const maxReportLines = 200

// ImportReport says what ImportPlaylist did: the playlist it made, how its
// tracks were found in the library, and which lines it could not use.
type ImportReport struct {
	Playlist      PlaylistSummary `json:"playlist"`
	Imported      int             `json:"imported"`
	MatchedByPath int             `json:"matched_by_path"`
	MatchedByTags int             `json:"matched_by_tags"`
	NotFound      int             `json:"not_found"`
	Unmatched     []ReportLine    `json:"unmatched,omitempty"` // tracks not in the library
	Problems      []ReportLine    `json:"problems,omitempty"`  // malformed lines
}

// ReportLine is one line of a playlist file that was not imported, or one
// track that was not exported.
type ReportLine struct {
	Line   int    `json:"line,omitempty"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// ExportReport says what ExportPlaylist wrote.
type ExportReport struct {
	Path    string       `json:"path"`
	Written int          `json:"written"`
	Skipped []ReportLine `json:"skipped,omitempty"` // tracks this device has no file for
}

// ImportPlaylist reads an M3U or M3U8 file into a new playlist named after
// it (#PLAYLIST, else the file name). Each entry is looked up in this
// device's library by path (the path as written, then its last folders and
// file name), then by title, artist and duration. Malformed lines and
// tracks not found are reported with their line numbers; the rest imports.
func (a *App) ImportPlaylist(file string) (ImportReport, error) {
	if _, err := a.coll(); err != nil {
		return ImportReport{}, err
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return ImportReport{}, err
	}
	fh, err := os.Open(abs)
	if err != nil {
		return ImportReport{}, userErr(ErrBadArgument, "could not open %s: %s", file, fileReason(abs, err))
	}
	parsed, err := m3u.Parse(fh)
	_ = fh.Close()
	if err != nil {
		return ImportReport{}, userErr(ErrBadArgument, "could not read %s: %s", file, strings.TrimPrefix(err.Error(), "m3u: "))
	}
	var rep ImportReport
	for _, p := range parsed.Problems {
		rep.Problems = addLine(rep.Problems, ReportLine{Line: p.Line, Reason: p.Text})
	}
	ts, err := a.store.Tracks()
	if err != nil {
		return ImportReport{}, err
	}
	m := newMatcher(ts)
	var found []playlists.Track
	for _, e := range parsed.Entries {
		text := e.Path
		if e.URL {
			rep.NotFound++
			rep.Unmatched = addLine(rep.Unmatched, ReportLine{Line: e.Line, Text: text, Reason: "a stream, not a file of the library"})
			continue
		}
		t, how := m.match(e, m3u.Resolve(e.Path, filepath.Dir(abs), runtime.GOOS == "windows"))
		switch how {
		case "path":
			rep.MatchedByPath++
		case "tags":
			rep.MatchedByTags++
		default:
			rep.NotFound++
			rep.Unmatched = addLine(rep.Unmatched, ReportLine{Line: e.Line, Text: text, Reason: "not in the library (no track at that path, nor with that title, artist and length)"})
			continue
		}
		found = append(found, trackRef(*t))
	}
	if len(found) == 0 {
		return rep, userErr(ErrNotInLibrary, "none of the %d tracks of %s is in the library", len(parsed.Entries), filepath.Base(file))
	}
	name := parsed.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	}
	if name, err = playlists.CheckName(name); err != nil {
		name = "Imported playlist"
	}
	p, err := a.CreatePlaylist(name)
	if err != nil {
		return rep, err
	}
	err = a.edit(func(c *collection) ([]playlists.Edit, error) { return c.st.PlanAdd(p.ID, -1, found) })
	if err != nil {
		_ = a.DeletePlaylist(p.ID)
		return rep, err
	}
	rep.Imported = len(found)
	rep.Playlist, err = a.FindPlaylist(p.ID)
	return rep, err
}

func addLine(ls []ReportLine, l ReportLine) []ReportLine {
	if len(ls) < maxReportLines {
		ls = append(ls, l)
	}
	return ls
}

// ExportPlaylist writes a list to an M3U8 file: paths relative to the
// file's folder for tracks beneath it, absolute for the others. Tracks this
// device has no file for are left out and named. The file is replaced
// whole or not at all.
func (a *App) ExportPlaylist(id, file string) (ExportReport, error) {
	v, err := a.Playlist(id)
	if err != nil {
		return ExportReport{}, err
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return ExportReport{}, err
	}
	dir := filepath.Dir(abs)
	rep := ExportReport{Path: abs}
	var out []m3u.Track
	for i, e := range v.Entries {
		if !e.Available {
			rep.Skipped = addLine(rep.Skipped, ReportLine{Line: i, Text: entryText(e), Reason: "no file on this device"})
			continue
		}
		p := e.Path
		if rel, err := filepath.Rel(dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			p = rel
		}
		artist := strings.Join(e.Artists, ", ")
		dur := -1
		if e.DurationMS > 0 {
			dur = int((e.DurationMS + 500) / 1000)
		}
		out = append(out, m3u.Track{Path: p, Artist: artist, Title: e.Title, DurationS: dur})
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(abs)+".*")
	if err != nil {
		return ExportReport{}, userErr(ErrBadArgument, "could not write in %s: %s", dir, fileReason(dir, err))
	}
	werr := m3u.Write(tmp, v.Name, out)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), abs)
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
		return ExportReport{}, userErr(ErrBadArgument, "could not write %s: %s", file, fileReason(abs, werr))
	}
	rep.Written = len(out)
	return rep, nil
}

func entryText(e PlaylistEntry) string {
	if len(e.Artists) > 0 {
		return strings.Join(e.Artists, ", ") + " - " + e.Title
	}
	return e.Title
}

// matcher finds the tracks of a playlist file in the library.
type matcher struct {
	byPath   map[string]*library.Track
	byFold   map[string][]*library.Track
	bySuffix [4]map[string][]*library.Track // last 1..4 path parts, folded
	byTitle  map[string][]*library.Track    // library.Normalize(title)
}

func newMatcher(ts []library.Track) *matcher {
	m := &matcher{byPath: map[string]*library.Track{}, byFold: map[string][]*library.Track{}, byTitle: map[string][]*library.Track{}}
	for k := range m.bySuffix {
		m.bySuffix[k] = map[string][]*library.Track{}
	}
	for i := range ts {
		t := &ts[i]
		m.byPath[t.Path] = t
		fold := strings.ToLower(filepath.ToSlash(t.Path))
		m.byFold[fold] = append(m.byFold[fold], t)
		parts := strings.Split(fold, "/")
		for k := range m.bySuffix {
			if k+1 <= len(parts) {
				key := strings.Join(parts[len(parts)-k-1:], "/")
				m.bySuffix[k][key] = append(m.bySuffix[k][key], t)
			}
		}
		if n := library.Normalize(t.Title); n != "" {
			m.byTitle[n] = append(m.byTitle[n], t)
		}
	}
	return m
}

// match returns the library track for e (at resolved) and how it was
// found: "path", "tags" or "" when it was not.
func (m *matcher) match(e m3u.Entry, resolved string) (*library.Track, string) {
	if t := m.byPath[resolved]; t != nil {
		return t, "path"
	}
	fold := strings.ToLower(filepath.ToSlash(resolved))
	if ts := m.byFold[fold]; len(ts) == 1 {
		return ts[0], "path"
	}
	// Written on another machine or under another root: the last folders
	// and the file name, the longest part that names one track.
	parts := strings.Split(strings.ToLower(strings.ReplaceAll(e.Path, `\`, "/")), "/")
	title, artist := e.Title, e.Artist
	if title == "" {
		title, artist = titleFromFile(parts[len(parts)-1])
	}
	for k := len(m.bySuffix) - 1; k >= 0; k-- {
		if k+1 > len(parts) {
			continue
		}
		ts := m.bySuffix[k][strings.Join(parts[len(parts)-k-1:], "/")]
		if len(ts) == 1 && (k > 0 || e.Title == "" || library.Normalize(ts[0].Title) == library.Normalize(e.Title)) {
			return ts[0], "path"
		}
	}
	if t := m.byTags(title, artist, e.DurationS); t != nil {
		return t, "tags"
	}
	return nil, ""
}

// byTags finds a track by title, artist (when known) and length (when
// known, within 3 s), the closest length first.
func (m *matcher) byTags(title, artist string, durS int) *library.Track {
	cands := m.byTitle[library.Normalize(title)]
	na := library.Normalize(artist)
	var best *library.Track
	bestDiff := int64(-1)
	for _, t := range cands {
		if na != "" && !artistMatches(t, na) {
			continue
		}
		diff := int64(0)
		if durS >= 0 && t.Duration > 0 {
			diff = abs(t.Duration.Milliseconds() - int64(durS)*1000)
			if diff > 3000 {
				continue
			}
		}
		if best == nil || diff < bestDiff || (diff == bestDiff && t.Path < best.Path) {
			best, bestDiff = t, diff
		}
	}
	return best
}

func artistMatches(t *library.Track, na string) bool {
	names := append(slices.Clone(t.Artists), t.AlbumArtist, strings.Join(t.Artists, ", "), strings.Join(t.Artists, " & "))
	for _, n := range names {
		if n != "" && library.Normalize(n) == na {
			return true
		}
	}
	return false
}

// titleFromFile guesses title and artist from a file name such as
// "03 - Björk - Venus as a Boy.flac" or "03 Venus as a Boy.mp3".
func titleFromFile(name string) (title, artist string) {
	name = strings.TrimSuffix(name, filepath.Ext(name))
	name = strings.TrimLeftFunc(name, func(r rune) bool { return unicode.IsDigit(r) || r == ' ' || r == '.' || r == '-' || r == '_' })
	if a, t, ok := strings.Cut(name, " - "); ok {
		return strings.TrimSpace(t), strings.TrimSpace(a)
	}
	return strings.TrimSpace(name), ""
}
