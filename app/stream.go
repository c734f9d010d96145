package app

// Playing tracks this device has no file for: from the cache, or fetched
// from the online devices that hold them while they play (package
// grouplib). The actor resolves every queue entry it plays or prepares
// here, keeps the playing and the next track pinned (never evicted from
// the cache, their downloads never cut), and follows a holder that goes
// away: another one takes over inside grouplib; with none left the track
// plays what arrived and then pauses with a notice naming the device.

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/grouplib"
)

// Sources of the track playing (Status.Source).
const (
	SourceLocal  = "local"
	SourceStream = "stream"
	SourceCache  = "cache"
)

// streamState is the actor's part in playing tracks of other devices.
type streamState struct {
	curSource  string // SourceLocal, SourceCache or SourceStream
	nextSource string // the same for the prepared track
	// places moves on when the holders' reachability or the cache
	// changed (Status.PlacesVersion).
	places uint64
	// retried counts the restarts of the current track after its holder
	// went, with retriedAt when the first of them was: a track that keeps
	// failing pauses instead of restarting forever.
	retried   int
	retriedAt time.Duration
	pinned    [2]string
	libSeen   uint64 // the library version the group library was told of
}

// maxRetries bounds the restarts of one track after lost holders within
// retryWindow.
const (
	maxRetries  = 2
	retryWindow = time.Minute
)

// canPlay reports whether this device can play a track: its own file, a
// cached copy, or an online device that holds it.
func (a *actor) canPlay(contentID string) bool {
	if _, err := a.store.TrackByContentID(contentID); err == nil {
		return true
	}
	return a.app.gl != nil && a.app.gl.Locate(contentID).Reachable()
}

// sourceFor resolves queue entry idx of st to what the output plays: this
// device's file, else the group library's cached copy or stream. ok is
// false when it can play none of them.
func (a *actor) sourceFor(st PlayerState, idx int) (src audio.Source, kind string, ok bool) {
	id := st.Queue[idx].ContentID
	if t, err := a.store.TrackByContentID(id); err == nil {
		return a.source(st, idx, t), SourceLocal, true
	}
	gl := a.app.gl
	if gl == nil {
		return audio.Source{}, "", false
	}
	loc := gl.Locate(id)
	if !loc.Reachable() {
		return audio.Source{}, "", false
	}
	src = audio.Source{ID: id, Name: "track", Open: func() (io.ReadSeekCloser, error) {
		r, _, err := gl.Open(id)
		return r, err
	}}
	if e, ok := gl.Entry(id); ok {
		src.Name += grouplib.Ext(e.Format) // the decoder's fallback when it cannot tell the format
		src.GainDB = e.Gain.DB(a.rg.mode, inAlbum(st, idx))
	}
	kind = SourceStream
	if loc.Cached {
		kind = SourceCache
	}
	return src, kind, true
}

// pinPlaying keeps the playing and the prepared track in the cache and
// their downloads going, and fetches the next one ahead when it is not
// here, so the change of track stays gapless.
func (a *actor) pinPlaying() {
	gl := a.app.gl
	if gl == nil {
		return
	}
	want := [2]string{a.curCID, a.nextCID}
	if want == a.strm.pinned {
		return
	}
	a.strm.pinned = want
	gl.Pin(want[0], want[1])
	if id := a.nextCID; id != "" && !a.hasFile(id) {
		gl.Prefetch(id)
	}
}

// streamLost follows the current track's decode error when its bytes
// stopped coming (the holder went and no other online device has that
// file): it restarts the track from where it stopped when another device
// has another copy of it, else it pauses there with a notice naming the
// track and the device. It reports whether it handled the error.
func (a *actor) streamLost(err error) bool {
	if a.strm.curSource == SourceLocal || !lostStream(err) {
		return false
	}
	e, ok := a.st.Current()
	if !ok {
		return false
	}
	now := a.clock.Now()
	if now-a.strm.retriedAt > retryWindow {
		a.strm.retried, a.strm.retriedAt = 0, now
	}
	var ue *grouplib.UnavailableError
	from := "the device it came from"
	if errors.As(err, &ue) && ue.Device != "" {
		from = a.deviceName(ue.Device)
	}
	if a.canPlay(e.ContentID) && a.strm.retried < maxRetries {
		a.strm.retried++
		a.log.Info("stream: the holder went, playing on from another copy", "track", e.ContentID, "from", from)
		_ = a.run(func(tx *txn) error {
			if !a.e.MayRender() {
				return nil
			}
			a.anchor()
			a.cur = audio.Track{} // gone: play the entry again from the position
			tx.ch.Track = true
			return nil
		})
		return true
	}
	_ = a.run(func(tx *txn) error {
		if !a.e.MayRender() {
			return nil
		}
		a.anchor()
		a.st.Playing = false
		tx.ch.Stopped, tx.persistPos = true, true
		text := fmt.Sprintf("%q paused: %s, which has it, went offline, and no other online device has it", e.Name(), from)
		if errors.Is(err, grouplib.ErrStalled) {
			text = fmt.Sprintf("%q paused: %s stopped sending it", e.Name(), from)
		}
		a.shareNotice(tx, text, true)
		return nil
	})
	return true
}

// lostStream reports a decode error that says a track's bytes stopped
// coming, not that they are damaged.
func lostStream(err error) bool {
	return errors.Is(err, grouplib.ErrUnavailable) || errors.Is(err, grouplib.ErrStalled)
}

// statusSource is what Status says about where the current track plays
// from on this device: local, cache or stream (with the holder).
func (a *actor) statusSource(s *Status) {
	if !a.rendering || a.cur.Seq == 0 || a.curCID == "" {
		return
	}
	s.Source = a.strm.curSource
	gl := a.app.gl
	if s.Source == SourceLocal || gl == nil {
		return
	}
	if h, fetching := gl.Streaming(a.curCID); fetching {
		s.Source, s.Holder = SourceStream, h
	} else if gl.Locate(a.curCID).Cached {
		s.Source = SourceCache
	}
	if s.Holder != "" {
		s.HolderName = a.deviceName(s.Holder)
	}
}

// noteLibrary tells the group library that this device's library changed,
// so it publishes its catalog again (after its delay).
func (a *actor) noteLibrary() {
	if a.app.gl != nil && a.libRun.version != a.strm.libSeen {
		a.strm.libSeen = a.libRun.version
		a.app.gl.LocalChanged()
	}
}

// scanBatchListed follows the LibraryVersion a running scan's stored
// batch just made: the window lists the batch, the group library is told
// once the scan is done (scanDone makes a version of its own), not every
// few seconds, each publication reading and signing the whole catalog.
// A change it was not told of yet is still told.
func (a *actor) scanBatchListed() {
	if a.strm.libSeen == a.libRun.version-1 {
		a.strm.libSeen = a.libRun.version
	}
}
