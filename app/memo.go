package app

import (
	"encoding/json"
	"slices"

	"github.com/furudesk/furudesk/queue"
	"github.com/furudesk/furudesk/storage"
)

// What the actor derives from its state at every transition, kept until
// the state it came from changes: a paused owner with a long queue ticks
// four times a second and announces itself every second, and encoding
// its queue each time made it idle at 1.5 % of a core with 1,000 tracks
// queued and 22 % with 19,000 (issue 37). A comparison of the queues
// costs a small part of an encoding.

// encodedState is the JSON of the last state published.
type encodedState struct {
	st queue.State
	b  []byte
}

// encode returns st's JSON, the one kept when st is the same state. st
// is kept: the caller must not change it after.
func (m *encodedState) encode(st queue.State) ([]byte, error) {
	if m.b != nil && m.st.Equal(st) {
		return m.b, nil
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	m.st, m.b = st, b
	return b, nil
}

// storedItems are the storage items of the last queue made durable.
type storedItems struct {
	queue []queue.Entry
	items []storage.QueueItem
}

// of returns the storage items of q, the ones kept when q holds the same
// entries. The items are shared: nobody changes them in place.
func (m *storedItems) of(q []queue.Entry) []storage.QueueItem {
	if m.items != nil && queue.SameEntries(m.queue, q) {
		return m.items
	}
	items := make([]storage.QueueItem, 0, len(q))
	for _, e := range q {
		meta, _ := json.Marshal(itemMeta{Entry: Entry{Title: e.Title, Artists: e.Artists, Album: e.Album, DurationMS: e.DurationMS}})
		items = append(items, storage.QueueItem{ContentID: e.ContentID, Meta: meta})
	}
	m.queue, m.items = slices.Clone(q), items // q may be edited in place
	return items
}
