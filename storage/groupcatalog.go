package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/grouplib"
	"github.com/furudesk/furudesk/internal/strpack"
)

var _ grouplib.Store = (*Store)(nil)

// LoadCatalogs returns every catalog of the group library this device
// holds but except's (grouplib.Store).
func (s *Store) LoadCatalogs(except engine.DeviceID) ([]grouplib.StoredCatalog, error) {
	return s.loadCatalogs(`SELECT origin, version, floor FROM group_catalogs WHERE origin != ? ORDER BY origin`, string(except))
}

// LoadCatalog returns origin's catalog, false when none is stored
// (grouplib.Store).
func (s *Store) LoadCatalog(origin engine.DeviceID) (grouplib.StoredCatalog, bool, error) {
	cats, err := s.loadCatalogs(`SELECT origin, version, floor FROM group_catalogs WHERE origin = ?`, string(origin))
	if err != nil || len(cats) == 0 {
		return grouplib.StoredCatalog{}, false, err
	}
	return cats[0], true, nil
}

// loadCatalogs reads the catalogs query (origin, version, floor) picks,
// in one snapshot.
func (s *Store) loadCatalogs(query string, args ...any) ([]grouplib.StoredCatalog, error) {
	tx, err := s.readTx()
	if err != nil {
		return nil, fmt.Errorf("storage: read catalogs: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // read only
	var out []grouplib.StoredCatalog
	rows, err := tx.Query(query, args...)
	if err != nil {
		return nil, fmt.Errorf("storage: read catalogs: %w", err)
	}
	for rows.Next() {
		var c grouplib.StoredCatalog
		var origin string
		if err := rows.Scan(&origin, &c.Version, &c.Floor); err != nil {
			_ = rows.Close()
			return nil, fmt.Errorf("storage: read catalogs: %w", err)
		}
		c.Origin = engine.DeviceID(origin)
		out = append(out, c)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	for i := range out {
		c := &out[i]
		if err := readCatalogItems(tx, c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func readCatalogItems(tx *sql.Tx, c *grouplib.StoredCatalog) error {
	var err error
	if c.Items, err = readItems(context.Background(), tx, c.Origin, 0); err != nil {
		return err
	}
	rows, err := tx.Query(`SELECT content_id, ver FROM group_catalog_gone WHERE origin = ? ORDER BY content_id`, string(c.Origin))
	if err != nil {
		return fmt.Errorf("storage: read catalog of %s: %w", c.Origin, err)
	}
	defer rows.Close()
	for rows.Next() {
		var g grouplib.Tombstone
		if err := rows.Scan(&g.ContentID, &g.Ver); err != nil {
			return fmt.Errorf("storage: read catalog of %s: %w", c.Origin, err)
		}
		c.Gone = append(c.Gone, g)
	}
	return rows.Err()
}

// LoadItems returns the stored items of origin's catalog changed after
// version since, in content id order (grouplib.Store).
func (s *Store) LoadItems(ctx context.Context, origin engine.DeviceID, since uint64) ([]grouplib.Item, error) {
	return readItems(ctx, s.db, origin, since)
}

// readItems reads the items of origin's catalog dated after since.
func readItems(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, origin engine.DeviceID, since uint64) ([]grouplib.Item, error) {
	// The whole catalog is read in the order of its key. A delta is
	// found by its versions (group_catalog_items_ver) and then sorted:
	// ordered by the bare key, SQLite would rather read the whole catalog
	// in key order than sort, and "+" makes the order an expression.
	order := "content_id"
	if since > 0 {
		order = "+content_id"
	}
	rows, err := q.QueryContext(ctx, `SELECT ver, entry FROM group_catalog_items WHERE origin = ? AND ver > ? ORDER BY `+order,
		string(origin), since)
	if err != nil {
		return nil, fmt.Errorf("storage: read catalog of %s: %w", origin, err)
	}
	defer rows.Close()
	// Album, artist, genre and format come back for many entries: one
	// string each (a 100,000-track catalog held them that many times).
	var in strpack.Interner
	var items []grouplib.Item
	for rows.Next() {
		var it grouplib.Item
		var entry string
		if err := rows.Scan(&it.Ver, &entry); err != nil {
			return nil, fmt.Errorf("storage: read catalog of %s: %w", origin, err)
		}
		if err := json.Unmarshal([]byte(entry), &it.Entry); err != nil {
			return nil, fmt.Errorf("storage: read catalog of %s: %w", origin, err)
		}
		e := &it.Entry
		e.Album, e.AlbumArtist, e.Genre, e.Format = in.Get(e.Album), in.Get(e.AlbumArtist), in.Get(e.Genre), in.Get(e.Format)
		for i, a := range e.Artists {
			e.Artists[i] = in.Get(a)
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read catalog of %s: %w", origin, err)
	}
	return items, nil
}

// SaveDelta applies a catalog delta in one transaction (grouplib.Store).
func (s *Store) SaveDelta(ctx context.Context, d grouplib.Delta, floor uint64) error {
	origin := string(d.Origin)
	return s.writeContext(ctx, func(tx *sql.Tx) error {
		if d.Full {
			for _, q := range []string{`DELETE FROM group_catalog_items WHERE origin = ?`, `DELETE FROM group_catalog_gone WHERE origin = ?`} {
				if _, err := tx.ExecContext(ctx, q, origin); err != nil {
					return fmt.Errorf("storage: save catalog: %w", err)
				}
			}
		}
		put, err := tx.PrepareContext(ctx, `INSERT INTO group_catalog_items (origin, content_id, ver, entry) VALUES (?, ?, ?, ?)
ON CONFLICT (origin, content_id) DO UPDATE SET ver = excluded.ver, entry = excluded.entry`)
		if err != nil {
			return fmt.Errorf("storage: save catalog: %w", err)
		}
		defer put.Close()
		unGone, err := tx.PrepareContext(ctx, `DELETE FROM group_catalog_gone WHERE origin = ? AND content_id = ?`)
		if err != nil {
			return fmt.Errorf("storage: save catalog: %w", err)
		}
		defer unGone.Close()
		for _, it := range d.Items {
			b, err := json.Marshal(it.Entry)
			if err != nil {
				return fmt.Errorf("storage: save catalog: %w", err)
			}
			if _, err := put.ExecContext(ctx, origin, it.ContentID, it.Ver, string(b)); err != nil {
				return fmt.Errorf("storage: save catalog: %w", err)
			}
			if !d.Full {
				if _, err := unGone.ExecContext(ctx, origin, it.ContentID); err != nil {
					return fmt.Errorf("storage: save catalog: %w", err)
				}
			}
		}
		for _, g := range d.Gone {
			if _, err := tx.ExecContext(ctx, `DELETE FROM group_catalog_items WHERE origin = ? AND content_id = ?`, origin, g.ContentID); err != nil {
				return fmt.Errorf("storage: save catalog: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO group_catalog_gone (origin, content_id, ver) VALUES (?, ?, ?)
ON CONFLICT (origin, content_id) DO UPDATE SET ver = excluded.ver`, origin, g.ContentID, g.Ver); err != nil {
				return fmt.Errorf("storage: save catalog: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM group_catalog_gone WHERE origin = ? AND ver <= ?`, origin, floor); err != nil {
			return fmt.Errorf("storage: save catalog: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO group_catalogs (origin, version, floor) VALUES (?, ?, ?)
ON CONFLICT (origin) DO UPDATE SET version = excluded.version, floor = excluded.floor`, origin, d.Version, floor); err != nil {
			return fmt.Errorf("storage: save catalog: %w", err)
		}
		return nil
	})
}

// DeleteCatalog forgets the catalog of a device (grouplib.Store).
func (s *Store) DeleteCatalog(origin engine.DeviceID) error {
	return s.write(func(tx *sql.Tx) error {
		for _, q := range []string{`DELETE FROM group_catalogs WHERE origin = ?`, `DELETE FROM group_catalog_items WHERE origin = ?`,
			`DELETE FROM group_catalog_gone WHERE origin = ?`} {
			if _, err := tx.Exec(q, string(origin)); err != nil {
				return fmt.Errorf("storage: delete catalog: %w", err)
			}
		}
		return nil
	})
}
