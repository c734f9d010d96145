package devicesync

import (
	"encoding/json"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// Event is a value the node hands to the app on Events(). The concrete
// types are listed below; the app switches on them.
type Event interface{ isEvent() }

// SnapshotReceived is a member's playback snapshot. From equals
// Coordination.Device: the authenticated sender, or, when Via is set, the
// device whose signature the snapshot carries, relayed by the member Via
// (verified against the key the group holds for From). Age is how long ago
// it left From as far as the relays know: zero for a direct one; a
// snapshot a member held and handed on at connect can be old.
type SnapshotReceived struct {
	From         engine.DeviceID
	Via          engine.DeviceID
	Age          time.Duration
	Coordination engine.Coordination
	State        json.RawMessage
}

// CommandReceived is a stamped playback command targeted at this device.
// From is the op's origin, a member of the group.
type CommandReceived struct {
	OpID    string
	From    engine.DeviceID
	Target  engine.DeviceID
	Stamp   engine.CommandStamp
	Handoff bool
	Body    json.RawMessage
}

// PairingRequest asks the user to accept or deny a device presenting one
// of this device's invites. GroupConflict is set when the requester belongs
// to another group of more than one device: Accept's joinTheirs then
// chooses between joining that group and keeping this one.
//
// Fingerprint is the requester's key fingerprint (Fingerprint), the one the
// requester shows as its own: the user compares both screens before
// accepting, since any device can call itself by any name.
type PairingRequest struct {
	ID            string
	DeviceID      engine.DeviceID
	Name          string
	Fingerprint   string
	GroupConflict bool
}

// GroupChanged reports that the group id or its membership changed.
type GroupChanged struct {
	Group   string
	Devices []DeviceInfo
}

// PeerOnline reports a new direct connection to a member.
type PeerOnline struct{ Device engine.DeviceID }

// PeerOffline reports that the last direct connection to a member closed.
type PeerOffline struct{ Device engine.DeviceID }

// Notice is a sentence for the user about this device's group, such as
// why it left one.
type Notice struct{ Text string }

func (SnapshotReceived) isEvent() {}
func (CommandReceived) isEvent()  {}
func (PairingRequest) isEvent()   {}
func (GroupChanged) isEvent()     {}
func (PeerOnline) isEvent()       {}
func (PeerOffline) isEvent()      {}
func (Notice) isEvent()           {}

// DeviceInfo describes one member for presentation. Online is true while
// the device was heard within OnlineWindow: directly connected, or (Relayed)
// through other members that relay its snapshots. It never feeds
// ownership.
type DeviceInfo struct {
	ID              engine.DeviceID
	Name            string
	Fingerprint     string // of its key, as pairing showed it
	Addresses       []string
	ProtocolVersion int
	Online          bool
	Relayed         bool
	// Via is the member carrying this device's connection to it, when it
	// is reached through another member; "" when direct (or offline).
	Via engine.DeviceID
	// Unreachable says, for a member that is offline, why this device
	// cannot reach it (outside.go): "no direct route and no member
	// carries it", ...
	Unreachable string
	Self        bool
}

// Counters are totals of input that was refused or ignored, for tests and
// status.
type Counters struct {
	Legacy      uint64 // snapshots or commands without a usable envelope
	Spoofed     uint64 // snapshots not signed by the device they name (relayed), or badly signed
	Relayed     uint64 // snapshots forwarded to another member
	RelayDup    uint64 // snapshots not newer than the one held: renew nothing
	RelayLimit  uint64 // snapshots not forwarded: their device's relay budget was spent
	StaleCmds   uint64 // commands older than CommandMaxAge
	UnknownType uint64 // lines of an unknown message type
	Refused     uint64 // handshakes or messages refused: unknown, revoked, not a member
	Closed      uint64 // connections closed for malformed input or a limit
	Dropped     uint64 // ops refused: void (revoked origin above its cutoff), malformed, dated ahead, over log limits
	EventsLost  uint64 // events dropped because the app did not read Events

	DuplicateOps  uint64 // ops held already: replays, or the same op from two relays
	UnsignedOps   uint64 // ops without a signature (devices of a version before signing)
	BadSignature  uint64 // ops whose signature is not their origin's: forged origin or forged op
	UnknownOrigin uint64 // ops of an origin the group holds no key for

	RelayStreams uint64 // streams this device carried between two others
	RelayBytes   uint64 // bytes it carried in them
}
