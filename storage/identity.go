package storage

import (
	"crypto/ed25519"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Identity errors.
var (
	ErrNoIdentity     = errors.New("storage: no device identity yet")
	ErrIdentityExists = errors.New("storage: device identity already exists")
)

// Limits on identity and device text fields.
const (
	MaxIDBytes   = 128 // device ids, group ids, invite ids, op origins
	MaxNameBytes = 256 // device names
)

// Identity is this installation's device identity, created once.
type Identity struct {
	PrivateKey ed25519.PrivateKey
	DeviceID   string
	GroupID    string
	DeviceName string
	CreatedAt  time.Time
}

func (id Identity) validate() error {
	if len(id.PrivateKey) != ed25519.PrivateKeySize {
		return fmt.Errorf("%w: private key is %d bytes, want %d", ErrInvalid, len(id.PrivateKey), ed25519.PrivateKeySize)
	}
	if err := checkID("device id", id.DeviceID); err != nil {
		return err
	}
	if err := checkID("group id", id.GroupID); err != nil {
		return err
	}
	return checkName(id.DeviceName)
}

func checkID(what, v string) error {
	if v == "" || len(v) > MaxIDBytes {
		return fmt.Errorf("%w: %s %q: want 1..%d bytes", ErrInvalid, what, v, MaxIDBytes)
	}
	return nil
}

func checkName(v string) error {
	if len(v) > MaxNameBytes {
		return fmt.Errorf("%w: device name is %d bytes, want at most %d", ErrInvalid, len(v), MaxNameBytes)
	}
	return nil
}

// Identity returns the stored device identity, or ErrNoIdentity before
// CreateIdentity.
func (s *Store) Identity() (Identity, error) {
	var id Identity
	var key []byte
	var created int64
	err := s.db.QueryRow(`SELECT private_key, device_id, group_id, device_name, created_at_ms FROM identity WHERE id = 1`).
		Scan(&key, &id.DeviceID, &id.GroupID, &id.DeviceName, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Identity{}, ErrNoIdentity
	}
	if err != nil {
		return Identity{}, fmt.Errorf("storage: read identity: %w", err)
	}
	id.PrivateKey = ed25519.PrivateKey(key)
	id.CreatedAt = time.UnixMilli(created)
	return id, nil
}

// CreateIdentity stores the identity of a new installation. The caller
// generates the key (ed25519.GenerateKey) and derives DeviceID from it.
// It fails with ErrIdentityExists when one is stored: an identity is never
// replaced, only its group and name change.
func (s *Store) CreateIdentity(id Identity) error {
	if err := id.validate(); err != nil {
		return err
	}
	if id.CreatedAt.IsZero() {
		id.CreatedAt = time.Now()
	}
	return s.write(func(tx *sql.Tx) error {
		res, err := tx.Exec(`INSERT INTO identity (id, private_key, device_id, group_id, device_name, created_at_ms)
VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			[]byte(id.PrivateKey), id.DeviceID, id.GroupID, id.DeviceName, id.CreatedAt.UnixMilli())
		if err != nil {
			return fmt.Errorf("storage: create identity: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("storage: create identity: %w", err)
		} else if n == 0 {
			return ErrIdentityExists
		}
		return nil
	})
}

// SetGroup records that this device now belongs to group (after pairing
// into another group). The checkpoint of the old group stays but is never
// restored for the new one.
func (s *Store) SetGroup(group string) error {
	if err := checkID("group id", group); err != nil {
		return err
	}
	return s.updateIdentity(`UPDATE identity SET group_id = ? WHERE id = 1`, group)
}

// SetDeviceName changes the user-visible name of this device.
func (s *Store) SetDeviceName(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	return s.updateIdentity(`UPDATE identity SET device_name = ? WHERE id = 1`, name)
}

func (s *Store) updateIdentity(query string, arg string) error {
	return s.write(func(tx *sql.Tx) error {
		res, err := tx.Exec(query, arg)
		if err != nil {
			return fmt.Errorf("storage: update identity: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("storage: update identity: %w", err)
		} else if n == 0 {
			return ErrNoIdentity
		}
		return nil
	})
}
