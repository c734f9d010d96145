package devicesync

import (
	"errors"
	"slices"
	"sync"
)

// ErrNotFound is returned by a Store for an invite it does not hold.
var ErrNotFound = errors.New("devicesync: not found")

// Store persists the current group and its operation log, and invites.
// devicesync calls it from several goroutines but never concurrently: every
// call is made under the node's lock, so implementations need no locking of
// their own beyond what their backing store requires. A write error leaves
// the node's memory unchanged and is returned to the caller (or closes the
// connection whose message caused it).
type Store interface {
	// LoadGroup returns the current group id and all its ops, or "" and
	// no ops if no group was saved yet.
	LoadGroup() (group string, ops []Op, err error)
	// ResetGroup makes group the current group with an empty log; the
	// previous group's ops are discarded.
	ResetGroup(group string) error
	// AppendOps adds ops to the current group's log in one transaction.
	AppendOps(ops []Op) error
	// DeleteOps removes ops by id; unknown ids are not an error.
	DeleteOps(ids []string) error
	// SaveInvite inserts or replaces the invite with rec.ID.
	SaveInvite(rec InviteRecord) error
	// LoadInvite returns the invite with id, or ErrNotFound.
	LoadInvite(id string) (InviteRecord, error)
}

// MemStore is an in-memory Store for tests and for running without a disk.
// It is safe for concurrent use.
type MemStore struct {
	mu      sync.Mutex
	group   string
	ops     []Op
	invites map[string]InviteRecord
	book    []byte
	fail    error
}

// SetFail makes every later write return err (nil: succeed again), to test
// persistence failures.
func (s *MemStore) SetFail(err error) {
	s.mu.Lock()
	s.fail = err
	s.mu.Unlock()
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{invites: map[string]InviteRecord{}} }

var (
	_ Store        = (*MemStore)(nil)
	_ AddressStore = (*MemStore)(nil)
)

// LoadAddresses implements AddressStore.
func (s *MemStore) LoadAddresses() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.book), nil
}

// SaveAddresses implements AddressStore.
func (s *MemStore) SaveAddresses(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.book = slices.Clone(b)
	return nil
}

// LoadGroup implements Store.
func (s *MemStore) LoadGroup() (string, []Op, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.group, slices.Clone(s.ops), nil
}

// ResetGroup implements Store.
func (s *MemStore) ResetGroup(group string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.group, s.ops = group, nil
	return nil
}

// AppendOps implements Store.
func (s *MemStore) AppendOps(ops []Op) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.ops = append(s.ops, ops...)
	return nil
}

// DeleteOps implements Store.
func (s *MemStore) DeleteOps(ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.ops = slices.DeleteFunc(s.ops, func(o Op) bool { return slices.Contains(ids, o.ID) })
	return nil
}

// SaveInvite implements Store.
func (s *MemStore) SaveInvite(rec InviteRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.invites[rec.ID] = rec
	return nil
}

// LoadInvite implements Store.
func (s *MemStore) LoadInvite(id string) (InviteRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.invites[id]
	if !ok {
		return InviteRecord{}, ErrNotFound
	}
	return rec, nil
}

// Ops returns a copy of the stored ops, for tests.
func (s *MemStore) Ops() []Op {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ops)
}
