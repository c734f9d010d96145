package devicesync

import (
	"net"
	"os"
	"slices"
	"strings"
	"testing"
)

// mDNS uses the real LAN, so it only runs when asked for
// (DEVICESYNC_MDNS=1). Whether or not multicast works here, the node must
// start, pair over loopback and close.
func TestMDNSDoesNotBreakTheNode(t *testing.T) {
	if os.Getenv("DEVICESYNC_MDNS") == "" {
		t.Skip("set DEVICESYNC_MDNS=1 to use multicast on this machine's network")
	}
	a := startNode(t, "a", func(c *Config) { c.MDNS = true; c.MDNSExclude = []string{"docker*"} })
	b := startNode(t, "b", func(c *Config) { c.MDNS = true })
	pair(t, a, b)
}

// The announcement names the device id and port only: no host name, no
// device name.
func TestMDNSAnnouncesOnlyTheDeviceIDAndPort(t *testing.T) {
	id := mkID(1)
	svc, err := announcement(id, 7700, []net.IP{net.IPv4(192, 168, 1, 5)})
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if svc.HostName != string(id)+".local." || svc.Instance != string(id) || svc.Port != 7700 ||
		!slices.Equal(svc.TXT, []string{"id=" + string(id)}) || (host != "" && strings.Contains(strings.ToLower(svc.HostName), strings.ToLower(host))) {
		t.Fatalf("announcement %+v", svc)
	}
	if _, err := announcement(id, 7700, nil); err == nil {
		t.Fatal("announced without an address")
	}
}

// mDNS stays off loopback, interfaces that are down or cannot multicast,
// and the ones the user excluded by name or pattern.
func TestMDNSInterfaces(t *testing.T) {
	up := net.FlagUp | net.FlagMulticast
	all := []net.Interface{
		{Name: "lo", Flags: up | net.FlagLoopback},
		{Name: "eth0", Flags: up},
		{Name: "wlan0", Flags: up},
		{Name: "tun0", Flags: up},
		{Name: "tun1", Flags: up},
		{Name: "docker0", Flags: up},
		{Name: "eth1", Flags: net.FlagUp},
		{Name: "eth2", Flags: net.FlagMulticast},
	}
	var names []string
	for _, i := range mdnsInterfaces(all, []string{"tun*", "docker0"}) {
		names = append(names, i.Name)
	}
	if !slices.Equal(names, []string{"eth0", "wlan0"}) {
		t.Fatalf("interfaces %v", names)
	}
	if err := ValidateMDNSExclude([]string{"tun[", ""}); err == nil {
		t.Fatal("a broken pattern accepted")
	}
	if _, err := New(Config{Key: newKey(t), Store: NewMemStore(), Listen: ":0", MDNSExclude: []string{"["}}); err == nil {
		t.Fatal("New accepted a broken pattern")
	}
}
