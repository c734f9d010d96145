//go:build linux || freebsd || openbsd || netbsd || dragonfly

package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/godbus/dbus/v5"
)

// statusNotifierWatcher is the bus name of the desktop's tray host
// (StatusNotifierItem protocol), which Fyne's tray registers with.
const statusNotifierWatcher = "org.kde.StatusNotifierWatcher"

// sessionBusKnown reports whether a session bus address can be found
// without autolaunching one: D-Bus libraries would otherwise start a
// dbus-daemon of their own for a process that has none (an X session
// without a bus, Xvfb in tests), which outlives furudesk.
func sessionBusKnown() bool {
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return true
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		if fi, err := os.Stat(filepath.Join(d, "bus")); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return true
		}
	}
	return false
}

// trayHost reports whether the desktop shows tray icons now: a
// StatusNotifierWatcher owns its name on the session bus.
func trayHost() bool {
	if !sessionBusKnown() {
		return false
	}
	c, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return false
	}
	defer c.Close()
	if c.Auth(nil) != nil || c.Hello() != nil {
		return false
	}
	// Asked on the UI goroutine when the window closes: bounded.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var has bool
	if err := c.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, statusNotifierWatcher).Store(&has); err != nil {
		return false
	}
	return has
}
