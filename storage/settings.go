package storage

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/furudesk/furudesk/engine"
)

// Limits on settings.
const (
	MaxSettingKeyBytes   = 128
	MaxSettingValueBytes = 64 << 10
	MaxLibraryFolders    = 64
	MaxPathBytes         = 4096
)

// playbackKey is the settings key of the engine.Config JSON object.
const playbackKey = "playback"

// Setting returns the value stored under key and whether it exists. The
// key "playback" is reserved for PlaybackConfig.
func (s *Store) Setting(key string) (value string, ok bool, err error) {
	if err := checkSettingKey(key); err != nil {
		return "", false, err
	}
	return s.setting(key)
}

func (s *Store) setting(key string) (string, bool, error) {
	var v string
	err := s.db.QueryRow(`SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("storage: read setting %q: %w", key, err)
	}
	return v, true, nil
}

// SetSetting stores value under key (theme, close-to-tray, passive flag and
// the like). Use SetPlaybackConfig for the playback config.
func (s *Store) SetSetting(key, value string) error {
	if err := checkSettingKey(key); err != nil {
		return err
	}
	if len(value) > MaxSettingValueBytes {
		return fmt.Errorf("%w: setting %q is %d bytes, want at most %d", ErrInvalid, key, len(value), MaxSettingValueBytes)
	}
	return s.putSetting(key, value)
}

// DeleteSetting removes key; a missing key is not an error.
func (s *Store) DeleteSetting(key string) error {
	if err := checkSettingKey(key); err != nil {
		return err
	}
	return s.write(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM settings WHERE key = ?`, key); err != nil {
			return fmt.Errorf("storage: delete setting %q: %w", key, err)
		}
		return nil
	})
}

func (s *Store) putSetting(key, value string) error {
	return s.write(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO settings (key, value) VALUES (?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
			return fmt.Errorf("storage: write setting %q: %w", key, err)
		}
		return nil
	})
}

func checkSettingKey(key string) error {
	if key == "" || len(key) > MaxSettingKeyBytes {
		return fmt.Errorf("%w: setting key %q: want 1..%d bytes", ErrInvalid, key, MaxSettingKeyBytes)
	}
	if key == playbackKey {
		return fmt.Errorf("%w: setting key %q is reserved, use PlaybackConfig", ErrInvalid, key)
	}
	return nil
}

// PlaybackConfig returns the stored playback config, or
// engine.DefaultConfig() when none was set. A stored value that no longer
// parses (a newer build tightened a bound) is returned as an error naming
// the field; the caller decides whether to fall back.
func (s *Store) PlaybackConfig() (engine.Config, error) {
	v, ok, err := s.setting(playbackKey)
	if err != nil {
		return engine.Config{}, err
	}
	if !ok {
		return engine.DefaultConfig(), nil
	}
	c, err := engine.ParseConfig([]byte(v))
	if err != nil {
		return engine.Config{}, fmt.Errorf("storage: stored playback config: %w", err)
	}
	return c, nil
}

// SetPlaybackConfigJSON parses data strictly with engine.ParseConfig
// (absent fields take defaults; unknown fields, wrong types, trailing data
// and out-of-bounds values are errors naming the field) and stores the full
// canonical JSON of the result. On error nothing is changed and the
// previous value stays.
func (s *Store) SetPlaybackConfigJSON(data []byte) (engine.Config, error) {
	if len(data) > MaxSettingValueBytes {
		return engine.Config{}, fmt.Errorf("%w: playback config is %d bytes, want at most %d", engine.ErrConfig, len(data), MaxSettingValueBytes)
	}
	c, err := engine.ParseConfig(data)
	if err != nil {
		return engine.Config{}, err
	}
	return c, s.SetPlaybackConfig(c)
}

// SetPlaybackConfig validates c and stores it as its JSON object. On error
// nothing is changed.
func (s *Store) SetPlaybackConfig(c engine.Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("storage: encode playback config: %w", err)
	}
	return s.putSetting(playbackKey, string(b))
}

// LibraryFolders returns the music folders in the user's order.
func (s *Store) LibraryFolders() ([]string, error) {
	rows, err := s.db.Query(`SELECT path FROM library_folders ORDER BY position`)
	if err != nil {
		return nil, fmt.Errorf("storage: read library folders: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("storage: read library folders: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read library folders: %w", err)
	}
	return out, nil
}

// SetLibraryFolders replaces the music folders. Duplicates and empty paths
// are errors. Scan state of removed folders is dropped; their tracks are
// the library's to delete.
func (s *Store) SetLibraryFolders(folders []string) error {
	if len(folders) > MaxLibraryFolders {
		return fmt.Errorf("%w: %d library folders, want at most %d", ErrInvalid, len(folders), MaxLibraryFolders)
	}
	seen := make(map[string]bool, len(folders))
	for _, f := range folders {
		if f == "" || len(f) > MaxPathBytes {
			return fmt.Errorf("%w: library folder %q", ErrInvalid, f)
		}
		if seen[f] {
			return fmt.Errorf("%w: library folder %q listed twice", ErrInvalid, f)
		}
		seen[f] = true
	}
	return s.write(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM library_folders`); err != nil {
			return fmt.Errorf("storage: write library folders: %w", err)
		}
		for i, f := range folders {
			if _, err := tx.Exec(`INSERT INTO library_folders (path, position) VALUES (?, ?)`, f, i); err != nil {
				return fmt.Errorf("storage: write library folders: %w", err)
			}
		}
		if _, err := tx.Exec(`DELETE FROM scan_state WHERE folder NOT IN (SELECT path FROM library_folders)`); err != nil {
			return fmt.Errorf("storage: write library folders: %w", err)
		}
		return nil
	})
}
