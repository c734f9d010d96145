// Package m3u reads and writes M3U and M3U8 playlist files as other players
// write them: a path or file:// URL per line, relative to the file or
// absolute (Unix or Windows), with optional #EXTM3U, #PLAYLIST and #EXTINF
// lines. It does no I/O beyond the reader and writer it is given; matching
// entries to a library is the caller's.
package m3u

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// Limits on what Parse reads.
const (
	MaxFileBytes = 32 << 20
	MaxLineBytes = 32 << 10
	MaxEntries   = 100_000
)

// ErrTooBig is returned by Parse for a file over MaxFileBytes.
var ErrTooBig = errors.New("m3u: file too big")

// Entry is one track of a playlist file.
type Entry struct {
	Line int    // line number of the path, from 1
	Path string // as written, file:// URLs decoded; see Resolve
	URL  bool   // a stream (http://...), not a file
	// From the #EXTINF line before it, when there was one.
	Artist    string
	Title     string
	DurationS int // -1 when unknown
}

// Problem is a line that could not be read; the rest of the file is.
type Problem struct {
	Line int
	Text string // why, as a sentence
}

// File is a parsed playlist file.
type File struct {
	Name     string // from #PLAYLIST, empty when absent
	Entries  []Entry
	Problems []Problem
}

// Parse reads a playlist file. Text that is not UTF-8 is read as
// Windows-1252, what players on Windows write into .m3u files. Malformed
// lines become Problems and the rest is read; the error is for a file that
// cannot be read at all.
func Parse(r io.Reader) (File, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return File{}, err
	}
	if len(data) > MaxFileBytes {
		return File{}, fmt.Errorf("%w: more than %d MiB", ErrTooBig, MaxFileBytes>>20)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if !utf8.Valid(data) {
		if dec, err := charmap.Windows1252.NewDecoder().Bytes(data); err == nil {
			data = dec
		}
	}
	var f File
	var info *Entry // the pending #EXTINF
	infoLine := 0
	problem := func(line int, format string, args ...any) {
		f.Problems = append(f.Problems, Problem{Line: line, Text: fmt.Sprintf(format, args...)})
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), MaxFileBytes)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			continue
		case len(line) > MaxLineBytes:
			problem(n, "line %d is longer than %d KiB and was skipped", n, MaxLineBytes>>10)
			continue
		case strings.IndexFunc(line, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) >= 0:
			problem(n, "line %d holds control characters and was skipped", n)
			continue
		case strings.HasPrefix(trimmed, "#EXTINF:"):
			if info != nil {
				problem(infoLine, "#EXTINF on line %d is not followed by a track", infoLine)
			}
			e, msg := parseExtinf(strings.TrimPrefix(trimmed, "#EXTINF:"))
			info, infoLine = &e, n
			if msg != "" {
				problem(n, "line %d: %s", n, msg)
			}
			continue
		case strings.HasPrefix(trimmed, "#PLAYLIST:"):
			f.Name = strings.TrimSpace(strings.TrimPrefix(trimmed, "#PLAYLIST:"))
			continue
		case strings.HasPrefix(trimmed, "#"):
			continue // #EXTM3U and the directives of other players
		}
		e := Entry{DurationS: -1}
		if info != nil {
			e = *info
			info = nil
		}
		e.Line = n
		p, isURL, msg := parseLocation(trimmed)
		if msg != "" {
			problem(n, "line %d: %s", n, msg)
			continue
		}
		e.Path, e.URL = p, isURL
		if len(f.Entries) == MaxEntries {
			problem(n, "the file has more than %d tracks; those from line %d on were not read", MaxEntries, n)
			break
		}
		f.Entries = append(f.Entries, e)
	}
	if err := sc.Err(); err != nil {
		return File{}, err
	}
	if info != nil {
		problem(infoLine, "#EXTINF on line %d is not followed by a track", infoLine)
	}
	return f, nil
}

// parseExtinf reads "DURATION [attributes],Artist - Title". A bad duration
// is reported and left unknown; the title is kept.
func parseExtinf(s string) (Entry, string) {
	e := Entry{DurationS: -1}
	comma, quoted := -1, false
	for i, r := range s {
		if r == '"' {
			quoted = !quoted
		}
		if r == ',' && !quoted {
			comma = i
			break
		}
	}
	head, display := s, ""
	if comma >= 0 {
		head, display = s[:comma], strings.TrimSpace(s[comma+1:])
	}
	dur := head
	if i := strings.IndexAny(head, " \t"); i >= 0 {
		dur = head[:i]
	}
	msg := ""
	if d, err := strconv.ParseFloat(dur, 64); err == nil && d < 1e7 {
		if d >= 0 {
			e.DurationS = int(d + 0.5)
		}
	} else {
		msg = fmt.Sprintf("#EXTINF duration %q is not a number of seconds", dur)
	}
	if comma < 0 && msg == "" {
		msg = "#EXTINF has no comma before the title"
	}
	if a, t, ok := strings.Cut(display, " - "); ok {
		e.Artist, e.Title = strings.TrimSpace(a), strings.TrimSpace(t)
	} else {
		e.Title = display
	}
	return e, msg
}

// parseLocation reads a path or URL line.
func parseLocation(s string) (string, bool, string) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || len(scheme) < 2 || strings.ContainsAny(scheme, `/\ `) {
		return s, false, "" // a path; "C:\..." has a one-letter "scheme"
	}
	if !strings.EqualFold(scheme, "file") {
		return s, true, ""
	}
	u, err := url.Parse("file://" + rest)
	if err != nil || u.Path == "" {
		return "", false, fmt.Sprintf("%q is not a valid file:// URL", s)
	}
	p := u.Path
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' { // file:///C:/Music/a.mp3
		p = p[1:]
	}
	return p, false, ""
}

// Resolve turns an entry's path into an absolute path on this system,
// relative paths taken from dir (the playlist file's folder). Paths written
// on Windows (drive letters, backslashes) are kept absolute as written,
// with slashes, on other systems; they can only match by their end.
func Resolve(p, dir string, windows bool) string {
	if windows {
		if filepath.IsAbs(p) || strings.HasPrefix(p, `\\`) {
			return filepath.Clean(p)
		}
		return filepath.Join(dir, p)
	}
	p = strings.ReplaceAll(p, `\`, "/")
	if isDrivePath(p) || strings.HasPrefix(p, "//") {
		return p
	}
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return filepath.Join(dir, filepath.FromSlash(p))
}

func isDrivePath(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '/' || p[2] == '\\') &&
		((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z'))
}

// Track is one track to write.
type Track struct {
	Path      string
	Artist    string
	Title     string
	DurationS int // -1 when unknown
}

// Write writes an extended M3U8 playlist (UTF-8) named name. Paths are
// written as given: the caller makes them relative where it wants.
func Write(w io.Writer, name string, tracks []Track) error {
	bw := bufio.NewWriter(w)
	one := func(s string) string { return strings.Map(noBreak, s) }
	fmt.Fprintln(bw, "#EXTM3U")
	if name != "" {
		fmt.Fprintf(bw, "#PLAYLIST:%s\n", one(name))
	}
	for _, t := range tracks {
		if strings.ContainsAny(t.Path, "\r\n") || t.Path == "" {
			return fmt.Errorf("m3u: path %q cannot be written on one line", t.Path)
		}
		display := one(t.Title)
		if t.Artist != "" {
			display = one(t.Artist) + " - " + display
		}
		fmt.Fprintf(bw, "#EXTINF:%d,%s\n%s\n", t.DurationS, display, t.Path)
	}
	return bw.Flush()
}

func noBreak(r rune) rune {
	if r == '\n' || r == '\r' {
		return ' '
	}
	return r
}
