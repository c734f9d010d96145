package app

// Opening files from outside: furudesk FILE..., a file manager's "Open
// with", a drop on the window. The rules of what plays in which order are
// package openfiles'; here the tracks go to the queue, and files outside
// the music folders play from where they are, without being added to the
// library (looseTracks).

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/openfiles"
	"github.com/furudesk/furudesk/storage"
)

// Opened is what an OpenFiles did: the tracks it queued, how many of
// them play from outside the library, and the arguments it left out.
type Opened struct {
	Tracks   int                 `json:"tracks"`
	Outside  int                 `json:"outside"`
	Problems []openfiles.Problem `json:"problems,omitempty"`
}

// ErrNothingToOpen is OpenFiles' error when none of its paths plays.
var ErrNothingToOpen = errors.New("app: nothing to play")

// OpenFiles plays the files and folders at paths (absolute, from
// openfiles.Paths) now, replacing the queue, or appends them when
// enqueue. Reading the files happens on the caller's goroutine (it hashes
// each one). What was left out and what plays from outside the library
// are told in a notice as well as returned; with nothing left to play the
// queue is kept and the error (ErrNothingToOpen) names why.
func (a *App) OpenFiles(paths []string, enqueue bool) (Opened, error) {
	ts, probs := openfiles.Tracks(paths, a.analyzeOpened)
	res := Opened{Tracks: len(ts), Problems: probs}
	if len(probs) > 0 {
		a.post(noticeIntent{level: "error", text: problemsText(probs)})
	}
	if len(ts) == 0 {
		return res, userErr(ErrNothingToOpen, "%s", problemsText(probs))
	}
	es := make([]Entry, len(ts))
	var loose []library.Track
	for i, t := range ts {
		es[i] = EntryOf(t)
		if _, err := a.catalog.TrackByPath(t.Path); err != nil {
			a.loose.add(t)
			loose = append(loose, t)
			if !a.inMusicFolder(t.Path) {
				res.Outside++
			}
		}
	}
	a.rememberLoose(loose)
	var err error
	if enqueue {
		err = a.EnqueueEntries(es, false)
	} else {
		err = a.PlayEntries(es, 0)
	}
	if err != nil {
		return res, err
	}
	if res.Outside > 0 {
		a.post(noticeIntent{level: "info", text: fmt.Sprintf("%s from outside the music folders: played from where %s, not added to the library",
			plural(res.Outside, "file"), map[bool]string{true: "it is", false: "they are"}[res.Outside == 1])})
	}
	return res, nil
}

// analyzeOpened is the catalog's track of a file in the library, else the
// file read as the library reads it.
func (a *App) analyzeOpened(p string) (library.Track, error) {
	if t, err := a.store.TrackByPath(p); err == nil {
		return t, nil
	}
	root := filepath.Dir(p)
	for _, f := range a.Folders() {
		if within(f, p) {
			root = f
			break
		}
	}
	return library.AnalyzeFile(p, root)
}

func (a *App) inMusicFolder(p string) bool {
	for _, f := range a.Folders() {
		if within(f, p) {
			return true
		}
	}
	return false
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// problemsText names what an opening left out: the first few by file
// name, with why, and how many more.
func problemsText(probs []openfiles.Problem) string {
	const shown = 3
	names := make([]string, 0, shown)
	for _, p := range probs[:min(len(probs), shown)] {
		names = append(names, fmt.Sprintf("%s (%s)", filepath.Base(p.Arg), p.Reason))
	}
	text := "Could not play " + strings.Join(names, ", ")
	if more := len(probs) - len(names); more > 0 {
		text += fmt.Sprintf(" and %d more", more)
	}
	return text
}

// maxLoose bounds the files played from outside the library that this
// process remembers: the oldest are forgotten first (a queue entry of one
// then has no file here, and is skipped with a notice like any other).
const maxLoose = MaxQueue

// looseTracks are the files played from outside the library, found by
// content id and path as the catalog's are, for as long as this process
// runs. They are not offered to the other devices of the group.
type looseTracks struct {
	saveMu sync.Mutex // held while settingLoose is read and written
	mu     sync.Mutex
	byID   map[string]library.Track
	byPath map[string]string // path → content id
	order  []string          // paths, oldest first
}

func newLooseTracks() *looseTracks {
	return &looseTracks{byID: map[string]library.Track{}, byPath: map[string]string{}}
}

func (l *looseTracks) add(t library.Track) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if id, ok := l.byPath[t.Path]; ok {
		delete(l.byID, id)
	} else {
		l.order = append(l.order, t.Path)
	}
	l.byPath[t.Path] = t.ContentID
	l.byID[t.ContentID] = t
	for len(l.order) > maxLoose {
		old := l.order[0]
		l.order = l.order[1:]
		if id := l.byPath[old]; l.byID[id].Path == old {
			delete(l.byID, id)
		}
		delete(l.byPath, old)
	}
}

func (l *looseTracks) byContentID(id string) (library.Track, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.byID[id]
	return t, ok
}

func (l *looseTracks) atPath(p string) (library.Track, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id, ok := l.byPath[p]
	if !ok {
		return library.Track{}, false
	}
	t, ok := l.byID[id]
	return t, ok && t.Path == p
}

// looseStore is the store with the loose tracks added to its lookups by
// content id and path: the actor plays, shows and resolves them as files
// of this device. The catalog's listings do not hold them.
type looseStore struct {
	Store
	loose *looseTracks
}

func (s looseStore) TrackByContentID(id string) (library.Track, error) {
	t, err := s.Store.TrackByContentID(id)
	if errors.Is(err, storage.ErrNotFound) {
		if lt, ok := s.loose.byContentID(id); ok {
			return lt, nil
		}
	}
	return t, err
}

func (s looseStore) TrackByPath(p string) (library.Track, error) {
	t, err := s.Store.TrackByPath(p)
	if errors.Is(err, storage.ErrNotFound) {
		if lt, ok := s.loose.atPath(p); ok {
			return lt, nil
		}
	}
	return t, err
}

// settingLoose keeps the files played from outside the library (their
// content ids and paths, oldest first) across launches, so that a queue
// restored at the next launch still plays them.
const settingLoose = "openfiles.loose"

// maxLooseKept bounds the files kept in settingLoose; the oldest go first.
const maxLooseKept = 2000

type looseRef struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// rememberLoose adds ts to settingLoose. A failure to store them costs
// their playing after a restart only: it is logged.
func (a *App) rememberLoose(ts []library.Track) {
	if len(ts) == 0 {
		return
	}
	a.loose.saveMu.Lock()
	defer a.loose.saveMu.Unlock()
	refs := a.looseRefs()
	for _, t := range ts {
		refs = slices.DeleteFunc(refs, func(r looseRef) bool { return r.Path == t.Path })
		refs = append(refs, looseRef{ID: t.ContentID, Path: t.Path})
	}
	if n := len(refs) - maxLooseKept; n > 0 {
		refs = refs[n:]
	}
	b, err := json.Marshal(refs)
	if err == nil {
		err = a.catalog.SetSetting(settingLoose, string(b))
	}
	if err != nil {
		a.opts.Logger.Warn("files played from outside the library will not play after a restart", "err", err)
	}
}

func (a *App) looseRefs() []looseRef {
	v, ok, err := a.catalog.Setting(settingLoose)
	if err != nil || !ok {
		return nil
	}
	var refs []looseRef
	if json.Unmarshal([]byte(v), &refs) != nil {
		return nil
	}
	return refs
}

// restoreLoose reads the files of settingLoose again (in the background:
// each is hashed) so that the queue plays them; a file gone or changed
// since is left out, and plays no more. The status is refreshed once they
// are back.
func (a *App) restoreLoose() {
	refs := a.looseRefs()
	if len(refs) == 0 {
		return
	}
	go func() {
		n := 0
		for _, r := range refs {
			select {
			case <-a.quit:
				return
			default:
			}
			t, err := library.AnalyzeFile(r.Path, filepath.Dir(r.Path))
			if err != nil || t.ContentID != r.ID {
				continue
			}
			a.loose.add(t)
			n++
		}
		if n > 0 {
			a.post(refreshIntent{})
		}
	}()
}
