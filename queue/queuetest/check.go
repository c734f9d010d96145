package queuetest

import (
	"slices"
	"strings"

	"github.com/furudesk/furudesk/queue"
)

// observe checks I2 on a controller: its shown position on one track
// never steps back beyond MaxLead without a jump.
func (s *sim) observe(d *device) {
	o := d.e.Owner()
	if o == "" || o == d.id || !d.adopted || d.pend.Predicting() {
		// A view of controls the owner has not confirmed is this
		// device's prediction, not the owner's playback: the owner's
		// answer replaces it.
		d.view = viewKey{}
		return
	}
	e, ok := d.st.Current()
	k := viewKey{ok: ok, term: d.st.Term, idx: d.st.Index, cid: e.ContentID, jumps: d.st.Jumps, played: d.st.Playing}
	p := d.pos.Now(d.st, s.inputs(d))
	if k == d.view && k.played && p < d.seen-queue.MaxLead(heartbeat).Milliseconds() {
		s.fail("I2: %s showed %s at %d ms, then %d without a jump", d.id, k.cid, d.seen, p)
	}
	if k != d.view || p > d.seen {
		d.view, d.seen = k, p
	}
}

// settled is I3 and I4.
func (s *sim) settled() error {
	var owner *device
	renderers := 0
	for _, d := range s.devs {
		if d.rendering {
			renderers++
			owner = d
		}
	}
	if renderers > 1 {
		return s.errf("I4: %d devices render after the calm phase", renderers)
	}
	if owner == nil {
		for _, d := range s.devs {
			if d.e.Owner() == d.id {
				owner = d
			}
		}
	}
	if owner != nil {
		for _, d := range s.devs {
			if d != owner && (!sameQueue(d.st, owner.st) || d.st.Index != owner.st.Index) {
				return s.errf("I4: %s shows index %d of %s, the owner %s index %d of %s", d.id, d.st.Index, ids(d.st), owner.id, owner.st.Index, ids(owner.st))
			}
		}
	}
	for id := range s.nextCtl {
		if c := s.ctl[id]; c.done == "" {
			return s.errf("I3: control %d (%s from %s, stamps %v) was lost", id, c.op, c.from, c.stamp)
		}
	}
	return nil
}

func sameQueue(a, b queue.State) bool {
	return slices.EqualFunc(a.Queue, b.Queue, func(x, y queue.Entry) bool { return x.ContentID == y.ContentID })
}

func ids(s queue.State) string {
	var b strings.Builder
	for _, e := range s.Queue {
		b.WriteString(strings.TrimPrefix(e.ContentID, "b3:"))
		b.WriteByte(' ')
	}
	return strings.TrimSpace(b.String())
}

func cidOf(s queue.State) string {
	e, _ := s.Current()
	return e.ContentID
}
