package portmap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/huin/goupnp/dcps/internetgateway2"
	"github.com/jackpal/gateway"
	natpmp "github.com/jackpal/go-nat-pmp"
)

// NATPMP maps through NAT-PMP (RFC 6886) on the default gateway.
type NATPMP struct{}

// Name implements Protocol.
func (NATPMP) Name() string { return "NAT-PMP" }

func natpmpClient(ctx context.Context) (*natpmp.Client, error) {
	gw, err := gateway.DiscoverGateway()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoGateway, err)
	}
	timeout := 2 * time.Second
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(d))
	}
	return natpmp.NewClientWithTimeout(gw, timeout), nil
}

// Map implements Protocol.
func (NATPMP) Map(ctx context.Context, port int, lifetime time.Duration) (string, time.Duration, error) {
	c, err := natpmpClient(ctx)
	if err != nil {
		return "", 0, err
	}
	ext, err := c.GetExternalAddress()
	if err != nil {
		return "", 0, fmt.Errorf("external address: %v", err)
	}
	res, err := c.AddPortMapping("tcp", port, port, int(lifetime/time.Second))
	if err != nil {
		return "", 0, err
	}
	ip := net.IP(ext.ExternalIPAddress[:])
	return hostPort(ip, int(res.MappedExternalPort)), time.Duration(res.PortMappingLifetimeInSeconds) * time.Second, nil
}

// Unmap implements Protocol.
func (NATPMP) Unmap(ctx context.Context, port int) error {
	c, err := natpmpClient(ctx)
	if err != nil {
		return err
	}
	_, err = c.AddPortMapping("tcp", port, 0, 0)
	return err
}

// UPnP maps through UPnP-IGD: the first WANIPConnection service (version
// 2, as miniupnpd offers, then 1) SSDP finds on the LAN.
type UPnP struct{}

// Name implements Protocol.
func (UPnP) Name() string { return "UPnP-IGD" }

// igdConn is what WANIPConnection1 and 2 both offer.
type igdConn interface {
	AddPortMappingCtx(ctx context.Context, remoteHost string, externalPort uint16, protocol string, internalPort uint16, internalClient string, enabled bool, description string, leaseDuration uint32) error
	DeletePortMappingCtx(ctx context.Context, remoteHost string, externalPort uint16, protocol string) error
	GetExternalIPAddressCtx(ctx context.Context) (string, error)
}

type igdClient struct {
	igdConn
	Location *url.URL
}

func upnpClient(ctx context.Context) (igdClient, error) {
	v2, _, err2 := internetgateway2.NewWANIPConnection2ClientsCtx(ctx)
	if len(v2) > 0 {
		return igdClient{v2[0], v2[0].Location}, nil
	}
	v1, _, err1 := internetgateway2.NewWANIPConnection1ClientsCtx(ctx)
	if len(v1) > 0 {
		return igdClient{v1[0], v1[0].Location}, nil
	}
	if err := errors.Join(err2, err1); err != nil {
		return igdClient{}, err
	}
	return igdClient{}, errors.New("no internet gateway answered on the LAN")
}

// localIPFor is this device's address on the way to the router at u.
func localIPFor(u *url.URL) (string, error) {
	c, err := net.Dial("udp", net.JoinHostPort(u.Hostname(), "1"))
	if err != nil {
		return "", err
	}
	defer func() { _ = c.Close() }()
	return c.LocalAddr().(*net.UDPAddr).IP.String(), nil
}

// Map implements Protocol.
func (UPnP) Map(ctx context.Context, port int, lifetime time.Duration) (string, time.Duration, error) {
	c, err := upnpClient(ctx)
	if err != nil {
		return "", 0, err
	}
	me, err := localIPFor(c.Location)
	if err != nil {
		return "", 0, err
	}
	if err := c.AddPortMappingCtx(ctx, "", uint16(port), "TCP", uint16(port), me, true, "furudesk", uint32(lifetime/time.Second)); err != nil {
		return "", 0, err
	}
	ext, err := c.GetExternalIPAddressCtx(ctx)
	if err != nil {
		return "", 0, fmt.Errorf("external address: %v", err)
	}
	ip := net.ParseIP(ext)
	if ip == nil {
		return "", 0, fmt.Errorf("external address %q", ext)
	}
	return hostPort(ip, port), lifetime, nil
}

// Unmap implements Protocol.
func (UPnP) Unmap(ctx context.Context, port int) error {
	c, err := upnpClient(ctx)
	if err != nil {
		return err
	}
	return c.DeletePortMappingCtx(ctx, "", uint16(port), "TCP")
}
