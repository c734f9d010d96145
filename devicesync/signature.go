package devicesync

import (
	"crypto/ed25519"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/furudesk/furudesk/engine"
)

// The group's one signing scheme. Everything a device asserts in its own
// name and that other members may relay — its operations and its
// coordination envelopes (with the snapshot they carry) — is signed with its
// ed25519 identity key, the key whose hash is its DeviceID. A receiver
// verifies against the key the trusted group holds for that device, never
// against a key that travels with the message, so whoever relays a signed
// item cannot change a byte of it nor sign it anew in someone else's name.
//
// What is signed is a domain, the signer's DeviceID and the item's fields,
// each length-prefixed (see signedBytes), so no item of one kind verifies as
// another and no two different field lists share an encoding. JSON fields
// (an op's body, a snapshot's state) are signed in the form encoding/json
// sends them (compactJSON), which is what storage keeps, so a signature
// survives the wire and the database. The signature itself rides in the
// item as base64 ("sig").

// Signature domains: one for each kind of item signed.
const (
	sigDomainOp           = "furudesk/op/v1"
	sigDomainCoordination = "furudesk/coordination/v1"
)

// Signature errors. A message that fails verification is dropped and
// counted by the caller, never delivered.
var (
	ErrNoSignature  = errors.New("devicesync: not signed")
	ErrBadSignature = errors.New("devicesync: bad signature")
	ErrUnknownKey   = errors.New("devicesync: signer is not a member")
)

// signedBytes returns the bytes a signature covers: the domain, the
// signer and each field, every one preceded by its length (uvarint). JSON
// fields must already be compact (compactJSON).
func signedBytes(domain string, signer engine.DeviceID, fields ...[]byte) []byte {
	n := len(domain) + len(signer) + 2*binary.MaxVarintLen64
	for _, f := range fields {
		n += len(f) + binary.MaxVarintLen64
	}
	b := make([]byte, 0, n)
	put := func(f []byte) {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	put([]byte(domain))
	put([]byte(signer))
	for _, f := range fields {
		put(f)
	}
	return b
}

// sign signs the item of domain made of fields in signer's name.
func sign(key ed25519.PrivateKey, domain string, signer engine.DeviceID, fields ...[]byte) []byte {
	return ed25519.Sign(key, signedBytes(domain, signer, fields...))
}

// verify checks sig over the item of domain made of fields against pub,
// which must be the key of signer. It returns nil, ErrNoSignature,
// ErrUnknownKey (pub missing or not signer's) or ErrBadSignature.
func verify(pub ed25519.PublicKey, domain string, signer engine.DeviceID, sig []byte, fields ...[]byte) error {
	switch {
	case len(sig) == 0:
		return ErrNoSignature
	case len(pub) != ed25519.PublicKeySize || DeviceIDFromPublicKey(pub) != signer:
		return ErrUnknownKey
	case len(sig) != ed25519.SignatureSize || !ed25519.Verify(pub, signedBytes(domain, signer, fields...), sig):
		return ErrBadSignature
	}
	return nil
}

// compactJSON returns raw in the form encoding/json sends it, the form
// signatures cover: compact, with <, > and & (and U+2028, U+2029) escaped
// inside strings, as Marshal writes a json.RawMessage. A state or body in
// any spacing or escaping gives the same bytes, so the sender, every relay
// and the receiver sign and verify the same ones whatever form they hold.
func compactJSON(raw []byte) ([]byte, error) {
	b, err := json.Marshal(json.RawMessage(raw))
	if err != nil {
		return nil, fmt.Errorf("devicesync: signing: %w", err)
	}
	return b, nil
}
