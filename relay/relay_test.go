package relay

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

func members(ids ...string) func(string) bool {
	return func(d string) bool {
		for _, id := range ids {
			if id == d {
				return true
			}
		}
		return false
	}
}

func all(string) bool { return true }

func TestOpenRefusals(t *testing.T) {
	lim := Limits{Streams: 2, PerDevice: 1, BytesPerSec: 1, AnswerWithin: time.Second}
	isM := members("R", "A", "B", "C", "D")
	for _, tc := range []struct {
		name     string
		carries  bool
		from, to string
		conn     func(string) bool
		want     error
	}{
		{"not carrying", false, "A", "B", all, ErrNotCarrying},
		{"outsider caller", true, "X", "B", all, ErrNotMember},
		{"to an outsider", true, "A", "X", all, ErrNotMember},
		{"to itself", true, "A", "A", all, ErrSelf},
		{"to the carrier", true, "A", "R", all, ErrSelf},
		{"callee not connected", true, "A", "B", members("A"), ErrUnreachable},
	} {
		c := NewCarrier("R", tc.carries, lim)
		if err := c.Open("t1", tc.from, tc.to, isM, tc.conn, t0); !errors.Is(err, tc.want) {
			t.Errorf("%s: Open = %v, want %v", tc.name, err, tc.want)
		}
		if c.Len() != 0 {
			t.Errorf("%s: a refused call was kept", tc.name)
		}
	}
	c := NewCarrier("R", true, lim)
	if err := c.Open("t1", "A", "B", isM, all, t0); err != nil {
		t.Fatal(err)
	}
	if err := c.Open("t1", "C", "D", isM, all, t0); err == nil {
		t.Error("a token in use was taken again")
	}
	if err := c.Open("t2", "A", "C", isM, all, t0); !errors.Is(err, ErrBusy) {
		t.Errorf("a second stream of A with PerDevice 1: %v, want ErrBusy", err)
	}
	if err := c.Open("t3", "C", "D", isM, all, t0); err != nil {
		t.Fatal(err)
	}
	if err := c.Open("t4", "D", "B", isM, all, t0); !errors.Is(err, ErrBusy) {
		t.Errorf("a third stream with Streams 2: %v, want ErrBusy", err)
	}
	c.End("t1")
	if err := c.Open("t5", "A", "B", isM, all, t0); err != nil {
		t.Errorf("after a stream ended: %v", err)
	}
}

func TestAnswer(t *testing.T) {
	lim := Limits{Streams: 4, PerDevice: 4, BytesPerSec: 1, AnswerWithin: time.Second}
	c := NewCarrier("R", true, lim)
	isM := members("A", "B", "C")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Open("t1", "A", "B", isM, all, t0))
	if _, err := c.Answer("t1", "C", isM, t0); !errors.Is(err, ErrWrongCallee) {
		t.Errorf("another device answered: %v", err)
	}
	if _, err := c.Answer("nope", "B", isM, t0); !errors.Is(err, ErrUnknownCall) {
		t.Errorf("unknown token: %v", err)
	}
	cl, err := c.Answer("t1", "B", isM, t0.Add(time.Second))
	if err != nil || cl.From != "A" || cl.To != "B" {
		t.Fatalf("Answer = %+v, %v", cl, err)
	}
	if _, err := c.Answer("t1", "B", isM, t0.Add(time.Second)); !errors.Is(err, ErrUnknownCall) {
		t.Errorf("a call answered twice: %v", err)
	}

	must(c.Open("t2", "A", "C", isM, all, t0))
	if _, err := c.Answer("t2", "C", isM, t0.Add(1001*time.Millisecond)); !errors.Is(err, ErrExpired) {
		t.Errorf("a late answer: %v", err)
	}
	must(c.Open("t3", "A", "C", isM, all, t0))
	if _, err := c.Answer("t3", "C", members("C"), t0); !errors.Is(err, ErrNotMember) {
		t.Errorf("the caller was revoked meanwhile: %v", err)
	}
	must(c.Open("t4", "B", "C", isM, all, t0))
	if ex := c.Expire(t0.Add(2 * time.Second)); len(ex) != 1 || ex[0].Token != "t4" {
		t.Errorf("Expire = %+v, want t4 only (t1 is answered)", ex)
	}
	if c.Len() != 1 {
		t.Errorf("%d calls left, want the answered one", c.Len())
	}
}

func TestCutRevoked(t *testing.T) {
	c := NewCarrier("R", true, DefaultLimits())
	isM := members("A", "B", "C")
	for i, p := range [][2]string{{"A", "B"}, {"B", "C"}, {"C", "A"}} {
		if err := c.Open(fmt.Sprint("t", i), p[0], p[1], isM, all, t0); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.Of("A"); fmt.Sprint(got) != "[t0 t2]" {
		t.Errorf("Of(A) = %v, want [t0 t2]", got)
	}
	got := c.Cut(members("A", "C"))
	if fmt.Sprint(got) != "[t0 t1]" || c.Len() != 1 {
		t.Errorf("Cut = %v with %d left, want [t0 t1] and one left", got, c.Len())
	}
}

func TestChooseVia(t *testing.T) {
	cands := []Candidate{
		{Via: "R2", Carries: true, Reaches: []string{"T"}, Dialable: true},
		{Via: "R1", Carries: true, Reaches: []string{"T"}, Dialable: true},
		{Via: "R0", Carries: false, Reaches: []string{"T"}, Dialable: true},
		{Via: "Q", Carries: true, Reaches: []string{"T"}, Dialable: false},
		{Via: "P", Carries: true, Reaches: []string{"U"}, Dialable: true},
	}
	if got := ChooseVia("T", cands, nil); got != "R1" {
		t.Errorf("ChooseVia = %q, want R1 (smallest id that carries, reaches T and can be dialed)", got)
	}
	if got := ChooseVia("T", cands, func(v string) bool { return v == "R1" }); got != "R2" {
		t.Errorf("avoiding R1: %q, want R2", got)
	}
	if got := ChooseVia("T", cands, func(string) bool { return true }); got != "R1" {
		t.Errorf("all avoided: %q, want R1 still", got)
	}
	if got := ChooseVia("X", cands, nil); got != "" {
		t.Errorf("nobody reaches X: %q", got)
	}
	if got := ChooseVia("T", []Candidate{{Via: "T", Carries: true, Reaches: []string{"T"}, Dialable: true}}, nil); got != "" {
		t.Errorf("the target itself as carrier: %q", got)
	}
}

// TestCarrierSim runs seeded random sequences of opens, answers, ends,
// revocations and expiries against one carrier and checks after every
// step: the budgets hold, every call has two member ends, and only the
// callee's timely answer starts a stream. A failure prints its seed.
func TestCarrierSim(t *testing.T) {
	for seed := range uint64(500) {
		if err := simCarrier(seed); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

func simCarrier(seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 7))
	lim := Limits{Streams: 1 + rng.IntN(6), PerDevice: 1 + rng.IntN(3), BytesPerSec: 1, AnswerWithin: time.Second}
	devs := []string{"A", "B", "C", "D", "E", "X"}
	member := map[string]bool{"A": true, "B": true, "C": true, "D": true, "E": true}
	isM := func(d string) bool { return member[d] }
	c := NewCarrier("R", true, lim)
	now := t0
	for step := range 200 {
		now = now.Add(time.Duration(rng.IntN(400)) * time.Millisecond)
		from, to := devs[rng.IntN(len(devs))], devs[rng.IntN(len(devs))]
		switch rng.IntN(6) {
		case 0, 1:
			err := c.Open(fmt.Sprint("t", step), from, to, isM, all, now)
			if err == nil && (!member[from] || !member[to] || from == to) {
				return fmt.Errorf("step %d: opened %s→%s (members %v)", step, from, to, member)
			}
		case 2:
			for tok, cl := range c.calls {
				by := cl.To
				if rng.IntN(3) == 0 {
					by = from
				}
				late := now.Sub(cl.Opened) > lim.AnswerWithin
				_, err := c.Answer(tok, by, isM, now)
				if err == nil && (by != cl.To || late) {
					return fmt.Errorf("step %d: answer by %s to %+v accepted (late %v)", step, by, cl, late)
				}
				break
			}
		case 3:
			for tok := range c.calls {
				c.End(tok)
				break
			}
		case 4:
			d := devs[rng.IntN(len(devs)-1)]
			member[d] = !member[d]
			c.Cut(isM)
		case 5:
			c.Expire(now)
		}
		if c.Len() > lim.Streams {
			return fmt.Errorf("step %d: %d calls, limit %d", step, c.Len(), lim.Streams)
		}
		for _, d := range devs {
			if k := c.involving(d); k > lim.PerDevice {
				return fmt.Errorf("step %d: %d calls with %s, limit %d", step, k, d, lim.PerDevice)
			}
		}
		for _, cl := range c.calls {
			if !member[cl.From] || !member[cl.To] {
				return fmt.Errorf("step %d: call %+v with a non-member end", step, cl)
			}
		}
	}
	return nil
}

func TestSetCarriesOffDropsAll(t *testing.T) {
	c := NewCarrier("R", true, DefaultLimits())
	if err := c.Open("t1", "A", "B", all, all, t0); err != nil {
		t.Fatal(err)
	}
	if got := c.SetCarries(false); fmt.Sprint(got) != "[t1]" || c.Len() != 0 || c.Carries() {
		t.Errorf("SetCarries(false) = %v, %d left, carries %v", got, c.Len(), c.Carries())
	}
	if err := c.Open("t2", "A", "B", all, all, t0); !errors.Is(err, ErrNotCarrying) {
		t.Errorf("Open after turning off: %v", err)
	}
	c.SetCarries(true)
	if err := c.Open("t3", "A", "B", all, all, t0); err != nil {
		t.Errorf("Open after turning on again: %v", err)
	}
}
