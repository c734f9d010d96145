package storage

import (
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/furudesk/furudesk/engine"
)

// LoadCheckpoint returns the checkpoint stored for group and whether there
// is one. A checkpoint is restored only for its own group: after the device
// joins another group, the old group's checkpoint is never returned for it.
func (s *Store) LoadCheckpoint(group string) (engine.Checkpoint, bool, error) {
	var cp engine.Checkpoint
	var counter, hb, cmd int64
	var device, issuer, owner string
	err := s.db.QueryRow(`SELECT device_id, claim_counter, claim_issuer, claim_owner, heartbeat_reserved, command_reserved
FROM checkpoints WHERE group_id = ?`, group).Scan(&device, &counter, &issuer, &owner, &hb, &cmd)
	if errors.Is(err, sql.ErrNoRows) {
		return engine.Checkpoint{}, false, nil
	}
	if err != nil {
		return engine.Checkpoint{}, false, fmt.Errorf("storage: read checkpoint: %w", err)
	}
	cp.Group = group
	cp.Device = engine.DeviceID(device)
	cp.Claim = engine.Claim{Counter: uint64(counter), Issuer: engine.DeviceID(issuer), Owner: engine.DeviceID(owner)}
	cp.HeartbeatReserved, cp.CommandReserved = uint64(hb), uint64(cmd)
	return cp, true, nil
}

func validateCheckpoint(cp engine.Checkpoint) error {
	if err := checkID("checkpoint group", cp.Group); err != nil {
		return err
	}
	if err := checkID("checkpoint device", string(cp.Device)); err != nil {
		return err
	}
	for _, v := range []uint64{cp.Claim.Counter, cp.HeartbeatReserved, cp.CommandReserved} {
		if v > math.MaxInt64 {
			return fmt.Errorf("%w: checkpoint value %d does not fit in SQLite", ErrInvalid, v)
		}
	}
	return nil
}

// writeCheckpoint stores cp, refusing one that would move the stored claim
// or reservations backwards: those are max-registers, and a lower value
// would let a restarted engine reuse heartbeat or command ids.
func writeCheckpoint(tx *sql.Tx, cp engine.Checkpoint) error {
	var old engine.Checkpoint
	var counter, hb, cmd int64
	var device, issuer, owner string
	err := tx.QueryRow(`SELECT device_id, claim_counter, claim_issuer, claim_owner, heartbeat_reserved, command_reserved
FROM checkpoints WHERE group_id = ?`, cp.Group).Scan(&device, &counter, &issuer, &owner, &hb, &cmd)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("storage: read checkpoint: %w", err)
	default:
		old.Claim = engine.Claim{Counter: uint64(counter), Issuer: engine.DeviceID(issuer), Owner: engine.DeviceID(owner)}
		old.HeartbeatReserved, old.CommandReserved = uint64(hb), uint64(cmd)
		if device != string(cp.Device) {
			return fmt.Errorf("%w: checkpoint of group %q belongs to device %q, not %q", ErrInvalid, cp.Group, device, cp.Device)
		}
		if cp.Claim.Compare(old.Claim) < 0 {
			return fmt.Errorf("%w: claim %+v is below the stored %+v", ErrBackwards, cp.Claim, old.Claim)
		}
		if cp.HeartbeatReserved < old.HeartbeatReserved || cp.CommandReserved < old.CommandReserved {
			return fmt.Errorf("%w: reservations heartbeat %d command %d are below the stored %d and %d", ErrBackwards,
				cp.HeartbeatReserved, cp.CommandReserved, old.HeartbeatReserved, old.CommandReserved)
		}
	}
	_, err = tx.Exec(`INSERT INTO checkpoints (group_id, device_id, claim_counter, claim_issuer, claim_owner, heartbeat_reserved, command_reserved)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (group_id) DO UPDATE SET device_id = excluded.device_id, claim_counter = excluded.claim_counter,
	claim_issuer = excluded.claim_issuer, claim_owner = excluded.claim_owner,
	heartbeat_reserved = excluded.heartbeat_reserved, command_reserved = excluded.command_reserved`,
		cp.Group, string(cp.Device), int64(cp.Claim.Counter), string(cp.Claim.Issuer), string(cp.Claim.Owner),
		int64(cp.HeartbeatReserved), int64(cp.CommandReserved))
	if err != nil {
		return fmt.Errorf("storage: write checkpoint: %w", err)
	}
	return nil
}
