package storage

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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
	return nil
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
	var repeat string
	err := s.db.QueryRow(`SELECT idx, position_ms, playing, volume, shuffle, repeat FROM transport WHERE id = 1`).
		Scan(&q.Index, &q.PositionMS, &playing, &q.Volume, &shuffle, &repeat)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return QueueState{}, fmt.Errorf("storage: read transport: %w", err)
	default:
		q.Playing, q.Shuffle, q.Repeat = playing != 0, shuffle != 0, Repeat(repeat)
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
	_, err := tx.Exec(`INSERT INTO transport (id, idx, position_ms, playing, volume, shuffle, repeat) VALUES (1, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET idx = excluded.idx, position_ms = excluded.position_ms, playing = excluded.playing,
	volume = excluded.volume, shuffle = excluded.shuffle, repeat = excluded.repeat`,
		t.Index, t.PositionMS, t.Playing, t.Volume, t.Shuffle, string(t.Repeat))
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
