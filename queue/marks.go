package queue

import "github.com/furudesk/furudesk/engine"

// MarkWindow is how many of one sender's latest controls a state's marks
// tell apart (rule C7). A controller remembers at most MaxPending
// controls, so one it sends again is well inside the window.
const MarkWindow = 64

// Marks say which controls of one sender a state contains (rule C7): the
// one whose Control.ID is Top and, for each bit i of Bits set, the one
// whose ID is Top-i (bit 0 is Top itself).
type Marks struct {
	Top  uint64 `json:"top"`
	Bits uint64 `json:"bits"`
}

// Contains reports whether s contains control c from sender from: an
// owner applied it to s or to a state s descends from (rule C7). A
// control without an ID (an older build's) is never contained; one more
// than MarkWindow behind its sender's newest mark is outdated and counts
// as contained.
func (s State) Contains(from engine.DeviceID, c Control) bool {
	m, ok := s.Applied[from]
	switch {
	case c.ID == 0 || !ok || c.ID > m.Top:
		return false
	case m.Top-c.ID >= MarkWindow:
		return true
	}
	return m.Bits>>(m.Top-c.ID)&1 == 1
}

// Mark records on s that it contains control c from sender from, applied
// or refused (rule C7). At most engine.MaxSendersPerTerm senders are
// marked; a control without an ID is not.
func (s *State) Mark(from engine.DeviceID, c Control) {
	if c.ID == 0 {
		return
	}
	one := Marks{Top: c.ID, Bits: 1}
	m, ok := s.Applied[from]
	switch {
	case ok:
		one = m.union(one)
	case len(s.Applied) >= engine.MaxSendersPerTerm:
		return
	}
	if s.Applied == nil {
		s.Applied = map[engine.DeviceID]Marks{}
	}
	s.Applied[from] = one
}

// union is what m and o mark together, within the window of the newer
// top.
func (m Marks) union(o Marks) Marks {
	if o.Top > m.Top {
		m, o = o, m
	}
	if d := m.Top - o.Top; d < MarkWindow {
		m.Bits |= o.Bits << d
	}
	return m
}

// mergeMarks is the union of two sets of marks (a handoff's state and the
// target's own, rule C7).
func mergeMarks(into, from map[engine.DeviceID]Marks) map[engine.DeviceID]Marks {
	if len(from) == 0 {
		return into
	}
	out := make(map[engine.DeviceID]Marks, len(into)+len(from))
	for k, m := range into {
		out[k] = m
	}
	for k, m := range from {
		switch o, ok := out[k]; {
		case ok:
			out[k] = o.union(m)
		case len(out) < engine.MaxSendersPerTerm:
			out[k] = m
		}
	}
	return out
}
