package grouplib

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"lukechampine.com/blake3"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
)

// A catalog is what one device holds, as a set of items. Its origin
// numbers its changes: every publish that changes something takes the next
// version, and each item (and each removal, a tombstone) keeps the version
// it changed at. So a peer that holds version v needs only what changed
// after v (Since), never the whole catalog again; the digest of the items
// and their versions, in the origin's signed head (see Head), lets any
// device check a catalog it got from the origin or from any relay.
//
// Tombstones are kept up to maxTombstones; older ones are dropped and the
// floor rises: a peer below the floor gets the whole catalog.

// Limits of a catalog.
const (
	// MaxCatalogItems is the most tracks one device's catalog may list.
	MaxCatalogItems = 500_000
	// maxTombstones bounds the removals a catalog remembers.
	maxTombstones = 100_000
)

// Errors of catalogs.
var (
	ErrCatalogTooLarge = errors.New("grouplib: catalog over the size limit")
	ErrDeltaBase       = errors.New("grouplib: delta does not start at the version held")
	ErrBadDelta        = errors.New("grouplib: malformed catalog delta")
	ErrDigest          = errors.New("grouplib: catalog does not match its device's signed head")
)

// Catalog is one device's catalog as this device holds it. It is not safe
// for concurrent use; Clone before changing one that others read.
type Catalog struct {
	Origin  engine.DeviceID
	Version uint64
	// Floor is the oldest version a delta can start from: removals before
	// it are forgotten.
	Floor uint64
	items map[string]*Item
	// lean holds the items instead of items in a lean catalog: each
	// one's version and content hash, not its entry (see Lean).
	lean map[idKey]leanItem
	gone map[string]uint64 // tombstones: content id → version removed
	// digest caches Digest; zero when stale.
	digest Hash
	fresh  bool
}

// NewCatalog returns the empty catalog of origin at version 0.
func NewCatalog(origin engine.DeviceID) *Catalog {
	return &Catalog{Origin: origin, items: map[string]*Item{}, gone: map[string]uint64{}}
}

// leanItem is an item of a lean catalog: what Publish compares and the
// digest covers, without the entry.
type leanItem struct {
	ver     uint64
	content Hash
}

// idKey is a content id as a lean catalog keeps it: the 32 bytes its hex
// digits spell, in the map itself rather than 100,000 strings of 71
// characters each apart from it. Only valid content ids (ValidContentID)
// have one.
type idKey [32]byte

func keyOf(id string) (k idKey, ok bool) {
	if !ValidContentID(id) {
		return k, false
	}
	_, err := hex.Decode(k[:], []byte(id[len(library.ContentIDPrefix):]))
	return k, err == nil
}

func (k idKey) String() string { return library.ContentIDPrefix + hex.EncodeToString(k[:]) }

// Lean returns a lean copy of c: it keeps of each item its content id,
// version and content hash, not its entry (about 90 bytes an item
// instead of 450). It is how a device keeps its own catalog: the entries
// are its library's tracks, which the window and the index already hold,
// and the Store keeps them for the peers that ask (Library serves a lean
// catalog's deltas from it). A lean catalog publishes, compares and
// digests as any other; Since lists its items without their entries
// (Items of content id and version only) and Get and Each see none.
func (c *Catalog) Lean() *Catalog {
	d := *c
	d.items = nil
	d.lean = make(map[idKey]leanItem, c.Len())
	for id, it := range c.items {
		if k, ok := keyOf(id); ok {
			d.lean[k] = leanItem{ver: it.Ver, content: it.content}
		}
	}
	maps.Copy(d.lean, c.lean)
	d.gone = maps.Clone(c.gone)
	return &d
}

// IsLean reports a catalog made by Lean.
func (c *Catalog) IsLean() bool { return c.lean != nil }

// held returns the version and content hash of the item of id.
func (c *Catalog) held(id string) (ver uint64, content Hash, ok bool) {
	if c.lean != nil {
		k, ok := keyOf(id)
		li, held := c.lean[k]
		return li.ver, li.content, ok && held
	}
	it, ok := c.items[id]
	if !ok {
		return 0, Hash{}, false
	}
	return it.Ver, it.content, true
}

// ids returns the content ids of the items, sorted.
func (c *Catalog) ids() []string {
	if c.lean != nil {
		// The hex digits of a content id are lower case: its order is its key's.
		keys := slices.SortedFunc(maps.Keys(c.lean), func(a, b idKey) int { return bytes.Compare(a[:], b[:]) })
		ids := make([]string, len(keys))
		for i, k := range keys {
			ids[i] = k.String()
		}
		return ids
	}
	return slices.Sorted(maps.Keys(c.items))
}

// item is the item of id, or for a lean catalog a stand-in of its
// content id and version only.
func (c *Catalog) item(id string) *Item {
	if c.lean != nil {
		k, _ := keyOf(id)
		return c.lean[k].standIn(id)
	}
	return c.items[id]
}

// standIn is the Item a lean catalog gives for li: content id, version
// and content hash, no entry.
func (li leanItem) standIn(id string) *Item {
	return &Item{Entry: Entry{ContentID: id}, Ver: li.ver, content: li.content}
}

// Tombstone records the removal of a content id at a version.
type Tombstone struct {
	ContentID string `json:"id"`
	Ver       uint64 `json:"v"`
}

// Head is what a device signs about its catalog (as the body of an op of
// kind KindHead): its version, how many tracks and their digest.
type Head struct {
	Version uint64 `json:"v"`
	Count   int    `json:"n"`
	Digest  string `json:"d"` // hex
}

// KindHead is the operation kind of a catalog head.
const KindHead = "catalog_head"

// Len is the number of items.
func (c *Catalog) Len() int { return len(c.items) + len(c.lean) }

// Get returns the item of a content id.
func (c *Catalog) Get(id string) (*Item, bool) {
	it, ok := c.items[id]
	return it, ok
}

// Each calls f for every item, in content id order.
func (c *Catalog) Each(f func(*Item)) {
	for _, id := range slices.Sorted(maps.Keys(c.items)) {
		f(c.items[id])
	}
}

// Clone returns a copy that can be changed without changing c (items are
// shared: they never change).
func (c *Catalog) Clone() *Catalog {
	d := *c
	d.items = maps.Clone(c.items)
	d.lean = maps.Clone(c.lean)
	d.gone = maps.Clone(c.gone)
	return &d
}

// Digest is the digest the head carries: BLAKE3 over the count and the
// sorted hashes of the items (each covering the entry and its version).
func (c *Catalog) Digest() Hash {
	if c.fresh {
		return c.digest
	}
	hs := make([]Hash, 0, c.Len())
	for _, it := range c.items {
		hs = append(hs, it.hash)
	}
	for _, li := range c.lean {
		hs = append(hs, itemHash(li.content, li.ver))
	}
	slices.SortFunc(hs, func(a, b Hash) int { return bytes.Compare(a[:], b[:]) })
	h := blake3.New(32, nil)
	_, _ = h.Write([]byte("furudesk/catalog/v1"))
	_, _ = h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(hs))))
	for _, x := range hs {
		_, _ = h.Write(x[:])
	}
	copy(c.digest[:], h.Sum(nil))
	c.fresh = true
	return c.digest
}

// Head is the catalog's head.
func (c *Catalog) Head() Head {
	d := c.Digest()
	return Head{Version: c.Version, Count: c.Len(), Digest: hex.EncodeToString(d[:])}
}

// Matches reports whether c is what head describes.
func (c *Catalog) Matches(h Head) bool {
	return c.Version == h.Version && c.Len() == h.Count && c.Head().Digest == h.Digest
}

// Publish makes entries the catalog's content: the items that are new or
// changed and the removals take the next version. It reports what changed
// as a delta from the previous version (empty, and the version unchanged,
// when nothing did). Entries must have distinct, valid content ids.
func (c *Catalog) Publish(entries []Entry) (Delta, error) {
	if len(entries) > MaxCatalogItems {
		return Delta{}, fmt.Errorf("%w: %d tracks, limit %d", ErrCatalogTooLarge, len(entries), MaxCatalogItems)
	}
	next := c.Version + 1
	d := Delta{Origin: c.Origin, Since: c.Version, Version: next}
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if err := e.validate(); err != nil {
			return Delta{}, err
		}
		if seen[e.ContentID] {
			return Delta{}, fmt.Errorf("%w: %s listed twice", ErrBadDelta, e.ContentID)
		}
		seen[e.ContentID] = true
		if _, content, ok := c.held(e.ContentID); ok && content == e.contentHash() {
			continue
		}
		d.Items = append(d.Items, newItem(e, next))
	}
	for _, id := range c.ids() {
		if !seen[id] {
			d.Gone = append(d.Gone, Tombstone{ContentID: id, Ver: next})
		}
	}
	if len(d.Items) == 0 && len(d.Gone) == 0 {
		return Delta{Origin: c.Origin, Since: c.Version, Version: c.Version}, nil
	}
	slices.SortFunc(d.Gone, func(a, b Tombstone) int { return strings.Compare(a.ContentID, b.ContentID) })
	c.apply(d)
	d.Floor = c.Floor
	return d, nil
}

// Delta is what changed in a catalog from version Since to Version: the
// items changed after Since and the removals after it. Full means Items
// is the whole catalog (Since is then 0 and Gone empty): the receiver
// replaces what it holds.
type Delta struct {
	Origin  engine.DeviceID
	Since   uint64
	Version uint64
	Floor   uint64
	Full    bool
	Items   []*Item
	Gone    []Tombstone
}

// Empty reports a delta that changes nothing.
func (d Delta) Empty() bool { return !d.Full && len(d.Items) == 0 && len(d.Gone) == 0 }

// Since returns what a holder of version v lacks: the changes after v, or
// the whole catalog when v is below the floor, ahead of this catalog, or 0.
func (c *Catalog) Since(v uint64) Delta {
	d := Delta{Origin: c.Origin, Since: v, Version: c.Version, Floor: c.Floor}
	if v == 0 || v < c.Floor || v > c.Version {
		d.Full, d.Since = true, 0
		for _, id := range c.ids() {
			d.Items = append(d.Items, c.item(id))
		}
		return d
	}
	// A delta costs what changed: the items dated after v, sorted, not
	// the whole catalog sorted (a device's own catalog answers each peer
	// that asks after each change it publishes).
	for k, li := range c.lean {
		if li.ver > v {
			d.Items = append(d.Items, li.standIn(k.String()))
		}
	}
	for _, it := range c.items {
		if it.Ver > v {
			d.Items = append(d.Items, it)
		}
	}
	slices.SortFunc(d.Items, func(a, b *Item) int { return strings.Compare(a.ContentID, b.ContentID) })
	for _, id := range slices.Sorted(maps.Keys(c.gone)) {
		if ver := c.gone[id]; ver > v {
			d.Gone = append(d.Gone, Tombstone{ContentID: id, Ver: ver})
		}
	}
	return d
}

// Apply changes c by a delta received from a peer, after checking it: it
// must start at the version c holds (or be Full), every item and removal
// must be dated within it, and the result must stay within the limits.
// On error c is unchanged. The caller then checks the result against the
// origin's head (Matches).
func (c *Catalog) Apply(d Delta) error {
	if err := c.check(d); err != nil {
		return err
	}
	c.apply(d)
	return nil
}

func (c *Catalog) check(d Delta) error {
	switch {
	case d.Origin != c.Origin:
		return fmt.Errorf("%w: catalog of %s, want %s", ErrBadDelta, d.Origin, c.Origin)
	case !d.Full && d.Since != c.Version:
		return fmt.Errorf("%w: from version %d, holding %d", ErrDeltaBase, d.Since, c.Version)
	case d.Full && len(d.Gone) > 0:
		return fmt.Errorf("%w: removals in a whole catalog", ErrBadDelta)
	case d.Version < d.Since || d.Floor > d.Version:
		return fmt.Errorf("%w: versions %d..%d, floor %d", ErrBadDelta, d.Since, d.Version, d.Floor)
	case len(d.Items) > MaxCatalogItems || len(d.Gone) > MaxCatalogItems:
		return fmt.Errorf("%w: %d items, %d removals", ErrCatalogTooLarge, len(d.Items), len(d.Gone))
	}
	seen := make(map[string]bool, len(d.Items)+len(d.Gone))
	n := c.Len()
	if d.Full {
		n = 0
	}
	for _, it := range d.Items {
		if it == nil || it.Ver <= d.Since || it.Ver > d.Version || seen[it.ContentID] {
			return fmt.Errorf("%w: item dated outside %d..%d or listed twice", ErrBadDelta, d.Since, d.Version)
		}
		if err := it.validate(); err != nil {
			return err
		}
		seen[it.ContentID] = true
		if _, _, held := c.held(it.ContentID); d.Full || !held {
			n++
		}
	}
	for _, g := range d.Gone {
		if !ValidContentID(g.ContentID) || g.Ver <= d.Since || g.Ver > d.Version || seen[g.ContentID] {
			return fmt.Errorf("%w: removal dated outside %d..%d or listed twice", ErrBadDelta, d.Since, d.Version)
		}
		seen[g.ContentID] = true
		if _, _, held := c.held(g.ContentID); held {
			n--
		}
	}
	if n > MaxCatalogItems {
		return fmt.Errorf("%w: %d tracks, limit %d", ErrCatalogTooLarge, n, MaxCatalogItems)
	}
	return nil
}

func (c *Catalog) apply(d Delta) {
	if d.Full {
		clear(c.items)
		clear(c.lean)
		clear(c.gone)
	}
	for _, it := range d.Items {
		if c.lean != nil {
			if k, ok := keyOf(it.ContentID); ok { // checked before
				c.lean[k] = leanItem{ver: it.Ver, content: it.content}
			}
		} else {
			c.items[it.ContentID] = it
		}
		delete(c.gone, it.ContentID)
	}
	for _, g := range d.Gone {
		delete(c.items, g.ContentID)
		if k, ok := keyOf(g.ContentID); ok {
			delete(c.lean, k)
		}
		c.gone[g.ContentID] = g.Ver
	}
	c.Version = d.Version
	c.Floor = max(c.Floor, d.Floor)
	if d.Full {
		// A whole catalog carries no removals: what was removed before
		// its version is unknown here, so a delta from here can start
		// only at it (a holder of an older version gets the whole).
		c.Floor = max(c.Floor, d.Version)
	}
	c.fresh = false
	c.pruneTombstones()
}

// pruneTombstones drops the oldest removals beyond maxTombstones and
// raises the floor past them.
func (c *Catalog) pruneTombstones() {
	if len(c.gone) <= maxTombstones {
		return
	}
	ts := make([]Tombstone, 0, len(c.gone))
	for id, v := range c.gone {
		ts = append(ts, Tombstone{ContentID: id, Ver: v})
	}
	slices.SortFunc(ts, func(a, b Tombstone) int {
		if c := cmp.Compare(a.Ver, b.Ver); c != 0 {
			return c
		}
		return strings.Compare(a.ContentID, b.ContentID)
	})
	cut := len(ts) - maxTombstones
	// Drop whole versions only, so no delta is left half-described.
	for cut < len(ts) && cut > 0 && ts[cut].Ver == ts[cut-1].Ver {
		cut++
	}
	for _, t := range ts[:cut] {
		delete(c.gone, t.ContentID)
		c.Floor = max(c.Floor, t.Ver)
	}
}

// Tombstones returns the removals remembered, in content id order.
func (c *Catalog) Tombstones() []Tombstone {
	out := make([]Tombstone, 0, len(c.gone))
	for _, id := range slices.Sorted(maps.Keys(c.gone)) {
		out = append(out, Tombstone{ContentID: id, Ver: c.gone[id]})
	}
	return out
}

// Restore rebuilds a catalog from what a Store kept; it checks nothing
// beyond the entries (the store holds only what was checked before).
func Restore(origin engine.DeviceID, version, floor uint64, items []Item, gone []Tombstone) (*Catalog, error) {
	c := NewCatalog(origin)
	c.Version, c.Floor = version, floor
	for _, it := range items {
		if err := it.validate(); err != nil {
			return nil, err
		}
		c.items[it.ContentID] = newItem(it.Entry, it.Ver)
	}
	for _, g := range gone {
		c.gone[g.ContentID] = g.Ver
	}
	return c, nil
}
