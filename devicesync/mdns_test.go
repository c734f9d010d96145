package devicesync

import (
	"os"
	"testing"
)

// mDNS uses the real LAN, so it only runs when asked for
// (DEVICESYNC_MDNS=1). Whether or not multicast works here, the node must
// start, pair over loopback and close.
func TestMDNSDoesNotBreakTheNode(t *testing.T) {
	if os.Getenv("DEVICESYNC_MDNS") == "" {
		t.Skip("set DEVICESYNC_MDNS=1 to use multicast on this machine's network")
	}
	a := startNode(t, "a", func(c *Config) { c.MDNS = true })
	b := startNode(t, "b", func(c *Config) { c.MDNS = true })
	pair(t, a, b)
}
