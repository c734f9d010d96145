package playlists

import (
	"encoding/json"
	"slices"
)

// CarryOver returns the ops that bring what old holds (the state of the
// group this device left) into into (the state of the group it joined),
// where into lacks it: playlists under their own ids and their entries
// under theirs, so a device rejoining a group merges instead of
// duplicating; likes and unlikes with their dates; this device's (self's)
// play counts. A playlist into deleted stays deleted. Names, positions
// and likes keep the dates they had, so the newer value wins on either
// side.
func CarryOver(old, into *State, self string) []Edit {
	var edits []Edit
	for _, sum := range old.Playlists() {
		il := into.lists[sum.ID]
		if il != nil && il.deleted {
			continue
		}
		l := old.lists[sum.ID]
		if il == nil || !il.created || l.nameAt.ms > il.nameAt.ms {
			edits = append(edits, mustEdit(KindPlaylistCreated, createdBody{ID: sum.ID, Name: l.name, AtMS: l.nameAt.ms}))
		}
		p, _ := old.Playlist(sum.ID)
		var batch []addedEntry
		size := 0
		flush := func() {
			if len(batch) > 0 {
				edits = append(edits, mustEdit(KindTrackAdded, addedBody{Playlist: sum.ID, Entries: batch}))
				batch, size = nil, 0
			}
		}
		for _, e := range p.Entries {
			if il != nil {
				if ie := il.entries[e.ID]; ie != nil && (ie.removed || (ie.added && ie.posAt.ms >= l.entries[e.ID].posAt.ms)) {
					continue
				}
			}
			ae := addedEntry{ID: e.ID, Pos: e.Pos, Track: e.Track, AtMS: l.entries[e.ID].posAt.ms}
			b, _ := json.Marshal(ae)
			if len(batch) == MaxItemsPerOp || size+len(b) > MaxEditBytes {
				flush()
			}
			batch = append(batch, ae)
			size += len(b) + 1
		}
		flush()
	}
	for _, cid := range sortedKeys(old.likes) {
		r := old.likes[cid]
		if ir := into.likes[cid]; ir == nil || r.at.ms > ir.at.ms {
			edits = append(edits, mustEdit(KindLikeSet, likeBody{Track: r.track, Liked: r.liked, AtMS: r.at.ms}))
		}
	}
	for _, cid := range sortedKeys(old.listens) {
		r := old.listens[cid][self]
		if r == nil {
			continue
		}
		if ir := into.listens[cid][self]; ir == nil || r.plays > ir.plays {
			edits = append(edits, mustEdit(KindListenRecorded, listenBody{Track: r.track, Plays: r.plays, AtMS: r.at.ms}))
		}
	}
	return edits
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
