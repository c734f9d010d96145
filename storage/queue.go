package storage

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Limits on the queue.
const (
	MaxQueueItems     = 20000
	MaxQueueMetaBytes = 16 << 10
	MaxContentIDBytes = 128
)

// Repeat is the repeat mode of the transport.
type Repeat string

// Repeat modes.
const (
	RepeatOff Repeat = "off"
	RepeatAll Repeat = "all"
	RepeatOne Repeat = "one"
)

// QueueItem is one queue entry: the track's content id (never a local path)
// and the display metadata the queue shows even when the track is not in
// this device's library (a JSON object: title, artists, album, duration...).
type QueueItem struct {
	ContentID string          `json:"content_id"`
	Meta      json.RawMessage `json:"meta,omitempty"`
}

// Transport is the playback position and modes.
type Transport struct {
	Index      int    `json:"index"`       // current item; 0 when the queue is empty
	PositionMS int64  `json:"position_ms"` // within the current item
	Playing    bool   `json:"playing"`
	Volume     int    `json:"volume"` // 0..100
	Shuffle    bool   `json:"shuffle"`
	Repeat     Repeat `json:"repeat"`
	// ShuffleSeed is the seed the caller generates its shuffled play order
	// from; all 64 bits are kept. 0 in a database from before it existed.
	ShuffleSeed uint64 `json:"shuffle_seed"`
	// ShuffleOrder is the play order as queue indexes: empty, or a
	// permutation of 0..len(items)-1. It is stored rather than derived
	// from ShuffleSeed because edits of a shuffled queue ("play next")
	// change it in ways the seed does not record.
	ShuffleOrder []int `json:"shuffle_order,omitempty"`
	// Applied says which controls the transport contains, so a control
	// sent again after a restart is applied once (queue rule C7): a JSON
	// object the caller encodes (queue.State.Applied), kept as it is, of
	// at most MaxAppliedBytes; empty when none is known.
	Applied json.RawMessage `json:"applied,omitempty"`
}

// MaxAppliedBytes bounds Transport.Applied (128 senders' marks).
const MaxAppliedBytes = 16 << 10

// Equal reports whether t and u are the same transport (Transport holds a
// slice, so == does not compile).
func (t Transport) Equal(u Transport) bool {
	return t.Index == u.Index && t.PositionMS == u.PositionMS && t.Playing == u.Playing &&
		t.Volume == u.Volume && t.Shuffle == u.Shuffle && t.Repeat == u.Repeat &&
		t.ShuffleSeed == u.ShuffleSeed && slices.Equal(t.ShuffleOrder, u.ShuffleOrder) &&
		string(t.Applied) == string(u.Applied)
}

// QueueState is the queue and its transport.
type QueueState struct {
	Items []QueueItem `json:"items"`
	Transport
}

// DefaultTransport is the transport of a new installation.
func DefaultTransport() Transport { return Transport{Volume: 100, Repeat: RepeatOff} }

// validateModes checks everything but the index, which needs the queue.
func (t Transport) validateModes() error {
	switch {
	case t.Volume < 0 || t.Volume > 100:
		return fmt.Errorf("%w: volume %d, want 0..100", ErrInvalid, t.Volume)
	case t.Repeat != RepeatOff && t.Repeat != RepeatAll && t.Repeat != RepeatOne:
		return fmt.Errorf("%w: repeat %q, want off, all or one", ErrInvalid, t.Repeat)
	case t.PositionMS < 0:
		return fmt.Errorf("%w: position_ms %d is negative", ErrInvalid, t.PositionMS)
	case len(t.ShuffleOrder) > MaxQueueItems:
		return fmt.Errorf("%w: shuffle order of %d entries, want at most %d", ErrInvalid, len(t.ShuffleOrder), MaxQueueItems)
	case len(t.Applied) > MaxAppliedBytes:
		return fmt.Errorf("%w: applied marks of %d bytes, want at most %d", ErrInvalid, len(t.Applied), MaxAppliedBytes)
	case len(t.Applied) > 0 && !json.Valid(t.Applied):
		return fmt.Errorf("%w: applied marks are not valid JSON", ErrInvalid)
	}
	return nil
}

// validateOrder checks that the shuffle order is empty or a permutation
// of the queue's indexes.
func (t Transport) validateOrder(items int) error {
	if len(t.ShuffleOrder) == 0 {
		return nil
	}
	if len(t.ShuffleOrder) != items {
		return fmt.Errorf("%w: shuffle order of %d entries for %d queue items", ErrInvalid, len(t.ShuffleOrder), items)
	}
	seen := make([]bool, items)
	for _, v := range t.ShuffleOrder {
		if v < 0 || v >= items || seen[v] {
			return fmt.Errorf("%w: shuffle order %v is not a permutation of the queue's indexes", ErrInvalid, t.ShuffleOrder)
		}
		seen[v] = true
	}
	return nil
}

func (t Transport) validate(items int) error {
	if err := t.validateModes(); err != nil {
		return err
	}
	switch {
	case items == 0 && t.Index != 0:
		return fmt.Errorf("%w: index %d in an empty queue, want 0", ErrInvalid, t.Index)
	case items > 0 && (t.Index < 0 || t.Index >= items):
		return fmt.Errorf("%w: index %d, want 0..%d", ErrInvalid, t.Index, items-1)
	}
	return t.validateOrder(items)
}

func (q QueueState) validate() error {
	if len(q.Items) > MaxQueueItems {
		return fmt.Errorf("%w: %d queue items, want at most %d", ErrInvalid, len(q.Items), MaxQueueItems)
	}
	for i, it := range q.Items {
		if it.ContentID == "" || len(it.ContentID) > MaxContentIDBytes {
			return fmt.Errorf("%w: queue item %d: content id %q", ErrInvalid, i, it.ContentID)
		}
		if len(it.Meta) > MaxQueueMetaBytes {
			return fmt.Errorf("%w: queue item %d: metadata is %d bytes, want at most %d", ErrInvalid, i, len(it.Meta), MaxQueueMetaBytes)
		}
		if len(it.Meta) > 0 && !json.Valid(it.Meta) {
			return fmt.Errorf("%w: queue item %d: metadata is not valid JSON", ErrInvalid, i)
		}
	}
	return q.Transport.validate(len(q.Items))
}

// Queue returns the stored queue and transport; an empty queue with
// DefaultTransport when none was committed.
func (s *Store) Queue() (QueueState, error) {
	q := QueueState{Transport: DefaultTransport()}
	var playing, shuffle int
	var seed int64
	var repeat, order, applied string
	err := s.db.QueryRow(`SELECT idx, position_ms, playing, volume, shuffle, repeat, shuffle_seed, shuffle_order, applied FROM transport WHERE id = 1`).
		Scan(&q.Index, &q.PositionMS, &playing, &q.Volume, &shuffle, &repeat, &seed, &order, &applied)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return QueueState{}, fmt.Errorf("storage: read transport: %w", err)
	default:
		q.Playing, q.Shuffle, q.Repeat = playing != 0, shuffle != 0, Repeat(repeat)
		q.ShuffleSeed = uint64(seed) // stored bit for bit as SQLite's signed integer
		if err := json.Unmarshal([]byte(order), &q.ShuffleOrder); err != nil {
			return QueueState{}, fmt.Errorf("storage: read transport: shuffle order: %w", err)
		}
		if len(q.ShuffleOrder) == 0 {
			q.ShuffleOrder = nil
		}
		if applied != "" {
			q.Applied = json.RawMessage(applied)
		}
	}
	rows, err := s.db.Query(`SELECT content_id, meta FROM queue_items ORDER BY position`)
	if err != nil {
		return QueueState{}, fmt.Errorf("storage: read queue: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var it QueueItem
		var meta string
		if err := rows.Scan(&it.ContentID, &meta); err != nil {
			return QueueState{}, fmt.Errorf("storage: read queue: %w", err)
		}
		if meta != "" {
			it.Meta = json.RawMessage(meta)
		}
		q.Items = append(q.Items, it)
	}
	if err := rows.Err(); err != nil {
		return QueueState{}, fmt.Errorf("storage: read queue: %w", err)
	}
	return q, nil
}

func writeQueue(tx *sql.Tx, q QueueState) error {
	if _, err := tx.Exec(`DELETE FROM queue_items`); err != nil {
		return fmt.Errorf("storage: write queue: %w", err)
	}
	if len(q.Items) > 0 {
		st, err := tx.Prepare(`INSERT INTO queue_items (position, content_id, meta) VALUES (?, ?, ?)`)
		if err != nil {
			return fmt.Errorf("storage: write queue: %w", err)
		}
		defer st.Close()
		for i, it := range q.Items {
			if _, err := st.Exec(i, it.ContentID, string(it.Meta)); err != nil {
				return fmt.Errorf("storage: write queue: %w", err)
			}
		}
	}
	return writeTransport(tx, q.Transport)
}

func writeTransport(tx *sql.Tx, t Transport) error {
	order := []byte("[]")
	if len(t.ShuffleOrder) > 0 {
		var err error
		if order, err = json.Marshal(t.ShuffleOrder); err != nil {
			return fmt.Errorf("storage: write transport: %w", err)
		}
	}
	_, err := tx.Exec(`INSERT INTO transport (id, idx, position_ms, playing, volume, shuffle, repeat, shuffle_seed, shuffle_order, applied)
VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET idx = excluded.idx, position_ms = excluded.position_ms, playing = excluded.playing,
	volume = excluded.volume, shuffle = excluded.shuffle, repeat = excluded.repeat,
	shuffle_seed = excluded.shuffle_seed, shuffle_order = excluded.shuffle_order, applied = excluded.applied`,
		t.Index, t.PositionMS, t.Playing, t.Volume, t.Shuffle, string(t.Repeat), int64(t.ShuffleSeed), string(order), string(t.Applied))
	if err != nil {
		return fmt.Errorf("storage: write transport: %w", err)
	}
	return nil
}

func queueLen(tx *sql.Tx) (int, error) {
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM queue_items`).Scan(&n); err != nil {
		return 0, fmt.Errorf("storage: read queue: %w", err)
	}
	return n, nil
}
