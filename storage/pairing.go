package storage

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Limits on pairing state.
const (
	MaxOpenInvites         = 16
	MaxPendingPairRequests = 16
	MaxInviteSecretBytes   = 256
	MaxInviteHashBytes     = 64  // a caller-supplied secret hash (SaveInvite)
	MaxStoredInvites       = 256 // used or open, not yet expired
)

// Pairing errors.
var (
	ErrInviteUnknown       = errors.New("storage: unknown invite")
	ErrInviteExpired       = errors.New("storage: invite expired")
	ErrInviteUsed          = errors.New("storage: invite already used")
	ErrInviteSecret        = errors.New("storage: wrong invite secret")
	ErrTooManyInvites      = errors.New("storage: too many open invites")
	ErrTooManyPairRequests = errors.New("storage: too many pending pairing requests")
)

// Invite is a stored pairing invite. Its secret is never stored, only a
// SHA-256 hash of it, so it cannot be read back.
type Invite struct {
	ID        string
	CreatedAt time.Time
	ExpiresAt time.Time
	Used      bool
}

func hashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// CreateInvite stores invite id with a hash of secret, valid until
// expires. At most MaxOpenInvites unused, unexpired invites exist at once
// (ErrTooManyInvites).
func (s *Store) CreateInvite(id, secret string, now, expires time.Time) error {
	if err := checkID("invite id", id); err != nil {
		return err
	}
	if secret == "" || len(secret) > MaxInviteSecretBytes {
		return fmt.Errorf("%w: invite secret of %d bytes, want 1..%d", ErrInvalid, len(secret), MaxInviteSecretBytes)
	}
	if !expires.After(now) {
		return fmt.Errorf("%w: invite expires at %v, not after %v", ErrInvalid, expires, now)
	}
	return s.write(func(tx *sql.Tx) error {
		var open int
		if err := tx.QueryRow(`SELECT count(*) FROM pair_invites WHERE used = 0 AND expires_at_ms > ?`, now.UnixMilli()).Scan(&open); err != nil {
			return fmt.Errorf("storage: create invite: %w", err)
		}
		if open >= MaxOpenInvites {
			return fmt.Errorf("%w: %d open", ErrTooManyInvites, open)
		}
		if _, err := tx.Exec(`INSERT INTO pair_invites (id, secret_hash, created_at_ms, expires_at_ms, used) VALUES (?, ?, ?, ?, 0)`,
			id, hashSecret(secret), now.UnixMilli(), expires.UnixMilli()); err != nil {
			return fmt.Errorf("storage: create invite %q: %w", id, err)
		}
		return nil
	})
}

// RedeemInvite checks secret against invite id at time now and, when it
// matches, marks the invite used in the same transaction: an invite admits
// one device. A wrong secret does not use the invite up.
func (s *Store) RedeemInvite(id, secret string, now time.Time) error {
	return s.write(func(tx *sql.Tx) error {
		var hash []byte
		var expires int64
		var used bool
		err := tx.QueryRow(`SELECT secret_hash, expires_at_ms, used FROM pair_invites WHERE id = ?`, id).Scan(&hash, &expires, &used)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: %q", ErrInviteUnknown, id)
		}
		if err != nil {
			return fmt.Errorf("storage: read invite: %w", err)
		}
		if subtle.ConstantTimeCompare(hash, hashSecret(secret)) != 1 {
			return fmt.Errorf("%w: invite %q", ErrInviteSecret, id)
		}
		if used {
			return fmt.Errorf("%w: %q", ErrInviteUsed, id)
		}
		if now.UnixMilli() >= expires {
			return fmt.Errorf("%w: %q at %v", ErrInviteExpired, id, time.UnixMilli(expires))
		}
		if _, err := tx.Exec(`UPDATE pair_invites SET used = 1 WHERE id = ?`, id); err != nil {
			return fmt.Errorf("storage: use invite: %w", err)
		}
		return nil
	})
}

// Invites returns the stored invites, oldest first.
func (s *Store) Invites() ([]Invite, error) {
	rows, err := s.db.Query(`SELECT id, created_at_ms, expires_at_ms, used FROM pair_invites ORDER BY created_at_ms, id`)
	if err != nil {
		return nil, fmt.Errorf("storage: read invites: %w", err)
	}
	defer rows.Close()
	var out []Invite
	for rows.Next() {
		var in Invite
		var created, expires int64
		if err := rows.Scan(&in.ID, &created, &expires, &in.Used); err != nil {
			return nil, fmt.Errorf("storage: read invites: %w", err)
		}
		in.CreatedAt, in.ExpiresAt = time.UnixMilli(created), time.UnixMilli(expires)
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read invites: %w", err)
	}
	return out, nil
}

// PruneInvites deletes used and expired invites and returns how many went.
func (s *Store) PruneInvites(now time.Time) (int64, error) {
	var n int64
	err := s.write(func(tx *sql.Tx) error {
		res, err := tx.Exec(`DELETE FROM pair_invites WHERE used = 1 OR expires_at_ms <= ?`, now.UnixMilli())
		if err != nil {
			return fmt.Errorf("storage: prune invites: %w", err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// InviteRecord is an invite whose secret the caller hashed itself (e.g.
// devicesync, which checks the secret on its own). It shares the table of
// CreateInvite's invites; SecretHash is stored as given and never
// interpreted, so RedeemInvite matches it only if it is SHA-256 of the
// secret.
type InviteRecord struct {
	ID         string
	SecretHash []byte
	// CreatedAt is kept from the first save; zero means the save's now.
	CreatedAt time.Time
	ExpiresAt time.Time
	Used      bool
}

// SaveInvite inserts or replaces (same ID) the invite rec at time now.
// Replacing keeps the first CreatedAt. Inserting deletes the other invites
// already expired at now (they admit nobody any more) and is refused with
// ErrTooManyInvites when MaxOpenInvites unused ones are open or
// MaxStoredInvites are stored. Times are kept to the millisecond.
func (s *Store) SaveInvite(rec InviteRecord, now time.Time) error {
	if err := checkID("invite id", rec.ID); err != nil {
		return err
	}
	if len(rec.SecretHash) == 0 || len(rec.SecretHash) > MaxInviteHashBytes {
		return fmt.Errorf("%w: invite %q: secret hash of %d bytes, want 1..%d", ErrInvalid, rec.ID, len(rec.SecretHash), MaxInviteHashBytes)
	}
	if rec.ExpiresAt.IsZero() {
		return fmt.Errorf("%w: invite %q has no expiry", ErrInvalid, rec.ID)
	}
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = now
	}
	return s.write(func(tx *sql.Tx) error {
		var exists, open, stored int
		err := tx.QueryRow(`SELECT count(*) FILTER (WHERE id = ?), count(*) FILTER (WHERE used = 0 AND expires_at_ms > ?), count(*) FROM pair_invites`,
			rec.ID, now.UnixMilli()).Scan(&exists, &open, &stored)
		if err != nil {
			return fmt.Errorf("storage: save invite: %w", err)
		}
		if exists == 0 {
			res, err := tx.Exec(`DELETE FROM pair_invites WHERE expires_at_ms <= ?`, now.UnixMilli())
			if err != nil {
				return fmt.Errorf("storage: save invite: %w", err)
			}
			gone, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("storage: save invite: %w", err)
			}
			stored -= int(gone)
			if open >= MaxOpenInvites || stored >= MaxStoredInvites {
				return fmt.Errorf("%w: %d open, %d stored", ErrTooManyInvites, open, stored)
			}
		}
		_, err = tx.Exec(`INSERT INTO pair_invites (id, secret_hash, created_at_ms, expires_at_ms, used) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET secret_hash = excluded.secret_hash, expires_at_ms = excluded.expires_at_ms, used = excluded.used`,
			rec.ID, rec.SecretHash, rec.CreatedAt.UnixMilli(), rec.ExpiresAt.UnixMilli(), rec.Used)
		if err != nil {
			return fmt.Errorf("storage: save invite %q: %w", rec.ID, err)
		}
		return nil
	})
}

// LoadInvite returns the invite id with its secret hash, or
// ErrInviteUnknown.
func (s *Store) LoadInvite(id string) (InviteRecord, error) {
	rec := InviteRecord{ID: id}
	var created, expires int64
	err := s.db.QueryRow(`SELECT secret_hash, created_at_ms, expires_at_ms, used FROM pair_invites WHERE id = ?`, id).
		Scan(&rec.SecretHash, &created, &expires, &rec.Used)
	if errors.Is(err, sql.ErrNoRows) {
		return InviteRecord{}, fmt.Errorf("%w: %q", ErrInviteUnknown, id)
	}
	if err != nil {
		return InviteRecord{}, fmt.Errorf("storage: read invite: %w", err)
	}
	rec.CreatedAt, rec.ExpiresAt = time.UnixMilli(created), time.UnixMilli(expires)
	return rec, nil
}

// PairRequest is a pairing request waiting for the user's decision.
type PairRequest struct {
	DeviceID   string
	Name       string
	PublicKey  ed25519.PublicKey
	Addresses  []string
	GroupID    string // the requester's current group
	InviteID   string
	ReceivedAt time.Time
}

// AddPairRequest stores or refreshes (same device id) a pending request.
// At most MaxPendingPairRequests wait at once (ErrTooManyPairRequests).
func (s *Store) AddPairRequest(r PairRequest) error {
	d := Device{DeviceID: r.DeviceID, Name: r.Name, PublicKey: r.PublicKey, Addresses: r.Addresses}
	if err := d.validate(); err != nil {
		return err
	}
	if err := checkID("group id", r.GroupID); err != nil {
		return err
	}
	if err := checkID("invite id", r.InviteID); err != nil {
		return err
	}
	addrs, err := encodeAddresses(r.Addresses)
	if err != nil {
		return fmt.Errorf("storage: encode addresses: %w", err)
	}
	return s.write(func(tx *sql.Tx) error {
		var exists, count int
		if err := tx.QueryRow(`SELECT count(*) FILTER (WHERE device_id = ?), count(*) FROM pair_requests`, r.DeviceID).Scan(&exists, &count); err != nil {
			return fmt.Errorf("storage: add pairing request: %w", err)
		}
		if exists == 0 && count >= MaxPendingPairRequests {
			return fmt.Errorf("%w: %d pending", ErrTooManyPairRequests, count)
		}
		_, err := tx.Exec(`INSERT INTO pair_requests (device_id, name, public_key, addresses, group_id, invite_id, received_at_ms)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (device_id) DO UPDATE SET name = excluded.name, public_key = excluded.public_key, addresses = excluded.addresses,
	group_id = excluded.group_id, invite_id = excluded.invite_id, received_at_ms = excluded.received_at_ms`,
			r.DeviceID, r.Name, []byte(r.PublicKey), addrs, r.GroupID, r.InviteID, r.ReceivedAt.UnixMilli())
		if err != nil {
			return fmt.Errorf("storage: add pairing request: %w", err)
		}
		return nil
	})
}

// PairRequests returns the pending requests, oldest first.
func (s *Store) PairRequests() ([]PairRequest, error) {
	rows, err := s.db.Query(`SELECT device_id, name, public_key, addresses, group_id, invite_id, received_at_ms FROM pair_requests ORDER BY received_at_ms, device_id`)
	if err != nil {
		return nil, fmt.Errorf("storage: read pairing requests: %w", err)
	}
	defer rows.Close()
	var out []PairRequest
	for rows.Next() {
		var r PairRequest
		var key []byte
		var addrs string
		var received int64
		if err := rows.Scan(&r.DeviceID, &r.Name, &key, &addrs, &r.GroupID, &r.InviteID, &received); err != nil {
			return nil, fmt.Errorf("storage: read pairing requests: %w", err)
		}
		r.PublicKey = ed25519.PublicKey(key)
		r.ReceivedAt = time.UnixMilli(received)
		d, err := decodeAddresses(addrs)
		if err != nil {
			return nil, fmt.Errorf("storage: read pairing request %q: %w", r.DeviceID, err)
		}
		r.Addresses = d
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read pairing requests: %w", err)
	}
	return out, nil
}

// DeletePairRequest removes the request of deviceID (accepted or refused);
// a missing one is not an error.
func (s *Store) DeletePairRequest(deviceID string) error {
	return s.write(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM pair_requests WHERE device_id = ?`, deviceID); err != nil {
			return fmt.Errorf("storage: delete pairing request: %w", err)
		}
		return nil
	})
}
