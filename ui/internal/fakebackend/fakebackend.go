// Package fakebackend is an in-memory stand-in for *app.App that the ui
// tests and the preview window drive: it records every intent and applies
// the simple ones to its Status so a window behaves plausibly.
package fakebackend

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/portmap"
)

// ErrNoCover is returned by Cover for tracks without art.
var ErrNoCover = errors.New("fakebackend: no cover")

// Backend is the fake. Fields may be set before use; methods are safe from
// any goroutine.
type Backend struct {
	mu     sync.Mutex
	st     app.Status
	tracks []library.Track
	places map[string]app.Place
	cache  app.CacheStatus
	upload int64
	carry  bool
	calls  []string
	subs   []chan app.Status
	// Fail, when set, makes the named intent (e.g. "Transfer") fail with it.
	Fail map[string]error
	// CoverCalls counts Cover and AlbumCover calls; AlbumCoverCalls lists
	// the albums asked for.
	CoverCalls      int
	AlbumCoverCalls []string
	pl              playlists
	byID            map[string]int // index of tracks by content id
	plays           map[string]app.PlayStats
}

// New returns a fake with one device ("Desk", this one, owner) and tracks.
func New(tracks []library.Track) *Backend {
	b := &Backend{tracks: tracks, Fail: map[string]error{}}
	b.st = app.Status{
		DeviceID: "dev-desk", DeviceName: "Desk", Owner: "dev-desk", OwnerName: "Desk",
		Rendering: true, Config: engine.DefaultConfig(), ReplayGain: library.DefaultGainMode, Volume: 70, Repeat: "off",
		Devices:        []app.DeviceStatus{{DeviceID: "dev-desk", Name: "Desk", Online: true, Owner: true, Self: true, Selectable: true}},
		LibraryVersion: 1,
	}
	return b
}

// Tracks makes n tracks over n/10 albums of n/50 artists, deterministic.
func MakeTracks(n int) []library.Track {
	words := []string{"Blue", "Night", "River", "Glass", "Echo", "Paper", "Summer", "Static", "Golden", "Quiet", "Northern", "Velvet"}
	ts := make([]library.Track, n)
	for i := range ts {
		artist := fmt.Sprintf("%s %s", words[(i/50)%len(words)], []string{"Lights", "Harbor", "Avenue", "Collective", "Machines"}[(i/50/len(words))%5])
		if i/50 >= len(words)*5 {
			artist += fmt.Sprintf(" %d", i/50)
		}
		album := fmt.Sprintf("%s %s", words[(i/10+3)%len(words)], words[(i/10*7+1)%len(words)])
		ts[i] = library.Track{
			ContentID: fmt.Sprintf("b3:%064d", i),
			Path:      fmt.Sprintf("/music/%d.flac", i),
			Format:    "flac",
			Title:     fmt.Sprintf("%s %s", words[(i*5+2)%len(words)], strings.ToLower(words[(i*3)%len(words)])),
			Artists:   []string{artist},
			Album:     fmt.Sprintf("%s (%d)", album, i/10),
			TrackNo:   i%10 + 1,
			Year:      1990 + (i/10)%30,
			Duration:  time.Duration(150+(i*37)%180) * time.Second,
		}
		if (i/10)%3 != 2 {
			ts[i].Cover = "embedded"
		}
	}
	return ts
}

func (b *Backend) record(format string, args ...any) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := fmt.Sprintf(format, args...)
	b.calls = append(b.calls, s)
	name := s
	if i := strings.IndexByte(s, '('); i >= 0 {
		name = s[:i]
	}
	return b.Fail[name]
}

// Calls returns the intents received so far, like "Transfer(dev-x)".
func (b *Backend) Calls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.calls...)
}

// ResetCalls forgets the recorded intents.
func (b *Backend) ResetCalls() {
	b.mu.Lock()
	b.calls = nil
	b.mu.Unlock()
}

// SetStatus replaces the status and notifies subscribers.
func (b *Backend) SetStatus(st app.Status) {
	b.mu.Lock()
	b.st = st
	b.publishLocked()
	b.mu.Unlock()
}

// Update changes the status under the lock and notifies subscribers.
func (b *Backend) Update(f func(*app.Status)) {
	b.mu.Lock()
	f(&b.st)
	b.publishLocked()
	b.mu.Unlock()
}

func (b *Backend) publishLocked() {
	for _, c := range b.subs {
		select {
		case <-c:
		default:
		}
		c <- b.st
	}
}

func (b *Backend) Status() app.Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.st
}

func (b *Backend) Subscribe() (<-chan app.Status, func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := make(chan app.Status, 1)
	b.subs = append(b.subs, c)
	return c, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		for i, s := range b.subs {
			if s == c {
				b.subs = append(b.subs[:i], b.subs[i+1:]...)
				return
			}
		}
	}
}

func (b *Backend) item(id string) app.QueueItem {
	if t, ok := b.track(id); ok {
		return app.QueueItem{ContentID: id, Title: t.Title, Artists: t.Artists, Album: t.Album, DurationMS: t.Duration.Milliseconds()}
	}
	return app.QueueItem{ContentID: id, Title: id}
}

// track finds a track of the catalog by content id (an index built on
// first use after the catalog changed).
func (b *Backend) track(id string) (library.Track, bool) {
	if len(b.byID) != len(b.tracks) {
		b.byID = make(map[string]int, len(b.tracks))
		for i, t := range b.tracks {
			b.byID[t.ContentID] = i
		}
	}
	i, ok := b.byID[id]
	if !ok {
		return library.Track{}, false
	}
	return b.tracks[i], true
}

func (b *Backend) setIndexLocked(i int) {
	if i < 0 || i >= len(b.st.Queue) {
		b.st.Track = nil
		b.st.Playing = false
		return
	}
	b.st.Index = i
	t := b.st.Queue[i]
	b.st.Track = &t
	b.st.PositionMS = 0
}

func (b *Backend) PlayTracks(ids []string, start int) error {
	if err := b.record("PlayTracks(%d,%s,%d)", len(ids), first(ids), start); err != nil {
		return err
	}
	b.Update(func(st *app.Status) {
		st.Queue = st.Queue[:0:0]
		for _, id := range ids {
			st.Queue = append(st.Queue, b.item(id))
		}
		st.QueueLen = len(st.Queue)
		b.setIndexLocked(start)
		st.Playing = st.Track != nil
	})
	return nil
}

func first(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

func (b *Backend) Enqueue(ids []string, next bool) error {
	if err := b.record("Enqueue(%d,%s,%v)", len(ids), first(ids), next); err != nil {
		return err
	}
	b.Update(func(st *app.Status) {
		var items []app.QueueItem
		for _, id := range ids {
			items = append(items, b.item(id))
		}
		at := len(st.Queue)
		if next && st.Track != nil {
			at = st.Index + 1
		}
		st.Queue = append(st.Queue[:at:at], append(items, st.Queue[at:]...)...)
		st.QueueLen = len(st.Queue)
		if st.Track == nil {
			b.setIndexLocked(0)
		}
	})
	return nil
}

func (b *Backend) JumpTo(i int) error {
	if err := b.record("JumpTo(%d)", i); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { b.setIndexLocked(i); st.Playing = st.Track != nil })
	return nil
}

func (b *Backend) RemoveFromQueue(i int) error {
	if err := b.record("RemoveFromQueue(%d)", i); err != nil {
		return err
	}
	b.Update(func(st *app.Status) {
		if i < 0 || i >= len(st.Queue) {
			return
		}
		st.Queue = append(st.Queue[:i:i], st.Queue[i+1:]...)
		st.QueueLen = len(st.Queue)
		if i < st.Index {
			st.Index--
		}
	})
	return nil
}

func (b *Backend) ClearQueue() error {
	if err := b.record("ClearQueue()"); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { st.Queue, st.QueueLen, st.Track, st.Playing, st.Index = nil, 0, nil, false, 0 })
	return nil
}

func (b *Backend) Pause() error { return b.record("Pause()") }

func (b *Backend) Resume() error { return b.record("Resume()") }

func (b *Backend) TogglePlay() error {
	if err := b.record("TogglePlay()"); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { st.Playing = !st.Playing && st.Track != nil })
	return nil
}

func (b *Backend) Next() error {
	if err := b.record("Next()"); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { b.setIndexLocked(st.Index + 1) })
	return nil
}

func (b *Backend) Prev() error {
	if err := b.record("Prev()"); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { b.setIndexLocked(max(0, st.Index-1)) })
	return nil
}

func (b *Backend) Seek(pos time.Duration) error {
	if err := b.record("Seek(%v)", pos); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { st.PositionMS = pos.Milliseconds() })
	return nil
}

func (b *Backend) SetVolume(v int) error {
	if err := b.record("SetVolume(%d)", v); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { st.Volume = v })
	return nil
}

func (b *Backend) SetShuffle(on bool) error {
	if err := b.record("SetShuffle(%v)", on); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { st.Shuffle = on })
	return nil
}

func (b *Backend) SetRepeat(mode string) error {
	if err := b.record("SetRepeat(%s)", mode); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { st.Repeat = mode })
	return nil
}

// Offline is the error App.Transfer gives for a device it refuses: it
// wraps app.ErrOffline, and app.UserMessage reads "<name> is offline".
func Offline(name string) error { return offlineError{name} }

type offlineError struct{ name string }

func (e offlineError) Error() string { return "app: " + e.name + " is offline" }
func (e offlineError) Unwrap() error { return app.ErrOffline }

// Transfer moves the output to another device; like the app, it refuses a
// device that is not Selectable (an offline peer) with Offline.
func (b *Backend) Transfer(to engine.DeviceID) error {
	if err := b.record("Transfer(%s)", to); err != nil {
		return err
	}
	b.mu.Lock()
	for _, d := range b.st.Devices {
		if d.DeviceID == to && !d.Selectable {
			b.mu.Unlock()
			return Offline(d.Name)
		}
	}
	b.mu.Unlock()
	b.Update(func(st *app.Status) {
		st.Owner = to
		for i := range st.Devices {
			st.Devices[i].Owner = st.Devices[i].DeviceID == to
			if st.Devices[i].DeviceID == to {
				st.OwnerName = st.Devices[i].Name
			}
		}
		st.Rendering = to == st.DeviceID
	})
	return nil
}

func (b *Backend) Invite() (app.Invite, error) {
	if err := b.record("Invite()"); err != nil {
		return app.Invite{}, err
	}
	return app.Invite{Code: "frid://i/eyJ2IjoxLCJ0IjpbIjE5Mi4xNjguMS4yMDo0NzExIl0sImQiOiJkZXYtZGVzayJ9", Expires: time.Date(2025, 1, 1, 12, 10, 0, 0, time.UTC)}, nil
}

func (b *Backend) Pair(code string) error { return b.record("Pair(%s)", code) }

func (b *Backend) Accept(id string, joinTheirs bool) error {
	return b.record("Accept(%s,%v)", id, joinTheirs)
}

func (b *Backend) Deny(id string) error { return b.record("Deny(%s)", id) }

func (b *Backend) Revoke(d engine.DeviceID) error { return b.record("Revoke(%s)", d) }

func (b *Backend) SetDeviceName(name string) error {
	if err := b.record("SetDeviceName(%s)", name); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { st.DeviceName = name })
	return nil
}

func (b *Backend) PlaybackConfig() engine.Config { return b.Status().Config }

func (b *Backend) SetPlaybackConfig(cfg engine.Config) error {
	if err := b.record("SetPlaybackConfig(%+v)", cfg); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { st.Config = cfg })
	return nil
}

func (b *Backend) SetPassive(on bool) error {
	if err := b.record("SetPassive(%v)", on); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { st.Passive = on })
	return nil
}

func (b *Backend) SetReplayGain(mode string) error {
	if err := b.record("SetReplayGain(%s)", mode); err != nil {
		return err
	}
	m, err := library.ParseGainMode(mode)
	if err != nil {
		return err
	}
	b.Update(func(st *app.Status) { st.ReplayGain = m })
	return nil
}

func (b *Backend) Tracks() ([]library.Track, error) {
	if err := b.record("Tracks()"); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]library.Track(nil), b.tracks...), nil
}

// EachTrack calls fn with each track of Tracks.
func (b *Backend) EachTrack(fn func(library.Track) error) error {
	ts, err := b.Tracks()
	if err != nil {
		return err
	}
	for _, t := range ts {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// Cache reports what SetCache set (a read, not recorded as an intent).
func (b *Backend) Cache() (app.CacheStatus, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cache, nil
}

// SetCache sets what Cache reports.
func (b *Backend) SetCache(cs app.CacheStatus) {
	b.mu.Lock()
	b.cache = cs
	b.mu.Unlock()
}

// SetCacheLimit sets the cache's limit (at least 64 MB, as the app's).
func (b *Backend) SetCacheLimit(mb int64) error {
	if err := b.record("SetCacheLimit(%d)", mb); err != nil {
		return err
	}
	if mb < 64 {
		return fmt.Errorf("the cache limit must be at least 64 MB, not %d", mb)
	}
	b.mu.Lock()
	b.cache.LimitMB, b.cache.Limit = mb, mb<<20
	b.mu.Unlock()
	return nil
}

// ClearCache empties the cache.
func (b *Backend) ClearCache() error {
	if err := b.record("ClearCache()"); err != nil {
		return err
	}
	b.mu.Lock()
	b.cache.Bytes, b.cache.Tracks = 0, 0
	b.mu.Unlock()
	return nil
}

// Carry returns what SetCarry set.
func (b *Backend) Carry() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.carry
}

// SetCarry records the choice.
func (b *Backend) SetCarry(on bool) error {
	if err := b.record("SetCarry(%v)", on); err != nil {
		return err
	}
	b.mu.Lock()
	b.carry = on
	b.mu.Unlock()
	return nil
}

// SetPublicAddrs records the addresses in Status.Reach; addresses the
// app refuses (devicesync.ValidatePublic) fail as there.
func (b *Backend) SetPublicAddrs(addrs []string) error {
	if err := b.record("SetPublicAddrs(%s)", strings.Join(addrs, " ")); err != nil {
		return err
	}
	if err := devicesync.ValidatePublic(addrs); err != nil {
		return err
	}
	b.Update(func(st *app.Status) {
		withReach(st, func(r *app.ReachStatus) { r.Public = slices.Clone(addrs) })
	})
	return nil
}

// SetPortMap records the choice in Status.Reach (the router's answer is
// the test's to set).
func (b *Backend) SetPortMap(on bool) error {
	if err := b.record("SetPortMap(%v)", on); err != nil {
		return err
	}
	b.Update(func(st *app.Status) {
		withReach(st, func(r *app.ReachStatus) { r.PortMap = portmap.Status{On: on} })
	})
	return nil
}

// withReach changes a copy of st's Reach with f and puts it in st (the
// statuses handed out before keep theirs).
func withReach(st *app.Status, f func(*app.ReachStatus)) {
	var r app.ReachStatus
	if st.Reach != nil {
		r = *st.Reach
	}
	f(&r)
	st.Reach = &r
}

// UploadLimit returns what SetUploadLimit set.
func (b *Backend) UploadLimit() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.upload
}

// SetUploadLimit sets the upload limit.
func (b *Backend) SetUploadLimit(kbps int64) error {
	if err := b.record("SetUploadLimit(%d)", kbps); err != nil {
		return err
	}
	b.mu.Lock()
	b.upload = kbps
	b.mu.Unlock()
	return nil
}

// Places returns what SetPlaces set.
func (b *Backend) Places() (map[string]app.Place, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.places), nil
}

// SetPlaces sets where the tracks of other devices are and bumps the
// places version.
func (b *Backend) SetPlaces(p map[string]app.Place) {
	b.mu.Lock()
	b.places = maps.Clone(p)
	b.st.PlacesVersion++
	b.publishLocked()
	b.mu.Unlock()
}

// SetTracks replaces the catalog and bumps the library version.
func (b *Backend) SetTracks(ts []library.Track) {
	b.mu.Lock()
	b.tracks, b.byID = ts, nil
	b.st.LibraryVersion++
	b.publishLocked()
	b.mu.Unlock()
}

// Cover draws a small gradient unique to the content id, or fails for
// tracks without art.
func (b *Backend) Cover(id string) ([]byte, error) {
	b.mu.Lock()
	b.CoverCalls++
	var has bool
	for _, t := range b.tracks {
		if t.ContentID == id {
			has = t.Cover != ""
			break
		}
	}
	b.mu.Unlock()
	if !has {
		return nil, ErrNoCover
	}
	return gradient(id)
}

// AlbumCover draws a gradient unique to the album id when a track of the
// album has art.
func (b *Backend) AlbumCover(id string) ([]byte, error) {
	b.mu.Lock()
	b.CoverCalls++
	b.AlbumCoverCalls = append(b.AlbumCoverCalls, id)
	var has bool
	for _, t := range b.tracks {
		if library.AlbumID(t) == id && t.Cover != "" {
			has = true
			break
		}
	}
	b.mu.Unlock()
	if !has {
		return nil, ErrNoCover
	}
	return gradient(id)
}

func gradient(id string) ([]byte, error) {
	var h uint32 = 2166136261
	for i := 0; i < len(id); i++ {
		h = (h ^ uint32(id[i])) * 16777619
	}
	c1 := color.NRGBA{uint8(h), uint8(h >> 8), uint8(h >> 16), 255}
	c2 := color.NRGBA{uint8(h>>16) / 2, uint8(h) / 2, uint8(h>>24) / 2, 255}
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			t := float64(x+y) / 126
			img.Set(x, y, color.NRGBA{lerp(c1.R, c2.R, t), lerp(c1.G, c2.G, t), lerp(c1.B, c2.B, t), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func lerp(a, b uint8, t float64) uint8 { return uint8(float64(a)*(1-t) + float64(b)*t) }

func (b *Backend) AddFolder(path string) error {
	if err := b.record("AddFolder(%s)", path); err != nil {
		return err
	}
	b.Update(func(st *app.Status) { st.Folders = append(st.Folders, path) })
	return nil
}

func (b *Backend) RemoveFolder(path string) error {
	if err := b.record("RemoveFolder(%s)", path); err != nil {
		return err
	}
	b.Update(func(st *app.Status) {
		for i, f := range st.Folders {
			if f == path {
				st.Folders = append(st.Folders[:i:i], st.Folders[i+1:]...)
				return
			}
		}
	})
	return nil
}

// OpenFiles queues one entry per path, titled by its file name, with no
// problems.
func (b *Backend) OpenFiles(paths []string, enqueue bool) (app.Opened, error) {
	if err := b.record("OpenFiles(%s,%v)", strings.Join(paths, ","), enqueue); err != nil {
		return app.Opened{}, err
	}
	b.Update(func(st *app.Status) {
		if !enqueue {
			st.Queue = st.Queue[:0:0]
		}
		for _, p := range paths {
			st.Queue = append(st.Queue, app.QueueItem{ContentID: "b3:open" + p, Title: filepath.Base(p)})
		}
		st.QueueLen = len(st.Queue)
	})
	return app.Opened{Tracks: len(paths)}, nil
}

func (b *Backend) Rescan() error { return b.record("Rescan()") }

func (b *Backend) GenerateDemo() error {
	if err := b.record("GenerateDemo()"); err != nil {
		return err
	}
	b.SetTracks(MakeTracks(24))
	return nil
}
