package grouplib

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// gatedStore is a store whose catalogs are read only once its gate opens
// (a huge catalog), or not at all (fail); the own catalog's read is
// counted (owns), and fails with failOwn.
type gatedStore struct {
	*MemStore
	gate    chan struct{}
	fail    error
	failOwn error
	owns    atomic.Int32
	saved   chan struct{}
}

func (s *gatedStore) LoadCatalogs(except engine.DeviceID) ([]StoredCatalog, error) {
	<-s.gate
	if s.fail != nil {
		return nil, s.fail
	}
	return s.MemStore.LoadCatalogs(except)
}

func (s *gatedStore) LoadCatalog(origin engine.DeviceID) (StoredCatalog, bool, error) {
	s.owns.Add(1)
	if s.failOwn != nil {
		return StoredCatalog{}, false, s.failOwn
	}
	return s.MemStore.LoadCatalog(origin)
}

func (s *gatedStore) SaveDelta(ctx context.Context, d Delta, floor uint64) error {
	select {
	case s.saved <- struct{}{}:
	default:
	}
	return s.MemStore.SaveDelta(ctx, d, floor)
}

// New does not wait for the stored catalogs (a window lists the library
// meanwhile); what reads them waits until they are in.
func TestNewDoesNotWaitForTheStoredCatalogs(t *testing.T) {
	n := newTestNet(t)
	p := &testPeer{n: n, id: "dev_000000000000000000000001", name: "A", dir: t.TempDir(), files: newTestFiles(), store: NewMemStore()}
	st := &gatedStore{MemStore: p.store, gate: make(chan struct{}), saved: make(chan struct{}, 1)}
	l, err := New(Config{Self: p.id, Net: p, Log: n.log.as(p), Store: st, Files: p.files,
		Dir: filepath.Join(p.dir, "cache"), Logger: testLogger(), PublishDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// (Before, New read them itself: it never returned here.)
	read := make(chan int)
	go func() { read <- len(l.Tracks()) }()
	close(st.gate)
	if k := <-read; k != 0 {
		t.Fatalf("Tracks = %d, want the empty union", k)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// Stored catalogs that cannot be read leave the library empty, and this
// device's catalog is not published over what is stored.
func TestUnreadableCatalogsArePublishedOverNever(t *testing.T) {
	n := newTestNet(t)
	p := &testPeer{n: n, id: "dev_000000000000000000000001", name: "A", dir: t.TempDir(), files: newTestFiles(), store: NewMemStore()}
	st := &gatedStore{MemStore: p.store, gate: make(chan struct{}), fail: errors.New("disk I/O error"), saved: make(chan struct{}, 1)}
	close(st.gate)
	l, err := New(Config{Self: p.id, Net: p, Log: n.log.as(p), Store: st, Files: p.files,
		Dir: filepath.Join(p.dir, "cache"), Logger: testLogger(), PublishDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	l.Start()
	l.LocalChanged()
	l.mu.RLock() // load is over once the lock is had
	err = l.loadErr
	l.mu.RUnlock()
	if err == nil {
		t.Fatal("the failure to read the catalogs is not kept")
	}
	if got := l.syncOnce(); got <= 0 {
		t.Fatalf("syncOnce asks to look again after %v: a busy loop", got)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-st.saved:
		t.Fatal("this device's catalog was published over the unreadable one")
	default:
	}
}

// This device's own catalog, as large as its library, is not read beside
// the caller's start (a window's first list) but before the first
// publication, once the library was started; read then, it is what the
// publication compares the library with.
func TestTheOwnCatalogIsReadOnceStarted(t *testing.T) {
	n := newTestNet(t)
	p := &testPeer{n: n, id: "dev_000000000000000000000001", name: "A", dir: t.TempDir(), files: newTestFiles(), store: NewMemStore()}
	st := &gatedStore{MemStore: p.store, gate: make(chan struct{}), saved: make(chan struct{}, 1)}
	close(st.gate)
	l, err := New(Config{Self: p.id, Net: p, Log: n.log.as(p), Store: st, Files: p.files,
		Dir: filepath.Join(p.dir, "cache"), Logger: testLogger(), PublishDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_ = l.Tracks() // the others' catalogs are in
	if k := st.owns.Load(); k != 0 {
		t.Fatalf("the own catalog was read %d times before Start", k)
	}
	l.syncOnce()
	l.syncOnce()
	if k := st.owns.Load(); k != 1 {
		t.Fatalf("the own catalog was read %d times by two syncs, want once", k)
	}
	l.mu.RLock()
	own := l.catalogs[l.self]
	l.mu.RUnlock()
	if own == nil {
		t.Fatal("no own catalog after the first sync")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// An own catalog that cannot be read is not published over either.
func TestAnUnreadableOwnCatalogIsPublishedOverNever(t *testing.T) {
	n := newTestNet(t)
	p := &testPeer{n: n, id: "dev_000000000000000000000001", name: "A", dir: t.TempDir(), files: newTestFiles(), store: NewMemStore()}
	st := &gatedStore{MemStore: p.store, gate: make(chan struct{}), failOwn: errors.New("disk I/O error"), saved: make(chan struct{}, 1)}
	close(st.gate)
	l, err := New(Config{Self: p.id, Net: p, Log: n.log.as(p), Store: st, Files: p.files,
		Dir: filepath.Join(p.dir, "cache"), Logger: testLogger(), PublishDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	l.LocalChanged()
	if got := l.syncOnce(); got <= 0 {
		t.Fatalf("syncOnce asks to look again after %v: a busy loop", got)
	}
	l.mu.RLock()
	err = l.loadErr
	l.mu.RUnlock()
	if err == nil {
		t.Fatal("the failure to read the own catalog is not kept")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-st.saved:
		t.Fatal("this device's catalog was published over the unreadable one")
	default:
	}
}
