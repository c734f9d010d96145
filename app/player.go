package app

// The shared queue as the app stores and shows it: the rules are package
// queue's; here are its names in app and the mapping to storage.

import (
	"encoding/json"
	"slices"

	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/queue"
	"github.com/furudesk/furudesk/storage"
)

// MaxQueue bounds the shared queue (storage's own limit, queue.MaxQueue).
const MaxQueue = queue.MaxQueue

// The shared queue's types, as the App's API names them.
type (
	Entry        = queue.Entry
	PlayerState  = queue.State
	SharedNotice = queue.SharedNotice
	Control      = queue.Control
)

// Control operations (queue.Op*).
const (
	OpPlayTracks = queue.OpPlayTracks
	OpEnqueue    = queue.OpEnqueue
	OpJump       = queue.OpJump
	OpRemove     = queue.OpRemove
	OpClear      = queue.OpClear
	OpPause      = queue.OpPause
	OpResume     = queue.OpResume
	OpToggle     = queue.OpToggle
	OpNext       = queue.OpNext
	OpPrev       = queue.OpPrev
	OpSeek       = queue.OpSeek
	OpVolume     = queue.OpVolume
	OpShuffle    = queue.OpShuffle
	OpRepeat     = queue.OpRepeat
	OpHandoff    = queue.OpHandoff
	OpMove       = queue.OpMove
	OpRestore    = queue.OpRestore
)

// EntryOf turns a catalog track into a queue entry.
func EntryOf(t library.Track) Entry {
	return Entry{ContentID: t.ContentID, Title: t.Title, Artists: t.Artists, Album: t.Album,
		DurationMS: t.Duration.Milliseconds()}
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
func durable(s PlayerState) storage.QueueState { return durableOf(s, &storedItems{}) }

// durableOf is durable with the items of the last queue made durable
// (memo.go).
func durableOf(s PlayerState, items *storedItems) storage.QueueState {
	q := storage.QueueState{Items: items.of(s.Queue)}
	q.Transport = storage.Transport{Index: s.Index, PositionMS: s.PositionMS, Playing: s.Playing,
		Volume: s.Volume, Shuffle: s.Shuffle, Repeat: storage.Repeat(s.Repeat), ShuffleSeed: s.Seed}
	if s.Shuffle && queue.IsPermutation(s.Order, len(s.Queue)) {
		q.ShuffleOrder = slices.Clone(s.Order) // s.Order is edited in place
	}
	if len(s.Applied) > 0 {
		q.Applied, _ = json.Marshal(s.Applied) // a map of plain values: cannot fail
	}
	return q
}

// stateFromDurable restores the state a previous launch persisted: the
// stored order, or one generated again from the seed and the queue when
// none fits (normalize).
func stateFromDurable(q storage.QueueState) PlayerState {
	s := PlayerState{Index: q.Index, PositionMS: q.PositionMS, Playing: q.Playing, Volume: q.Volume,
		Shuffle: q.Shuffle, Repeat: string(q.Repeat), Seed: q.ShuffleSeed, Order: slices.Clone(q.ShuffleOrder)}
	if len(q.Applied) > 0 && json.Unmarshal(q.Applied, &s.Applied) != nil {
		// Damaged marks: a control sent again may be applied twice,
		// nothing worse (queue rule C7).
		s.Applied = nil
	}
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
	s.Normalize()
	if s.Validate() != nil {
		return queue.DefaultState()
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

// MovedOrder is queue.MovedOrder: the rule of every queue move, for front
// ends that show a move before the owner confirms it.
func MovedOrder(order, idx []int, to int) []int { return queue.MovedOrder(order, idx, to) }
