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
}

func defaultState() PlayerState {
	return PlayerState{Volume: 100, Repeat: "off"}
}

func (s PlayerState) clone() PlayerState {
	s.Queue = slices.Clone(s.Queue)
	s.Acks = maps.Clone(s.Acks)
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
	}
	for _, e := range s.Queue {
		if e.ContentID == "" || len(e.ContentID) > storage.MaxContentIDBytes {
			return fmt.Errorf("app: bad content id in queue")
		}
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
	State   *PlayerState `json:"state,omitempty"` // handoff: the transport to resume
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
}

// apply changes s by c. It validates everything against bounds and never
// panics on peer input. pos is the current (measured or extrapolated)
// position, used when pausing.
func (s *PlayerState) apply(c Control, pos int64) (change, error) {
	var ch change
	switch c.Op {
	case OpPlayTracks:
		if len(c.Entries) == 0 {
			return ch, fmt.Errorf("app: nothing to play")
		}
		if len(c.Entries) > MaxQueue {
			return ch, fmt.Errorf("app: at most %d tracks in the queue", MaxQueue)
		}
		if c.Index < 0 || c.Index >= len(c.Entries) {
			return ch, fmt.Errorf("app: start index %d out of range", c.Index)
		}
		s.Queue = slices.Clone(c.Entries)
		s.Index, s.PositionMS, s.Playing = c.Index, 0, true
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
		} else {
			s.Queue = append(s.Queue, c.Entries...)
		}
	case OpJump:
		if c.Index < 0 || c.Index >= len(s.Queue) {
			return ch, fmt.Errorf("app: no track %d in the queue", c.Index+1)
		}
		s.Index, s.PositionMS, s.Playing = c.Index, 0, true
		ch.track = true
	case OpRemove:
		if c.Index < 0 || c.Index >= len(s.Queue) {
			return ch, fmt.Errorf("app: no track %d in the queue", c.Index+1)
		}
		s.Queue = slices.Delete(s.Queue, c.Index, c.Index+1)
		switch {
		case c.Index < s.Index:
			s.Index--
		case c.Index == s.Index:
			s.PositionMS = 0
			if s.Index >= len(s.Queue) {
				s.Index = max(0, len(s.Queue)-1)
				s.Playing = false
			}
			ch.track = true
		}
		if len(s.Queue) == 0 {
			s.Index, s.Playing, ch.stopped = 0, false, true
		}
	case OpClear:
		s.Queue, s.Index, s.PositionMS, s.Playing = nil, 0, 0, false
		ch.stopped = true
	case OpPause:
		if s.Playing {
			s.Playing, s.PositionMS = false, pos
			ch.pause = true
		}
	case OpResume:
		if len(s.Queue) == 0 {
			return ch, fmt.Errorf("app: the queue is empty")
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
		return s.apply(c, pos)
	case OpNext, OpPrev:
		if len(s.Queue) == 0 {
			return ch, fmt.Errorf("app: the queue is empty")
		}
		if c.Op == OpPrev && pos > 3000 {
			s.PositionMS = 0 // like every player: back to the start first
		} else if c.Op == OpNext {
			if s.Index+1 < len(s.Queue) {
				s.Index++
			} else if s.Repeat == "all" {
				s.Index = 0
			} else {
				s.Index, s.PositionMS, s.Playing = len(s.Queue)-1, 0, false
				ch.stopped = true
				return ch, nil
			}
		} else if s.Index > 0 {
			s.Index--
		}
		s.PositionMS = 0
		ch.track = true
	case OpSeek:
		if len(s.Queue) == 0 {
			return ch, fmt.Errorf("app: nothing to seek in")
		}
		p := max(c.PosMS, 0)
		if e, ok := s.current(); ok && e.DurationMS > 0 {
			p = min(p, e.DurationMS)
		}
		s.PositionMS = p
		ch.seek = true
	case OpVolume:
		if c.Volume < 0 || c.Volume > 100 {
			return ch, fmt.Errorf("app: volume %d, want 0..100", c.Volume)
		}
		s.Volume = c.Volume
		ch.volume = true
	case OpShuffle:
		s.Shuffle = c.On
	case OpRepeat:
		if c.Repeat != "off" && c.Repeat != "all" && c.Repeat != "one" {
			return ch, fmt.Errorf("app: repeat %q, want off, all or one", c.Repeat)
		}
		s.Repeat = c.Repeat
	case OpHandoff:
		if c.State == nil {
			return ch, fmt.Errorf("app: handoff without state")
		}
		if err := c.State.validate(); err != nil {
			return ch, err
		}
		acks, term := s.Acks, s.Term
		*s = c.State.clone()
		s.Acks, s.Term = acks, term
		ch.track = true
	default:
		return ch, fmt.Errorf("app: unknown control %q", c.Op)
	}
	return ch, nil
}

// advance moves to the track after a finished one following the repeat
// mode; false when the queue played out.
func (s *PlayerState) advance() bool {
	s.PositionMS = 0
	switch {
	case s.Repeat == "one":
		return true
	case s.Index+1 < len(s.Queue):
		s.Index++
		return true
	case s.Repeat == "all" && len(s.Queue) > 0:
		s.Index = 0
		return true
	}
	s.Playing = false
	return false
}

// durable is the storage form of s.
func (s PlayerState) durable() storage.QueueState {
	q := storage.QueueState{Items: make([]storage.QueueItem, 0, len(s.Queue))}
	for _, e := range s.Queue {
		meta, _ := json.Marshal(Entry{Title: e.Title, Artists: e.Artists, Album: e.Album, DurationMS: e.DurationMS})
		q.Items = append(q.Items, storage.QueueItem{ContentID: e.ContentID, Meta: meta})
	}
	q.Transport = storage.Transport{Index: s.Index, PositionMS: s.PositionMS, Playing: s.Playing,
		Volume: s.Volume, Shuffle: s.Shuffle, Repeat: storage.Repeat(s.Repeat)}
	return q
}

// stateFromDurable restores the state a previous launch persisted.
func stateFromDurable(q storage.QueueState) PlayerState {
	s := PlayerState{Index: q.Index, PositionMS: q.PositionMS, Playing: q.Playing, Volume: q.Volume,
		Shuffle: q.Shuffle, Repeat: string(q.Repeat)}
	for _, it := range q.Items {
		var e Entry
		_ = json.Unmarshal(it.Meta, &e) // display only: a bad meta shows the id
		e.ContentID = it.ContentID
		s.Queue = append(s.Queue, e)
	}
	if s.Repeat == "" {
		s.Repeat = "off"
	}
	if s.validate() != nil {
		return defaultState()
	}
	return s
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
