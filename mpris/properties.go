package mpris

import (
	"fmt"

	"github.com/godbus/dbus/v5"

	"github.com/furudesk/furudesk/library"
)

// Identity and DesktopEntry of the root interface.
const (
	Identity     = "furudesk"
	DesktopEntry = "furudesk"
)

// propsObj is org.freedesktop.DBus.Properties, written by hand because
// Position is computed on every read and every writable property is a call
// on the app whose published status, not the written value, is the truth.
type propsObj struct{ s *Server }

func (o propsObj) Get(iface, name string) (dbus.Variant, *dbus.Error) {
	all, err := o.GetAll(iface)
	if err != nil {
		return dbus.Variant{}, err
	}
	v, ok := all[name]
	if !ok {
		return dbus.Variant{}, dbusError(errUnknownProperty, fmt.Sprintf("%s has no property %q", iface, name))
	}
	return v, nil
}

func (o propsObj) GetAll(iface string) (map[string]dbus.Variant, *dbus.Error) {
	switch iface {
	case ifaceRoot:
		return o.s.rootValues(), nil
	case ifacePlayer:
		return o.s.playerValues(), nil
	}
	return nil, dbusError(errUnknownIface, fmt.Sprintf("no interface %q here", iface))
}

// Set turns a write of LoopStatus, Shuffle, Volume or Rate into an app
// call. PropertiesChanged follows when the app publishes the new status.
func (o propsObj) Set(iface, name string, value dbus.Variant) *dbus.Error {
	all, derr := o.GetAll(iface)
	if derr != nil {
		return derr
	}
	if _, ok := all[name]; !ok {
		return dbusError(errUnknownProperty, fmt.Sprintf("%s has no property %q", iface, name))
	}
	if iface != ifacePlayer {
		return dbusError(errReadOnly, name+" is read-only")
	}
	p := o.s.p
	switch name {
	case "LoopStatus":
		loop, ok := value.Value().(string)
		mode, known := repeatMode(loop)
		if !ok || !known {
			return dbusError(errInvalidArgs, fmt.Sprintf("LoopStatus must be None, Track or Playlist, not %v", value))
		}
		return failed(p.SetRepeat(mode))
	case "Shuffle":
		on, ok := value.Value().(bool)
		if !ok {
			return dbusError(errInvalidArgs, fmt.Sprintf("Shuffle must be a boolean, not %v", value))
		}
		return failed(p.SetShuffle(on))
	case "Volume":
		f, ok := value.Value().(float64)
		pct, valid := volumePercent(f)
		if !ok || !valid {
			return dbusError(errInvalidArgs, fmt.Sprintf("Volume must be a number from 0 to 1, not %v", value))
		}
		return failed(p.SetVolume(pct))
	case "Rate":
		f, ok := value.Value().(float64)
		if !ok {
			return dbusError(errInvalidArgs, fmt.Sprintf("Rate must be a number, not %v", value))
		}
		switch f {
		case 0: // the specification: like Pause
			return playerObj(o).Pause()
		case 1:
			return nil
		}
		return dbusError(errInvalidArgs, fmt.Sprintf("furudesk plays at rate 1 only, not %v", f))
	}
	return dbusError(errReadOnly, name+" is read-only")
}

// rootValues are the properties of org.mpris.MediaPlayer2.
func (s *Server) rootValues() map[string]dbus.Variant {
	return map[string]dbus.Variant{
		"CanQuit":             dbus.MakeVariant(s.opts.Quit != nil),
		"CanRaise":            dbus.MakeVariant(s.opts.Raise != nil),
		"HasTrackList":        dbus.MakeVariant(false),
		"Identity":            dbus.MakeVariant(Identity),
		"DesktopEntry":        dbus.MakeVariant(DesktopEntry),
		"SupportedUriSchemes": dbus.MakeVariant(s.uriSchemes()),
		"SupportedMimeTypes":  dbus.MakeVariant(s.mimeTypes()),
	}
}

// playerValues are the properties of org.mpris.MediaPlayer2.Player now.
func (s *Server) playerValues() map[string]dbus.Variant {
	v, p := s.snapshot()
	all := p.values()
	all["Position"] = dbus.MakeVariant(v.positionUS(s.now()))
	all["Rate"] = dbus.MakeVariant(1.0)
	all["MinimumRate"] = dbus.MakeVariant(1.0)
	all["MaximumRate"] = dbus.MakeVariant(1.0)
	all["CanControl"] = dbus.MakeVariant(true)
	return all
}

// uriSchemes and mimeTypes are what OpenUri opens: files of the formats
// the library plays, when the player can open files at all.
func (s *Server) uriSchemes() []string {
	if _, ok := s.p.(Opener); !ok {
		return []string{}
	}
	return []string{"file"}
}

func (s *Server) mimeTypes() []string {
	if _, ok := s.p.(Opener); !ok {
		return []string{}
	}
	return library.MIMETypes()
}
