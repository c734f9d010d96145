package queue

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// Limits of what a state holds, whoever sent it: storage keeps the same
// (storage.MaxQueueItems, storage.MaxContentIDBytes; app checks they
// agree).
const (
	MaxQueue          = 20000
	MaxContentIDBytes = 128
	// MaxNotice bounds the text of a shared notice.
	MaxNotice = 1024
	// ContentIDPrefix starts every content id (library.ContentIDPrefix).
	ContentIDPrefix = "b3:"
)

// ValidContentID reports whether id is a content id within the limits.
func ValidContentID(id string) bool {
	return strings.HasPrefix(id, ContentIDPrefix) && len(id) <= MaxContentIDBytes
}

// Entry is one track of the shared queue as it travels between devices:
// its content id and display metadata, never a local path.
type Entry struct {
	ContentID  string   `json:"content_id"`
	Title      string   `json:"title"`
	Artists    []string `json:"artists,omitempty"`
	Album      string   `json:"album,omitempty"`
	DurationMS int64    `json:"duration_ms"`
}

// Name is how notices call the entry: its title, else its content id.
func (e Entry) Name() string {
	if e.Title != "" {
		return e.Title
	}
	return e.ContentID
}

// State is the shared queue and transport: the snapshot state the
// owner distributes. Every other device shows the owner's.
type State struct {
	Queue      []Entry `json:"queue"`
	Index      int     `json:"index"`
	PositionMS int64   `json:"position_ms"`
	Playing    bool    `json:"playing"`
	Volume     int     `json:"volume"`
	Shuffle    bool    `json:"shuffle"`
	Repeat     string  `json:"repeat"`
	// Acks are the last command sequences the owner applied, per sender,
	// in the current term (at most engine.MaxSendersPerTerm entries), so a
	// controller knows when a snapshot reflects its command. AckFrom is,
	// per sender, the first sequence the owner's process (State.Launch)
	// applied in the term: it applied every command of that sender from
	// AckFrom to Acks and none before (rule C6). Both describe one
	// process of the owner: a restarted owner starts with none. AckFrom
	// is absent from an older build's snapshots (then Acks alone counts).
	Acks    map[engine.DeviceID]uint64 `json:"acks,omitempty"`
	AckFrom map[engine.DeviceID]uint64 `json:"ack_from,omitempty"`
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
	// Output names the endpoint the sender plays through when that is not
	// the sender itself (the web hub's selected browser: "Linux · Chrome"),
	// for the other devices' pickers; presentation only, set at each
	// publish, empty when the sender plays itself.
	Output string `json:"output,omitempty"`
	// Closing is set in the last snapshot of an owner that shuts down:
	// every device shows the music stopped where it was (the exact
	// position), while Playing keeps the intent for the device that
	// takes over.
	Closing bool `json:"closing,omitempty"`
	// Resuming is set by an owner that restarted and has not resumed
	// yet: it is learning the newest state from the group (its own last
	// snapshot, kept by the others), so its state is not to be shown.
	Resuming bool `json:"resuming,omitempty"`
	// Launch is the first heartbeat id of the sender's process (0 until
	// it has one): heartbeat ids grow across restarts, so a new Launch
	// says the owner restarted and lost the controls it had received
	// (rule C5).
	Launch uint64 `json:"launch,omitempty"`
	// Applied marks, per sender, the controls this state contains
	// (Control.ID): an owner marks each control it applies or refuses,
	// and the marks travel and are saved with the state, so a control
	// sent again is applied once, whichever process or device receives
	// it (rule C7).
	Applied map[engine.DeviceID]Marks `json:"applied,omitempty"`
}

// Ack records on the owner's state that it applied the command from
// sender stamped stamp: Acks and AckFrom of a new term start empty, and
// at most engine.MaxSendersPerTerm senders are kept (rule C6).
func (s *State) Ack(from engine.DeviceID, stamp engine.CommandStamp) {
	if s.Acks == nil || s.Term != stamp.Claim {
		s.Acks, s.AckFrom = map[engine.DeviceID]uint64{}, map[engine.DeviceID]uint64{}
		s.Term = stamp.Claim
	}
	if s.AckFrom == nil {
		s.AckFrom = map[engine.DeviceID]uint64{}
	}
	if len(s.Acks) >= engine.MaxSendersPerTerm && s.Acks[from] == 0 {
		return
	}
	s.Acks[from] = stamp.Sequence
	if _, ok := s.AckFrom[from]; !ok {
		s.AckFrom[from] = stamp.Sequence
	}
}

// ResetAcks forgets every ack: at a takeover (a new term) and when the
// owner's process starts (rule C6).
func (s *State) ResetAcks() {
	clear(s.Acks)
	clear(s.AckFrom)
}

// SharedNotice is a notice the owner distributes in its snapshot. ID
// tells a new one from one already shown.
type SharedNotice struct {
	ID   uint64 `json:"id"`
	Text string `json:"text"`
}

func DefaultState() State {
	return State{Volume: 100, Repeat: "off"}
}

func (s State) Clone() State {
	s.Queue = slices.Clone(s.Queue)
	s.Acks = maps.Clone(s.Acks)
	s.AckFrom = maps.Clone(s.AckFrom)
	s.Applied = maps.Clone(s.Applied)
	s.Order = slices.Clone(s.Order)
	if s.Notice != nil {
		n := *s.Notice
		s.Notice = &n
	}
	return s
}

// Equal reports whether s and o are the same state: what they would
// publish, persist and show is the same. It costs a comparison of the
// queues, far less than encoding one, so a caller can keep what it
// derived from a state until the state changes.
func (s State) Equal(o State) bool {
	return s.Index == o.Index && s.PositionMS == o.PositionMS && s.Playing == o.Playing &&
		s.Volume == o.Volume && s.Shuffle == o.Shuffle && s.Repeat == o.Repeat &&
		s.Term == o.Term && s.Seed == o.Seed && s.Jumps == o.Jumps && s.Box == o.Box &&
		s.Output == o.Output && s.Closing == o.Closing && s.Resuming == o.Resuming &&
		s.Launch == o.Launch &&
		(s.Notice == nil) == (o.Notice == nil) && (s.Notice == nil || *s.Notice == *o.Notice) &&
		maps.Equal(s.Acks, o.Acks) && maps.Equal(s.AckFrom, o.AckFrom) &&
		maps.Equal(s.Applied, o.Applied) && slices.Equal(s.Order, o.Order) &&
		SameEntries(s.Queue, o.Queue)
}

// SameEntries reports whether two queues hold the same entries in the
// same order.
func SameEntries(a, b []Entry) bool {
	return slices.EqualFunc(a, b, Entry.Equal)
}

// Equal reports whether e and o are the same entry.
func (e Entry) Equal(o Entry) bool {
	return e.ContentID == o.ContentID && e.Title == o.Title && e.Album == o.Album &&
		e.DurationMS == o.DurationMS && slices.Equal(e.Artists, o.Artists)
}

func (s State) Current() (Entry, bool) {
	if s.Index < 0 || s.Index >= len(s.Queue) {
		return Entry{}, false
	}
	return s.Queue[s.Index], true
}

// validate checks a state received from a peer before it is adopted.
func (s State) Validate() error {
	switch {
	case len(s.Queue) > MaxQueue:
		return fmt.Errorf("queue: queue of %d tracks exceeds %d", len(s.Queue), MaxQueue)
	case len(s.Queue) == 0 && s.Index != 0, len(s.Queue) > 0 && (s.Index < 0 || s.Index >= len(s.Queue)):
		return fmt.Errorf("queue: queue index %d out of range", s.Index)
	case s.Volume < 0 || s.Volume > 100:
		return fmt.Errorf("queue: volume %d out of range", s.Volume)
	case s.Repeat != "off" && s.Repeat != "all" && s.Repeat != "one":
		return fmt.Errorf("queue: repeat %q", s.Repeat)
	case s.PositionMS < 0:
		return fmt.Errorf("queue: negative position")
	case len(s.Acks) > engine.MaxSendersPerTerm || len(s.AckFrom) > engine.MaxSendersPerTerm || len(s.Applied) > engine.MaxSendersPerTerm:
		return fmt.Errorf("queue: too many acks")
	case s.Notice != nil && len(s.Notice.Text) > MaxNotice:
		return fmt.Errorf("queue: notice too long")
	}
	for _, e := range s.Queue {
		if e.ContentID == "" || len(e.ContentID) > MaxContentIDBytes {
			return fmt.Errorf("queue: bad content id in queue")
		}
	}
	if !s.Shuffle && len(s.Order) > 0 || s.Shuffle && !IsPermutation(s.Order, len(s.Queue)) {
		return fmt.Errorf("queue: shuffled order does not fit the queue")
	}
	return nil
}

// Control is the body of a stamped playback command and of local intents.
type Control struct {
	Op      string  `json:"op"`
	Entries []Entry `json:"entries,omitempty"`
	Index   int     `json:"index,omitempty"`
	Next    bool    `json:"next,omitempty"`
	PosMS   int64   `json:"pos_ms,omitempty"`
	Volume  int     `json:"volume,omitempty"`
	On      bool    `json:"on,omitempty"`
	Repeat  string  `json:"repeat,omitempty"`
	Seed    uint64  `json:"seed,omitempty"`  // shuffle on: the seed of the new order
	State   *State  `json:"state,omitempty"` // handoff: the transport to resume
	// Exact is set on a handoff whose source's output played State at
	// its position when it handed off (not a controller's view, not a
	// restarted owner's saved state): the target starts there (rule P6).
	Exact bool `json:"exact,omitempty"`
	// Indexes are the queue entries a move or a removal acts on, and IDs
	// their content ids (optional): the owner refuses the edit when the
	// entries are not those any more (ErrQueueChanged).
	Indexes []int    `json:"indexes,omitempty"`
	IDs     []string `json:"ids,omitempty"`
	// Order is the play order of a restored queue (OpRestore), as
	// State.Order.
	Order []int `json:"order,omitempty"`
	// Launch addresses a command to one process of its owner (the
	// owner's State.Launch as the sender last heard it; 0: not known, or
	// an older build): another process refuses it (Addressed, rule C5).
	Launch uint64 `json:"launch,omitempty"`
	// ID names the control for its sender, the same on every copy sent
	// again (the sequence of its first stamp: those grow across the
	// sender's restarts), so an owner tells one it contains already
	// (State.Contains, rule C7). 0 from an older build.
	ID uint64 `json:"id,omitempty"`
}

// Addressed reports whether the owner's process of launch (its
// State.Launch, 0 before its first heartbeat) may apply c: a control
// addressed to another process of the owner was meant for one that is
// gone, and its sender sends it again once it hears the new launch
// (rule C5). The owner neither applies nor acknowledges it, so no control
// is applied twice.
func Addressed(c Control, launch uint64) bool {
	return c.Launch == 0 || c.Launch == launch
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

// Change says what an applied control changed, so the actor knows which
// audio effect to run.
type Change struct {
	Track   bool // current track (or its start) changed: play it from PositionMS
	Seek    bool // same track, new position
	Pause   bool
	Resume  bool
	Volume  bool
	Stopped bool // queue empty or played out
	// reindex maps the queue's old indexes to new ones (-1: removed) when
	// an edit moved entries, so the output's track keeps playing.
	Reindex []int
}

// apply changes s by c. It validates everything against bounds and never
// panics on peer input. pos is the current (measured or extrapolated)
// position, used when pausing. A Change of track or position counts as a
// jump (Jumps).
func (s *State) Apply(c Control, pos int64) (Change, error) {
	before := s.PositionMS
	ch, err := s.applyOp(c, pos)
	// A pause keeps the position where the music is; any other control
	// that moves it (Next at the end of the queue rewinds to the start of
	// the last track) is a jump too.
	moved := s.PositionMS != before && c.Op != OpPause && c.Op != OpToggle
	if err == nil && (ch.Seek || ch.Track || moved) {
		s.Jumps++
	}
	return ch, err
}

func (s *State) applyOp(c Control, pos int64) (Change, error) {
	var ch Change
	s.Notice = nil // a control answers (or outdates) the owner's last notice
	switch c.Op {
	case OpPlayTracks:
		if len(c.Entries) == 0 {
			return ch, fmt.Errorf("queue: nothing to play")
		}
		if len(c.Entries) > MaxQueue {
			return ch, fmt.Errorf("queue: at most %d tracks in the queue", MaxQueue)
		}
		if c.Index < 0 || c.Index >= len(c.Entries) {
			return ch, userErr(ErrQueueIndex, "start index %d is out of range (0 to %d)", c.Index, len(c.Entries)-1)
		}
		if QueueBytes(c.Entries) > MaxQueueBytes {
			lo, hi := Fit(c.Entries, c.Index)
			return ch, userErr(ErrQueueFull, "the queue holds %d of these %d tracks, not all", hi-lo, len(c.Entries))
		}
		s.Queue = slices.Clone(c.Entries)
		s.Index, s.PositionMS, s.Playing = c.Index, 0, true
		s.reshuffle()
		ch.Track = true
	case OpEnqueue:
		if len(c.Entries) == 0 {
			return ch, fmt.Errorf("queue: nothing to enqueue")
		}
		if len(s.Queue)+len(c.Entries) > MaxQueue {
			return ch, fmt.Errorf("queue: at most %d tracks in the queue", MaxQueue)
		}
		if QueueBytes(s.Queue)+QueueBytes(c.Entries) > MaxQueueBytes {
			return ch, userErr(ErrQueueFull, "the queue is full: remove some of its %d tracks to add %d more", len(s.Queue), len(c.Entries))
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
		ch.Track = true
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
		ch.Reindex = s.move(c.Indexes, c.Index)
	case OpRestore:
		return s.restore(c)
	case OpClear:
		s.Queue, s.Index, s.PositionMS, s.Playing, s.Order = nil, 0, 0, false, nil
		ch.Stopped = true
	case OpPause:
		if s.Playing {
			s.Playing, s.PositionMS = false, pos
			ch.Pause = true
		}
	case OpResume:
		if len(s.Queue) == 0 {
			return ch, userErr(ErrQueueEmpty, "the queue is empty")
		}
		if !s.Playing {
			s.Playing = true
			ch.Resume = true
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
			i, ok := s.After()
			if !ok {
				s.PositionMS, s.Playing = 0, false
				ch.Stopped = true
				return ch, nil
			}
			s.MoveTo(i)
		} else if i, ok := s.Before(); ok {
			s.Index = i
		}
		s.PositionMS = 0
		ch.Track = true
	case OpSeek:
		if len(s.Queue) == 0 {
			return ch, userErr(ErrQueueEmpty, "the queue is empty: nothing to seek in")
		}
		// A seek that names its track (IDs) applies to that track only:
		// sent again to a new owner that plays another one, it would
		// skip into a track nobody sought in (rule S2).
		if e, _ := s.Current(); len(c.IDs) == 1 && c.IDs[0] != e.ContentID {
			return ch, userErr(ErrQueueChanged, "the track changed on another device: the seek in it was not applied")
		}
		p := max(c.PosMS, 0)
		if e, ok := s.Current(); ok && e.DurationMS > 0 && p > e.DurationMS {
			// Refused, not clamped: seeking to the end would end the
			// track (and a played-out queue) by a typing mistake.
			return ch, userErr(ErrSeekRange, "%s is past the end of %q (%s long)", clock(p), e.Name(), clock(e.DurationMS))
		}
		s.PositionMS = p
		ch.Seek = true
	case OpVolume:
		if c.Volume < 0 || c.Volume > 100 {
			return ch, userErr(ErrBadArgument, "volume must be a whole number from 0 to 100, not %d", c.Volume)
		}
		s.Volume = c.Volume
		ch.Volume = true
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
			return ch, fmt.Errorf("queue: handoff without state")
		}
		st := c.State.Clone()
		st.Normalize()
		if err := st.Validate(); err != nil {
			return ch, err
		}
		// Jumps only grows on a device: a handoff's state from another
		// history must not repeat a count controllers saw already.
		acks, from, term, jumps, applied := s.Acks, s.AckFrom, s.Term, s.Jumps, s.Applied
		*s = st
		s.Acks, s.AckFrom, s.Term, s.Notice, s.Closing = acks, from, term, nil, false
		s.Jumps = max(s.Jumps, jumps)
		// What this device applied before the handoff reached it (it
		// took over on the announcement) stays marked: acknowledged, it
		// is not applied a second time (rule C7).
		s.Applied = mergeMarks(s.Applied, applied)
		ch.Track = true
	default:
		return ch, fmt.Errorf("queue: unknown control %q", c.Op)
	}
	return ch, nil
}

// checkIndex refuses a queue index out of range; indexes count from 0,
// as in Status.Index and `furudesk ctl queue`.
func (s State) checkIndex(i int) error {
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
func (s *State) Advance() bool {
	s.PositionMS = 0
	if i, ok := s.Following(); ok {
		if s.Repeat != "one" {
			s.MoveTo(i)
		}
		return true
	}
	s.Playing = false
	return false
}

// normalize repairs a state whose shuffled order does not fit its queue
// (an older peer, a damaged record): the order is generated again.
func (s *State) Normalize() {
	if !s.Shuffle {
		s.Order = nil
		return
	}
	if !IsPermutation(s.Order, len(s.Queue)) {
		s.Order = ShuffledOrder(s.Seed, len(s.Queue), s.Index)
	}
}

// extrapolate is the position now of a state that was at PositionMS
// `since` ago.
func (s State) Extrapolate(since time.Duration) int64 {
	p := s.PositionMS
	if s.Playing && since > 0 {
		p += since.Milliseconds()
	}
	if e, ok := s.Current(); ok && e.DurationMS > 0 {
		p = min(p, e.DurationMS)
	}
	return p
}
