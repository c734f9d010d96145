package engine

// Verdict is the outcome of Receive for one stamped command. Only Accepted
// commands may be executed; every other verdict means "drop and count".
type Verdict uint8

// The verdicts of Receive.
const (
	// Accepted: the command is in the winning term, this device owns it and
	// the sequence is new for its sender. Execute it after Fence.
	Accepted Verdict = iota
	// Stale: the stamp's claim is older than the winning claim, or the
	// sequence is older than the sender's last accepted one in this term.
	Stale
	// Duplicate: the sender's last accepted sequence in this term, again.
	Duplicate
	// Incompatible: wrong envelope version, a zero or malformed claim, or a
	// handoff that does not come from the claim's issuer or does not name
	// this device as owner.
	Incompatible
	// NotOwner: the stamp is in the winning term but this device does not
	// own it; the sender must address the owner.
	NotOwner
	// SenderLimit: MaxSendersPerTerm distinct senders were already accepted
	// in this term; new senders are refused until the term changes.
	SenderLimit

	verdictCount
)

var verdictNames = [verdictCount]string{
	Accepted:     "accepted",
	Stale:        "stale",
	Duplicate:    "duplicate",
	Incompatible: "incompatible",
	NotOwner:     "not-owner",
	SenderLimit:  "sender-limit",
}

// String returns the lower-case name of v, e.g. "not-owner".
func (v Verdict) String() string {
	if v < verdictCount {
		return verdictNames[v]
	}
	return "verdict(?)"
}
