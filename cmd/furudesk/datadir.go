package main

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// defaultDataDir is the platform's per-user data directory for furudesk:
// $XDG_DATA_HOME/furudesk (~/.local/share/furudesk) on Linux and the BSDs,
// ~/Library/Application Support/furudesk on macOS, %LOCALAPPDATA%\furudesk
// on Windows.
func defaultDataDir() (string, error) {
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "furudesk"), nil
		}
		d, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "furudesk"), nil
	case "darwin", "ios":
		d, err := os.UserConfigDir() // ~/Library/Application Support
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "furudesk"), nil
	default:
		if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
			return filepath.Join(d, "furudesk"), nil
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		if home == "" {
			return "", errors.New("no home directory: pass --data-dir")
		}
		return filepath.Join(home, ".local", "share", "furudesk"), nil
	}
}
