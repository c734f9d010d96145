package storage

import (
	"crypto/ed25519"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Limits on trusted devices.
const (
	MaxDevices      = 256
	MaxAddresses    = 16
	MaxAddressBytes = 256
)

// ErrTooManyDevices is returned when a new device would exceed MaxDevices.
var ErrTooManyDevices = errors.New("storage: too many devices in the group")

// Device is a member (or former member) of the trusted group as the
// operation log last described it.
type Device struct {
	DeviceID  string            `json:"device_id"`
	Name      string            `json:"name"`
	PublicKey ed25519.PublicKey `json:"public_key"`
	Addresses []string          `json:"addresses"`
	Trusted   bool              `json:"trusted"`
	Revoked   bool              `json:"revoked"`
	// RevokedCutoffSeq is the highest seq of this device's ops still
	// accepted after its revocation (target_max_seq_seen).
	RevokedCutoffSeq uint64 `json:"revoked_cutoff_seq"`
	// UpdatedHLCms is the hlc of the op that last changed this record
	// (last-writer-wins is the caller's rule; storage keeps what it is given).
	UpdatedHLCms int64 `json:"updated_hlc_ms"`
}

func (d Device) validate() error {
	if err := checkID("device id", d.DeviceID); err != nil {
		return err
	}
	if err := checkName(d.Name); err != nil {
		return err
	}
	if len(d.PublicKey) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: device %q: public key is %d bytes, want %d", ErrInvalid, d.DeviceID, len(d.PublicKey), ed25519.PublicKeySize)
	}
	if len(d.Addresses) > MaxAddresses {
		return fmt.Errorf("%w: device %q: %d addresses, want at most %d", ErrInvalid, d.DeviceID, len(d.Addresses), MaxAddresses)
	}
	for _, a := range d.Addresses {
		if a == "" || len(a) > MaxAddressBytes {
			return fmt.Errorf("%w: device %q: address %q", ErrInvalid, d.DeviceID, a)
		}
	}
	if d.RevokedCutoffSeq > math.MaxInt64 {
		return fmt.Errorf("%w: device %q: revoked cutoff %d", ErrInvalid, d.DeviceID, d.RevokedCutoffSeq)
	}
	return nil
}

func encodeAddresses(a []string) (string, error) {
	if a == nil {
		a = []string{}
	}
	b, err := json.Marshal(a)
	return string(b), err
}

func decodeAddresses(s string) ([]string, error) {
	var a []string
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return nil, fmt.Errorf("addresses: %w", err)
	}
	return a, nil
}

func putDevice(tx *sql.Tx, d Device) error {
	addrs, err := encodeAddresses(d.Addresses)
	if err != nil {
		return fmt.Errorf("storage: encode addresses: %w", err)
	}
	var exists, count int
	if err := tx.QueryRow(`SELECT count(*) FILTER (WHERE device_id = ?), count(*) FROM devices`, d.DeviceID).Scan(&exists, &count); err != nil {
		return fmt.Errorf("storage: write device: %w", err)
	}
	if exists == 0 && count >= MaxDevices {
		return fmt.Errorf("%w: %d devices, adding %q", ErrTooManyDevices, count, d.DeviceID)
	}
	_, err = tx.Exec(`INSERT INTO devices (device_id, name, public_key, addresses, trusted, revoked, revoked_cutoff_seq, updated_hlc_ms)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (device_id) DO UPDATE SET name = excluded.name, public_key = excluded.public_key, addresses = excluded.addresses,
	trusted = excluded.trusted, revoked = excluded.revoked, revoked_cutoff_seq = excluded.revoked_cutoff_seq,
	updated_hlc_ms = excluded.updated_hlc_ms`,
		d.DeviceID, d.Name, []byte(d.PublicKey), addrs, d.Trusted, d.Revoked, int64(d.RevokedCutoffSeq), d.UpdatedHLCms)
	if err != nil {
		return fmt.Errorf("storage: write device %q: %w", d.DeviceID, err)
	}
	return nil
}

// PutDevice inserts or replaces one device record. Use Commit's Devices
// when the change comes with ops.
func (s *Store) PutDevice(d Device) error {
	if err := d.validate(); err != nil {
		return err
	}
	return s.write(func(tx *sql.Tx) error { return putDevice(tx, d) })
}

// DeleteDevice forgets a device record (e.g. when leaving a group); a
// missing one is not an error.
func (s *Store) DeleteDevice(id string) error {
	return s.write(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM devices WHERE device_id = ?`, id); err != nil {
			return fmt.Errorf("storage: delete device %q: %w", id, err)
		}
		return nil
	})
}

const deviceColumns = `device_id, name, public_key, addresses, trusted, revoked, revoked_cutoff_seq, updated_hlc_ms`

func scanDevice(sc interface{ Scan(...any) error }) (Device, error) {
	var d Device
	var key []byte
	var addrs string
	var cutoff int64
	if err := sc.Scan(&d.DeviceID, &d.Name, &key, &addrs, &d.Trusted, &d.Revoked, &cutoff, &d.UpdatedHLCms); err != nil {
		return Device{}, err
	}
	d.PublicKey = ed25519.PublicKey(key)
	d.RevokedCutoffSeq = uint64(cutoff)
	a, err := decodeAddresses(addrs)
	if err != nil {
		return Device{}, fmt.Errorf("device %q: %w", d.DeviceID, err)
	}
	d.Addresses = a
	return d, nil
}

// Device returns one device record or ErrNotFound.
func (s *Store) Device(id string) (Device, error) {
	d, err := scanDevice(s.db.QueryRow(`SELECT `+deviceColumns+` FROM devices WHERE device_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Device{}, fmt.Errorf("%w: device %q", ErrNotFound, id)
	}
	if err != nil {
		return Device{}, fmt.Errorf("storage: read device: %w", err)
	}
	return d, nil
}

// Devices returns every device record ordered by device id.
func (s *Store) Devices() ([]Device, error) {
	rows, err := s.db.Query(`SELECT ` + deviceColumns + ` FROM devices ORDER BY device_id`)
	if err != nil {
		return nil, fmt.Errorf("storage: read devices: %w", err)
	}
	defer rows.Close()
	var out []Device
	for rows.Next() {
		d, err := scanDevice(rows)
		if err != nil {
			return nil, fmt.Errorf("storage: read devices: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read devices: %w", err)
	}
	return out, nil
}
