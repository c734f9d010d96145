//go:build linux || freebsd || openbsd || netbsd || dragonfly

package mpris

import (
	"fmt"

	"github.com/godbus/dbus/v5"
)

// sessionBus opens a private connection to the session bus.
func sessionBus() (*dbus.Conn, error) {
	c, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, fmt.Errorf("mpris: connect to the session bus: %w", err)
	}
	return c, nil
}
