package engine

import "time"

// EnvelopeVersion is the version every coordination envelope carries.
const EnvelopeVersion = 1

// ProfileVersion is the protocol version device profiles advertise.
const ProfileVersion = 3

// MaxSendersPerTerm bounds the per-term command-sender map.
const MaxSendersPerTerm = 128

// Clock is monotonic: time since an arbitrary origin. Never wall-clock.
type Clock interface{ Now() time.Duration }

// Output is a report of the local audio endpoint.
type Output struct {
	Available bool `json:"available"` // an audio endpoint exists and works
	Playing   bool `json:"playing"`   // actual unpaused playback
}

// CommandStamp orders a command within a claim's term.
type CommandStamp struct {
	Version  uint32 `json:"version"`
	Claim    Claim  `json:"claim"`
	Sequence uint64 `json:"sequence"`
}

// Coordination is the envelope every snapshot carries (optional JSON field
// "coordination" on the sync record; absent means legacy, ignored).
type Coordination struct {
	Version   uint32   `json:"version"`
	Device    DeviceID `json:"device_id"`
	Claim     Claim    `json:"claim"`
	Heartbeat uint64   `json:"heartbeat"`
	Output    Output   `json:"output"`
}

// Snapshot is a device's playback state with its coordination envelope.
type Snapshot[S any] struct {
	Coordination *Coordination `json:"coordination,omitempty"`
	State        S             `json:"state"`
}

// Command is a control message with its stamp.
type Command[S any] struct {
	Stamp   *CommandStamp `json:"stamp,omitempty"`
	Handoff bool          `json:"handoff,omitempty"`
	Body    S             `json:"body"`
}

// Checkpoint is the durable coordination state of one device in one group.
type Checkpoint struct {
	Group             string   `json:"group"`
	Device            DeviceID `json:"device"`
	Claim             Claim    `json:"claim"`
	HeartbeatReserved uint64   `json:"heartbeat_reserved"`
	CommandReserved   uint64   `json:"command_reserved"`
}
