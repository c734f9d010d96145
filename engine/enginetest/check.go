package enginetest

import (
	"fmt"
	"strings"
	"time"

	"github.com/furudesk/furudesk/engine"
)

func (s *sim) checkVerdict(d *device, from engine.DeviceID, st engine.CommandStamp, handoff bool, v engine.Verdict) {
	if v != engine.Accepted {
		return
	}
	if st.Claim.Owner != d.id || d.eng.Claim() != st.Claim {
		s.fail("%s: accepted %v from %s while claim is %v", d.id, st, from, d.eng.Claim())
	}
	if handoff && st.Claim.Issuer != from {
		s.fail("%s: accepted handoff %v from non-issuer %s", d.id, st, from)
	}
	d.pendingCmd = append(d.pendingCmd, pending{st, from})
}

// checkDevice holds the per-step invariants of one live device.
func (s *sim) checkDevice(d *device) {
	e := d.eng
	c := e.Claim()
	// An unchanged claim (the common case) cannot have gone backwards nor
	// be a new one.
	if c.Counter != d.lastClaim.Counter || c.Issuer != d.lastClaim.Issuer || c.Owner != d.lastClaim.Owner {
		if c.Compare(d.lastClaim) < 0 {
			s.fail("%s: claim went backwards: %v -> %v", d.id, d.lastClaim, c)
		}
		if c.Issuer == d.id && !d.transfers[c] {
			s.res.ClaimsIssued++
			if d.passive {
				s.fail("%s: passive device claimed by itself: %v", d.id, c)
			}
			if !d.lastPending || e.StartupPending() {
				// Not the startup decision: a failover from the owner of
				// the claim it replaces.
				s.res.Failovers++
				s.checkFailover(d, d.lastClaim)
			}
		}
		d.lastClaim, d.claimAt = c, s.now
	}
	d.lastPending = e.StartupPending()
	if e.MayRender() != (c.Owner == d.id) {
		s.fail("%s: MayRender=%v with owner %q", d.id, e.MayRender(), c.Owner)
	}
	if st := e.Stats(); st.Senders > maxSenders {
		s.fail("%s: %d senders tracked, bound %d", d.id, st.Senders, maxSenders)
	}
}

// agreement reports whether every live device holds the same claim.
func (s *sim) agreement() (engine.Claim, bool) {
	live := s.live()
	c := live[0].eng.Claim()
	for _, d := range live[1:] {
		if d.eng.Claim() != c {
			return c, false
		}
	}
	return c, true
}

func (s *sim) converged(c engine.Claim, agree bool, agreedAt time.Duration) (bool, string) {
	if !agree {
		return false, "live devices disagree on the claim"
	}
	for _, d := range s.live() {
		if d.eng.StartupPending() {
			return false, string(d.id) + " startup still pending"
		}
	}
	renders := 0
	for _, d := range s.live() {
		if d.eng.MayRender() {
			renders++
		}
	}
	if c.IsZero() {
		if renders != 0 {
			return false, "renders without a claim"
		}
		return true, ""
	}
	owner := s.devs[s.index(c.Owner)]
	if owner.eng != nil {
		if renders != 1 || !owner.eng.MayRender() {
			return false, fmt.Sprintf("%d devices may render, owner %s", renders, owner.id)
		}
		return true, ""
	}
	// The owner is dead. A live device with failover and an available output
	// must take over within its owner timeout plus one tick of agreement.
	var bound time.Duration = -1
	for _, d := range s.live() {
		if d.cfg.AutomaticFailover && d.available {
			t := time.Duration(d.cfg.OwnerTimeoutMS)*time.Millisecond + tickInterval
			if bound < 0 || t < bound {
				bound = t
			}
		}
	}
	if bound < 0 {
		return renders == 0, "nobody may take over a dead owner"
	}
	// Messages the owner sent before it died may still arrive (delayed or
	// duplicated) and are fresh reports: count from the later of agreement
	// and the last delivery of the owner's announcement.
	since := max(agreedAt, s.lastHeard[owner.idx])
	if s.now-since > bound {
		s.fail("owner %s dead, last heard at %s, agreement at %s; no failover within owner_timeout+tick (%s)\n%s", owner.id, s.lastHeard[owner.idx], agreedAt, bound, s.describe())
	}
	return false, "waiting for failover"
}

func (s *sim) describe() string {
	var b strings.Builder
	for _, d := range s.devs {
		if d.eng == nil {
			fmt.Fprintf(&b, "  %s dead (persisted %v)\n", d.id, d.persisted.Claim)
			continue
		}
		fmt.Fprintf(&b, "  %s claim=%v render=%v pending=%v live=%v out=%+v cfg=%+v avail=%v\n",
			d.id, d.eng.Claim(), d.eng.MayRender(), d.eng.StartupPending(), d.eng.OwnerLive(), d.eng.OwnerOutput(), d.cfg, d.available)
	}
	return b.String()
}
