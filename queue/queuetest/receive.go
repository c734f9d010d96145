package queuetest

import (
	"slices"

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
		// The owner's snapshot says it applied d's commands from AckFrom
		// to Acks (all of them up to Acks from an older build) addressed
		// to its process.
		for _, id := range d.pendID {
			c := s.ctl[id]
			last := c.stamp[len(c.stamp)-1]
			if c.done == "" && queue.Acknowledges(ps, d.id, c.c, last) {
				if !c.applied[last] {
					s.fail("I3: control %d (%s from %s) is acknowledged by %s but was never applied", id, c.op, d.id, m.from)
				}
				c.done = "acked"
				s.res.Acked++
			}
		}
		d.pendID = slices.DeleteFunc(d.pendID, func(id int) bool { return s.ctl[id].done != "" })
		predicted := d.pend.Predicting()
		heardPS := ps
		if s.opt.Rules.NoRestarted {
			heardPS.Launch = 0
		}
		d.pend.Heard(m.from, heardPS, d.id)
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
		keep, dropped := d.pend.Hold(ps, d.id, s.clk.now)
		if dropped != nil && !s.opt.AllowDrops {
			// No owner here freezes or stays silent for PendingHold: a
			// control it did not apply by then was lost, not late (I6).
			s.fail("I6: %s dropped %d controls the owner %s did not acknowledge within %v", d.id, len(dropped), m.from, queue.PendingHold)
		}
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
		ps.Acks, ps.AckFrom, ps.Closing, ps.Notice = d.st.Acks, d.st.AckFrom, false, nil
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
		if !queue.Addressed(m.c, d.launch) && !s.opt.Rules.NoAddress {
			s.logf("%s refuses %s from %s addressed to its launch %d", d.id, m.c.Op, m.from, m.c.Launch)
			return // meant for its process that is gone: sent again (C5)
		}
		if d.st.Contains(m.from, m.c) && !s.opt.Rules.NoMarks {
			// Applied already, by this device's previous process or by
			// the owner whose state it took over: acknowledged, not
			// applied again (C7).
			if c, ok := s.ctl[m.id]; ok {
				c.applied[m.stamp] = true
			}
			s.logf("%s contains %s from %s already", d.id, m.c.Op, m.from)
			s.ack(d, m, tx)
			return
		}
		if c, ok := s.ctl[m.id]; ok {
			c.applied[m.stamp] = true
			if c.by[m.stamp.Claim]++; c.by[m.stamp.Claim] > 1 {
				s.fail("I3: control %d (%s from %s) applied twice by %s in term %v", m.id, c.op, m.from, d.id, m.stamp.Claim)
			}
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
	d.st.Mark(m.from, m.c)
	d.st.Ack(m.from, m.stamp)
	if s.opt.Rules.NoAckFrom {
		d.st.AckFrom = nil
	}
	tx.publish = true
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// retarget is the app's retargetPending (C3, C5, C6).
func (s *sim) retarget(d *device) {
	if d.pend.Len() == 0 {
		return
	}
	owner := d.e.Owner()
	if again := d.pend.Again(); len(again) > 0 {
		// The same owner's process will not receive these (C5, C6).
		ids := make([]int, len(again))
		for i, a := range again {
			ids[i] = -1
			for _, id := range d.pendID {
				if c := s.ctl[id]; c.stamp[len(c.stamp)-1] == a.Stamp {
					ids[i] = id
				}
			}
			if ids[i] < 0 {
				s.fail("retarget: control stamped %v sent again is not pending", a.Stamp)
				return
			}
		}
		d.pendID = slices.DeleteFunc(d.pendID, func(id int) bool { return slices.Contains(ids, id) })
		s.logf("%s sends %d controls again to %s (restarted or lost)", d.id, len(again), owner)
		s.sendAgain(d, owner, again, ids)
		return
	}
	ids := d.pendID
	var again, dropped []queue.Control
	if !s.opt.Rules.NoRetarget {
		again, dropped = d.pend.Retarget(owner, d.id, d.e.Claim())
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
		case len(c.stamp) > 1:
			if c.done == "" {
				c.done = "dropped"
				s.res.Dropped++
			}
			d.view = viewKey{} // its prediction ends with the notice
		default:
			againIDs = append(againIDs, id)
		}
	}
	if len(againIDs) != len(again) || len(dropped) != len(ids)-len(again) && owner != d.id {
		s.fail("retarget: %d controls again and %d dropped of %d", len(again), len(dropped), len(ids))
		return
	}
	s.logf("%s sends %d controls again to %s, %d dropped", d.id, len(again), owner, len(dropped))
	sent := make([]queue.Sent, len(again))
	for i, c := range again {
		sent[i].Control = c
	}
	s.sendAgain(d, owner, sent, againIDs)
}

// sendAgain stamps controls anew, shows their effect again and sends
// them to owner (app's resend).
func (s *sim) sendAgain(d *device, owner engine.DeviceID, again []queue.Sent, ids []int) {
	if len(again) == 0 {
		return
	}
	s.transition(d, func(tx *txn) {
		for i, a := range again {
			c := a.Control
			d.pend.Address(&c, owner)
			stamp, err := d.e.Stamp()
			if err != nil {
				return
			}
			s.anchor(d)
			_, _ = d.st.Apply(c, d.st.PositionMS)
			d.pos.Moved(s.clk.now)
			d.pend.Remember(c, stamp, s.clk.now, true)
			id := ids[i]
			s.ctl[id].stamp, s.ctl[id].c = append(s.ctl[id].stamp, stamp), c
			d.pendID = append(d.pendID, id)
			tx.sends = append(tx.sends, msg{kind: command, from: d.id, to: owner, sent: s.clk.now, stamp: stamp, c: c, id: id})
		}
	})
}
