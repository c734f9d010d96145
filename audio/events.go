package audio

import "time"

// Track identifies one play of a Source: ID is the caller's, Seq is unique
// per Play or PrepareNext call in this process, so repeating a track gives
// events that can still be told apart.
type Track struct {
	ID  string
	Seq uint64
}

// Event is one of Availability, Activity, Position, Started, Finished,
// DecodeError and Damaged.
type Event interface{ isEvent() }

// Availability reports a change of "the device opened without error and
// consumes samples". Err says why it is not available: the device error, or
// ErrNotConsuming while it opened but does not pull samples. The first one
// comes when the device starts running (consumes past its prefill), fails,
// or has not started after Options.StartupGrace.
type Availability struct {
	Available bool
	Err       error
}

// Activity reports a change of "track samples are reaching the device":
// false while paused, stopped, starved or unavailable.
type Activity struct {
	Playing bool
}

// Position reports, every Options.PositionInterval while playing (never
// when it is negative), the track position of the last frame the device
// consumed.
type Position struct {
	Track Track
	Pos   time.Duration
}

// Started reports that the device consumed the first frame of a track, At
// its position (the Play offset).
type Started struct {
	Track Track
	At    time.Duration
}

// Finished reports that the device consumed the last frame of a track that
// played to its end. A stopped, replaced or failed track never finishes.
type Finished struct {
	Track Track
}

// DecodeError reports a track that could not be opened or decoded; the
// output moves on (to the prepared next track, if any, else silence).
type DecodeError struct {
	Track Track
	Err   error
}

// Damaged reports a track whose decoding reached its end with damage
// passed over (see DamageError), once a play; the track went on (and
// finishes as usual).
type Damaged struct {
	Track Track
	Err   *DamageError
}

// Relayed is a report of an output this process does not drive itself
// (the web hub's browser, web/gateway): Source is the gateway's
// source-report id, strictly increasing. It is made only when the endpoint
// itself reported; the app feeds it to engine.OutputReport and never
// heartbeats such an output's cached Report on a timer.
type Relayed struct {
	Source    uint64
	Available bool
	Playing   bool
}

func (Relayed) isEvent()      {}
func (Availability) isEvent() {}
func (Activity) isEvent()     {}
func (Position) isEvent()     {}
func (Started) isEvent()      {}
func (Finished) isEvent()     {}
func (DecodeError) isEvent()  {}
func (Damaged) isEvent()      {}

// Report is the truth now, for heartbeats.
type Report struct {
	Available bool          // device opened and consuming samples
	Err       error         // why not available; nil when available or still starting (Options.StartupGrace)
	Playing   bool          // track samples are reaching the device
	Paused    bool          // Pause is in effect (a command, not a measurement)
	Track     Track         // track at the device, or the one paused/loading; zero when stopped
	Pos       time.Duration // position of Track: last consumed frame, or where it resumes
	Volume    int           // 0..100
	Consumed  int64         // frames the device consumed since Open
	Dropped   uint64        // events dropped because Events was not drained
}
