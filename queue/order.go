package queue

import (
	"math/rand/v2"
	"slices"
)

// The play order. Without shuffle the queue plays in its own order; with
// shuffle State.Order lists the queue's indexes in play order. The
// order is generated from State.Seed, so it is reproducible, and it
// is carried in the snapshot and persisted in the storage transport (seed
// and order), so every device and a restart agree on it.

// mix is splitmix64: it derives a new seed from an old one.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// ShuffledOrder is a permutation of 0..n-1 generated from seed, with first
// (when in range) moved to the front so the current track keeps playing
// and the rest of the queue follows in shuffled order.
func ShuffledOrder(seed uint64, n, first int) []int {
	r := rand.New(rand.NewPCG(seed, mix(seed)))
	o := r.Perm(n)
	if first >= 0 && first < n {
		i := slices.Index(o, first)
		copy(o[1:i+1], o[:i])
		o[0] = first
	}
	return o
}

// IsPermutation reports whether o holds each of 0..n-1 exactly once.
func IsPermutation(o []int, n int) bool {
	if len(o) != n {
		return false
	}
	seen := make([]bool, n)
	for _, v := range o {
		if v < 0 || v >= n || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// reshuffle generates a new order (from the next seed) that starts with
// the current track; a no-op without shuffle.
func (s *State) reshuffle() {
	if !s.Shuffle {
		s.Order = nil
		return
	}
	s.Seed = mix(s.Seed)
	s.Order = ShuffledOrder(s.Seed, len(s.Queue), s.Index)
}

// orderPos is the position of the current track in the play order.
func (s State) OrderPos() int {
	if !s.Shuffle {
		return s.Index
	}
	return max(slices.Index(s.Order, s.Index), 0)
}

// at is the queue index at position pos of the play order.
func (s State) At(pos int) int {
	if !s.Shuffle {
		return pos
	}
	return s.Order[pos]
}

// following is the queue index that plays after the current track ends:
// the same track with repeat one, the next in play order, the first again
// with repeat all; false when the queue plays out.
func (s State) Following() (int, bool) {
	n := len(s.Queue)
	if n == 0 || s.Index < 0 || s.Index >= n {
		return 0, false
	}
	if s.Repeat == "one" {
		return s.Index, true
	}
	return s.After()
}

// after is the queue index after the current track in play order (what
// Next plays), wrapping around with repeat all.
func (s State) After() (int, bool) {
	n := len(s.Queue)
	if n == 0 {
		return 0, false
	}
	if p := s.OrderPos(); p+1 < n {
		return s.At(p + 1), true
	}
	if s.Repeat == "all" {
		if s.Shuffle {
			_, o := s.cycleOrder()
			return o[0], true
		}
		return s.At(0), true
	}
	return 0, false
}

// wraps reports whether the track after the current one starts a new
// cycle of a shuffled queue on repeat all.
func (s State) wraps() bool {
	return s.Shuffle && s.Repeat == "all" && len(s.Queue) > 0 && s.OrderPos()+1 >= len(s.Queue)
}

// cycleOrder is the seed and order of the next cycle of a shuffled queue
// on repeat all: a new shuffle each time round, from the next seed, so
// every device that follows the snapshot (and after computes) agrees. It
// does not start with the track that just played, if it can.
func (s State) cycleOrder() (uint64, []int) {
	seed := mix(s.Seed)
	o := ShuffledOrder(seed, len(s.Queue), -1)
	if len(o) > 1 && o[0] == s.Index {
		o[0], o[1] = o[1], o[0]
	}
	return seed, o
}

// moveTo makes queue index i, which after returned, the current track,
// starting the next cycle's order when it wrapped around.
func (s *State) MoveTo(i int) {
	if s.wraps() {
		s.Seed, s.Order = s.cycleOrder()
	}
	s.Index = i
}

// before is the queue index before the current track in play order.
func (s State) Before() (int, bool) {
	if p := s.OrderPos(); p > 0 && p < len(s.Queue) {
		return s.At(p - 1), true
	}
	return 0, false
}

// orderInsert updates the order after k entries were inserted into the
// queue at index at. Inserted as "play next" they follow the current
// track; appended ones are spread at random over the part of the order not
// yet played.
func (s *State) orderInsert(at, k int, next bool) {
	if !s.Shuffle {
		return
	}
	for i, v := range s.Order {
		if v >= at {
			s.Order[i] = v + k
		}
	}
	if len(s.Order) == 0 {
		s.Order = ShuffledOrder(mix(s.Seed), k, s.Index)
		return
	}
	pos := slices.Index(s.Order, s.Index)
	if next {
		ins := make([]int, k)
		for i := range ins {
			ins[i] = at + i
		}
		s.Order = slices.Insert(s.Order, pos+1, ins...)
		return
	}
	s.Seed = mix(s.Seed)
	r := rand.New(rand.NewPCG(s.Seed, uint64(len(s.Order))))
	for i := range k {
		// Anywhere among the tracks not played yet, but never before
		// the one up next: appending does not Change what plays next
		// (a "play next" track stays next).
		lo := pos + 1
		if lo < len(s.Order) {
			lo++
		}
		p := lo + r.IntN(len(s.Order)-lo+1)
		s.Order = slices.Insert(s.Order, p, at+i)
	}
}
