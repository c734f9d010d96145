package devicesync

import (
	"fmt"
	"net"
	"slices"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/reach"
)

// Reaching this device from outside its network (issue 35): the addresses
// it is reachable at beyond its LAN come first in its profile and its
// invites. Three sources, in that order:
//
//  1. public: what the user set (a port forwarded on the router by hand:
//     Config.Public, SetPublic; --public-addr, Settings);
//  2. mapped: what a router mapped for it (UPnP-IGD or NAT-PMP, when the
//     user turns port mapping on; SetMapped, from portmap/);
//  3. the local ones (Config.Advertise, or the listener's interfaces).
//
// Besides, every member a direct session runs with says in its hello which
// address it sees this device's connection come from (helloMsg.Seen); the
// device keeps those as candidates of its own (reach.Observed: members
// only, validated, bounded) and puts them last in its invites, never in
// its profile: a candidate works only when the router forwards the port.

// maxPublic bounds the user-set public addresses.
const maxPublic = 4

// ValidatePublic checks user-set public addresses: at most four, each
// host:port with a port in 1..65535.
func ValidatePublic(addrs []string) error {
	if len(addrs) > maxPublic {
		return fmt.Errorf("devicesync: %d public addresses, limit %d", len(addrs), maxPublic)
	}
	for _, a := range addrs {
		if err := reach.ValidAddr(a); err != nil {
			return fmt.Errorf("devicesync: public address: %v", err)
		}
	}
	return nil
}

// composeAddrsLocked sets n.addrs, the addresses of this device's profile
// and invites, from the public, mapped and local ones (deduplicated,
// bounded by maxAddresses). It reports whether they changed.
func (n *Node) composeAddrsLocked() bool {
	var out []string
	for _, a := range slices.Concat(n.public, n.mapped, n.local) {
		if !slices.Contains(out, a) && len(out) < maxAddresses {
			out = append(out, a)
		}
	}
	if slices.Equal(out, n.addrs) {
		return false
	}
	n.addrs = out
	return true
}

// announceAddrsLocked recomposes the addresses and, when they changed
// after Start, logs the new profile so members dial them.
func (n *Node) announceAddrsLocked() {
	if !n.composeAddrsLocked() || n.glog == nil || n.group == "" {
		return
	}
	if err := n.refreshProfileLocked(); err != nil {
		n.log.Warn("devicesync: announce the new addresses", "err", err)
	}
}

// SetPublic replaces the user-set addresses this device is reachable at
// from outside (a port forwarded on the router), and announces them.
func (n *Node) SetPublic(addrs []string) error {
	if err := ValidatePublic(addrs); err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.public = slices.Clone(addrs)
	if n.started && !n.closed {
		n.announceAddrsLocked()
	}
	return nil
}

// SetMapped replaces the addresses a router mapped for this device (UPnP
// or NAT-PMP; nil when the mapping is gone), and announces them.
func (n *Node) SetMapped(addrs []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.mapped = slices.Clone(addrs)
	if n.started && !n.closed {
		n.announceAddrsLocked()
	}
}

// Public returns the user-set public addresses.
func (n *Node) Public() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.public)
}

// Observed returns the candidates of this device's own outside address
// that its members reported (reach.Observed).
func (n *Node) Observed() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.observed.Candidates(n.listenPort(), n.clock.Now())
}

// ListenPort is the TCP port this device listens on (0 before Start).
func (n *Node) ListenPort() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.listenPort()
}

func (n *Node) listenPort() int {
	if n.ln == nil {
		return 0
	}
	if tcp, ok := n.ln.Addr().(*net.TCPAddr); ok {
		return tcp.Port
	}
	return 0
}

// inviteAddrsLocked lists the addresses an invite carries: the profile's,
// then the observed candidates.
func (n *Node) inviteAddrsLocked() []string {
	out := slices.Clone(n.addrs)
	for _, a := range n.observed.Candidates(n.listenPort(), n.clock.Now()) {
		if !slices.Contains(out, a) && len(out) < maxAddresses {
			out = append(out, a)
		}
	}
	return out
}

// seenFor is the address this device sees s's peer connect from, for its
// hello: "" for a relayed session (the carrier's address says nothing
// about the peer).
func seenFor(s *session) string {
	if s.via != "" || s.conn == nil {
		return ""
	}
	return s.conn.RemoteAddr().String()
}

// observeLocked records what member peer said it sees this device come
// from.
func (n *Node) observeLocked(peer engine.DeviceID, seen string) {
	if seen == "" {
		return
	}
	n.observed.Report(string(peer), seen, n.localIPs, n.clock.Now())
}

// Reasons a member is out of reach, for ctl status and the Devices page.
const (
	WhyNoAddress   = "no address known for it, and no member carries it"
	WhyNoRoute     = "no direct route and no member carries it"
	WhyCarrierDown = "no direct route; a member carries it, but the session through it is not up yet"
)

// unreachableLocked says why member id (offline, whose profile lists
// addrs) cannot be reached: no address at all, no direct route and no
// connected member that carries traffic and reaches it, or such a member
// but no session through it yet.
func (n *Node) unreachableLocked(id engine.DeviceID, addrs []string) string {
	for _, c := range n.relayCandidatesLocked() {
		if c.Carries && slices.Contains(c.Reaches, string(id)) {
			return WhyCarrierDown
		}
	}
	if len(addrs) == 0 && len(n.book.Addrs(string(id))) == 0 {
		return WhyNoAddress
	}
	return WhyNoRoute
}
