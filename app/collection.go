package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/playlists"
)

// OpLog is the group's operation log as playlists, likes and listening
// history need it. *devicesync.Node implements it. Its methods are safe
// from any goroutine.
type OpLog interface {
	AppendOp(kind string, body json.RawMessage) (devicesync.Op, error)
	AppOps() (group string, ops []devicesync.Op)
	ForgetOps(ids []string) ([]string, error)
}

var _ OpLog = (*devicesync.Node)(nil)

// Errors of the playlist methods a user can act on.
var (
	ErrNoPlaylist  = errors.New("app: no such playlist")
	ErrSmartList   = errors.New("app: a smart list cannot be edited")
	ErrNoPlaylists = errors.New("app: playlists are not available on this device")
)

// Timings of the collection's upkeep.
const (
	// maintainEvery is how often the collection forgets obsolete ops and
	// re-reads the log (which also recovers events the transport dropped).
	maintainEvery = 10 * time.Minute
	// forgetAtLeast is how many obsolete ops make forgetting worth a write.
	forgetAtLeast = 64
)

// collection holds the group's playlists, likes and play counts: the merge
// of the log's ops (package playlists). Its own goroutine (run) applies
// what the actor hands over without waiting (ops the transport added, a
// group change, a play to record), so the actor never waits on it; reads
// and edits come from any goroutine, mu orders them. Version and the liked
// set are published for the actor's Status without the lock.
type collection struct {
	log     OpLog
	store   Store
	self    string
	logger  *slog.Logger
	inbox   chan collectionMsg
	stopped chan struct{} // closed when run returns
	lost    atomic.Bool   // a message did not fit the inbox: re-read the log
	ver     atomic.Uint64
	liked   atomic.Pointer[map[string]bool]

	mu    sync.Mutex
	group string
	st    *playlists.State
	// switches makes the version move on at a group change, where the new
	// state starts counting from zero.
	switches uint64

	listen listenTracker // owned by the actor goroutine
}

// collectionMsg is one message of the collection's inbox.
type collectionMsg struct {
	ops    *devicesync.OpsAdded
	group  string          // follow this group
	left   []devicesync.Op // ops of a group left at startup: carry them over
	listen *Entry          // record a play of it
	done   chan struct{}
}

// collectionInbox bounds what waits for the collection goroutine; beyond
// it the goroutine re-reads the log instead.
const collectionInbox = 256

func newCollection(log OpLog, store Store, self string, logger *slog.Logger) *collection {
	c := &collection{log: log, store: store, self: self, logger: logger, st: playlists.New(),
		inbox: make(chan collectionMsg, collectionInbox), stopped: make(chan struct{})}
	c.group, _ = c.log.AppOps()
	c.replayLocked()
	c.publishLocked()
	return c
}

// post hands m to the collection goroutine without waiting; when the
// inbox is full the goroutine re-reads the log instead (a play to record
// is then lost: it is logged).
func (c *collection) post(m collectionMsg) {
	select {
	case c.inbox <- m:
	default:
		c.lost.Store(true)
		if m.listen != nil {
			c.logger.Warn("playlists: busy, a play was not recorded", "track", m.listen.ContentID)
		}
	}
}

// run is the collection goroutine: it applies the inbox, re-reads the log
// after lost messages and every maintainEvery forgets obsolete ops.
// changed is called after anything visible changed.
func (c *collection) run(quit <-chan struct{}, changed func()) {
	defer close(c.stopped)
	t := time.NewTicker(maintainEvery)
	defer t.Stop()
	for {
		select {
		case <-quit:
			return
		case <-t.C:
			c.maintain()
		case m := <-c.inbox:
			before := c.ver.Load()
			c.handle(m)
			if c.lost.Swap(false) {
				c.mu.Lock()
				c.replayLocked()
				c.publishLocked()
				c.mu.Unlock()
			}
			if m.done != nil {
				close(m.done)
			}
			if c.ver.Load() != before {
				changed()
			}
		}
	}
}

func (c *collection) handle(m collectionMsg) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.publishLocked()
	switch {
	case m.ops != nil:
		if m.ops.Group != c.group {
			c.replayLocked() // a group change whose event was lost
			return
		}
		c.st.Apply(toOps(m.ops.Ops)...)
	case m.group != "":
		if m.group != c.group {
			c.replayLocked()
		}
	case m.left != nil:
		old := playlists.New()
		old.Apply(toOps(m.left)...)
		c.carryLocked(old)
	case m.listen != nil:
		e := m.listen
		t := playlists.Track{ContentID: e.ContentID, Title: e.Title, Artists: e.Artists, Album: e.Album, DurationMS: e.DurationMS}
		ed, err := c.st.PlanListen(c.self, t)
		if err == nil {
			_, err = c.appendLocked([]playlists.Edit{ed})
		}
		if err != nil {
			c.logger.Warn("playlists: could not record a play", "track", e.ContentID, "err", err)
		}
	}
}

// publishLocked publishes the version and the liked set for readers that
// must not wait for mu (the actor's Status).
func (c *collection) publishLocked() {
	v := c.st.Version() + c.switches
	if c.ver.Load() == v && c.liked.Load() != nil {
		return
	}
	liked := map[string]bool{}
	for _, l := range c.st.Liked() {
		liked[l.Track.ContentID] = true
	}
	c.liked.Store(&liked)
	c.ver.Store(v)
}

func toOps(in []devicesync.Op) []playlists.Op {
	out := make([]playlists.Op, 0, len(in))
	for _, o := range in {
		if playlists.IsKind(o.Kind) {
			out = append(out, playlists.Op{ID: o.ID, Origin: string(o.Origin), Seq: o.Seq, HLCms: o.HLCms, Kind: o.Kind, Body: o.Body})
		}
	}
	return out
}

// replayLocked applies every op of the log (ops applied already change
// nothing); it follows the log into another group if it moved.
func (c *collection) replayLocked() {
	group, ops := c.log.AppOps()
	if group != c.group {
		c.switchLocked(group, ops)
		return
	}
	c.st.Apply(toOps(ops)...)
}

// switchLocked replaces the state with group's and carries over what the
// old group's state had that the new one lacks, so leaving or joining a
// group loses no playlist, like or play count of this device.
func (c *collection) switchLocked(group string, ops []devicesync.Op) {
	old := c.st
	c.switches += old.Version() + 1 // the version never goes back
	c.group, c.st = group, playlists.New()
	c.st.Apply(toOps(ops)...)
	c.carryLocked(old)
}

// carryLocked logs, in this device's name, what old (a group's state this
// device left) holds that the current state lacks.
func (c *collection) carryLocked(old *playlists.State) {
	carried := playlists.CarryOver(old, c.st, c.self)
	if _, err := c.appendLocked(carried); err != nil {
		c.logger.Warn("playlists: carrying into the new group", "err", err)
	}
	if len(carried) > 0 {
		c.logger.Info("playlists: carried into the new group", "ops", len(carried), "group", c.group)
	}
}

// appendLocked logs edits in order, applies each op the log returns, and
// returns them.
func (c *collection) appendLocked(edits []playlists.Edit) ([]devicesync.Op, error) {
	var ops []devicesync.Op
	for i, e := range edits {
		op, err := c.log.AppendOp(e.Kind, e.Body)
		if errors.Is(err, devicesync.ErrLogFull) {
			err = userErr(ErrBadArgument, "the group cannot take more changes: its log holds %d of them; deleting playlists you no longer need makes room", devicesync.MaxLogOps)
		}
		if err != nil {
			if i > 0 {
				return ops, fmt.Errorf("only %d of %d changes were saved: %w", i, len(edits), err)
			}
			return ops, err
		}
		c.st.Apply(toOps([]devicesync.Op{op})...)
		ops = append(ops, op)
	}
	return ops, nil
}

// Version changes whenever playlists, likes or play counts changed. It
// does not wait for the lock.
func (c *collection) Version() uint64 {
	if c == nil {
		return 0
	}
	return c.ver.Load()
}

// IsLiked reports whether the track is liked. It does not wait for the
// lock.
func (c *collection) IsLiked(cid string) bool {
	if c == nil {
		return false
	}
	m := c.liked.Load()
	return m != nil && (*m)[cid]
}

// maintain forgets the obsolete ops once enough gathered and re-reads the
// log, catching any OpsAdded the transport had to drop.
func (c *collection) maintain() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.replayLocked()
	c.publishLocked()
	obs := c.st.Obsolete()
	if len(obs) < forgetAtLeast {
		return
	}
	gone, err := c.log.ForgetOps(obs)
	if err != nil {
		c.logger.Warn("playlists: forget obsolete ops", "err", err)
		return
	}
	c.st.Forget(gone)
	c.logger.Info("playlists: forgot obsolete ops", "ops", len(gone))
}

// planErr turns a refused edit into the app's errors with the planner's
// sentence.
func planErr(err error) error {
	var pe *playlists.Error
	if !errors.As(err, &pe) {
		return err
	}
	if errors.Is(err, playlists.ErrNotFound) {
		return userErr(ErrNoPlaylist, "%s", pe.Text)
	}
	return userErr(ErrBadArgument, "%s", pe.Text)
}
