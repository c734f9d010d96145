package devicesync

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/furudesk/furudesk/engine"
)

// An op is signed by its origin with the group's one scheme (signature.go),
// domain sigDomainOp, over these fields: the group id (an op of one group
// never verifies in another, where its origin's seq numbers start again),
// the seq, the HLC, the kind and the compact body. The origin is the
// signer. Receivers verify against the key the group holds for the origin,
// which the op admitting it carries (trustedBody.Key), or, for the group's
// first op, the key the root carries and the group id commits to.

// groupIDDomain separates the group id's hash from every signature.
const groupIDDomain = "furudesk/group/v1"

// groupIDFor returns the id of the group founder founded with nonce:
// "grp_" and 32 hex characters of a hash of both, the shape NewGroupID
// has. A group id therefore names its founder, and only the founder can
// sign the group's root op.
func groupIDFor(founder engine.DeviceID, nonce string) string {
	sum := sha256.Sum256(signedBytes(groupIDDomain, founder, []byte(nonce)))
	return "grp_" + hex.EncodeToString(sum[:16])
}

// opFields returns what an op's signature covers besides the domain and
// the signer.
func opFields(group string, o Op) ([][]byte, error) {
	body, err := compactJSON(o.Body)
	if err != nil {
		return nil, err
	}
	return [][]byte{
		[]byte(group),
		[]byte(strconv.FormatUint(o.Seq, 10)),
		[]byte(strconv.FormatInt(o.HLCms, 10)),
		[]byte(o.Kind),
		body,
	}, nil
}

// signOp puts o's body in the form encoding/json sends (compactJSON), so
// that the bytes signed are the bytes every receiver and the database
// hold, and signs it with key in group.
func signOp(key ed25519.PrivateKey, group string, o *Op) error {
	body, err := compactJSON(o.Body)
	if err != nil {
		return err
	}
	o.Body = body
	fields, err := opFields(group, *o)
	if err != nil {
		return err
	}
	o.Sig = sign(key, sigDomainOp, o.Origin, fields...)
	return nil
}

// verifyOp checks o's signature against pub, the key of its origin.
func verifyOp(pub ed25519.PublicKey, group string, o Op) error {
	fields, err := opFields(group, o)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	return verify(pub, sigDomainOp, o.Origin, o.Sig, fields...)
}
