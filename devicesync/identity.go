package devicesync

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// deviceIDHexLen is the number of hex characters of the key hash in a
// device id, as in Furumi.
const deviceIDHexLen = 24

// DeviceIDFromPublicKey derives the device id of a public key: "dev_" and
// the first 24 hex characters of its SHA-256. The TLS peer holding the key
// is therefore the device it names.
func DeviceIDFromPublicKey(pub ed25519.PublicKey) engine.DeviceID {
	sum := sha256.Sum256(pub)
	return engine.DeviceID("dev_" + hex.EncodeToString(sum[:])[:deviceIDHexLen])
}

// fingerprintDomain separates key fingerprints from device ids, so a
// fingerprint is not a prefix of the id mDNS and the wire show.
const fingerprintDomain = "furudesk/fingerprint/v1"

// Fingerprint returns the short fingerprint of a device key that pairing
// shows on both screens: 64 bits of a hash of the key as four groups of
// four hex digits ("3f9a-1c07-b2e4-5d18"). Matching a chosen fingerprint
// takes about 2^64 key generations. It is "" for a missing key.
func Fingerprint(pub ed25519.PublicKey) string {
	if len(pub) != ed25519.PublicKeySize {
		return ""
	}
	sum := sha256.Sum256(append([]byte(fingerprintDomain+"\x00"), pub...))
	h := hex.EncodeToString(sum[:8])
	return h[0:4] + "-" + h[4:8] + "-" + h[8:12] + "-" + h[12:16]
}

// ValidDeviceID reports whether id has the shape DeviceIDFromPublicKey
// produces.
func ValidDeviceID(id engine.DeviceID) bool {
	s, ok := strings.CutPrefix(string(id), "dev_")
	return ok && len(s) == deviceIDHexLen && isLowerHex(s)
}

// NewGroupID returns a fresh random group id, "grp_" and 32 hex characters.
func NewGroupID() string { return "grp_" + randomHex(16) }

// validGroupID reports whether g has the shape NewGroupID produces.
func validGroupID(g string) bool {
	s, ok := strings.CutPrefix(g, "grp_")
	return ok && len(s) == 32 && isLowerHex(s)
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// randomHex returns n random bytes as hex. A failing system random source
// leaves nothing safe to do, so it panics.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("devicesync: system random source failed: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// selfCertificate makes the self-signed TLS certificate of key. Peers never
// check it against a CA; they check its key against the trusted group.
func selfCertificate(key ed25519.PrivateKey, now time.Time) (tls.Certificate, error) {
	pub := key.Public().(ed25519.PublicKey)
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 63))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("devicesync: certificate serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: string(DeviceIDFromPublicKey(pub))},
		NotBefore:    now.Add(-24 * time.Hour),
		NotAfter:     now.Add(20 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("devicesync: certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// errPeerKey is returned when a TLS peer presents no usable ed25519 key.
var errPeerKey = errors.New("devicesync: peer certificate has no ed25519 key")

// peerKey extracts the ed25519 key of the leaf certificate a peer presented.
func peerKey(rawCerts [][]byte) (ed25519.PublicKey, error) {
	if len(rawCerts) == 0 {
		return nil, errPeerKey
	}
	cert, err := x509.ParseCertificate(rawCerts[0])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errPeerKey, err)
	}
	pub, ok := cert.PublicKey.(ed25519.PublicKey)
	if !ok {
		return nil, errPeerKey
	}
	return pub, nil
}
