package devicesync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/hashicorp/mdns"
)

// mdnsService is the DNS-SD service type devices announce.
const mdnsService = "_furudesk._tcp"

const mdnsQueryEvery = 15 * time.Second

// startMDNS announces this device and browses for members on the LAN, on
// every interface that can multicast and that Config.MDNSExclude does not
// name. The announcement says only what a member needs to dial this
// device: its id and port, with the interface's addresses (no host name,
// no device name). If multicast is unavailable it logs and carries on:
// discovery by profile addresses and --peer still works.
func (n *Node) startMDNS() {
	quiet := log.New(io.Discard, "", 0)
	tcp, ok := n.ln.Addr().(*net.TCPAddr)
	if !ok {
		return
	}
	all, err := net.Interfaces()
	if err != nil {
		n.log.Warn("devicesync: mDNS disabled: no network interfaces", "err", err)
		return
	}
	ifaces := mdnsInterfaces(all, n.cfg.MDNSExclude)
	if len(ifaces) == 0 {
		n.log.Info("devicesync: mDNS disabled: no interface to use", "excluded", n.cfg.MDNSExclude)
		return
	}
	ctx, cancel := context.WithCancel(n.ctx)
	var servers []*mdns.Server
	for i := range ifaces {
		iface := ifaces[i]
		svc, err := announcement(n.id, tcp.Port, interfaceIPs(&iface))
		if err != nil {
			n.log.Warn("devicesync: mDNS announce disabled", "interface", iface.Name, "err", err)
			continue
		}
		srv, err := mdns.NewServer(&mdns.Config{Zone: svc, Iface: &iface, Logger: quiet})
		if err != nil {
			n.log.Warn("devicesync: mDNS announce disabled", "interface", iface.Name, "err", err)
			continue
		}
		servers = append(servers, srv)
	}
	n.mu.Lock()
	n.mdns = func() {
		cancel()
		for _, srv := range servers {
			_ = srv.Shutdown()
		}
	}
	n.mu.Unlock()
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		for {
			for i := range ifaces {
				n.browse(ctx, &ifaces[i], quiet)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(mdnsQueryEvery):
			}
		}
	}()
}

// mdnsInterfaces returns the interfaces mDNS may use: up, able to
// multicast, not loopback, and matching no pattern of exclude (interface
// names or shell patterns such as "tun*").
func mdnsInterfaces(all []net.Interface, exclude []string) []net.Interface {
	var out []net.Interface
	for _, ifc := range all {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagMulticast == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		if slices.ContainsFunc(exclude, func(p string) bool { ok, _ := path.Match(p, ifc.Name); return ok }) {
			continue
		}
		out = append(out, ifc)
	}
	return out
}

// interfaceIPs returns the IPv4 addresses of ifc.
func interfaceIPs(ifc *net.Interface) []net.IP {
	addrs, _ := ifc.Addrs()
	var ips []net.IP
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
			ips = append(ips, ipn.IP)
		}
	}
	return ips
}

// announcement is this device's mDNS service: the instance and the host
// are named after the device id, so the machine's host name never leaves
// it, and the one TXT record is the id.
func announcement(id engine.DeviceID, port int, ips []net.IP) (*mdns.MDNSService, error) {
	if len(ips) == 0 {
		return nil, errors.New("the interface has no IPv4 address")
	}
	return mdns.NewMDNSService(string(id), mdnsService, "", string(id)+".local.", port, ips, []string{"id=" + string(id)})
}

// ValidateMDNSExclude checks interface names or patterns for
// Config.MDNSExclude.
func ValidateMDNSExclude(exclude []string) error {
	if len(exclude) > maxMDNSExclude {
		return fmt.Errorf("devicesync: %d interfaces to exclude from mDNS, limit %d", len(exclude), maxMDNSExclude)
	}
	for _, p := range exclude {
		if _, err := path.Match(p, ""); err != nil || p == "" || len(p) > 64 {
			return fmt.Errorf("devicesync: %q is not an interface name or pattern (such as tun0 or tun*)", p)
		}
	}
	return nil
}

const maxMDNSExclude = 64

// browse runs one mDNS query on ifc and adds members it finds as dial
// targets.
func (n *Node) browse(ctx context.Context, ifc *net.Interface, logger *log.Logger) {
	entries := make(chan *mdns.ServiceEntry, 32)
	params := mdns.DefaultParams(mdnsService)
	params.Entries = entries
	params.Timeout = 2 * time.Second
	params.Logger = logger
	params.Interface = ifc
	params.DisableIPv6 = true
	go func() {
		if err := mdns.QueryContext(ctx, params); err != nil {
			n.log.Debug("devicesync: mDNS query", "err", err)
		}
		close(entries)
	}()
	for e := range entries {
		var id engine.DeviceID
		for _, f := range e.InfoFields {
			if v, ok := strings.CutPrefix(f, "id="); ok {
				id = engine.DeviceID(v)
			}
		}
		if id == "" || id == n.id || e.AddrV4 == nil || e.Port == 0 {
			continue
		}
		addr := net.JoinHostPort(e.AddrV4.String(), strconv.Itoa(e.Port))
		n.mu.Lock()
		if t := n.targets[addr]; t != nil {
			t.found = time.Now()
		} else if n.glog.isMember(id) && len(n.targets) < maxDialTargets {
			n.targets[addr] = &dialTarget{addr: addr, device: id, found: time.Now()}
			n.signalWake()
		}
		n.mu.Unlock()
	}
}
