//go:build !(linux || freebsd || openbsd || netbsd || dragonfly)

package main

// sessionBusKnown: there is no D-Bus session bus on this platform (MPRIS
// is skipped).
func sessionBusKnown() bool { return false }

// trayHost: macOS (menu bar extras) and Windows (notification area) always
// show tray icons.
func trayHost() bool { return true }
