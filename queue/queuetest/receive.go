package queuetest

import (
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/queue"
)

// snapshot is the app's snapshot handler.
func (s *sim) snapshot(d *device, m msg) {
	if m.from == d.id {
		s.echo(d, m)
		return
	}
	s.transition(d, func(tx *txn) {
		if d.e.Announce(m.from, m.coord) != nil {
			return
		}
		if m.from != d.e.Owner() || d.e.MayRender() || m.coord.Claim.Owner != m.from && !s.opt.Rules.NoOwnerClaim {
			return
		}
		ps := m.state.Clone()
		if ps.Validate() != nil {
			s.fail("%s published an invalid state: %v", m.from, ps.Validate())
			return
		}
		hb := m.coord.Heartbeat
		if m.from == d.heardFrom && hb < d.heardHB {
			return
		}
		if !s.opt.Rules.NoRestarted {
			d.pend.Heard(m.from, ps.Launch)
		}
		shown := d.pos.Now(d.st, s.inputs(d))
		heard := s.clk.now
		if ps.Resuming && !s.opt.Rules.NoResuming {
			d.aliveAt, d.heardFrom, d.heardHB = heard, m.from, hb
			return
		}
		d.aliveAt, d.heardFrom, d.heardHB = heard, m.from, hb
		if s.opt.Rules.NoHeldView {
			d.pos.HeardAt = heard
		}
		if ps.Closing {
			d.closingFrom = m.from
		} else if d.closingFrom == m.from {
			d.closingFrom = ""
		}
		ps.Closing = false
		for _, id := range d.pendID {
			c := s.ctl[id]
			last := c.stamp[len(c.stamp)-1]
			if c.done == "" && last.Claim == ps.Term && ps.Acks[d.id] >= last.Sequence {
				if !c.applied {
					s.fail("I3: control %d (%s from %s) is acknowledged by %s but was never applied", id, c.op, d.id, m.from)
				}
				c.done = "acked"
				s.res.Acked++
			}
		}
		predicted := d.pend.Len() > 0
		keep, dropped := d.pend.Hold(ps, d.id, s.clk.now)
		s.settlePending(d, dropped != nil, "dropped")
		if keep {
			return
		}
		s.logf("%s (pending %d) (claim %v) adopts %s's %s@%d (jumps %d acks %v term %v; showed %s@%d jumps %d)", d.id, d.pend.Len(), d.e.Claim(), m.from, cidOf(ps), ps.PositionMS, ps.Jumps, ps.Acks, ps.Term, cidOf(d.st), shown, d.st.Jumps)
		in := s.inputs(d)
		in.Predicted = predicted
		d.pos.Adopt(&d.st, ps, heard, shown, in)
		d.adopted = true
		if predicted {
			d.view = viewKey{} // its prediction gives way to the owner's answer
		}
	})
}

// echo is a restarted owner's own snapshot handed back (app's ownEcho).
func (s *sim) echo(d *device, m msg) {
	s.transition(d, func(tx *txn) {
		if !s.holding(d) || m.coord.Claim != d.e.Claim() || m.state.Resuming || m.state.Term != d.e.Claim() {
			return
		}
		ps := m.state.Clone()
		ps.Acks, ps.Closing, ps.Notice = d.st.Acks, false, nil
		d.st = ps
		d.pos.Reset(m.sent)
		s.logf("%s resumes its published state at %d", d.id, ps.PositionMS)
	})
}

// settlePending accounts for d's controls once Pending let them go:
// every open one is done as how says when it was dropped (a notice) or
// taken over.
func (s *sim) settlePending(d *device, dropped bool, how string) {
	if d.pend.Len() > 0 {
		return
	}
	for _, id := range d.pendID {
		if c := s.ctl[id]; c.done == "" && dropped {
			c.done = how
			s.res.Dropped++
		}
	}
	d.pendID = d.pendID[:0]
}

// command is the app's command handler.
func (s *sim) command(d *device, m msg) {
	s.transition(d, func(tx *txn) {
		if d.e.Receive(m.from, m.stamp, m.handoff) != engine.Accepted {
			return
		}
		if c, ok := s.ctl[m.id]; ok {
			c.applied = true
		}
		s.anchor(d)
		c := m.c
		s.logf("%s applies %s from %s: now %s@%d playing %v", d.id, c.Op, m.from, cidOf(d.st), d.st.PositionMS, d.st.Playing)
		if c.State != nil {
			s.logf("%s takes %s's handoff %s@%d (source stopped at %d)", d.id, m.from, cidOf(*c.State), c.State.PositionMS, m.state.PositionMS)
		}
		if c.Op == queue.OpHandoff {
			if e, ok := c.State.Current(); ok && d.out.on && d.out.cid == e.ContentID && d.out.idx == c.State.Index &&
				queue.KeepPlaying(c, d.pos.Now(d.st, s.inputs(d))) {
				c.State.PositionMS = d.pos.Now(d.st, s.inputs(d))
				ch, err := d.st.Apply(c, d.st.PositionMS)
				if err == nil {
					ch.Track = false
					tx.ch = ch
				}
				s.ack(d, m, tx)
				s.checkHandoff(d, m, c.State.PositionMS)
				return
			}
		}
		ch, err := d.st.Apply(c, d.st.PositionMS)
		if err != nil {
			s.ack(d, m, tx)
			return
		}
		d.pos.Moved(s.clk.now)
		tx.ch = ch
		tx.jump = c.Op != queue.OpHandoff && (ch.Track || ch.Seek)
		if tx.jump {
			s.asked(d, ch)
		}
		s.ack(d, m, tx)
		if c.Op == queue.OpHandoff {
			s.checkHandoff(d, m, d.st.PositionMS)
		}
	})
}

// checkHandoff is I1: the target starts where the source's output stopped.
func (s *sim) checkHandoff(d *device, m msg, start int64) {
	if !m.state.Playing || m.state.PositionMS < 0 || !m.c.State.Playing {
		return
	}
	if diff := abs(start - m.state.PositionMS); diff > queue.HandoffSlack.Milliseconds() {
		s.fail("I1: %s took over from %s at %d ms, the source stopped at %d", d.id, m.from, start, m.state.PositionMS)
	}
}

func (s *sim) ack(d *device, m msg, tx *txn) {
	if d.st.Acks == nil || d.st.Term != m.stamp.Claim {
		d.st.Acks = map[engine.DeviceID]uint64{}
		d.st.Term = m.stamp.Claim
	}
	if len(d.st.Acks) < engine.MaxSendersPerTerm || d.st.Acks[m.from] != 0 {
		d.st.Acks[m.from] = m.stamp.Sequence
	}
	tx.publish = true
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// retarget is the app's retargetPending (C3).
func (s *sim) retarget(d *device) {
	if d.pend.Len() == 0 {
		return
	}
	owner := d.e.Owner()
	ids := d.pendID
	var again, dropped []queue.Control
	if !s.opt.Rules.NoRetarget {
		again, dropped = d.pend.Retarget(owner, d.id, d.e.Claim())
	}
	restarted := d.pend.TakeRestart()
	if restarted {
		again, dropped = d.pend.Restarted(), nil
	}
	if d.pend.Len() != 0 {
		return // nothing changed
	}
	d.pendID = nil
	var againIDs []int
	for _, id := range ids {
		c := s.ctl[id]
		switch {
		case owner == d.id:
			if c.done == "" {
				c.done = "taken over"
			}
		case len(c.stamp) > 1 && !restarted:
			if c.done == "" {
				c.done = "dropped"
				s.res.Dropped++
			}
			d.view = viewKey{} // its prediction ends with the notice
		default:
			againIDs = append(againIDs, id)
		}
	}
	if len(againIDs) != len(again) || len(dropped) != len(ids)-len(again) && owner != d.id && !restarted {
		s.fail("retarget: %d controls again and %d dropped of %d", len(again), len(dropped), len(ids))
		return
	}
	s.logf("%s sends %d controls again to %s, %d dropped", d.id, len(again), owner, len(dropped))
	if len(again) == 0 {
		return
	}
	s.transition(d, func(tx *txn) {
		for i, c := range again {
			stamp, err := d.e.Stamp()
			if err != nil {
				return
			}
			s.anchor(d)
			_, _ = d.st.Apply(c, d.st.PositionMS)
			d.pos.Moved(s.clk.now)
			d.pend.Remember(c, stamp, s.clk.now, true)
			id := againIDs[i]
			s.ctl[id].stamp = append(s.ctl[id].stamp, stamp)
			d.pendID = append(d.pendID, id)
			tx.sends = append(tx.sends, msg{kind: command, from: d.id, to: owner, sent: s.clk.now, stamp: stamp, c: c, id: id})
		}
	})
}
