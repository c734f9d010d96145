package engine

// Ready is what changed since the last Advance, in the order the driver must
// act on it (see the package documentation).
type Ready struct {
	// PersistCheckpoint is true when Checkpoint differs from the last
	// persisted one. Persist it before publishing or executing anything.
	PersistCheckpoint bool
	Checkpoint        Checkpoint

	// OwnerChanged is true when Owner differs from the last Advance.
	OwnerChanged bool
	Owner        DeviceID
	// RenderChanged is true when MayRender differs from the last Advance.
	// When MayRender turned false, stop audio at once.
	RenderChanged bool
	MayRender     bool

	// Gossip is true when Announcement should be sent to all peers now: the
	// claim changed, a new output report was made, a peer was behind, or
	// nothing was announced for GossipInterval.
	Gossip       bool
	Announcement Coordination
}

// Empty reports whether rd asks for nothing.
func (rd Ready) Empty() bool {
	return !rd.PersistCheckpoint && !rd.OwnerChanged && !rd.RenderChanged && !rd.Gossip
}

// HasReady reports whether Ready would ask for something. It may be called
// at any time.
func (e *Engine) HasReady() bool {
	return e.gossipSeq != e.gossipAcked || e.checkpointChanged() ||
		e.claim.Owner != e.ackedOwner || e.MayRender() != e.ackedRender
}

// checkpointChanged reports whether Checkpoint differs from the last
// acknowledged one. The group and device of a checkpoint never change after
// New or Restore, so only the claim and the reservations are compared.
func (e *Engine) checkpointChanged() bool {
	return e.hbReserved != e.acked.HeartbeatReserved || e.cmdReserved != e.acked.CommandReserved ||
		!e.claim.equal(e.acked.Claim)
}

// Ready returns the decisions since the last Advance. It panics when called
// again before Advance: the driver must finish one Ready first.
func (e *Engine) Ready() Ready {
	if e.readyOut {
		panic("engine: Ready called twice without Advance")
	}
	e.readyOut = true
	cp := e.Checkpoint()
	rd := Ready{
		PersistCheckpoint: e.checkpointChanged(),
		Checkpoint:        cp,
		OwnerChanged:      e.claim.Owner != e.ackedOwner,
		Owner:             e.claim.Owner,
		RenderChanged:     e.MayRender() != e.ackedRender,
		MayRender:         e.MayRender(),
		Gossip:            e.gossipSeq != e.gossipAcked,
		Announcement:      e.Announcement(),
	}
	e.inflight = inflight{cp: cp, owner: rd.Owner, render: rd.MayRender, gossipSeq: e.gossipSeq}
	return rd
}

// Advance acknowledges the last Ready: its checkpoint was persisted, its
// owner and render decision applied, its announcement sent. Inputs fed
// between Ready and Advance show up in the next Ready. It panics without a
// preceding Ready.
func (e *Engine) Advance() {
	if !e.readyOut {
		panic("engine: Advance called without Ready")
	}
	e.readyOut = false
	if e.inflight.gossipSeq != e.gossipAcked {
		e.lastGossipAt = e.clock.Now()
	}
	e.acked = e.inflight.cp
	e.ackedOwner = e.inflight.owner
	e.ackedRender = e.inflight.render
	e.gossipAcked = e.inflight.gossipSeq
}
