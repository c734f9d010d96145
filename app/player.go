package app

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/storage"
)

// MaxQueue bounds the shared queue (storage's own limit).
const MaxQueue = storage.MaxQueueItems

// Entry is one track of the shared queue as it travels between devices:
// its content id and display metadata, never a local path.
type Entry struct {
	ContentID  string   `json:"content_id"`
	Title      string   `json:"title"`
	Artists    []string `json:"artists,omitempty"`
	Album      string   `json:"album,omitempty"`
	DurationMS int64    `json:"duration_ms"`
}

// name is how notices call the entry: its title, else its content id.
func (e Entry) name() string {
	if e.Title != "" {
		return e.Title
	}
	return e.ContentID
}

// EntryOf turns a catalog track into a queue entry.
func EntryOf(t library.Track) Entry {
	return Entry{ContentID: t.ContentID, Title: t.Title, Artists: t.Artists, Album: t.Album,
		DurationMS: t.Duration.Milliseconds()}
}

// PlayerState is the shared queue and transport: the snapshot state the
// owner distributes. Every other device shows the owner's.
type PlayerState struct {
	Queue      []Entry `json:"queue"`
	Index      int     `json:"index"`
	PositionMS int64   `json:"position_ms"`
	Playing    bool    `json:"playing"`
	Volume     int     `json:"volume"`
	Shuffle    bool    `json:"shuffle"`
	Repeat     string  `json:"repeat"`
	// Acks are the last command sequences the owner applied, per sender,
	// in the current term (at most engine.MaxSendersPerTerm entries), so a
	// controller knows when a snapshot reflects its command.
	Acks map[engine.DeviceID]uint64 `json:"acks,omitempty"`
	// Term is the claim under which the owner published this state.
	Term engine.Claim `json:"term"`
	// Seed generates the shuffled play order; Order is that order (a
	// permutation of the queue's indexes, the current track first when
	// shuffle was turned on) while Shuffle is on, and empty otherwise.
	// Both travel in the snapshot and are persisted in the storage
	// transport, so every device and a restart follow the same order.
	Seed  uint64 `json:"seed,omitempty"`
	Order []int  `json:"order,omitempty"`
	// Notice is the owner's latest message about the shared playback
	// ("Living room has no file for ...: paused"), so every device tells
	// its user, not only the owner. The next control clears it.
	Notice *SharedNotice `json:"notice,omitempty"`
	// Jumps counts the seeks and track changes made by controls, so a
	// controller tells a position the owner moved back on purpose from
	// one that only lags what it extrapolated (its output started a
	// little late or stalled).
	Jumps uint64 `json:"jumps,omitempty"`
	// Box says the sender runs without a window (an always-on box), for
	// the other devices' lists; presentation only, set at each publish.
	Box bool `json:"box,omitempty"`
	// Closing is set in the last snapshot of an owner that shuts down:
	// every device shows the music stopped where it was (the exact
	// position), while Playing keeps the intent for the device that
	// takes over.
	Closing bool `json:"closing,omitempty"`
	// Resuming is set by an owner that restarted and has not resumed
	// yet: it is learning the newest state from the group (its own last
	// snapshot, kept by the others), so its state is not to be shown.
	Resuming bool `json:"resuming,omitempty"`
}

// SharedNotice is a notice the owner distributes in its snapshot. ID
// tells a new one from one already shown.
type SharedNotice struct {
	ID   uint64 `json:"id"`
	Text string `json:"text"`
}

// maxSharedNotice bounds the text of a notice received from a peer.
const maxSharedNotice = 1024

func defaultState() PlayerState {
	return PlayerState{Volume: 100, Repeat: "off"}
}

func (s PlayerState) clone() PlayerState {
	s.Queue = slices.Clone(s.Queue)
	s.Acks = maps.Clone(s.Acks)
	s.Order = slices.Clone(s.Order)
	if s.Notice != nil {
		n := *s.Notice
		s.Notice = &n
	}
	return s
}

func (s PlayerState) current() (Entry, bool) {
	if s.Index < 0 || s.Index >= len(s.Queue) {
		return Entry{}, false
	}
	return s.Queue[s.Index], true
}

// validate checks a state received from a peer before it is adopted.
func (s PlayerState) validate() error {
	switch {
	case len(s.Queue) > MaxQueue:
		return fmt.Errorf("app: queue of %d tracks exceeds %d", len(s.Queue), MaxQueue)
	case len(s.Queue) == 0 && s.Index != 0, len(s.Queue) > 0 && (s.Index < 0 || s.Index >= len(s.Queue)):
		return fmt.Errorf("app: queue index %d out of range", s.Index)
	case s.Volume < 0 || s.Volume > 100:
		return fmt.Errorf("app: volume %d out of range", s.Volume)
	case s.Repeat != "off" && s.Repeat != "all" && s.Repeat != "one":
		return fmt.Errorf("app: repeat %q", s.Repeat)
	case s.PositionMS < 0:
		return fmt.Errorf("app: negative position")
	case len(s.Acks) > engine.MaxSendersPerTerm:
		return fmt.Errorf("app: too many acks")
	case s.Notice != nil && len(s.Notice.Text) > maxSharedNotice:
		return fmt.Errorf("app: notice too long")
	}
	for _, e := range s.Queue {
		if e.ContentID == "" || len(e.ContentID) > storage.MaxContentIDBytes {
			return fmt.Errorf("app: bad content id in queue")
		}
	}
	if !s.Shuffle && len(s.Order) > 0 || s.Shuffle && !isPermutation(s.Order, len(s.Queue)) {
		return fmt.Errorf("app: shuffled order does not fit the queue")
	}
	return nil
}

// Control is the body of a stamped playback command and of local intents.
type Control struct {
	Op      string       `json:"op"`
	Entries []Entry      `json:"entries,omitempty"`
	Index   int          `json:"index,omitempty"`
	Next    bool         `json:"next,omitempty"`
	PosMS   int64        `json:"pos_ms,omitempty"`
	Volume  int          `json:"volume,omitempty"`
	On      bool         `json:"on,omitempty"`
	Repeat  string       `json:"repeat,omitempty"`
	Seed    uint64       `json:"seed,omitempty"`  // shuffle on: the seed of the new order
	State   *PlayerState `json:"state,omitempty"` // handoff: the transport to resume
	// Indexes are the queue entries a move or a removal acts on, and IDs
	// their content ids (optional): the owner refuses the edit when the
	// entries are not those any more (ErrQueueChanged).
	Indexes []int    `json:"indexes,omitempty"`
	IDs     []string `json:"ids,omitempty"`
	// Order is the play order of a restored queue (OpRestore), as
	// PlayerState.Order.
	Order []int `json:"order,omitempty"`
}

// Control operations.
const (
	OpPlayTracks = "play_tracks"
	OpEnqueue    = "enqueue"
	OpJump       = "jump"
	OpRemove     = "remove"
	OpClear      = "clear"
	OpPause      = "pause"
	OpResume     = "resume"
	OpToggle     = "toggle"
	OpNext       = "next"
	OpPrev       = "prev"
	OpSeek       = "seek"
	OpVolume     = "volume"
	OpShuffle    = "shuffle"
	OpRepeat     = "repeat"
	OpHandoff    = "handoff"
	// OpMove moves the entries at Indexes to place Index of the play
	// order; OpRestore puts back a saved queue (Entries, Order, Index,
	// PosMS, On: playing), the undo of a removal or a clear.
	OpMove    = "move"
	OpRestore = "restore"
)

// change says what an applied control changed, so the actor knows which
// audio effect to run.
type change struct {
	track   bool // current track (or its start) changed: play it from PositionMS
	seek    bool // same track, new position
	pause   bool
	resume  bool
	volume  bool
	stopped bool // queue empty or played out
	// reindex maps the queue's old indexes to new ones (-1: removed) when
	// an edit moved entries, so the output's track keeps playing.
	reindex []int
}

// apply changes s by c. It validates everything against bounds and never
// panics on peer input. pos is the current (measured or extrapolated)
// position, used when pausing. A change of track or position counts as a
// jump (Jumps).
func (s *PlayerState) apply(c Control, pos int64) (change, error) {
	ch, err := s.applyOp(c, pos)
	if err == nil && (ch.seek || ch.track) {
		s.Jumps++
	}
	return ch, err
}

func (s *PlayerState) applyOp(c Control, pos int64) (change, error) {
	var ch change
	s.Notice = nil // a control answers (or outdates) the owner's last notice
	switch c.Op {
	case OpPlayTracks:
		if len(c.Entries) == 0 {
			return ch, fmt.Errorf("app: nothing to play")
		}
		if len(c.Entries) > MaxQueue {
			return ch, fmt.Errorf("app: at most %d tracks in the queue", MaxQueue)
		}
		if c.Index < 0 || c.Index >= len(c.Entries) {
			return ch, userErr(ErrQueueIndex, "start index %d is out of range (0 to %d)", c.Index, len(c.Entries)-1)
		}
		s.Queue = slices.Clone(c.Entries)
		s.Index, s.PositionMS, s.Playing = c.Index, 0, true
		s.reshuffle()
		ch.track = true
	case OpEnqueue:
		if len(c.Entries) == 0 {
			return ch, fmt.Errorf("app: nothing to enqueue")
		}
		if len(s.Queue)+len(c.Entries) > MaxQueue {
			return ch, fmt.Errorf("app: at most %d tracks in the queue", MaxQueue)
		}
		if c.Next && len(s.Queue) > 0 {
			s.Queue = slices.Insert(s.Queue, s.Index+1, c.Entries...)
			s.orderInsert(s.Index+1, len(c.Entries), true)
		} else {
			s.orderInsert(len(s.Queue), len(c.Entries), false)
			s.Queue = append(s.Queue, c.Entries...)
		}
	case OpJump:
		if err := s.checkIndex(c.Index); err != nil {
			return ch, err
		}
		s.Index, s.PositionMS, s.Playing = c.Index, 0, true
		ch.track = true
	case OpRemove:
		idx := c.Indexes
		if len(idx) == 0 {
			idx = []int{c.Index}
		}
		if err := s.checkIndexes(idx, c.IDs); err != nil {
			return ch, err
		}
		ch = s.removeMany(idx)
	case OpMove:
		if err := s.checkIndexes(c.Indexes, c.IDs); err != nil {
			return ch, err
		}
		ch.reindex = s.move(c.Indexes, c.Index)
	case OpRestore:
		return s.restore(c)
	case OpClear:
		s.Queue, s.Index, s.PositionMS, s.Playing, s.Order = nil, 0, 0, false, nil
		ch.stopped = true
	case OpPause:
		if s.Playing {
			s.Playing, s.PositionMS = false, pos
			ch.pause = true
		}
	case OpResume:
		if len(s.Queue) == 0 {
			return ch, userErr(ErrQueueEmpty, "the queue is empty")
		}
		if !s.Playing {
			s.Playing = true
			ch.resume = true
		}
	case OpToggle:
		if s.Playing {
			c.Op = OpPause
		} else {
			c.Op = OpResume
		}
		return s.applyOp(c, pos)
	case OpNext, OpPrev:
		if len(s.Queue) == 0 {
			return ch, userErr(ErrQueueEmpty, "the queue is empty")
		}
		if c.Op == OpPrev && pos > 3000 {
			s.PositionMS = 0 // like every player: back to the start first
		} else if c.Op == OpNext {
			// Next skips even with repeat one; at the end of the play
			// order it stops unless repeat is all.
			i, ok := s.after()
			if !ok {
				s.PositionMS, s.Playing = 0, false
				ch.stopped = true
				return ch, nil
			}
			s.moveTo(i)
		} else if i, ok := s.before(); ok {
			s.Index = i
		}
		s.PositionMS = 0
		ch.track = true
	case OpSeek:
		if len(s.Queue) == 0 {
			return ch, userErr(ErrQueueEmpty, "the queue is empty: nothing to seek in")
		}
		p := max(c.PosMS, 0)
		if e, ok := s.current(); ok && e.DurationMS > 0 && p > e.DurationMS {
			// Refused, not clamped: seeking to the end would end the
			// track (and a played-out queue) by a typing mistake.
			return ch, userErr(ErrSeekRange, "%s is past the end of %q (%s long)", clock(p), e.name(), clock(e.DurationMS))
		}
		s.PositionMS = p
		ch.seek = true
	case OpVolume:
		if c.Volume < 0 || c.Volume > 100 {
			return ch, userErr(ErrBadArgument, "volume must be a whole number from 0 to 100, not %d", c.Volume)
		}
		s.Volume = c.Volume
		ch.volume = true
	case OpShuffle:
		// The current track keeps playing; only what follows changes.
		if c.On == s.Shuffle {
			break
		}
		s.Shuffle = c.On
		if c.Seed != 0 {
			s.Seed = c.Seed
		}
		s.reshuffle()
	case OpRepeat:
		if c.Repeat != "off" && c.Repeat != "all" && c.Repeat != "one" {
			return ch, userErr(ErrBadArgument, "repeat must be off, all or one, not %q", c.Repeat)
		}
		s.Repeat = c.Repeat
	case OpHandoff:
		if c.State == nil {
			return ch, fmt.Errorf("app: handoff without state")
		}
		st := c.State.clone()
		st.normalize()
		if err := st.validate(); err != nil {
			return ch, err
		}
		acks, term := s.Acks, s.Term
		*s = st
		s.Acks, s.Term, s.Notice, s.Closing = acks, term, nil, false
		ch.track = true
	default:
		return ch, fmt.Errorf("app: unknown control %q", c.Op)
	}
	return ch, nil
}

// checkIndex refuses a queue index out of range; indexes count from 0,
// as in Status.Index and `furudesk ctl queue`.
func (s PlayerState) checkIndex(i int) error {
	switch {
	case len(s.Queue) == 0:
		return userErr(ErrQueueEmpty, "the queue is empty")
	case i < 0 || i >= len(s.Queue):
		return userErr(ErrQueueIndex, "the queue has no index %d (its indexes are 0 to %d)", i, len(s.Queue)-1)
	}
	return nil
}

// advance moves to the track after a finished one following the repeat
// mode; false when the queue played out.
func (s *PlayerState) advance() bool {
	s.PositionMS = 0
	if i, ok := s.following(); ok {
		if s.Repeat != "one" {
			s.moveTo(i)
		}
		return true
	}
	s.Playing = false
	return false
}

// normalize repairs a state whose shuffled order does not fit its queue
// (an older peer, a damaged record): the order is generated again.
func (s *PlayerState) normalize() {
	if !s.Shuffle {
		s.Order = nil
		return
	}
	if !isPermutation(s.Order, len(s.Queue)) {
		s.Order = shuffledOrder(s.Seed, len(s.Queue), s.Index)
	}
}

// itemMeta is the display metadata of a stored queue item.
type itemMeta struct {
	Entry
}

// legacyOrderMeta is how builds before the transport's shuffle columns
// kept the shuffled order: each item's place in it, and the seed on the
// first item. It is only read, to resume such a queue in the same order.
type legacyOrderMeta struct {
	Rank *int   `json:"shuffle_rank"`
	Seed uint64 `json:"shuffle_seed"`
}

// durable is the storage form of s. The shuffled order is stored as it
// is, not only its seed: "play next" and appended tracks change it in ways
// the seed does not record.
func (s PlayerState) durable() storage.QueueState {
	q := storage.QueueState{Items: make([]storage.QueueItem, 0, len(s.Queue))}
	for _, e := range s.Queue {
		meta, _ := json.Marshal(itemMeta{Entry: Entry{Title: e.Title, Artists: e.Artists, Album: e.Album, DurationMS: e.DurationMS}})
		q.Items = append(q.Items, storage.QueueItem{ContentID: e.ContentID, Meta: meta})
	}
	q.Transport = storage.Transport{Index: s.Index, PositionMS: s.PositionMS, Playing: s.Playing,
		Volume: s.Volume, Shuffle: s.Shuffle, Repeat: storage.Repeat(s.Repeat), ShuffleSeed: s.Seed}
	if s.Shuffle && isPermutation(s.Order, len(s.Queue)) {
		q.ShuffleOrder = slices.Clone(s.Order) // s.Order is edited in place
	}
	return q
}

// stateFromDurable restores the state a previous launch persisted: the
// stored order, or one generated again from the seed and the queue when
// none fits (normalize).
func stateFromDurable(q storage.QueueState) PlayerState {
	s := PlayerState{Index: q.Index, PositionMS: q.PositionMS, Playing: q.Playing, Volume: q.Volume,
		Shuffle: q.Shuffle, Repeat: string(q.Repeat), Seed: q.ShuffleSeed, Order: slices.Clone(q.ShuffleOrder)}
	for _, it := range q.Items {
		var m itemMeta
		_ = json.Unmarshal(it.Meta, &m) // display only: a bad meta shows the id
		e := m.Entry
		e.ContentID = it.ContentID
		s.Queue = append(s.Queue, e)
	}
	if s.Shuffle && s.Seed == 0 && len(s.Order) == 0 {
		s.Seed, s.Order = legacyOrder(q.Items)
	}
	if s.Repeat == "" {
		s.Repeat = "off"
	}
	s.normalize()
	if s.validate() != nil {
		return defaultState()
	}
	return s
}

// legacyOrder reads the seed and order an older build kept in the items'
// metadata; a nil order when they are missing or damaged.
func legacyOrder(items []storage.QueueItem) (uint64, []int) {
	var seed uint64
	order := make([]int, len(items))
	for i, it := range items {
		var m legacyOrderMeta
		if json.Unmarshal(it.Meta, &m) != nil || m.Rank == nil || *m.Rank < 0 || *m.Rank >= len(items) {
			return seed, nil
		}
		if i == 0 {
			seed = m.Seed
		}
		order[*m.Rank] = i
	}
	return seed, order
}

// extrapolate is the position now of a state that was at PositionMS
// `since` ago.
func (s PlayerState) extrapolate(since time.Duration) int64 {
	p := s.PositionMS
	if s.Playing && since > 0 {
		p += since.Milliseconds()
	}
	if e, ok := s.current(); ok && e.DurationMS > 0 {
		p = min(p, e.DurationMS)
	}
	return p
}
