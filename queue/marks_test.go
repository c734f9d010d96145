package queue

import (
	"testing"

	"github.com/furudesk/furudesk/engine"
)

// Marks tell the controls a state contains from those it does not, within
// the window of each sender's latest (rule C7).
func TestMarks(t *testing.T) {
	s := DefaultState()
	c := func(id uint64) Control { return Control{Op: OpNext, ID: id} }
	if s.Contains("a", c(5)) {
		t.Fatal("an empty state contains a control")
	}
	for _, id := range []uint64{5, 7, 6, 70} {
		s.Mark("a", c(id))
	}
	s.Mark("a", c(0)) // no ID: not marked
	for _, tc := range []struct {
		from string
		id   uint64
		want bool
	}{
		{"a", 70, true},
		{"a", 71, false}, // newer than any mark
		{"a", 69, false}, // inside the window, never applied
		{"a", 7, true},   // 63 behind the top: the window's last
		{"a", 6, true},   // 64 behind: outdated, counts as contained
		{"a", 0, false},  // no ID: never contained
		{"b", 70, false}, // another sender's
	} {
		if got := s.Contains(engine.DeviceID(tc.from), c(tc.id)); got != tc.want {
			t.Errorf("Contains(%s, %d) = %v, want %v (marks %+v)", tc.from, tc.id, got, tc.want, s.Applied)
		}
	}
	// A mark far ahead starts the window anew; a clone keeps its own.
	cl := s.Clone()
	s.Mark("a", c(1000))
	if s.Contains("a", c(999)) || !s.Contains("a", c(1000)) || cl.Contains("a", c(1000)) {
		t.Fatalf("after a jump ahead: marks %+v, clone %+v", s.Applied, cl.Applied)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}

// A handoff keeps the marks of what the target applied before it reached
// it, beside the handoff state's own (rule C7).
func TestHandoffKeepsTheTargetsMarks(t *testing.T) {
	target := DefaultState()
	target.Mark("a", Control{ID: 10})
	target.Mark("b", Control{ID: 3})
	src := DefaultState()
	src.Queue = []Entry{{ContentID: "b3:x", DurationMS: 1000}}
	src.Mark("a", Control{ID: 12})
	if _, err := target.Apply(Control{Op: OpHandoff, State: &src}, 0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		from string
		id   uint64
		want bool
	}{{"a", 10, true}, {"a", 12, true}, {"a", 11, false}, {"b", 3, true}} {
		if got := target.Contains(engine.DeviceID(c.from), Control{ID: c.id}); got != c.want {
			t.Errorf("after the handoff Contains(%s, %d) = %v, want %v (marks %+v)", c.from, c.id, got, c.want, target.Applied)
		}
	}
	if src.Contains("b", Control{ID: 3}) {
		t.Fatal("the handoff's own state was changed")
	}
}
