package app

import (
	"errors"
	"fmt"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/storage"
)

// SyncDB is what SyncStore needs from the database. *storage.Store
// implements it: the trusted group's op log and the invites live in the one
// SQLite database with everything else.
type SyncDB interface {
	GroupLog() (group string, ops []storage.Op, err error)
	ResetGroup(group string) error
	AppendOps(ops []storage.Op) (added int, err error)
	DeleteOps(ids []string) (deleted int64, err error)
	SaveInvite(rec storage.InviteRecord, now time.Time) error
	LoadInvite(id string) (storage.InviteRecord, error)
}

var (
	_ SyncDB           = (*storage.Store)(nil)
	_ devicesync.Store = (*SyncStore)(nil)
)

// SyncStore is the devicesync.Store of a running furudesk: it keeps the
// group, its operation log and the invites in the database. ResetGroup also
// sets the identity's group in the same transaction. It holds no state of
// its own; the database's Close is the caller's.
type SyncStore struct {
	db    SyncDB
	clock devicesync.Clock
}

// NewSyncStore returns a SyncStore over db. clock must be the node's
// (devicesync.Config.Clock; nil: time.Now): it dates saved invites, and
// saving a new one deletes those expired by then.
func NewSyncStore(db SyncDB, clock devicesync.Clock) *SyncStore {
	return &SyncStore{db: db, clock: clock}
}

func (s *SyncStore) now() time.Time {
	if s.clock == nil {
		return time.Now()
	}
	return s.clock.Now()
}

// LoadGroup implements devicesync.Store.
func (s *SyncStore) LoadGroup() (string, []devicesync.Op, error) {
	group, ops, err := s.db.GroupLog()
	if err != nil {
		return "", nil, err
	}
	out := make([]devicesync.Op, len(ops))
	for i, o := range ops {
		out[i] = devicesync.Op{ID: o.ID, Origin: engine.DeviceID(o.Origin), Seq: o.Seq, HLCms: o.HLCms, Kind: o.Kind, Body: o.Body, Sig: o.Sig}
	}
	return group, out, nil
}

// ResetGroup implements devicesync.Store.
func (s *SyncStore) ResetGroup(group string) error { return s.db.ResetGroup(group) }

// AppendOps implements devicesync.Store. Ops already stored are skipped.
func (s *SyncStore) AppendOps(ops []devicesync.Op) error {
	in := make([]storage.Op, len(ops))
	for i, o := range ops {
		in[i] = storage.Op{ID: o.ID, Origin: string(o.Origin), Seq: o.Seq, HLCms: o.HLCms, Kind: o.Kind, Body: o.Body, Sig: o.Sig}
	}
	_, err := s.db.AppendOps(in)
	return err
}

// DeleteOps implements devicesync.Store.
func (s *SyncStore) DeleteOps(ids []string) error {
	_, err := s.db.DeleteOps(ids)
	return err
}

// SaveInvite implements devicesync.Store.
func (s *SyncStore) SaveInvite(rec devicesync.InviteRecord) error {
	return s.db.SaveInvite(storage.InviteRecord{ID: rec.ID, SecretHash: rec.SecretHash, ExpiresAt: rec.Expires, Used: rec.Used}, s.now())
}

// LoadInvite implements devicesync.Store; an unknown invite is
// devicesync.ErrNotFound.
func (s *SyncStore) LoadInvite(id string) (devicesync.InviteRecord, error) {
	rec, err := s.db.LoadInvite(id)
	if errors.Is(err, storage.ErrInviteUnknown) {
		return devicesync.InviteRecord{}, fmt.Errorf("%w: invite %q", devicesync.ErrNotFound, id)
	}
	if err != nil {
		return devicesync.InviteRecord{}, err
	}
	return devicesync.InviteRecord{ID: rec.ID, SecretHash: rec.SecretHash, Expires: rec.ExpiresAt, Used: rec.Used}, nil
}

// settingsDB is what SyncStore needs to keep the address book:
// *storage.Store's settings.
type settingsDB interface {
	Setting(key string) (string, bool, error)
	SetSetting(key, value string) error
}

var _ devicesync.AddressStore = (*SyncStore)(nil)

// addressesKey is the setting that holds devicesync's address book (the
// last listening port and the members' last good addresses).
const addressesKey = "devicesync.addresses"

// LoadAddresses implements devicesync.AddressStore; a database without
// settings has no book.
func (s *SyncStore) LoadAddresses() ([]byte, error) {
	db, ok := s.db.(settingsDB)
	if !ok {
		return nil, nil
	}
	v, _, err := db.Setting(addressesKey)
	return []byte(v), err
}

// SaveAddresses implements devicesync.AddressStore.
func (s *SyncStore) SaveAddresses(b []byte) error {
	db, ok := s.db.(settingsDB)
	if !ok {
		return nil
	}
	return db.SetSetting(addressesKey, string(b))
}
