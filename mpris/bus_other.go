//go:build !(linux || freebsd || openbsd || netbsd || dragonfly)

package mpris

import "github.com/godbus/dbus/v5"

// sessionBus: macOS and Windows have no session bus for MPRIS clients.
func sessionBus() (*dbus.Conn, error) { return nil, ErrUnsupported }
