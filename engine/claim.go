package engine

import "strings"

// DeviceID names one installation. The transport derives it from the
// device's public key, so an authenticated peer is its own DeviceID.
type DeviceID string

// Claim selects the owner of the group's output. Claims are immutable and
// ordered lexicographically: Counter, then Issuer, then Owner.
type Claim struct {
	Counter uint64   `json:"counter"`
	Issuer  DeviceID `json:"issuer"`
	Owner   DeviceID `json:"owner"`
}

// Compare returns -1, 0 or +1 as c is less than, equal to or greater than o.
func (c Claim) Compare(o Claim) int {
	switch {
	case c.Counter < o.Counter:
		return -1
	case c.Counter > o.Counter:
		return 1
	}
	if r := strings.Compare(string(c.Issuer), string(o.Issuer)); r != 0 {
		return r
	}
	return strings.Compare(string(c.Owner), string(o.Owner))
}

// equal is c == o, cheapest comparison first.
func (c Claim) equal(o Claim) bool {
	return c.Counter == o.Counter && c.Issuer == o.Issuer && c.Owner == o.Owner
}

// IsZero reports whether c is the zero claim, which names no owner.
func (c Claim) IsZero() bool { return c == Claim{} }
