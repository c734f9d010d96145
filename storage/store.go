package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// File names inside the data dir.
const (
	DBFileName   = "furudesk.db"
	LockFileName = "furudesk.lock"
)

// BusyTimeoutMS is how long a statement waits for another connection's
// write lock before failing with SQLITE_BUSY.
const BusyTimeoutMS = 5000

// maxOpenConns bounds the connection pool: WAL lets readers run beside the
// single writer, more than a few buys nothing on a desktop.
const maxOpenConns = 4

// Sentinel errors. Match them with errors.Is; the messages of the returned
// errors carry the path and details.
var (
	ErrLocked    = errors.New("storage: data dir is used by another furudesk")
	ErrCorrupt   = errors.New("storage: database is corrupt or unreadable")
	ErrTooNew    = errors.New("storage: database was written by a newer furudesk")
	ErrNotFound  = errors.New("storage: not found")
	ErrInvalid   = errors.New("storage: invalid value")
	ErrBadPath   = errors.New("storage: unusable data dir path")
	ErrInjected  = errors.New("storage: injected commit failure")
	ErrBackwards = errors.New("storage: checkpoint would go backwards")
)

// LockedError is returned by Open when another process holds the data dir.
// Its message is exactly "another furudesk is using <dir>"; it matches
// ErrLocked.
type LockedError struct{ Dir string }

func (e *LockedError) Error() string { return "another furudesk is using " + e.Dir }

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Store is the open database of one data dir. Create it with Open and
// release it with Close.
type Store struct {
	dir  string
	path string
	db   *sql.DB
	lock *os.File

	faultMu  sync.Mutex
	fault    func(Transition) error
	failNext []error

	writes       atomic.Uint64
	noSyncWrites atomic.Uint64 // of writes, those committed without a flush

	// maxLogOps is MaxLogOps; tests lower it to reach the limit quickly.
	maxLogOps int
}

// Open creates dir if needed, takes the exclusive lock on it, makes it and
// the database files private to this user (DirMode, FileMode), checks the
// database (integrity, schema version) without modifying it, then opens it
// with WAL, a busy timeout, foreign keys and synchronous=FULL and applies
// pending migrations, each in its own transaction.
//
// Errors: *LockedError (ErrLocked) when another process holds dir; ErrCorrupt
// with the file's path when the database is unreadable or fails
// quick_check; ErrTooNew when its schema is newer than this build knows. In
// those cases the file is not modified.
func Open(dir string) (*Store, error) {
	if dir == "" || strings.ContainsAny(dir, "?\x00") {
		return nil, fmt.Errorf("%w: %q", ErrBadPath, dir)
	}
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, fmt.Errorf("storage: create data dir: %w", err)
	}
	lf, err := os.OpenFile(filepath.Join(dir, LockFileName), os.O_RDWR|os.O_CREATE, FileMode)
	if err != nil {
		return nil, fmt.Errorf("storage: open lock file: %w", err)
	}
	held, err := lockFile(lf)
	if err != nil || held {
		_ = lf.Close()
		if held {
			return nil, &LockedError{Dir: dir}
		}
		return nil, fmt.Errorf("storage: lock %s: %w", lf.Name(), err)
	}
	if err := makePrivate(dir); err != nil {
		_ = lf.Close()
		return nil, err
	}
	s := &Store{dir: dir, path: filepath.Join(dir, DBFileName), lock: lf, maxLogOps: MaxLogOps}
	if err := s.open(); err != nil {
		_ = lf.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) open() error {
	if err := inspect(s.path); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", s.path+"?"+dsnParams)
	if err != nil {
		return fmt.Errorf("storage: open %s: %w", s.path, err)
	}
	db.SetMaxOpenConns(maxOpenConns)
	if err := migrate(db, len(migrations)); err != nil {
		_ = db.Close()
		return fmt.Errorf("storage: migrate %s: %w", s.path, err)
	}
	s.db = db
	return nil
}

// dsnParams configure every pooled connection. synchronous=FULL makes every
// commit durable once it returns (WAL is fsynced per commit); _txlock makes
// every write transaction take the write lock at BEGIN, so two writers
// queue on busy_timeout instead of failing on lock upgrade.
var dsnParams = fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate", BusyTimeoutMS)

// inspect checks an existing database read-only: it must pass quick_check
// and its schema must not be newer than this build. A missing file is fine.
func inspect(path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	db, err := sql.Open("sqlite", readOnlyURI(path))
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	rows, err := db.Query("PRAGMA quick_check")
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			_ = rows.Close()
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
		}
		if line != "ok" && len(problems) < 5 {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	_ = rows.Close()
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s: quick_check: %s", ErrCorrupt, path, strings.Join(problems, "; "))
	}
	v, err := schemaVersion(db)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if v > len(migrations) {
		return fmt.Errorf("%w: %s has schema version %d, this furudesk knows up to %d; upgrade furudesk (the file was not modified)", ErrTooNew, path, v, len(migrations))
	}
	return nil
}

// readOnlyURI turns a file path into an SQLite URI that opens it read-only.
// SQLite decodes %HH escapes in URI paths; on Windows a drive letter needs a
// leading slash.
func readOnlyURI(path string) string {
	abs, err := filepath.Abs(path)
	if err == nil {
		path = abs
	}
	p := filepath.ToSlash(path)
	if len(p) >= 2 && p[1] == ':' {
		p = "/" + p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '%', '?', '#', ' ', '&', '=':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return "file:" + b.String() + "?mode=ro&_pragma=busy_timeout(5000)"
}

// Path is the database file of this store.
func (s *Store) Path() string { return s.path }

// Dir is the data dir this store locks.
func (s *Store) Dir() string { return s.dir }

// Close closes the database and releases the data dir lock.
func (s *Store) Close() error {
	err := s.db.Close()
	if lerr := s.lock.Close(); err == nil {
		err = lerr
	}
	return err
}

// Writes is the number of write transactions committed through this Store
// since Open (migrations not counted). Tests and benchmarks use it to count
// database writes.
func (s *Store) Writes() uint64 { return s.writes.Load() }

// FlushedWrites returns how many of Writes waited for the disk (all but the
// NoSync ones).
func (s *Store) FlushedWrites() uint64 { return s.writes.Load() - s.noSyncWrites.Load() }

// write runs fn in one write transaction and commits it, or rolls back when
// fn fails.
// writeNoSync is write on a connection switched to synchronous=NORMAL for
// this one transaction: in WAL mode the commit appends to the log without
// an fsync. Its statement journals (what undoes one failed statement
// inside the transaction, which an upsert needs) stay in memory instead
// of a temporary file written a page at a time, and its commit copies the
// log into the database only once the log holds 10,000 pages (40 MB)
// instead of 1,000: a scan's batches rewrite the same index pages, and a
// page is copied once per checkpoint however often it changed since. The
// connection goes back to the pool as it was (synchronous=FULL,
// temp_store=DEFAULT, wal_autocheckpoint=1000); one that cannot be
// switched back is discarded.
func (s *Store) writeNoSync(fn func(tx *sql.Tx) error) error {
	ctx := context.Background()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("storage: connection: %w", err)
	}
	defer conn.Close()
	defer func() {
		if _, err := conn.ExecContext(ctx, "PRAGMA synchronous=FULL; PRAGMA temp_store=DEFAULT; PRAGMA wal_autocheckpoint=1000"); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // never reused unflushed
		}
	}()
	if _, err := conn.ExecContext(ctx, "PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY; PRAGMA wal_autocheckpoint=10000"); err != nil {
		return fmt.Errorf("storage: synchronous=NORMAL: %w", err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("storage: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("storage: commit: %w", err)
	}
	s.writes.Add(1)
	s.noSyncWrites.Add(1)
	return nil
}

// readTx begins a read-only transaction: one snapshot for reads that
// must agree. A plain Begin would be BEGIN IMMEDIATE (_txlock) and hold
// the write lock to the end: every writer would wait on busy_timeout
// behind a long read, as the launch's writes waited behind the 100,000
// catalog items the group library reads (issue 37). Roll it back.
func (s *Store) readTx() (*sql.Tx, error) {
	return s.db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
}

func (s *Store) write(fn func(tx *sql.Tx) error) error {
	return s.writeContext(context.Background(), fn)
}

// writeContext is write that gives up once ctx is done: database/sql
// rolls the transaction back then, and fn's statements fail.
func (s *Store) writeContext(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("storage: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("storage: commit: %w", err)
	}
	s.writes.Add(1)
	return nil
}
