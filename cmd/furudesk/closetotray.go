package main

import (
	"crypto/sha256"
	"encoding/hex"

	"fyne.io/fyne/v2"
)

// dataDirKey names a data dir in Fyne's preferences, which are per user
// and app id: what the window keeps for one data dir (close to tray, its
// place, the page and the lists' sorts) is kept apart from another's.
func dataDirKey(dataDir string) string {
	h := sha256.Sum256([]byte(dataDir))
	return hex.EncodeToString(h[:8])
}

// closeToTray is the "close to tray" setting of one data dir: whether
// closing the window keeps furudesk playing with its tray icon. It lives in
// Fyne's preferences (per user, not synced between devices), keyed by the
// data dir so that instances on different data dirs keep their own.
type closeToTray struct {
	prefs fyne.Preferences
	key   string
	def   bool // when the user never chose: on when the desktop shows a tray
}

func newCloseToTray(prefs fyne.Preferences, dataDir string, def bool) closeToTray {
	return closeToTray{prefs: prefs, key: "close_to_tray." + dataDirKey(dataDir), def: def}
}

// on reports the setting.
func (c closeToTray) on() bool { return c.prefs.BoolWithFallback(c.key, c.def) }

// set stores the setting.
func (c closeToTray) set(on bool) { c.prefs.SetBool(c.key, on) }
