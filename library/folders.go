package library

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// DefaultFolder returns the platform's music folder: on Linux and other
// Unixes XDG_MUSIC_DIR from $XDG_CONFIG_HOME/user-dirs.dirs (else ~/Music),
// ~/Music on macOS, %USERPROFILE%\Music on Windows (the default location of
// the Music known folder; a relocated one is not followed). The folder may
// not exist yet.
func DefaultFolder() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.Join(errors.New("library: no home folder"), err)
	}
	var userDirs string
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		cfg := os.Getenv("XDG_CONFIG_HOME")
		if cfg == "" {
			cfg = filepath.Join(home, ".config")
		}
		if b, err := os.ReadFile(filepath.Join(cfg, "user-dirs.dirs")); err == nil {
			userDirs = string(b)
		}
	}
	return musicFolder(runtime.GOOS, home, userDirs), nil
}

// musicFolder is DefaultFolder without the environment.
func musicFolder(goos, home, userDirs string) string {
	fallback := filepath.Join(home, "Music")
	if goos == "darwin" || goos == "windows" {
		return fallback
	}
	sc := bufio.NewScanner(strings.NewReader(userDirs))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		v, ok := strings.CutPrefix(line, "XDG_MUSIC_DIR=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"`)
		switch {
		case v == "$HOME" || v == "$HOME/":
			return fallback // "disabled" per xdg-user-dirs: fall back
		case strings.HasPrefix(v, "$HOME/"):
			return filepath.Join(home, v[len("$HOME/"):])
		case strings.HasPrefix(v, "/"):
			return filepath.Clean(v)
		}
	}
	return fallback
}
