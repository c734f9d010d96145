// Package openfiles turns what a user hands furudesk from outside, file
// and folder paths on a command line, file:// URIs from a file manager's
// "Open with" or a drop on the window, into the tracks to play, in order,
// with a reason for each one left out.
//
// The rules:
//   - A file:// URI (host empty or localhost) is its decoded path; any
//     other scheme is refused by name. A relative path is taken against
//     the caller's working directory, never the running instance's.
//   - A file is analyzed as the library would; one that does not exist,
//     is not audio furudesk plays or cannot be read is left out with its
//     reason, and the others still play.
//   - A folder is walked: its audio files (by extension) play in track
//     order, folder by folder (disc, then track number, then file name);
//     other files in it are passed over without a word.
//   - Files and folders play in the order given; at most Max tracks.
package openfiles

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/furudesk/furudesk/library"
)

// Max bounds the tracks of one opening (the queue's own limit is
// app.MaxQueue, larger): a folder of a whole disk is cut there, and the
// problems say so.
const Max = 5000

// maxProblems bounds the problems kept: a folder of thousands of broken
// files names the first few and counts the rest.
const maxProblems = 100

// Problem is one argument, or a file of a folder, left out, with why.
type Problem struct {
	Arg    string `json:"arg"`
	Reason string `json:"reason"`
}

func (p Problem) String() string { return p.Arg + ": " + p.Reason }

// Paths turns args into absolute, clean paths: file:// URIs decoded,
// relative paths joined to cwd (the caller's working directory). An
// argument that names no local file is a Problem.
func Paths(args []string, cwd string) ([]string, []Problem) {
	var out []string
	var probs []Problem
	for _, a := range args {
		p, err := pathOf(a, cwd)
		if err != nil {
			probs = append(probs, Problem{Arg: a, Reason: err.Error()})
			continue
		}
		out = append(out, p)
	}
	return out, probs
}

func pathOf(arg, cwd string) (string, error) {
	if arg == "" {
		return "", errors.New("an empty name")
	}
	if i := strings.Index(arg, "://"); i > 0 && !strings.ContainsAny(arg[:i], `/\`) {
		u, err := url.Parse(arg)
		if err != nil {
			return "", fmt.Errorf("not a valid address: %v", err)
		}
		if !strings.EqualFold(u.Scheme, "file") {
			return "", fmt.Errorf("furudesk opens files, not %s addresses", u.Scheme)
		}
		if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
			return "", fmt.Errorf("a file of another computer (%s)", u.Host)
		}
		if u.Path == "" {
			return "", errors.New("an address without a path")
		}
		p := u.Path
		if runtime.GOOS == "windows" && len(p) > 2 && p[0] == '/' && p[2] == ':' {
			p = p[1:] // file:///C:/Music/a.flac
		}
		return filepath.Clean(filepath.FromSlash(p)), nil
	}
	if filepath.IsAbs(arg) {
		return filepath.Clean(arg), nil
	}
	if cwd == "" {
		return "", errors.New("a relative path, and no working directory to take it from")
	}
	return filepath.Join(cwd, arg), nil
}

// Analyzer reads one audio file into a track (its tags, duration and
// content id): the library's own one, or the catalog's entry of a file
// already in it.
type Analyzer func(path string) (library.Track, error)

// Tracks turns paths (from Paths) into the tracks to play, in the order
// the package doc states, analyzing each file with analyze.
func Tracks(paths []string, analyze Analyzer) ([]library.Track, []Problem) {
	c := collector{analyze: analyze}
	for _, p := range paths {
		if len(c.tracks) >= Max {
			c.problem(p, fmt.Sprintf("left out: at most %d tracks at once", Max))
			continue
		}
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			c.problem(p, "does not exist")
		case err != nil:
			c.problem(p, "cannot be read: "+reason(p, err))
		case fi.IsDir():
			c.folder(p)
		default:
			c.file(p)
		}
	}
	if n := c.dropped; n > 0 {
		c.probs = append(c.probs, Problem{Arg: "…", Reason: fmt.Sprintf("and %d more files left out", n)})
	}
	return c.tracks, c.probs
}

type collector struct {
	analyze Analyzer
	tracks  []library.Track
	probs   []Problem
	dropped int
}

func (c *collector) problem(arg, why string) {
	if len(c.probs) >= maxProblems {
		c.dropped++
		return
	}
	c.probs = append(c.probs, Problem{Arg: arg, Reason: why})
}

func (c *collector) file(p string) {
	t, err := c.analyze(p)
	if err != nil {
		c.problem(p, notPlayable(p, err))
		return
	}
	c.tracks = append(c.tracks, t)
}

// folder adds the audio files under dir in track order. Symbolic links to
// folders are not followed (a link back up would never end).
func (c *collector) folder(dir string) {
	var found []library.Track
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			c.problem(p, "cannot be read: "+reason(p, err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || library.FormatOf(p) == "" {
			return nil
		}
		if len(c.tracks)+len(found) >= Max {
			c.problem(p, fmt.Sprintf("left out: at most %d tracks at once", Max))
			return fs.SkipAll
		}
		t, err := c.analyze(p)
		if err != nil {
			c.problem(p, notPlayable(p, err))
			return nil
		}
		found = append(found, t)
		return nil
	})
	if err != nil {
		c.problem(dir, "cannot be read: "+reason(dir, err))
	}
	if len(found) == 0 && err == nil {
		c.problem(dir, "has no audio files furudesk plays")
	}
	SortTrackOrder(found)
	c.tracks = append(c.tracks, found...)
}

// SortTrackOrder sorts the tracks of a folder walk as they play: folder by
// folder, then by disc, track number and file name.
func SortTrackOrder(ts []library.Track) {
	slices.SortStableFunc(ts, func(a, b library.Track) int {
		return cmp.Or(
			strings.Compare(filepath.Dir(a.Path), filepath.Dir(b.Path)),
			cmp.Compare(a.DiscNo, b.DiscNo),
			cmp.Compare(a.TrackNo, b.TrackNo),
			strings.Compare(filepath.Base(a.Path), filepath.Base(b.Path)))
	})
}

// notPlayable says why the file at p does not play.
func notPlayable(p string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist"
	case errors.Is(err, library.ErrUnsupported) && library.FormatOf(p) == "":
		return "not an audio file furudesk plays"
	case errors.Is(err, library.ErrNotAudio):
		return "not audio furudesk can read (" + reason(p, err) + ")"
	case errors.Is(err, library.ErrUnsupported):
		return "furudesk cannot play it (" + reason(p, err) + ")"
	}
	return "cannot be read: " + reason(p, err)
}

func reason(p string, err error) string {
	r := library.Reason(err)
	r = strings.ReplaceAll(r, p+": ", "")
	return strings.ReplaceAll(r, p, "the file")
}
