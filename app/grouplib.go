package app

// The group library as the app uses it: every device of the group shows
// the union of the group's libraries and plays any track an online device
// holds (package grouplib fetches, verifies and caches it). This file has
// the interface, the adapter that shows grouplib this device's own
// library, and the App methods the front ends call.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/grouplib"
	"github.com/furudesk/furudesk/library"
)

// GroupLibrary is the group library as the actor and the front ends need
// it. *grouplib.Library implements it; its methods are safe from any
// goroutine and none waits on the network but Cover.
type GroupLibrary interface {
	// Where a track this device has no file for is, and how it plays.
	Locate(contentID string) grouplib.Location
	Entry(contentID string) (grouplib.Entry, bool)
	Open(contentID string) (io.ReadSeekCloser, grouplib.Source, error)
	Prefetch(contentID string)
	Pin(contentIDs ...string)
	Streaming(contentID string) (holder engine.DeviceID, fetching bool)

	// The union for the front ends.
	Version() uint64
	Tracks() []grouplib.Track
	Search(query string, limit int) []grouplib.Track
	Cover(ctx context.Context, contentID string) ([]byte, error)

	// What the transport and the own library report.
	OnChange(f func(grouplib.Change))
	Refresh()
	PeerOffline(id engine.DeviceID)
	LocalChanged()
	OpsAdded(group string, ops []devicesync.Op)

	// Settings of this device.
	SetCacheLimit(bytes int64) error
	CacheUsage() grouplib.CacheUsage
	ClearCache()
	SetUploadRate(bytesPerSecond int64) error
}

var _ GroupLibrary = (*grouplib.Library)(nil)

// GroupFiles shows the group library this device's own library: the
// catalog it publishes, the files and covers it serves.
func GroupFiles(s Store) grouplib.Files { return groupFiles{s} }

type groupFiles struct{ s Store }

// EachTrack reads the catalog a track at a time, so that closing the
// group library (ctx) stops a read of 100,000 tracks at once.
func (f groupFiles) EachTrack(ctx context.Context, fn func(library.Track) error) error {
	return f.s.EachTrack(0, -1, func(t library.Track) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(t)
	})
}

func (f groupFiles) File(id string) (string, bool) {
	t, err := f.s.TrackByContentID(id)
	return t.Path, err == nil
}

func (f groupFiles) Cover(id string) ([]byte, error) { return localCover(f.s, id) }

// groupLibChanged follows a change of the group library: the union or the
// holders' reachability, shown by the front ends.
type groupLibChanged struct{ c grouplib.Change }

func (i groupLibChanged) handle(a *actor) {
	if i.c&(grouplib.ChangeOnline|grouplib.ChangeCache) != 0 {
		a.strm.places++
	}
}

// groupEvent hands the group library what the transport reported.
func (a *actor) groupEvent(ev devicesync.Event) {
	gl := a.app.gl
	if gl == nil {
		return
	}
	switch ev := ev.(type) {
	case devicesync.OpsAdded:
		gl.OpsAdded(ev.Group, ev.Ops)
	case devicesync.PeerOffline:
		gl.PeerOffline(ev.Device)
	case devicesync.PeerOnline, devicesync.GroupChanged:
		gl.Refresh()
	}
}

// Place says where a track of the library is and whether it plays now.
type Place struct {
	// Local: a file in this device's music folders.
	Local bool `json:"local"`
	// Holders are the devices whose libraries have the track, by id (this
	// one too when Local).
	Holders []engine.DeviceID `json:"holders"`
	// Cached: a copy fetched before plays with no holder online.
	Cached bool `json:"cached,omitempty"`
	// Playable: a local file, a cached copy, or a holder online now.
	Playable bool `json:"playable"`
	// Where is how the window says it: "This device", "On Desktop",
	// "On Desktop and Laptop", with "(not online)" when it cannot play.
	Where string `json:"where"`
}

// LibraryTrack is a track of the union with where it is.
type LibraryTrack struct {
	library.Track
	Place
}

// Library returns the union of the group's libraries: every track of this
// device's library (one per file), then, merged in catalog order, every
// track only other devices have (one per content id), each with its place.
func (a *App) Library() ([]LibraryTrack, error) {
	local, err := a.store.Tracks()
	if err != nil {
		return nil, err
	}
	var remote []grouplib.Track
	if a.gl != nil {
		remote = a.gl.Tracks()
	}
	return a.union(local, remote), nil
}

// SearchLibrary finds tracks of the union as Search does, at most limit.
func (a *App) SearchLibrary(query string, limit int) ([]LibraryTrack, error) {
	local, err := a.store.Search(query, limit)
	if err != nil {
		return nil, err
	}
	var remote []grouplib.Track
	if a.gl != nil {
		remote = a.gl.Search(query, limit+len(local))
	}
	out := a.union(local, remote)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// union merges local and remote tracks in catalog order, leaving out the
// remote ones this device has a file for.
func (a *App) union(local []library.Track, remote []grouplib.Track) []LibraryTrack {
	names := a.deviceNames()
	self := a.tr.ID()
	have := make(map[string]bool, len(local))
	for _, t := range local {
		have[t.ContentID] = true
	}
	out := make([]LibraryTrack, 0, len(local)+len(remote))
	for _, t := range local {
		out = append(out, a.localTrack(t, self, names))
	}
	var rest []LibraryTrack
	for _, r := range remote {
		if !have[r.ContentID] {
			rest = append(rest, remoteTrack(r, self, names))
		}
	}
	return mergeByCatalog(out, rest, func(t LibraryTrack) library.Track { return t.Track })
}

// mergeByCatalog merges local and rest, each in catalog order, into one
// in catalog order, local first among equals. It returns local itself
// when rest is empty.
func mergeByCatalog[T any](local, rest []T, track func(T) library.Track) []T {
	if len(rest) == 0 {
		return local
	}
	merged := make([]T, 0, len(local)+len(rest))
	i, j := 0, 0
	for i < len(local) || j < len(rest) {
		if j == len(rest) || i < len(local) && !library.Less(track(rest[j]), track(local[i])) {
			merged = append(merged, local[i])
			i++
		} else {
			merged = append(merged, rest[j])
			j++
		}
	}
	return merged
}

// eachMerged is mergeByCatalog as the store reads its tracks: fn gets
// each of them (made a T by local) with rest, in catalog order, merged
// in where they sort, one at a time. An error of fn stops it and is
// returned.
func eachMerged[T any](s Store, rest []T, track func(T) library.Track, local func(library.Track) T, fn func(T) error) error {
	j := 0
	err := s.EachTrack(0, -1, func(t library.Track) error {
		for ; j < len(rest) && library.Less(track(rest[j]), t); j++ {
			if err := fn(rest[j]); err != nil {
				return err
			}
		}
		return fn(local(t))
	})
	for ; err == nil && j < len(rest); j++ {
		err = fn(rest[j])
	}
	return err
}

// EachLibraryTrack calls fn with the tracks of the union in Library's
// order, from offset, at most limit of them (limit < 0: all), one at a
// time: this device's tracks as the database reads them
// (storage.EachTrack), the tracks only other devices have merged in
// where they sort. Neither the catalog nor the union is held whole. An
// error of fn stops it and is returned.
func (a *App) EachLibraryTrack(offset, limit int, fn func(LibraryTrack) error) error {
	if limit == 0 {
		return nil
	}
	names := a.deviceNames()
	self := a.tr.ID()
	rest, err := a.remoteOnly(self, names)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return a.store.EachTrack(offset, limit, func(t library.Track) error { return fn(a.localTrack(t, self, names)) })
	}
	// The window of the merged order: the local tracks before offset are
	// read and passed over.
	offset = max(offset, 0)
	seen, sent := 0, 0
	emit := func(t LibraryTrack) error {
		if seen++; seen <= offset {
			return nil
		}
		if limit >= 0 && sent == limit {
			return errEnough
		}
		sent++
		return fn(t)
	}
	err = eachMerged(a.store, rest, func(t LibraryTrack) library.Track { return t.Track },
		func(t library.Track) LibraryTrack { return a.localTrack(t, self, names) }, emit)
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}

// errEnough stops EachLibraryTrack's reading once limit tracks went out.
var errEnough = errors.New("app: enough tracks")

// remoteOnly is the tracks of the union only other devices have, in
// catalog order, with their places (remoteOnlyGroup).
func (a *App) remoteOnly(self engine.DeviceID, names map[engine.DeviceID]string) ([]LibraryTrack, error) {
	rs, err := a.remoteOnlyGroup()
	if err != nil {
		return nil, err
	}
	out := make([]LibraryTrack, 0, len(rs))
	for _, r := range rs {
		out = append(out, remoteTrack(r, self, names))
	}
	return out, nil
}

// remoteOnlyTracks is remoteOnly's tracks without their places.
func (a *App) remoteOnlyTracks() ([]library.Track, error) {
	rs, err := a.remoteOnlyGroup()
	if err != nil {
		return nil, err
	}
	out := make([]library.Track, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Entry.Track())
	}
	return out, nil
}

// remoteOnlyGroup is the tracks of the group library this device has no
// file for, in catalog order (looked up by their content ids, not by
// reading the catalog).
func (a *App) remoteOnlyGroup() ([]grouplib.Track, error) {
	if a.gl == nil {
		return nil, nil
	}
	remote := a.gl.Tracks()
	if len(remote) == 0 {
		return nil, nil
	}
	ids := make([]string, len(remote))
	for i, r := range remote {
		ids[i] = r.ContentID
	}
	have, err := a.store.TracksByContentIDs(ids)
	if err != nil {
		return nil, err
	}
	var rest []grouplib.Track
	for _, r := range remote {
		if _, ok := have[r.ContentID]; !ok {
			rest = append(rest, r)
		}
	}
	return rest, nil
}

// localTrack is t, a file of this device, with its place: here, and on
// the other devices whose libraries have it too.
func (a *App) localTrack(t library.Track, self engine.DeviceID, names map[engine.DeviceID]string) LibraryTrack {
	p := Place{Local: true, Playable: true, Holders: []engine.DeviceID{self}}
	if a.gl != nil {
		loc := a.gl.Locate(t.ContentID)
		p.Holders = append(p.Holders, loc.Holders...)
		slices.Sort(p.Holders)
		p.Cached = loc.Cached
	}
	p.Where = where(p, self, names)
	return LibraryTrack{Track: t, Place: p}
}

// remoteTrack is r, a track only other devices have, with its place.
func remoteTrack(r grouplib.Track, self engine.DeviceID, names map[engine.DeviceID]string) LibraryTrack {
	return LibraryTrack{Track: r.Entry.Track(), Place: remotePlace(r, self, names)}
}

// remotePlace is where r, a track only other devices have, is.
func remotePlace(r grouplib.Track, self engine.DeviceID, names map[engine.DeviceID]string) Place {
	p := Place{Holders: r.Holders, Cached: r.Cached, Playable: r.Online || r.Cached}
	p.Where = where(p, self, names)
	return p
}

// where says a place in words.
func where(p Place, self engine.DeviceID, names map[engine.DeviceID]string) string {
	if p.Local {
		return "This device"
	}
	var others []string
	for _, h := range p.Holders {
		if h != self {
			others = append(others, names[h])
		}
	}
	s := "Elsewhere"
	switch len(others) {
	case 0:
	case 1:
		s = "On " + others[0]
	default:
		s = "On " + strings.Join(others[:len(others)-1], ", ") + " and " + others[len(others)-1]
	}
	switch {
	case !p.Playable:
		s += " (not online)"
	case p.Cached:
		s += " (saved here)"
	}
	return s
}

// deviceNames maps the group's devices to their names.
func (a *App) deviceNames() map[engine.DeviceID]string {
	names := map[engine.DeviceID]string{}
	for _, d := range a.Status().Devices {
		names[d.DeviceID] = d.Name
		if d.Name == "" {
			names[d.DeviceID] = string(d.DeviceID)
		}
	}
	return names
}

// Places returns where each track only other devices have is, by content
// id (the window greys out the ones that cannot play now). Tracks with a
// file here are in none of it: they are on this device.
func (a *App) Places() (map[string]Place, error) {
	rest, err := a.remoteOnly(a.tr.ID(), a.deviceNames())
	if err != nil {
		return nil, err
	}
	out := make(map[string]Place, len(rest))
	for _, t := range rest {
		out[t.ContentID] = t.Place
	}
	return out, nil
}

// remoteCover returns the cover of a track another device holds.
func (a *App) remoteCover(contentID string) ([]byte, error) {
	if a.gl == nil {
		return nil, ErrNoCover
	}
	b, err := a.gl.Cover(context.Background(), contentID)
	if errors.Is(err, grouplib.ErrNoCover) {
		return nil, ErrNoCover
	}
	return b, err
}

// CacheStatus is the cache of tracks fetched from other devices.
type CacheStatus struct {
	grouplib.CacheUsage
	LimitMB int64 `json:"limit_mb"`
}

// settingCacheMB and settingUploadKBps are the settings keys of the
// cache's size limit and of the upload rate limit.
const (
	settingCacheMB    = "grouplib.cache_mb"
	settingUploadKBps = "grouplib.upload_kbps"
)

// Cache reports the cache of tracks fetched from other devices.
func (a *App) Cache() (CacheStatus, error) {
	if a.gl == nil {
		return CacheStatus{}, ErrNoGroupLibrary
	}
	u := a.gl.CacheUsage()
	return CacheStatus{CacheUsage: u, LimitMB: u.Limit >> 20}, nil
}

// ErrNoGroupLibrary is returned by the cache and sharing settings on a
// device that does not share its library (no transport).
var ErrNoGroupLibrary = errors.New("app: this device does not share libraries")

// SetCacheLimit sets the cache's size limit in megabytes and keeps it.
func (a *App) SetCacheLimit(mb int64) error {
	if a.gl == nil {
		return ErrNoGroupLibrary
	}
	if err := grouplib.ValidateCacheLimit(mb << 20); err != nil || mb > 1<<30 {
		return userErr(ErrBadArgument, "the cache limit must be at least %d MB, not %d", grouplib.MinCacheLimit>>20, mb)
	}
	if err := a.gl.SetCacheLimit(mb << 20); err != nil {
		return err
	}
	return a.store.SetSetting(settingCacheMB, fmt.Sprint(mb))
}

// ClearCache removes the cached tracks but for the one playing and the
// next.
func (a *App) ClearCache() error {
	if a.gl == nil {
		return ErrNoGroupLibrary
	}
	a.gl.ClearCache()
	return nil
}

// UploadLimit returns the limit of what this device sends to the others,
// in kilobytes per second (0: none).
func (a *App) UploadLimit() int64 {
	v, ok, err := a.store.Setting(settingUploadKBps)
	var n int64
	if err == nil && ok {
		_, _ = fmt.Sscan(v, &n)
	}
	return n
}

// SetUploadLimit limits what this device sends to the others, in
// kilobytes per second (0: no limit), and keeps it.
func (a *App) SetUploadLimit(kbps int64) error {
	if a.gl == nil {
		return ErrNoGroupLibrary
	}
	if kbps < 0 || kbps > 1<<30 {
		return userErr(ErrBadArgument, "the upload limit is a number of KB/s, 0 for none, not %d", kbps)
	}
	if err := a.gl.SetUploadRate(kbps << 10); err != nil {
		return err
	}
	return a.store.SetSetting(settingUploadKBps, fmt.Sprint(kbps))
}

// GroupLibrarySettings reads the stored cache and upload limits, for the
// caller that builds the group library (0: the defaults).
func GroupLibrarySettings(s Store) (cacheBytes, uploadBps int64) {
	read := func(key string) int64 {
		var n int64
		if v, ok, err := s.Setting(key); err == nil && ok {
			_, _ = fmt.Sscan(v, &n)
		}
		return max(n, 0)
	}
	if mb := read(settingCacheMB); mb > 0 && grouplib.ValidateCacheLimit(mb<<20) == nil {
		cacheBytes = mb << 20
	}
	return cacheBytes, read(settingUploadKBps) << 10
}
