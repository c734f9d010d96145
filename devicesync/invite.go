package devicesync

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// InviteTTL is how long an invite admits a pairing request.
const InviteTTL = 10 * time.Minute

// invitePrefix starts every invite code.
const invitePrefix = "frid://i/"

// maxInviteCode bounds the length of a pasted invite code.
const maxInviteCode = 4096

// Pairing errors.
var (
	ErrInviteMalformed = errors.New("devicesync: malformed invite code")
	ErrInviteExpired   = errors.New("devicesync: invite expired")
	ErrInviteInvalid   = errors.New("devicesync: invite unknown, already used, or wrong secret")
	ErrPairDenied      = errors.New("devicesync: pairing denied by the other device")
	ErrPairBusy        = errors.New("devicesync: the other device has too many pending requests")
	ErrInviteTaken     = errors.New("devicesync: another device's request with this invite is waiting for an answer")
	ErrPairTimeout     = errors.New("devicesync: no answer to the pairing request in time")
	ErrUnknownRequest  = errors.New("devicesync: no such pending pairing request")
)

// inviteTarget is where and whom the requester dials.
type inviteTarget struct {
	Addresses []string `json:"addresses"`
	Key       string   `json:"key"` // base64url ed25519 public key, unpadded
}

// invitePayload is the JSON inside an invite code, Furumi's {v,t,d,i,s,e}.
type invitePayload struct {
	V int             `json:"v"`
	T inviteTarget    `json:"t"`
	D engine.DeviceID `json:"d"`
	I string          `json:"i"` // invite id, 16 hex
	S string          `json:"s"` // secret, 32 hex
	E int64           `json:"e"` // expiry, Unix seconds
}

// InviteRecord is what the inviter persists of an invite: never the secret,
// only its SHA-256.
type InviteRecord struct {
	ID         string
	SecretHash []byte
	Expires    time.Time
	Used       bool
}

func hashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// matches reports whether secret is the invite's, in constant time.
func (r InviteRecord) matches(secret string) bool {
	return subtle.ConstantTimeCompare(r.SecretHash, hashSecret(secret)) == 1
}

func encodeInvite(p invitePayload) string {
	b, _ := json.Marshal(p) // a struct of strings and ints always marshals
	return invitePrefix + base64.RawURLEncoding.EncodeToString(b)
}

// decodeInvite parses and checks the shape of an invite code. Expiry is the
// caller's business.
func decodeInvite(code string) (invitePayload, ed25519.PublicKey, error) {
	code = strings.TrimSpace(code)
	if len(code) > maxInviteCode {
		return invitePayload{}, nil, fmt.Errorf("%w: %d bytes", ErrInviteMalformed, len(code))
	}
	rest, ok := strings.CutPrefix(code, invitePrefix)
	if !ok {
		return invitePayload{}, nil, fmt.Errorf("%w: does not start with %s", ErrInviteMalformed, invitePrefix)
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return invitePayload{}, nil, fmt.Errorf("%w: %v", ErrInviteMalformed, err)
	}
	var p invitePayload
	if err := json.Unmarshal(raw, &p); err != nil {
		return invitePayload{}, nil, fmt.Errorf("%w: %v", ErrInviteMalformed, err)
	}
	key, err := base64.RawURLEncoding.DecodeString(p.T.Key)
	switch {
	case p.V != 1:
		return invitePayload{}, nil, fmt.Errorf("%w: version %d", ErrInviteMalformed, p.V)
	case err != nil || len(key) != ed25519.PublicKeySize:
		return invitePayload{}, nil, fmt.Errorf("%w: key", ErrInviteMalformed)
	case DeviceIDFromPublicKey(key) != p.D:
		return invitePayload{}, nil, fmt.Errorf("%w: device id %q does not match the key", ErrInviteMalformed, p.D)
	case len(p.I) != 16 || !isLowerHex(p.I) || len(p.S) != 32 || !isLowerHex(p.S):
		return invitePayload{}, nil, fmt.Errorf("%w: invite id or secret", ErrInviteMalformed)
	case len(p.T.Addresses) == 0 || len(p.T.Addresses) > maxAddresses:
		return invitePayload{}, nil, fmt.Errorf("%w: %d addresses", ErrInviteMalformed, len(p.T.Addresses))
	}
	return p, ed25519.PublicKey(key), nil
}
