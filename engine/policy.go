package engine

// Reason says why a device considers claiming the output.
type Reason uint8

// The reasons passed to Config.ShouldClaim.
const (
	// ReasonStartup: the one startup intent of this application instance,
	// once the discovery grace has passed.
	ReasonStartup Reason = iota + 1
	// ReasonFailover: a periodic check while another device owns the output.
	ReasonFailover
	// ReasonSelection: the user explicitly selected this device's output.
	ReasonSelection
)

// String returns the lower-case name of r.
func (r Reason) String() string {
	switch r {
	case ReasonStartup:
		return "startup"
	case ReasonFailover:
		return "failover"
	case ReasonSelection:
		return "selection"
	}
	return "reason(?)"
}

// OwnerView is what this device knows about the current owner when it
// considers claiming. The engine builds it; Engine.OwnerView exposes it to
// the UI as well.
type OwnerView struct {
	// Owner is the owner of the winning claim; empty when no claim exists.
	Owner DeviceID
	// Self is true when Owner is this device.
	Self bool
	// Reported is true when the owner's output has reported since this
	// device learned the winning claim (for Self: our output has reported).
	Reported bool
	// Live is true while the owner is not timed out: its last fresh report,
	// or, when it has not reported yet, the moment we learned the claim, is
	// at most OwnerTimeoutMS old.
	Live bool
	// Output is the owner's last reported output; zero when not Reported.
	Output Output
	// LocalAvailable is true when this device's own output last reported
	// itself available.
	LocalAvailable bool
}

// ShouldClaim is the one claiming policy for startup, failover and local
// selection (spec: "Local browser selection uses the same should_claim
// policy"). It never claims what this device already owns.
//
//   - ReasonStartup (engine.md rule 8): only with ClaimOnStartup. Claim when
//     no owner is known, the owner timed out, the owner's output is
//     unavailable, or the owner is live but not playing and
//     TakePausedOnStartup. Never while the owner is live and playing, and
//     not while a live owner has not reported yet (the decision is pending).
//   - ReasonFailover (rule 7): only with AutomaticFailover, when another
//     device owns the output, it is no longer Live, and our own output is
//     available.
//   - ReasonSelection: an explicit user choice always claims.
func (c Config) ShouldClaim(r Reason, o OwnerView) bool {
	if o.Self {
		return false
	}
	switch r {
	case ReasonStartup:
		if !c.ClaimOnStartup {
			return false
		}
		switch {
		case o.Owner == "":
			return true
		case !o.Live:
			return true
		case !o.Reported:
			return false // pending until it reports or times out
		case !o.Output.Available:
			return true
		case o.Output.Playing:
			return false
		default:
			return c.TakePausedOnStartup
		}
	case ReasonFailover:
		return c.AutomaticFailover && o.Owner != "" && !o.Live && o.LocalAvailable
	case ReasonSelection:
		return true
	}
	return false
}
