package app

import (
	"errors"
	"strings"

	"github.com/furudesk/furudesk/portmap"
)

// Reaching this device from outside its network (devicesync's
// outside.go): the addresses the user forwarded on the router by hand
// (Settings, `ctl public-addr`, --public-addr), and mapping the port on
// the router by UPnP-IGD or NAT-PMP when the user turns it on (`ctl
// portmap`, --portmap; off by default). Both are kept for later launches.

const (
	// settingPublic holds the public addresses, space-separated.
	settingPublic = "devicesync.public_addrs"
	// settingPortMap holds "on" or "off" (absent: off).
	settingPortMap = "devicesync.portmap"
)

// Outside is what a Transport implements when it can be reached from
// outside its network (*devicesync.Node).
type Outside interface {
	SetPublic(addrs []string) error
	Public() []string
	Observed() []string
}

// PortMapper keeps this device's port mapped on the router
// (*portmap.Mapper).
type PortMapper interface {
	SetOn(on bool)
	Status() portmap.Status
	// OnChange makes f run after each change of Status.
	OnChange(f func())
}

// Errors of the outside settings.
var (
	ErrNoOutside = errors.New("app: this device cannot be reached from outside its network")
	ErrNoPortMap = errors.New("app: this device cannot map its port on the router")
)

// ReachStatus is how this device is reached from outside its network.
type ReachStatus struct {
	// Public are the user-set addresses (a forwarded port).
	Public []string `json:"public,omitempty"`
	// Observed are the addresses members saw this device come from,
	// with its listening port: candidates, reachable only if forwarded.
	Observed []string `json:"observed,omitempty"`
	// PortMap says what mapping the port on the router did, and what the
	// router answered.
	PortMap portmap.Status `json:"portmap"`
}

// PublicSetting reads the stored public addresses; set is false when the
// user never set them.
func PublicSetting(s Store) (addrs []string, set bool) {
	v, ok, err := s.Setting(settingPublic)
	if err != nil || !ok {
		return nil, false
	}
	return strings.Fields(v), true
}

// PortMapSetting reads whether the user turned port mapping on.
func PortMapSetting(s Store) bool {
	v, ok, err := s.Setting(settingPortMap)
	return err == nil && ok && v == "on"
}

// SetPublicAddrs replaces the addresses this device is reachable at from
// outside (a port forwarded on the router; none: nil), now and for later
// launches.
func (a *App) SetPublicAddrs(addrs []string) error {
	o, ok := a.tr.(Outside)
	if !ok {
		return ErrNoOutside
	}
	if err := o.SetPublic(addrs); err != nil {
		return err
	}
	defer a.post(refreshIntent{}) // Status.Reach
	return SavePublicSetting(a.store, addrs)
}

// SetPortMap turns mapping the port on the router on or off, now and for
// later launches.
func (a *App) SetPortMap(on bool) error {
	if a.pm == nil {
		return ErrNoPortMap
	}
	if err := SavePortMapSetting(a.store, on); err != nil {
		return err
	}
	a.pm.SetOn(on)
	a.post(refreshIntent{}) // Status.Reach
	return nil
}

// Reach reports how this device is reached from outside its network.
func (a *App) Reach() ReachStatus {
	var r ReachStatus
	if o, ok := a.tr.(Outside); ok {
		r.Public, r.Observed = o.Public(), o.Observed()
	}
	if a.pm != nil {
		r.PortMap = a.pm.Status()
	}
	return r
}

// SavePublicSetting stores the public addresses given at launch
// (--public-addr), as SetPublicAddrs does.
func SavePublicSetting(s Store, addrs []string) error {
	return s.SetSetting(settingPublic, strings.Join(addrs, " "))
}

// SavePortMapSetting stores the choice given at launch (--portmap).
func SavePortMapSetting(s Store, on bool) error {
	v := "off"
	if on {
		v = "on"
	}
	return s.SetSetting(settingPortMap, v)
}
