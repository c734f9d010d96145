package devicesync

import (
	"net"
	"slices"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/reach"
)

// AddressStore is what a Store implements to keep the address book across
// launches (reach.Book: this device's last listening port and the
// addresses each member was last reached at). Without it the book lives
// only as long as the node. Calls are made under the node's lock, like
// Store's.
type AddressStore interface {
	// LoadAddresses returns the bytes SaveAddresses last stored, or none.
	LoadAddresses() ([]byte, error)
	// SaveAddresses replaces the stored book.
	SaveAddresses(b []byte) error
}

// loadBook reads the stored address book. A book that cannot be read is
// logged and left in the store (the next save replaces it); the node
// starts with an empty one.
func (n *Node) loadBook() *reach.Book {
	as, ok := n.cfg.Store.(AddressStore)
	if !ok {
		return reach.New()
	}
	b, err := as.LoadAddresses()
	if err != nil {
		n.log.Warn("devicesync: the remembered addresses cannot be loaded, starting without them", "err", err)
		return reach.New()
	}
	bk, err := reach.Parse(b)
	if err != nil {
		n.log.Warn("devicesync: the remembered addresses cannot be read, starting without them", "err", err)
		return reach.New()
	}
	return bk
}

// saveBookLocked stores the address book; a failure is logged (the book
// in memory goes on, and is saved with the next change).
func (n *Node) saveBookLocked() {
	as, ok := n.cfg.Store.(AddressStore)
	if !ok {
		return
	}
	if err := as.SaveAddresses(n.book.Marshal()); err != nil {
		n.log.Warn("devicesync: the remembered addresses cannot be saved", "err", err)
	}
}

// listen binds the configured address; a configured port 0 becomes the
// port this device listened on last, so members find it where they last
// reached it. If that port is taken now, any free port is used (the new
// address reaches members through the profile) and remembered instead.
func (n *Node) listen() (net.Listener, error) {
	first, fallback := n.book.ListenFirst(n.cfg.Listen)
	ln, err := net.Listen("tcp", first)
	if err != nil && fallback {
		n.log.Info("devicesync: the port of the last launch is taken, listening on another", "port", n.book.Port, "err", err)
		ln, err = net.Listen("tcp", n.cfg.Listen)
	}
	if err != nil {
		return nil, err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && n.book.SetPort(tcp.Port) {
		n.mu.Lock()
		n.saveBookLocked()
		n.mu.Unlock()
	}
	return ln, nil
}

// rememberLocked records that a dial of addr led to a session with member
// peer.
func (n *Node) rememberLocked(peer engine.DeviceID, addr string) {
	if n.book.Good(string(peer), addr, n.clock.Now()) {
		n.saveBookLocked()
	}
}

// keepBookLocked forgets the addresses of devices that are no longer
// members, and those too old to matter.
func (n *Node) keepBookLocked() {
	isMember := func(dev string) bool { return n.glog.isMember(engine.DeviceID(dev)) }
	if n.book.Keep(isMember, n.clock.Now()) {
		n.saveBookLocked()
	}
	n.observed.Keep(isMember)
}

// localIPs lists this device's interface addresses (IPs).
func localIPs() []string {
	var out []string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok {
			out = append(out, ipn.IP.String())
		}
	}
	return out
}

// roamLocked notices this device moving to another network: when one of
// its addresses went away it closes the connections bound to it (their
// peers cannot reach it there any more, and it would otherwise wait for
// a read deadline), dials every member again at once, and announces its
// new addresses when they are derived from the interfaces.
func (n *Node) roamLocked(ips []string) {
	gone := reach.Moved(n.localIPs, ips)
	n.localIPs = ips
	if len(gone) == 0 {
		return
	}
	n.log.Info("devicesync: this device's network changed, reconnecting", "gone", gone)
	for _, s := range n.sessions {
		if a, ok := s.conn.LocalAddr().(*net.TCPAddr); ok && slices.Contains(gone, a.IP.String()) {
			s.close()
		}
	}
	for _, tg := range n.targets {
		tg.backoff.Reset()
	}
	for _, v := range n.viaTries {
		v.backoff.Reset()
	}
	if n.cfg.Advertise == nil && n.ln != nil {
		n.local = advertiseAddrs(n.ln.Addr())
		n.announceAddrsLocked()
	}
	n.signalWake()
}

// keepalive is the period of the hellos every live connection carries.
func (n *Node) keepalive() time.Duration { return min(n.sync, n.limits.PeerTimeout/3) }
