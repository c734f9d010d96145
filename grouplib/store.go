package grouplib

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/furudesk/furudesk/engine"
)

// Store persists the catalogs a device holds, its own included, so a
// restart neither publishes its catalog anew nor fetches the others'
// again. *storage.Store implements it. The library calls it from its own
// goroutines, one call at a time.
type Store interface {
	// LoadCatalogs returns every stored catalog but except's.
	LoadCatalogs(except engine.DeviceID) ([]StoredCatalog, error)
	// LoadCatalog returns origin's stored catalog, false when none is.
	LoadCatalog(origin engine.DeviceID) (StoredCatalog, bool, error)
	// SaveDelta applies a delta to the stored catalog of d.Origin in one
	// transaction: a Full delta replaces it; otherwise the items are
	// written, the removed ones deleted and remembered as tombstones.
	// Tombstones dated at or below floor are dropped, and the catalog's
	// version becomes d.Version and its floor floor. Once ctx is done it
	// gives up, writing nothing, and returns ctx's error.
	SaveDelta(ctx context.Context, d Delta, floor uint64) error
	// DeleteCatalog forgets the catalog of a device.
	DeleteCatalog(origin engine.DeviceID) error
	// LoadItems returns the stored items (Entry and Ver) of origin's
	// catalog dated after version since, in content id order; it gives
	// up with ctx's error once ctx is done. The library serves its own
	// catalog, which it keeps lean, from them.
	LoadItems(ctx context.Context, origin engine.DeviceID, since uint64) ([]Item, error)
}

// StoredCatalog is a catalog as a Store keeps it.
type StoredCatalog struct {
	Origin  engine.DeviceID
	Version uint64
	Floor   uint64
	Items   []Item // Entry and Ver; the hashes are recomputed
	Gone    []Tombstone
}

// MemStore is an in-memory Store, for tests. It is safe for concurrent
// use.
type MemStore struct {
	mu   sync.Mutex
	cats map[engine.DeviceID]*Catalog
	fail error
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{cats: map[engine.DeviceID]*Catalog{}} }

var _ Store = (*MemStore)(nil)

// SetFail makes every later write fail with err (nil: succeed again).
func (s *MemStore) SetFail(err error) {
	s.mu.Lock()
	s.fail = err
	s.mu.Unlock()
}

// LoadCatalogs implements Store.
func (s *MemStore) LoadCatalogs(except engine.DeviceID) ([]StoredCatalog, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []StoredCatalog
	for _, origin := range slices.Sorted(maps.Keys(s.cats)) {
		if origin != except {
			out = append(out, stored(s.cats[origin]))
		}
	}
	return out, nil
}

// LoadCatalog implements Store.
func (s *MemStore) LoadCatalog(origin engine.DeviceID) (StoredCatalog, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cats[origin]
	if !ok {
		return StoredCatalog{}, false, nil
	}
	return stored(c), true, nil
}

// stored is c as a Store keeps it.
func stored(c *Catalog) StoredCatalog {
	sc := StoredCatalog{Origin: c.Origin, Version: c.Version, Floor: c.Floor, Gone: c.Tombstones()}
	c.Each(func(it *Item) { sc.Items = append(sc.Items, Item{Entry: it.Entry, Ver: it.Ver}) })
	return sc
}

// SaveDelta implements Store.
func (s *MemStore) SaveDelta(ctx context.Context, d Delta, floor uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c := s.cats[d.Origin]
	if c == nil || d.Full {
		c = NewCatalog(d.Origin)
	}
	c = c.Clone()
	d.Since = c.Version
	d.Floor = floor
	c.apply(d)
	s.cats[d.Origin] = c
	return nil
}

// LoadItems implements Store.
func (s *MemStore) LoadItems(ctx context.Context, origin engine.DeviceID, since uint64) ([]Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Item
	if c := s.cats[origin]; c != nil {
		c.Each(func(it *Item) {
			if it.Ver > since {
				out = append(out, Item{Entry: it.Entry, Ver: it.Ver})
			}
		})
	}
	return out, nil
}

// DeleteCatalog implements Store.
func (s *MemStore) DeleteCatalog(origin engine.DeviceID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	delete(s.cats, origin)
	return nil
}
