// Package queue is the shared queue, its transport and the position rules
// of furudesk: what the one listening environment plays, in which order,
// from where, and which position a device shows and resumes from. It is a
// pure core like package engine: no networking, storage, clock, UI or
// audio; everything it needs arrives as an argument (a clock reading, the
// owner as the caller sees it, the output's measurement) and everything
// it decides is a return value. It imports only the standard library and
// engine. The simulator in queuetest proves the rules below; a failure
// prints the seed that replays it.
//
// # The state (rules S)
//
// S1. The owner's State is the truth; every other device shows the
// owner's, and only as the owner published it while it owned the output
// (a snapshot whose coordination claim names its sender): a device that
// just became the owner may still send what it knew before. Validate a
// peer's state before adopting it; Normalize repairs a shuffled order
// that does not fit.
//
// S2. Controls change the state only through Apply, which validates every
// argument and never panics on peer input. A control that moves the
// position or changes the track counts a jump (State.Jumps), so a
// controller tells a position moved on purpose from one that lags; a
// handoff never lowers the count. A seek names its track (Control.IDs,
// filled by the caller): applied to another track it is refused
// (ErrQueueChanged), so a seek sent again to a new owner cannot skip
// into a track nobody sought in. Queue edits name their entries the same
// way.
//
// S3. The play order: without shuffle the queue's own; with shuffle
// State.Order, generated from State.Seed, so every device and a restart
// agree (Following, After, Before, MoveTo, Advance). Next skips even with
// repeat one and stops at the end unless repeat is all.
//
// # The position (rules P; type Position)
//
// Position keeps, beside a State, when State.PositionMS was true (At) and
// when its source last confirmed it (HeardAt).
//
// P1. While this device renders, the position is its output's
// measurement, but only once the effect of the last change reached the
// output (Inputs.Measured): the caller persists and publishes before it
// applies effects, so between a control that changed the track, the
// position or stopped the music and its effect, the state's own position
// counts, not the output's report of the old place.
//
// P2. Otherwise the position is extrapolated from At while playing, never
// past the entry's end, and only up to: now, while this device owns the
// output or nobody does; two heartbeats past what the owner confirmed
// (HeardAt), while another device owns it and reports; HeardAt, while
// the owner is gone (closed, quiet, lost). A control of this device does
// not confirm anything: its view of controls the owner applies late does
// not run on.
//
// P3. A snapshot is placed when the owner published it (the caller
// subtracts the time it waited at a relay). It confirms the position
// only when its state is adopted (Adopt): one held back by pending
// controls (C2) or one that says Resuming (a restarted owner still
// learning its own last state) says the owner lives, not where the music
// is.
//
// P4. A controller's view never steps back by the jitter of the owner's
// reports: on the same track, both playing, no jump in between, and the
// owner less than MaxLead behind, it stays where it was until the
// owner's catches up. A view further ahead is wrong and gives way at
// once. The floor applies only while another device owns the output, and
// ends at any jump, also one of this device's own controls, and when the
// view replaced was a prediction (Inputs.Predicted).
//
// P5. Taking the output over (TakeOver), the output does not render the
// state yet: from an owner that was live the position is the view a
// controller shows (at most two heartbeats past what the owner
// confirmed), from one not known live it is extrapolated only up to when
// it was last heard (AnchorHeard). No time the old owner did not play is
// skipped. A device that loses the output anchors at its output's exact
// stop position first.
//
// P6. A handoff carries the source's state; Control.Exact says its
// output played it at that position. The target starts there; one that
// renders the same entry already (it learned the claim from the
// announcement first, or owned the output) goes on from its own output
// unless the handoff is exact and more than HandoffSlack (250 ms) away
// (KeepPlaying). So a transfer starts within HandoffSlack of where the
// source stopped.
//
// P7. A state read from storage at launch (Load) is not extrapolated
// until a source confirms it: nothing says how long it played since it
// was saved, and a device restarting often must not add that each time.
//
// # Pending controls (rules C; type Pending)
//
// C1. A controller applies its control to its own view at once
// (optimistic), sends it stamped to the owner and Remembers it (at most
// MaxPending).
//
// C2. It keeps its view against the owner's snapshots of the term the
// controls were stamped for while they do not acknowledge them
// (State.Acks, C6), for at most PendingHold; then they are dropped with
// a notice (Hold). A snapshot of another term gives way at once.
//
// C3. When the output moved to another device before the owner applied
// them, they are sent once more, with new stamps, to the new owner;
// controls sent once more already are dropped with a notice; when this
// device took over, its view, which shows them, is what it resumed
// (Retarget).
//
// C4. Nothing is lost silently: every control is acknowledged, shown by
// the device that took over, or dropped with a notice.
//
// C5. An owner that restarted under the same claim lost what it received
// before. Its snapshots carry the first heartbeat id of its process
// (State.Launch; heartbeat ids grow across restarts), and a controller
// addresses each control to the owner's launch it last heard
// (Control.Launch, Address; 0 when it heard none since it started). An
// owner neither applies nor acknowledges a control addressed to another
// of its processes (Addressed); at a new launch the controller sends
// those again, once per restart (Heard, Again), and with them those
// addressed to none that the snapshot does not acknowledge: sent before
// this device heard a launch, they may have gone to a process that is
// gone too. So a control sent again after a restart is applied once (by
// C7 for those addressed to none, and for every control of a build that
// names it).
//
// C6. Acks belong to one process of the owner: a restarted owner starts
// with none (a takeover under its own claim keeps them), and beside
// Acks, its snapshot says per sender the first sequence its process
// applied in the term (State.AckFrom; State.Ack keeps both). A stream
// delivers in order, so the process applied every command of a sender
// from AckFrom to Acks and will never receive one before AckFrom (sent
// while it was not running): a snapshot acknowledges only the controls
// in between and addressed to its process or to none (Acknowledges),
// and those before AckFrom are sent again (Heard, Again), also ones sent
// again already. The acks of a Resuming snapshot count, though its state
// is not shown; the view stays a prediction until a snapshot is adopted
// (Predicting, Inputs.Predicted). A snapshot of an older build has no
// AckFrom: then Acks alone counts, as before.
//
// C7. A control is applied once, whoever receives it and however often.
// Its sender names it (Control.ID: the sequence of its first stamp, kept
// on every copy sent again), and a state marks, per sender, the controls
// it contains (State.Applied, Mark; the latest MarkWindow of each
// sender): an owner marks each control it applies or refuses, in the
// same transition, so the marks are saved, published and handed off with
// the effect they describe. An owner that receives a control its state
// contains (Contains) acknowledges it and does not apply it again: a
// restarted owner whose acknowledgement died with its process, or a new
// owner that took over from a state already holding it, gets it again
// by C3, C5 or C6 and applies it no second time, while one that took over
// from a state without it applies it.
//
// # The caller's duties
//
//  1. Read the clock once per transition and pass it in; never let the
//     core read time.
//  2. Feed Inputs.Owner from the engine (and whether the owner is gone),
//     and Inputs.Measured only while the output plays the state's current
//     entry after the last change's effect.
//  3. After changing State.PositionMS itself (a control, a track end, a
//     handoff), call Moved; at launch Load; on a replaced state Reset.
//  4. On every owner snapshot, also a Resuming one, read
//     Pending.Predicting, then call Pending.Heard; adopt the owner's
//     state through Adopt, with the position shown just before and
//     Inputs.Predicted as read, and only when Pending.Hold lets it.
//  5. As the owner, refuse a control not Addressed to this process;
//     acknowledge the others with State.Ack and Mark them, applying only
//     those the state does not Contain (C7). Save State.Applied with the
//     state.
//  6. After every transition send what Pending.Again returns, else what
//     Pending.Retarget returns, addressing each control (Address).
//  7. As a controller, set Control.ID to the sequence of a control's
//     first stamp, and keep it when sending it again.
package queue
