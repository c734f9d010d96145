package storage

import (
	"database/sql"
	"errors"
	"fmt"
)

// MaxLogOps bounds the operation log of the group: AppendOps refuses a
// batch that would store more (ErrLogFull), and GroupLog refuses to load
// more. It matches the bound devicesync keeps in memory.
const MaxLogOps = 100_000

// ErrLogFull is returned when the operation log would hold more than
// MaxLogOps ops.
var ErrLogFull = errors.New("storage: operation log is full")

// GroupLog returns the group the operation log belongs to and all its ops
// ordered by origin then seq, or "" and no ops when no group was set with
// ResetGroup yet (a new installation). It is what a sync layer loads at
// startup; the log's group can differ from Identity().GroupID only while a
// caller's SetGroup has not caught up.
func (s *Store) GroupLog() (group string, ops []Op, err error) {
	tx, err := s.readTx()
	if err != nil {
		return "", nil, fmt.Errorf("storage: read group log: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // read only: nothing to commit
	err = tx.QueryRow(`SELECT group_id FROM op_log_group WHERE id = 1`).Scan(&group)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("storage: read group log: %w", err)
	}
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM op_log`).Scan(&n); err != nil {
		return "", nil, fmt.Errorf("storage: read group log: %w", err)
	}
	if n > s.maxLogOps {
		return "", nil, fmt.Errorf("%w: %d ops stored, want at most %d", ErrLogFull, n, s.maxLogOps)
	}
	rows, err := tx.Query(`SELECT id, origin, seq, hlc_ms, kind, body, sig FROM op_log ORDER BY origin, seq`)
	if err != nil {
		return "", nil, fmt.Errorf("storage: read group log: %w", err)
	}
	ops, err = scanOps(rows)
	if err != nil {
		return "", nil, err
	}
	return group, ops, nil
}

// ResetGroup makes group the group of this device and of an empty
// operation log, in one transaction: it sets the identity's group, records
// group as the log's group, and deletes every op and every device record of
// the previous group (they described its membership, not the new one's).
// Checkpoints stay, each restored only for its own group; invites and
// pairing requests stay too. It fails with ErrNoIdentity before
// CreateIdentity, and changes nothing on any error.
func (s *Store) ResetGroup(group string) error {
	if err := checkID("group id", group); err != nil {
		return err
	}
	return s.write(func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE identity SET group_id = ? WHERE id = 1`, group)
		if err != nil {
			return fmt.Errorf("storage: reset group: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("storage: reset group: %w", err)
		} else if n == 0 {
			return ErrNoIdentity
		}
		if _, err := tx.Exec(`INSERT INTO op_log_group (id, group_id) VALUES (1, ?)
ON CONFLICT (id) DO UPDATE SET group_id = excluded.group_id`, group); err != nil {
			return fmt.Errorf("storage: reset group: %w", err)
		}
		if _, err := tx.Exec(`DELETE FROM op_log`); err != nil {
			return fmt.Errorf("storage: reset group: %w", err)
		}
		if _, err := tx.Exec(`DELETE FROM devices`); err != nil {
			return fmt.Errorf("storage: reset group: %w", err)
		}
		return nil
	})
}
