package main

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// "Close to tray" is kept per data dir, defaults to whether the desktop has
// a tray, and the user's choice sticks.
func TestCloseToTrayPerDataDir(t *testing.T) {
	prefs := test.NewTempApp(t).Preferences()
	a := newCloseToTray(prefs, "/home/u/.local/share/furudesk", true)
	b := newCloseToTray(prefs, "/tmp/other", true)
	noTray := newCloseToTray(prefs, "/tmp/third", false)
	if !a.on() || !b.on() || noTray.on() {
		t.Fatalf("defaults: %v %v %v; want on, on, off (off without a tray)", a.on(), b.on(), noTray.on())
	}
	a.set(false)
	if a.on() {
		t.Error("turning it off did not stick")
	}
	if !b.on() {
		t.Error("turning it off for one data dir changed another")
	}
	if again := newCloseToTray(prefs, "/home/u/.local/share/furudesk", true); again.on() {
		t.Error("the choice is lost when the setting is read again")
	}
}
