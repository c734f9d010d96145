package reach

import (
	"net"
	"slices"
	"strconv"
	"time"
)

// Bounds of what a device learns about its own address from its members.
const (
	// MaxObservers is how many members' reports a device keeps (one
	// each, the latest).
	MaxObservers = 16
	// MaxObserved is how many candidates Candidates returns.
	MaxObserved = 2
	// ObservedFor is how long a report counts after it was made: a
	// laptop that moved is seen from another address within a keepalive,
	// and a report older than this is of a network it may have left.
	ObservedFor = 10 * time.Minute
)

// Observed is what the members told this device about the address its
// connections come from: each member's latest report of the IP it saw.
// A report is a hint, not a proof (a member can be wrong, or behind the
// same NAT), so the device keeps it as a candidate of its own, never in
// place of the addresses it knows. Only members report (the caller
// checks), each member counts once, and only public-looking IPs that are
// not the device's own interfaces count: a member on the same LAN sees a
// LAN address, which the device advertises already.
type Observed struct {
	reports map[string]report // by member
}

type report struct {
	ip string
	at int64 // Unix ms
}

// NewObserved returns an empty Observed.
func NewObserved() *Observed { return &Observed{reports: map[string]report{}} }

// Report records that member saw this device's connection come from
// seen (host:port, as the member's socket shows it) at now. local lists
// this device's interface IPs. It reports whether the candidates may have
// changed; a report that is not an address, not a routable unicast IP,
// one of local, or beyond MaxObservers members is ignored.
func (o *Observed) Report(member, seen string, local []string, now time.Time) bool {
	if member == "" || ValidAddr(seen) != nil {
		return false
	}
	host, _, _ := net.SplitHostPort(seen)
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsGlobalUnicast() || slices.Contains(local, ip.String()) {
		return false
	}
	old, known := o.reports[member]
	if !known && len(o.reports) >= MaxObservers {
		return false
	}
	o.reports[member] = report{ip: ip.String(), at: now.UnixMilli()}
	return !known || old.ip != ip.String()
}

// Forget drops member's report (revoked, or its session was relayed).
func (o *Observed) Forget(member string) { delete(o.reports, member) }

// Candidates returns at most MaxObserved addresses this device may be
// reachable at from outside: each IP members saw it come from within
// ObservedFor before now, with port (the port it listens on; reachable
// there only if the router forwards or maps it), the IP most members
// agree on first, then by IP.
func (o *Observed) Candidates(port int, now time.Time) []string {
	if port <= 0 {
		return nil
	}
	count := map[string]int{}
	cut := now.Add(-ObservedFor).UnixMilli()
	for _, r := range o.reports {
		if r.at >= cut {
			count[r.ip]++
		}
	}
	ips := make([]string, 0, len(count))
	for ip := range count {
		ips = append(ips, ip)
	}
	slices.SortFunc(ips, func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		if a < b {
			return -1
		}
		return 1
	})
	var out []string
	for _, ip := range ips[:min(len(ips), MaxObserved)] {
		out = append(out, net.JoinHostPort(ip, strconv.Itoa(port)))
	}
	return out
}

// Keep drops the reports of devices isMember rejects (revoked).
func (o *Observed) Keep(isMember func(member string) bool) {
	for m := range o.reports {
		if !isMember(m) {
			delete(o.reports, m)
		}
	}
}
