package grouplib

import (
	"slices"
	"strings"

	"github.com/furudesk/furudesk/engine"
)

// Union is the group's library beyond this device: for every content id
// that the catalog of another device lists, which devices hold it and
// what each says about it. It is built from the catalogs (SetCatalog) and
// follows their deltas. It is not safe for concurrent use.
type Union struct {
	byID map[string][]Holding // sorted by device
}

// Holding is one device's item for a content id.
type Holding struct {
	Device engine.DeviceID
	Item   *Item
}

// NewUnion returns an empty union.
func NewUnion() *Union { return &Union{byID: map[string][]Holding{}} }

// Len is the number of content ids held elsewhere.
func (u *Union) Len() int { return len(u.byID) }

// Holders returns the holdings of a content id, by device id. The slice
// must not be changed.
func (u *Union) Holders(id string) []Holding { return u.byID[id] }

// Entry is what the union shows for a content id: the entry of the first
// holder by device id, so every device shows the same tags for it.
func (u *Union) Entry(id string) (Entry, bool) {
	hs := u.byID[id]
	if len(hs) == 0 {
		return Entry{}, false
	}
	return hs[0].Item.Entry, true
}

// Each calls f for every content id held elsewhere, in no set order.
func (u *Union) Each(f func(id string, hs []Holding)) {
	for id, hs := range u.byID {
		f(id, hs)
	}
}

func (u *Union) set(dev engine.DeviceID, it *Item) {
	hs := u.byID[it.ContentID]
	i, found := slices.BinarySearchFunc(hs, dev, func(h Holding, d engine.DeviceID) int { return strings.Compare(string(h.Device), string(d)) })
	if found {
		hs = slices.Clone(hs) // holders' slices are handed out: never changed in place
		hs[i].Item = it
	} else {
		hs = slices.Insert(slices.Clone(hs), i, Holding{Device: dev, Item: it})
	}
	u.byID[it.ContentID] = hs
}

func (u *Union) remove(dev engine.DeviceID, id string) {
	hs := u.byID[id]
	i, found := slices.BinarySearchFunc(hs, dev, func(h Holding, d engine.DeviceID) int { return strings.Compare(string(h.Device), string(d)) })
	if !found {
		return
	}
	if len(hs) == 1 {
		delete(u.byID, id)
		return
	}
	u.byID[id] = slices.Delete(slices.Clone(hs), i, i+1)
}

// Follow updates the union for a catalog that went from old (nil: none)
// to new (nil: dropped, its device left the group), given the delta that
// led there (ignored when either is nil). It returns the content ids
// whose holders or entries changed.
func (u *Union) Follow(old, new *Catalog, d Delta) []string {
	var changed []string
	switch {
	case new == nil && old != nil:
		for id := range old.items {
			u.remove(old.Origin, id)
			changed = append(changed, id)
		}
	case old == nil || d.Full:
		if old != nil {
			for id := range old.items {
				if _, kept := new.items[id]; !kept {
					u.remove(old.Origin, id)
					changed = append(changed, id)
				}
			}
		}
		for id, it := range new.items {
			if old != nil && old.items[id] == it {
				continue
			}
			u.set(new.Origin, it)
			changed = append(changed, id)
		}
	default:
		for _, it := range d.Items {
			u.set(new.Origin, it)
			changed = append(changed, it.ContentID)
		}
		for _, g := range d.Gone {
			u.remove(new.Origin, g.ContentID)
			changed = append(changed, g.ContentID)
		}
	}
	return changed
}
