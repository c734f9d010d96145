// Package relay holds the rules by which one member of a group carries a
// stream between two others that cannot reach each other directly (two
// devices behind different NATs, both reaching the box at home). It is a
// pure core: no sockets, no clock of its own, no randomness (the caller
// passes tokens and times in).
//
// The stream is opaque to the carrier: the two ends run their own TLS 1.3
// inside it with their device keys and check each other's membership as
// on a direct connection, so the carrier sees only ciphertext and who
// talks to whom. The carrier's part is admission: members only, both ends;
// only to a member it is connected to now; within its stream budgets; and
// every stream of a device that stops being a member is cut at once.
//
// The protocol, in devicesync: the caller C (who wants to reach T) opens
// a connection to the carrier R with ALPN furumi/relay/1 and asks for T
// (Carrier.Open); R tells T over their sync connection, with a token; T
// opens its own relay connection to R and answers with the token
// (Carrier.Answer); R then joins the two connections and tells both ends
// to begin. ChooseVia picks R.
package relay

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Limits bound what a device carries for others.
type Limits struct {
	// Streams is how many streams (and calls waiting for an answer) this
	// device carries at once.
	Streams int
	// PerDevice is how many of them may have one device at an end.
	PerDevice int
	// BytesPerSec is each stream's rate in each direction.
	BytesPerSec int64
	// AnswerWithin is how long a call waits for the callee's answer.
	AnswerWithin time.Duration
}

// DefaultLimits are the limits of a device that carries others' traffic:
// enough for coordination, the op log and a few streamed tracks.
func DefaultLimits() Limits {
	return Limits{Streams: 16, PerDevice: 6, BytesPerSec: 8 << 20, AnswerWithin: 5 * time.Second}
}

// Validate names the first invalid limit.
func (l Limits) Validate() error {
	if l.Streams < 1 || l.PerDevice < 1 || l.BytesPerSec < 1 || l.AnswerWithin <= 0 {
		return fmt.Errorf("relay: limits %+v: every limit must be positive", l)
	}
	return nil
}

// Refusals of Open and Answer. Each is a reason a carrier gives the caller.
var (
	ErrNotCarrying = errors.New("relay: this device does not carry other devices' traffic")
	ErrNotMember   = errors.New("relay: not a member of the group")
	ErrSelf        = errors.New("relay: a stream needs two other devices")
	ErrUnreachable = errors.New("relay: this device is not connected to that member")
	ErrBusy        = errors.New("relay: this device carries as many streams as it may")
	ErrUnknownCall = errors.New("relay: no such call")
	ErrWrongCallee = errors.New("relay: the call is for another device")
	ErrExpired     = errors.New("relay: the call was not answered in time")
)

// Call is a stream asked for and not yet answered, or carried now.
type Call struct {
	Token    string
	From, To string
	Opened   time.Time
	Answered bool
}

// Carrier is the relaying device's book of calls and streams.
type Carrier struct {
	self    string
	carries bool
	lim     Limits
	calls   map[string]*Call
}

// NewCarrier returns the carrier of device self; carries is the user's
// setting (Carry other devices' traffic).
func NewCarrier(self string, carries bool, lim Limits) *Carrier {
	return &Carrier{self: self, carries: carries, lim: lim, calls: map[string]*Call{}}
}

// Carries reports the setting.
func (c *Carrier) Carries() bool { return c.carries }

// Open admits a call from member from to member to under token. isMember
// is the group's membership now; connected says whether this device has a
// live connection to a device.
func (c *Carrier) Open(token, from, to string, isMember, connected func(string) bool, now time.Time) error {
	switch {
	case !c.carries:
		return ErrNotCarrying
	case !isMember(from):
		return fmt.Errorf("%w: %s", ErrNotMember, from)
	case !isMember(to):
		return fmt.Errorf("%w: %s", ErrNotMember, to)
	case from == to || from == c.self || to == c.self:
		return ErrSelf
	case !connected(to):
		return fmt.Errorf("%w: %s", ErrUnreachable, to)
	case token == "" || c.calls[token] != nil:
		return fmt.Errorf("relay: token %q is empty or in use", token)
	}
	c.Expire(now)
	if len(c.calls) >= c.lim.Streams {
		return ErrBusy
	}
	for _, d := range []string{from, to} {
		if c.involving(d) >= c.lim.PerDevice {
			return fmt.Errorf("%w (%d with %s)", ErrBusy, c.lim.PerDevice, d)
		}
	}
	c.calls[token] = &Call{Token: token, From: from, To: to, Opened: now}
	return nil
}

func (c *Carrier) involving(d string) int {
	k := 0
	for _, cl := range c.calls {
		if cl.From == d || cl.To == d {
			k++
		}
	}
	return k
}

// Answer takes callee by's answer to the call token: the stream may
// begin. isMember is checked again: membership may have changed since.
func (c *Carrier) Answer(token, by string, isMember func(string) bool, now time.Time) (Call, error) {
	cl := c.calls[token]
	switch {
	case cl == nil || cl.Answered:
		return Call{}, ErrUnknownCall
	case cl.To != by:
		return Call{}, ErrWrongCallee
	case now.Sub(cl.Opened) > c.lim.AnswerWithin:
		delete(c.calls, token)
		return Call{}, ErrExpired
	case !isMember(cl.From) || !isMember(cl.To):
		delete(c.calls, token)
		return Call{}, ErrNotMember
	}
	cl.Answered = true
	return *cl, nil
}

// Expire drops the calls not answered within AnswerWithin of now and
// returns them.
func (c *Carrier) Expire(now time.Time) []Call {
	var out []Call
	for t, cl := range c.calls {
		if !cl.Answered && now.Sub(cl.Opened) > c.lim.AnswerWithin {
			out = append(out, *cl)
			delete(c.calls, t)
		}
	}
	return out
}

// End forgets a call or stream (its connection closed).
func (c *Carrier) End(token string) { delete(c.calls, token) }

// Cut drops every call and stream with an end that isMember rejects and
// returns their tokens, sorted: the caller closes their connections now.
func (c *Carrier) Cut(isMember func(string) bool) []string {
	var out []string
	for t, cl := range c.calls {
		if !isMember(cl.From) || !isMember(cl.To) {
			out = append(out, t)
			delete(c.calls, t)
		}
	}
	slices.Sort(out)
	return out
}

// Len is the number of calls and streams.
func (c *Carrier) Len() int { return len(c.calls) }

// Candidate is a member this device is connected to directly, as its
// latest greeting described it.
type Candidate struct {
	Via     string
	Carries bool
	// Reaches lists the members Via is connected to directly now.
	Reaches []string
	// Dialable says this device can open a new connection to Via (it
	// reached Via by dialing it: an address that works).
	Dialable bool
}

// ChooseVia picks the member through which to reach target, or "" when
// none can carry it. A carrier must carry, reach target directly and be
// dialable; among several the caller's avoid (a carrier that failed
// lately) goes last, then the smallest id, so both ends of a pair
// usually pick the same one.
func ChooseVia(target string, cands []Candidate, avoid func(via string) bool) string {
	best, bestAvoided := "", true
	for _, c := range cands {
		if !c.Carries || !c.Dialable || c.Via == target || !slices.Contains(c.Reaches, target) {
			continue
		}
		av := avoid != nil && avoid(c.Via)
		if best == "" || (bestAvoided && !av) || (av == bestAvoided && c.Via < best) {
			best, bestAvoided = c.Via, av
		}
	}
	return best
}

// Of returns the tokens of the calls and streams with dev at an end,
// sorted.
func (c *Carrier) Of(dev string) []string {
	var out []string
	for t, cl := range c.calls {
		if cl.From == dev || cl.To == dev {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// SetCarries changes the setting. Turned off, every call and stream is
// dropped: their tokens are returned, sorted, for the caller to close.
func (c *Carrier) SetCarries(on bool) []string {
	c.carries = on
	if on {
		return nil
	}
	return c.Cut(func(string) bool { return false })
}
