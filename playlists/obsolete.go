package playlists

import "slices"

// Obsolete returns the ids of applied ops that no longer matter: whatever
// else is applied later, the views are the same with or without them,
// provided the ops that made them obsolete stay. Those are never obsolete
// themselves as long as they decide something, so a device may forget
// these ops for good and a device that never had them reaches the same
// views:
//
//   - every op of a deleted playlist but its delete ops;
//   - renames that lost to a later name;
//   - adds whose entries were all removed (the removes stay);
//   - moves of which no entry kept the position they set;
//   - likes that lost to a later like or unlike of the track;
//   - listens that a later running count of the same device supersedes.
//
// The ids are sorted.
func (s *State) Obsolete() []string {
	var out []string
	for id, r := range s.ops {
		if s.obsolete(id, r) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func (s *State) obsolete(id string, r opRef) bool {
	switch r.kind {
	case KindLikeSet:
		return s.likes[r.track].at.id != id
	case KindListenRecorded:
		return s.listens[r.track][r.origin].at.id != id
	}
	l := s.lists[r.playlist]
	if l.deleted {
		return r.kind != KindPlaylistDeleted
	}
	switch r.kind {
	case KindPlaylistRenamed:
		return l.nameAt.id != id
	case KindTrackAdded:
		for _, eid := range r.entries {
			if !l.entries[eid].removed {
				return false
			}
		}
		return true
	case KindTrackMoved:
		for _, eid := range r.entries {
			if e := l.entries[eid]; !e.removed && e.posAt.id == id {
				return false
			}
		}
		return true
	}
	return false
}

// Forget tells the state that the log forgot ops (some of those Obsolete
// returned): they are no longer reported. Forgetting changes no view.
func (s *State) Forget(ids []string) {
	for _, id := range ids {
		delete(s.ops, id)
	}
}

// Applied is the number of ops applied and not forgotten.
func (s *State) Applied() int { return len(s.ops) }
