package devicesync

import (
	"context"
	"io"
	"log"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/hashicorp/mdns"
)

// mdnsService is the DNS-SD service type devices announce.
const mdnsService = "_furudesk._tcp"

const mdnsQueryEvery = 15 * time.Second

// startMDNS announces this device and browses for members on the LAN. If
// multicast is unavailable it logs and carries on: discovery by profile
// addresses and --peer still works.
func (n *Node) startMDNS() {
	quiet := log.New(io.Discard, "", 0)
	tcp, ok := n.ln.Addr().(*net.TCPAddr)
	if !ok {
		return
	}
	var ips []net.IP
	n.mu.Lock()
	for _, a := range n.addrs {
		if host, _, err := net.SplitHostPort(a); err == nil {
			if ip := net.ParseIP(host); ip != nil {
				ips = append(ips, ip)
			}
		}
	}
	n.mu.Unlock()
	svc, err := mdns.NewMDNSService(string(n.id), mdnsService, "", "", tcp.Port, ips, []string{"id=" + string(n.id)})
	if err != nil {
		n.log.Warn("devicesync: mDNS announce disabled", "err", err)
		return
	}
	srv, err := mdns.NewServer(&mdns.Config{Zone: svc, Logger: quiet})
	if err != nil {
		n.log.Warn("devicesync: mDNS announce disabled", "err", err)
	}
	ctx, cancel := context.WithCancel(n.ctx)
	n.mu.Lock()
	n.mdns = func() {
		cancel()
		if srv != nil {
			_ = srv.Shutdown()
		}
	}
	n.mu.Unlock()
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		for {
			n.browse(ctx, quiet)
			select {
			case <-ctx.Done():
				return
			case <-time.After(mdnsQueryEvery):
			}
		}
	}()
}

// browse runs one mDNS query and adds members it finds as dial targets.
func (n *Node) browse(ctx context.Context, logger *log.Logger) {
	entries := make(chan *mdns.ServiceEntry, 32)
	params := mdns.DefaultParams(mdnsService)
	params.Entries = entries
	params.Timeout = 2 * time.Second
	params.Logger = logger
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
