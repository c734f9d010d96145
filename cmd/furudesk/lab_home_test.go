package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
)

// The home lab (issue 35, reaching home from outside): the box and the
// desktop share a LAN behind the home router r0 (nftables masquerade, a
// public address 11.0.0.20 on the lab's "internet": miniupnpd refuses the
// documentation ranges the reach lab uses); the laptop is outside, behind
// r1. The laptop reaches the box only through a port forward on r0: set
// by hand (the box says so with --public-addr) or mapped by the box
// through miniupnpd (--portmap, UPnP-IGD / NAT-PMP). No multicast, no
// --peer: the laptop pairs with the invite alone.

const (
	homeWAN = "11.0.0.20"
	boxPort = "7400"
)

// homeRules are r0's nftables rules: masquerade, a filter that admits
// what the LAN started and what a forward (static or miniupnpd's) lets in.
const homeRules = `table inet fd {
	chain forward { type filter hook forward priority filter; policy drop;
		ct state established,related accept
		iifname "lan" oifname "wan" accept
		iifname "lan" oifname "lan" accept
		jump upnpfwd
		jump staticfwd
	}
	chain upnpfwd {}
	chain staticfwd {}
	chain prerouting { type nat hook prerouting priority dstnat; policy accept;
		jump upnpnat
		jump staticnat
	}
	chain upnpnat {}
	chain staticnat {}
	chain postrouting { type nat hook postrouting priority srcnat; policy accept;
		jump upnppost
		oifname "wan" masquerade
	}
	chain upnppost {}
}
`

// newHomeLab builds the home lab; every namespace is deleted when the
// test ends.
func newHomeLab(t *testing.T) *natLab {
	t.Helper()
	needNetns(t)
	if _, err := exec.LookPath("nft"); err != nil {
		t.Skip("the home lab needs nftables (apt-get install nftables)")
	}
	p := labPrefix() + "h"
	ns := &netns{t: t, prefix: p, names: map[string]string{}}
	t.Cleanup(func() {
		for _, name := range ns.names {
			_ = exec.Command("ip", "netns", "del", name).Run()
		}
	})
	for _, d := range []string{"inet", "r0", "r1", "box", "desktop", "laptop"} {
		name := p + d
		_ = exec.Command("ip", "netns", "del", name).Run()
		ns.run("ip", "netns", "add", name)
		ns.names[d] = name
		ns.run("ip", "-n", name, "link", "set", "lo", "up")
	}
	in := ns.names["inet"]
	ns.run("ip", "-n", in, "link", "add", "br0", "type", "bridge")
	ns.run("ip", "-n", in, "link", "set", "br0", "up")
	wan := func(router, ip string) {
		peer := p + "i" + router
		ns.run("ip", "link", "add", "wan", "netns", ns.names[router], "type", "veth", "peer", "name", peer, "netns", in)
		ns.run("ip", "-n", in, "link", "set", peer, "master", "br0")
		ns.run("ip", "-n", in, "link", "set", peer, "up")
		ns.run("ip", "-n", ns.names[router], "addr", "add", ip+"/24", "dev", "wan")
		ns.run("ip", "-n", ns.names[router], "link", "set", "wan", "up")
		ns.run("ip", "netns", "exec", ns.names[router], "sysctl", "-qw", "net.ipv4.ip_forward=1")
	}
	wan("r0", homeWAN)
	wan("r1", "11.0.0.1")
	// r0's LAN is a bridge: the box and the desktop.
	r0 := ns.names["r0"]
	ns.run("ip", "-n", r0, "link", "add", "lan", "type", "bridge")
	ns.run("ip", "-n", r0, "addr", "add", "10.0.0.1/24", "dev", "lan")
	ns.run("ip", "-n", r0, "link", "set", "lan", "up")
	for i, d := range []string{"box", "desktop"} {
		port := "l" + d
		ns.run("ip", "link", "add", port, "netns", r0, "type", "veth", "peer", "name", "eth0", "netns", ns.names[d])
		ns.run("ip", "-n", r0, "link", "set", port, "master", "lan")
		ns.run("ip", "-n", r0, "link", "set", port, "up")
		ns.run("ip", "-n", ns.names[d], "addr", "add", fmt.Sprintf("10.0.0.%d/24", i+2), "dev", "eth0")
		ns.run("ip", "-n", ns.names[d], "link", "set", "eth0", "up")
		ns.run("ip", "-n", ns.names[d], "route", "add", "default", "via", "10.0.0.1")
	}
	// Bridged LAN traffic must not meet r0's forward filter (where the
	// host loaded br_netfilter); the rules let it through too.
	_ = exec.Command("ip", "netns", "exec", r0, "sysctl", "-qw", "net.bridge.bridge-nf-call-iptables=0").Run()
	nft(t, r0, homeRules)
	// r1: the laptop's network, plain masquerade.
	r1, lp := ns.names["r1"], ns.names["laptop"]
	ns.run("ip", "link", "add", "lan", "netns", r1, "type", "veth", "peer", "name", "eth0", "netns", lp)
	ns.run("ip", "-n", r1, "addr", "add", "10.1.0.1/24", "dev", "lan")
	ns.run("ip", "-n", lp, "addr", "add", "10.1.0.2/24", "dev", "eth0")
	ns.run("ip", "-n", r1, "link", "set", "lan", "up")
	ns.run("ip", "-n", lp, "link", "set", "eth0", "up")
	ns.run("ip", "-n", lp, "route", "add", "default", "via", "10.1.0.1")
	nft(t, r1, "table ip nat {\n\tchain natout { type nat hook postrouting priority srcnat; oifname \"wan\" masquerade; }\n}\n")
	return &natLab{netns: ns, boxIP: homeWAN}
}

func nft(t *testing.T, namespace, rules string) {
	t.Helper()
	cmd := exec.Command("ip", "netns", "exec", namespace, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nft in %s: %v\n%s\n%s", namespace, err, out, rules)
	}
}

// forward makes r0 forward the box's port (the user's port forward);
// unforward removes it.
func (l *natLab) forward(t *testing.T) {
	nft(t, l.names["r0"], `add rule inet fd staticnat iifname "wan" tcp dport `+boxPort+` dnat ip to 10.0.0.2:`+boxPort+`
add rule inet fd staticfwd ip daddr 10.0.0.2 tcp dport `+boxPort+` accept
`)
}

func (l *natLab) unforward(t *testing.T) {
	nft(t, l.names["r0"], "flush chain inet fd staticnat\nflush chain inet fd staticfwd\n")
}

// miniupnpd runs Debian's miniupnpd in r0 (UPnP-IGD, and NAT-PMP when
// natpmp, on the LAN, mapping into r0's fd table) until the test ends.
func (l *natLab) miniupnpd(t *testing.T, natpmp bool) {
	t.Helper()
	bin := "/usr/sbin/miniupnpd"
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the UPnP lab needs miniupnpd (scripts/install-deps.sh --test)")
		}
		t.Skip("the UPnP lab needs miniupnpd (apt-get install miniupnpd-nftables)")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "miniupnpd.conf")
	if err := os.WriteFile(conf, []byte(`ext_ifname=wan
listening_ip=lan
http_port=0
enable_natpmp=`+map[bool]string{true: "yes", false: "no"}[natpmp]+`
enable_upnp=yes
secure_mode=yes
system_uptime=yes
uuid=3b1d2a7e-35f0-4a8e-9d6c-0f0f0f0f0f35
upnp_table_name=fd
upnp_nat_table_name=fd
upnp_forward_chain=upnpfwd
upnp_nat_chain=upnpnat
upnp_nat_postrouting_chain=upnppost
allow 1024-65535 10.0.0.0/24 1024-65535
deny 0-65535 0.0.0.0/0 0-65535
`), 0o600); err != nil {
		t.Fatal(err)
	}
	// r0's LAN needs the route SSDP's multicast takes.
	l.run("ip", "-n", l.names["r0"], "route", "add", "239.0.0.0/8", "dev", "lan")
	for _, d := range []string{"box", "desktop"} {
		l.run("ip", "-n", l.names[d], "route", "add", "239.0.0.0/8", "dev", "eth0")
	}
	var log syncBuf
	cmd := exec.Command("ip", "netns", "exec", l.names["r0"], bin, "-d", "-f", conf, "-P", filepath.Join(dir, "pid"))
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("miniupnpd log:\n%s", tail(log.String(), 4000))
		}
	})
}

func homeCluster(t *testing.T, lab *natLab, boxArgs ...string) *cluster {
	c := &cluster{t: t, pa: startPulse(t, 3)}
	cfg := fmt.Sprintf(`{"discovery_ms":1000,"owner_timeout_ms":%d}`, topoOwnerTimeout.Milliseconds())
	for i, name := range []string{"box", "desktop", "laptop"} {
		n := c.addNode(name, i, "0.0.0.0:"+boxPort, cfg, nil, name == "box", []string{"ip", "netns", "exec", lab.names[name]})
		if name == "box" {
			n.args = append(n.args, boxArgs...)
		}
	}
	c.cleanupNodes()
	return c
}

// deviceWhy is why n cannot reach the device named other ("" if it can).
func deviceWhy(st app.Status, other string) string {
	for _, d := range st.Devices {
		if d.Name == other {
			return d.Unreachable
		}
	}
	return "not a member"
}

// TestLabReachHome: the laptop outside pairs with the box at home using
// the invite alone (its public address: forwarded by hand, or mapped by
// the box on the router with UPnP/NAT-PMP), and plays with the box
// following; with the forward removed, only the LAN works and the laptop
// says why it cannot reach the others.
func TestLabReachHome(t *testing.T) {
	needE2E(t)
	if os.Getenv("FURUDESK_LAB") == "" {
		t.Skip("the reach lab runs with FURUDESK_LAB=1 (make lab-reach): root, two minutes")
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"forward", []string{"--public-addr", homeWAN + ":" + boxPort}},
		{"natpmp", []string{"--portmap"}},
		{"upnp", []string{"--portmap"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lab := newHomeLab(t)
			if tc.name == "forward" {
				lab.forward(t)
			} else {
				lab.miniupnpd(t, tc.name == "natpmp") // upnp: the router speaks UPnP-IGD only
			}
			c := homeCluster(t, lab, tc.args...)
			box, desktop, laptop := c.node("box"), c.node("desktop"), c.node("laptop")
			box.keepMusic()
			for _, n := range c.nodes {
				n.start()
			}
			public := homeWAN + ":" + boxPort
			if tc.name != "forward" {
				began := time.Now()
				waitFor(t, 20*time.Second, "the box maps its port", func() bool {
					st := box.status()
					return st.Reach != nil && st.Reach.PortMap.External == public
				})
				t.Logf("%s: the box's port mapped on the router %v after its start: %s", tc.name, time.Since(began).Round(time.Millisecond), box.status().Reach.PortMap.Answer)
			}
			if !lab.dials("laptop", public) {
				t.Fatalf("the lab is wrong: the laptop cannot dial the box's public address %s", public)
			}
			c.pair()
			paired := time.Now()
			waitFor(t, 20*time.Second, "the laptop reaches the box", func() bool { on, via := deviceVia(laptop.status(), "box"); return on && via == "" })
			t.Logf("%s: the laptop outside paired with the box through %s (the invite's first address); online with it %v after pairing", tc.name, public, time.Since(paired).Round(time.Millisecond))
			// The box learned its own outside address from the laptop.
			waitFor(t, 20*time.Second, "the box learns the address the laptop sees", func() bool {
				st := box.status()
				return st.Reach != nil && len(st.Reach.Observed) > 0 && st.Reach.Observed[0] == public
			})

			ids := c.trackIDs(nil)
			laptop.ctl("transfer", laptop.id)
			laptop.ctl("play", ids[0], ids[1])
			waitFor(t, 20*time.Second, "the laptop plays, the box and the desktop follow", func() bool {
				st := laptop.status()
				return st.Rendering && st.Output.Playing && box.status().Owner == engine.DeviceID(laptop.id) && desktop.status().Owner == engine.DeviceID(laptop.id)
			})
			if r := c.renderers(c.nodes); len(r) != 1 {
				t.Fatalf("%d renderers, want the laptop alone", len(r))
			}
			began := time.Now()
			box.ctl("pause")
			waitFor(t, 10*time.Second, "the laptop obeys the box", func() bool { return !laptop.status().Playing })
			t.Logf("%s: a pause from the box reached the laptop in %v", tc.name, time.Since(began).Round(time.Millisecond))
			laptop.ctl("pause")

			// The forward removed: only the LAN works, and the laptop
			// says why it reaches nobody.
			box.stop(false)
			if tc.name == "forward" {
				lab.unforward(t)
			} else {
				box.args = append(box.args[:len(box.args)-1:len(box.args)-1], "--portmap=false")
			}
			box.start()
			if tc.name != "forward" {
				if st := box.status(); st.Reach != nil && st.Reach.PortMap.External != "" {
					t.Errorf("the mapping is still shown after --portmap=false: %+v", st.Reach.PortMap)
				}
			}
			if lab.dials("laptop", public) {
				t.Fatalf("the laptop still reaches %s after the forward was removed", public)
			}
			waitFor(t, 20*time.Second, "the desktop and the box on the LAN", func() bool {
				on, via := deviceVia(desktop.status(), "box")
				return on && via == ""
			})
			waitFor(t, 30*time.Second, "the laptop says why it cannot reach the box", func() bool {
				st := laptop.status()
				return deviceWhy(st, "box") == devicesync.WhyNoRoute && deviceWhy(st, "desktop") == devicesync.WhyNoRoute
			})
			t.Logf("%s: forward removed: the desktop and the box together on the LAN; the laptop shows the box and the desktop %q", tc.name, deviceWhy(laptop.status(), "box"))
		})
	}
}
