package storage

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Limits on the operation log.
const (
	MaxOpBodyBytes = 1 << 20
	MaxOpKindBytes = 64
	MaxOpBatch     = 1000 // ops per OpsAfter answer, the sync batch size
	MaxOpSigBytes  = 128
)

// Op is one operation log entry of the trusted group. ID is
// "{Origin}:{Seq}"; Seq is per-origin monotonic from 1; HLCms is the hybrid
// logical clock. Body is the kind-specific JSON, stored verbatim (a
// signature covers its bytes). Sig is the origin's signature, empty for
// ops stored before ops were signed.
type Op struct {
	ID     string          `json:"op_id"`
	Origin string          `json:"origin"`
	Seq    uint64          `json:"seq"`
	HLCms  int64           `json:"hlc_ms"`
	Kind   string          `json:"kind"`
	Body   json.RawMessage `json:"body"`
	Sig    []byte          `json:"sig,omitempty"`
}

// OpID is the id of the op origin:seq.
func OpID(origin string, seq uint64) string { return origin + ":" + strconv.FormatUint(seq, 10) }

func (op Op) validate() error {
	if err := checkID("op origin", op.Origin); err != nil {
		return err
	}
	if op.Seq == 0 || op.Seq > math.MaxInt64 {
		return fmt.Errorf("%w: op %q: seq %d", ErrInvalid, op.ID, op.Seq)
	}
	if op.ID != OpID(op.Origin, op.Seq) {
		return fmt.Errorf("%w: op id %q, want %q", ErrInvalid, op.ID, OpID(op.Origin, op.Seq))
	}
	if op.Kind == "" || len(op.Kind) > MaxOpKindBytes {
		return fmt.Errorf("%w: op %q: kind %q", ErrInvalid, op.ID, op.Kind)
	}
	if len(op.Body) > MaxOpBodyBytes {
		return fmt.Errorf("%w: op %q: body is %d bytes, want at most %d", ErrInvalid, op.ID, len(op.Body), MaxOpBodyBytes)
	}
	if len(op.Body) == 0 || !json.Valid(op.Body) {
		return fmt.Errorf("%w: op %q: body is not valid JSON", ErrInvalid, op.ID)
	}
	if len(op.Sig) > MaxOpSigBytes {
		return fmt.Errorf("%w: op %q: signature is %d bytes, want at most %d", ErrInvalid, op.ID, len(op.Sig), MaxOpSigBytes)
	}
	return nil
}

// insertOps stores ops whose id is new and returns how many were new. An
// op id already stored keeps its first version: ops are immutable.
func insertOps(tx *sql.Tx, ops []Op) (int, error) {
	if len(ops) == 0 {
		return 0, nil
	}
	st, err := tx.Prepare(`INSERT INTO op_log (id, origin, seq, hlc_ms, kind, body, sig) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
	if err != nil {
		return 0, fmt.Errorf("storage: write ops: %w", err)
	}
	defer st.Close()
	added := 0
	for _, op := range ops {
		sig := op.Sig
		if sig == nil {
			sig = []byte{}
		}
		res, err := st.Exec(op.ID, op.Origin, int64(op.Seq), op.HLCms, op.Kind, string(op.Body), sig)
		if err != nil {
			return 0, fmt.Errorf("storage: write op %q: %w", op.ID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("storage: write op %q: %w", op.ID, err)
		}
		added += int(n)
	}
	return added, nil
}

// AppendOps stores ops received outside a transition (a sync batch) in one
// transaction and returns how many were new. A batch that would make the
// log longer than MaxLogOps is refused whole (ErrLogFull). Use Commit when the ops come
// with a checkpoint or device changes.
func (s *Store) AppendOps(ops []Op) (added int, err error) {
	if len(ops) > MaxOpBatch {
		return 0, fmt.Errorf("%w: %d ops, want at most %d", ErrInvalid, len(ops), MaxOpBatch)
	}
	for _, op := range ops {
		if err := op.validate(); err != nil {
			return 0, err
		}
	}
	if len(ops) == 0 {
		return 0, nil
	}
	err = s.write(func(tx *sql.Tx) error {
		added, err = insertOps(tx, ops)
		if err != nil || added == 0 {
			return err
		}
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM op_log`).Scan(&n); err != nil {
			return fmt.Errorf("storage: write ops: %w", err)
		}
		if n > s.maxLogOps {
			return fmt.Errorf("%w: %d ops after this batch, want at most %d", ErrLogFull, n, s.maxLogOps)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return added, nil
}

// DeleteOps removes the ops with the given ids in one transaction and
// returns how many were stored; unknown ids are skipped. At most MaxLogOps
// ids per call. Unlike PruneOps it keeps nothing back: which ops may go
// (and whether the op vector may go backwards) is the caller's rule.
func (s *Store) DeleteOps(ids []string) (deleted int64, err error) {
	if len(ids) > MaxLogOps {
		return 0, fmt.Errorf("%w: deleting %d ops, want at most %d", ErrInvalid, len(ids), MaxLogOps)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	err = s.write(func(tx *sql.Tx) error {
		st, err := tx.Prepare(`DELETE FROM op_log WHERE id = ?`)
		if err != nil {
			return fmt.Errorf("storage: delete ops: %w", err)
		}
		defer st.Close()
		for _, id := range ids {
			res, err := st.Exec(id)
			if err != nil {
				return fmt.Errorf("storage: delete op %q: %w", id, err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("storage: delete op %q: %w", id, err)
			}
			deleted += n
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return deleted, nil
}

// OpVector returns the highest stored seq per origin (the version vector
// exchanged in hello).
func (s *Store) OpVector() (map[string]uint64, error) {
	rows, err := s.db.Query(`SELECT origin, max(seq) FROM op_log GROUP BY origin`)
	if err != nil {
		return nil, fmt.Errorf("storage: read op vector: %w", err)
	}
	defer rows.Close()
	v := make(map[string]uint64)
	for rows.Next() {
		var origin string
		var seq int64
		if err := rows.Scan(&origin, &seq); err != nil {
			return nil, fmt.Errorf("storage: read op vector: %w", err)
		}
		v[origin] = uint64(seq)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read op vector: %w", err)
	}
	return v, nil
}

// OpsAfter returns the ops a peer with version vector have is missing
// (seq above have[origin]; every op of an origin it lacks), at most limit
// (capped at MaxOpBatch), ordered by origin then seq.
func (s *Store) OpsAfter(have map[string]uint64, limit int) ([]Op, error) {
	if limit <= 0 || limit > MaxOpBatch {
		limit = MaxOpBatch
	}
	mine, err := s.OpVector()
	if err != nil {
		return nil, err
	}
	origins := make([]string, 0, len(mine))
	for o, seq := range mine {
		if seq > have[o] {
			origins = append(origins, o)
		}
	}
	sort.Strings(origins)
	var out []Op
	for _, o := range origins {
		if len(out) >= limit {
			break
		}
		after := have[o]
		if after > math.MaxInt64 {
			continue
		}
		ops, err := s.queryOps(`SELECT id, origin, seq, hlc_ms, kind, body, sig FROM op_log WHERE origin = ? AND seq > ? ORDER BY seq LIMIT ?`,
			o, int64(after), limit-len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, ops...)
	}
	return out, nil
}

// OpsOfKind returns the ops of one kind in (hlc_ms, id) order, at most
// limit (capped at MaxOpBatch).
func (s *Store) OpsOfKind(kind string, limit int) ([]Op, error) {
	if limit <= 0 || limit > MaxOpBatch {
		limit = MaxOpBatch
	}
	return s.queryOps(`SELECT id, origin, seq, hlc_ms, kind, body, sig FROM op_log WHERE kind = ? ORDER BY hlc_ms, id LIMIT ?`, kind, limit)
}

func (s *Store) queryOps(query string, args ...any) ([]Op, error) {
	rows, err := s.db.Query(query, args...)
	if err != nil {
		return nil, fmt.Errorf("storage: read ops: %w", err)
	}
	return scanOps(rows)
}

// scanOps reads and closes rows of (id, origin, seq, hlc_ms, kind, body,
// sig).
func scanOps(rows *sql.Rows) ([]Op, error) {
	defer rows.Close()
	var out []Op
	for rows.Next() {
		var op Op
		var seq int64
		var body string
		if err := rows.Scan(&op.ID, &op.Origin, &seq, &op.HLCms, &op.Kind, &body, &op.Sig); err != nil {
			return nil, fmt.Errorf("storage: read ops: %w", err)
		}
		op.Seq = uint64(seq)
		op.Body = json.RawMessage(body)
		if len(op.Sig) == 0 {
			op.Sig = nil
		}
		out = append(out, op)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read ops: %w", err)
	}
	return out, nil
}

// PruneOps deletes ops of kind whose hlc_ms is below before (e.g. playback
// commands older than five minutes, which are never delivered again) and
// returns how many went. The newest op of each origin is always kept so the
// op vector never goes backwards and peers do not resend pruned ops.
// Membership ops (device_trusted, device_revoked...) must never be pruned.
func (s *Store) PruneOps(kind string, before int64) (int64, error) {
	var n int64
	err := s.write(func(tx *sql.Tx) error {
		res, err := tx.Exec(`DELETE FROM op_log WHERE kind = ? AND hlc_ms < ?
	AND seq < (SELECT max(o.seq) FROM op_log AS o WHERE o.origin = op_log.origin)`, kind, before)
		if err != nil {
			return fmt.Errorf("storage: prune ops: %w", err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}
