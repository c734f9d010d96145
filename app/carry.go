package app

import "errors"

// Carrying other devices' traffic (Settings › Carry other devices'
// traffic): this device connects members that cannot reach each other
// directly (devicesync's carrier). On by default for a box (--headless),
// off on a desktop; the user's choice is kept.

// settingCarry holds the user's choice: "on" or "off" (absent: the
// default of the kind of device).
const settingCarry = "devicesync.carry"

// Carrier is what a Transport implements when it can carry others'
// traffic (*devicesync.Node).
type Carrier interface {
	SetCarry(on bool)
	Carries() bool
}

// ErrNoCarrier says the transport cannot carry others' traffic.
var ErrNoCarrier = errors.New("app: this device cannot carry other devices' traffic")

// CarrySetting reads the user's stored choice; set is false when the user
// never chose (the caller then uses the default: on for a box).
func CarrySetting(s Store) (on, set bool) {
	v, ok, err := s.Setting(settingCarry)
	if err != nil || !ok || (v != "on" && v != "off") {
		return false, false
	}
	return v == "on", true
}

// Carry reports whether this device carries other devices' traffic now.
func (a *App) Carry() bool {
	c, ok := a.tr.(Carrier)
	return ok && c.Carries()
}

// SetCarry turns carrying other devices' traffic on or off, now and for
// later launches.
func (a *App) SetCarry(on bool) error {
	c, ok := a.tr.(Carrier)
	if !ok {
		return ErrNoCarrier
	}
	v := "off"
	if on {
		v = "on"
	}
	if err := a.store.SetSetting(settingCarry, v); err != nil {
		return err
	}
	c.SetCarry(on)
	return nil
}
