package devicesync

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/reach"
)

// ALPN is the TLS application protocol of the device-sync transport.
const ALPN = "furumi/sync/2"

// Message types on the wire. A line with any other type is ignored.
const (
	typePairRequest  = "pair_request"
	typePairResponse = "pair_response"
	typeHello        = "hello"
	typeOps          = "ops"
	typeSnapshot     = "snapshot"
)

// Wire errors. A line that fails with one of these closes its connection
// (errUnknownType excepted, which is counted and skipped).
var (
	ErrLineTooLong = errors.New("devicesync: line over the size limit")
	ErrMalformed   = errors.New("devicesync: malformed message")
	errUnknownType = errors.New("devicesync: unknown message type")
)

// profile is what a device says about itself.
type profile struct {
	DeviceID        engine.DeviceID `json:"device_id"`
	Name            string          `json:"name"`
	ProtocolVersion int             `json:"protocol_version"`
	Addresses       []string        `json:"addresses,omitempty"`
}

// message is one decoded line.
type message interface{ msgType() string }

type pairRequestMsg struct {
	Type         string  `json:"type"`
	InviteID     string  `json:"invite_id"`
	Secret       string  `json:"secret"`
	Profile      profile `json:"profile"`
	Group        string  `json:"group"`
	GroupDevices int     `json:"group_devices"`
}

// Pairing response statuses.
const (
	statusPending       = "pending"
	statusAccepted      = "accepted"       // the receiver joins Group, Ops are its log
	statusJoinRequester = "join_requester" // the inviter joins the requester's group
	statusDenied        = "denied"
	statusInvalid       = "invalid" // unknown, used, or wrong secret
	statusExpired       = "expired"
	statusBusy          = "busy"         // too many pending requests
	statusInviteTaken   = "invite_taken" // another device's request with this invite is waiting
)

type pairResponseMsg struct {
	Type    string   `json:"type"`
	Status  string   `json:"status"`
	Group   string   `json:"group,omitempty"`
	Profile *profile `json:"profile,omitempty"`
	Ops     []Op     `json:"ops,omitempty"`
}

type helloMsg struct {
	Type    string            `json:"type"`
	Group   string            `json:"group"`
	Profile profile           `json:"profile"`
	Devices []engine.DeviceID `json:"devices"`
	Vector  VersionVector     `json:"vector"`
	// Carries says the sender carries other members' streams; Reaches
	// lists the members it is directly connected to (carry.go).
	Carries bool              `json:"carries,omitempty"`
	Reaches []engine.DeviceID `json:"reaches,omitempty"`
	// Seen is the address the sender sees this connection come from
	// (direct sessions only): the receiver learns its outside address
	// (outside.go).
	Seen string `json:"seen,omitempty"`
}

type opsMsg struct {
	Type string `json:"type"`
	Ops  []Op   `json:"ops"`
}

type snapshotMsg struct {
	Type         string               `json:"type"`
	Coordination *engine.Coordination `json:"coordination,omitempty"`
	State        json.RawMessage      `json:"state,omitempty"`
	// Seq orders the snapshots of one device with the same heartbeat id;
	// Sig is its device's signature over the envelope, the state and Seq
	// (relay.go). AgeMS is set by a member that relays it: how long ago
	// it left its device, as far as the relays know (not signed).
	Seq   uint64 `json:"seq,omitempty"`
	Sig   []byte `json:"sig,omitempty"`
	AgeMS uint64 `json:"age_ms,omitempty"`
}

func (pairRequestMsg) msgType() string  { return typePairRequest }
func (pairResponseMsg) msgType() string { return typePairResponse }
func (helloMsg) msgType() string        { return typeHello }
func (opsMsg) msgType() string          { return typeOps }
func (snapshotMsg) msgType() string     { return typeSnapshot }

// maxVectorEntries bounds a received version vector.
const maxVectorEntries = 1024

// readLine reads one '\n'-terminated line of at most max bytes (without the
// newline) from r. A longer line fails with ErrLineTooLong without buffering
// more than max bytes of it.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(line)+len(frag) > max+1 || (err == bufio.ErrBufferFull && len(line)+len(frag) > max) {
			return nil, ErrLineTooLong
		}
		line = append(line, frag...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// decodeLine parses one line. Unknown optional fields are ignored; a
// missing or invalid required field is ErrMalformed; an unknown type is
// errUnknownType.
func decodeLine(line []byte) (message, error) {
	line = bytes.TrimSpace(line)
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if head.Type == nil {
		return nil, fmt.Errorf("%w: no type", ErrMalformed)
	}
	var m message
	var err error
	switch *head.Type {
	case typePairRequest:
		var v pairRequestMsg
		if err = json.Unmarshal(line, &v); err == nil {
			err = v.validate()
		}
		m = v
	case typePairResponse:
		var v pairResponseMsg
		if err = json.Unmarshal(line, &v); err == nil {
			err = v.validate()
		}
		m = v
	case typeHello:
		var v helloMsg
		if err = json.Unmarshal(line, &v); err == nil {
			err = v.validate()
		}
		m = v
	case typeOps:
		var v opsMsg
		if err = json.Unmarshal(line, &v); err == nil {
			err = validateOps(v.Ops)
		}
		m = v
	case typeSnapshot:
		var v snapshotMsg
		if err = json.Unmarshal(line, &v); err == nil && len(v.State) == 0 {
			err = errors.New("no state")
		}
		m = v
	case typeFetchCall:
		var v fetchCallMsg
		if err = json.Unmarshal(line, &v); err == nil {
			err = v.validate()
		}
		m = v
	case typeRelayCall:
		var v relayCallMsg
		if err = json.Unmarshal(line, &v); err == nil {
			err = v.validate()
		}
		m = v
	default:
		return nil, errUnknownType
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, *head.Type, err)
	}
	return m, nil
}

func (p profile) validate() error {
	if !ValidDeviceID(p.DeviceID) {
		return fmt.Errorf("profile device_id %q", p.DeviceID)
	}
	if len(p.Name) > maxNameBytes {
		return fmt.Errorf("profile name of %d bytes", len(p.Name))
	}
	if len(p.Addresses) > maxAddresses {
		return fmt.Errorf("%d profile addresses", len(p.Addresses))
	}
	return nil
}

func (m pairRequestMsg) validate() error {
	if len(m.InviteID) != 16 || len(m.Secret) != 32 {
		return errors.New("invite_id or secret")
	}
	return m.Profile.validate()
}

func (m pairResponseMsg) validate() error {
	if m.Status == "" {
		return errors.New("no status")
	}
	if m.Profile != nil {
		if err := m.Profile.validate(); err != nil {
			return err
		}
	}
	return validateOps(m.Ops)
}

func (m helloMsg) validate() error {
	if m.Group == "" {
		return errors.New("no group")
	}
	if len(m.Seen) > reach.MaxAddrBytes {
		return fmt.Errorf("seen address of %d bytes", len(m.Seen))
	}
	if len(m.Vector) > maxVectorEntries || len(m.Devices) > maxVectorEntries || len(m.Reaches) > MaxGroupDevices {
		return fmt.Errorf("vector of %d entries", len(m.Vector))
	}
	return m.Profile.validate()
}

func validateOps(ops []Op) error {
	if len(ops) > MaxOpsPerBatch {
		return fmt.Errorf("%d ops in one batch, limit %d", len(ops), MaxOpsPerBatch)
	}
	for _, o := range ops {
		if err := o.validate(); err != nil {
			return err
		}
	}
	return nil
}

// encodeSnapshotLine is encodeLine for a snapshot whose State is
// compact already (compactJSON): Marshal would go over the whole state
// again to compact it, the most of the cost with a long queue. The state
// goes last; a receiver decodes the fields in any order.
func encodeSnapshotLine(m snapshotMsg, max int) ([]byte, error) {
	state := m.State
	m.State = nil
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("devicesync: encode %s: %w", m.msgType(), err)
	}
	// b ends with '}'; the state follows the other fields.
	line := make([]byte, 0, len(b)+len(state)+16)
	line = append(line, b[:len(b)-1]...)
	line = append(line, `,"state":`...)
	line = append(line, state...)
	line = append(line, "}\n"...)
	if len(line)-1 > max {
		return nil, fmt.Errorf("%w: %s of %d bytes", ErrLineTooLong, m.msgType(), len(line)-1)
	}
	return line, nil
}

// encodeLine marshals m as one line with its trailing newline.
func encodeLine(m message, max int) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("devicesync: encode %s: %w", m.msgType(), err)
	}
	if len(b) > max {
		return nil, fmt.Errorf("%w: %s of %d bytes", ErrLineTooLong, m.msgType(), len(b))
	}
	return append(b, '\n'), nil
}
