package app

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/furudesk/furudesk/devicesync"
)

// SyncStoreFile is the journal of the trusted group inside the data dir.
//
// storage.Store cannot hold devicesync's Store yet: it has no way to drop
// ops by id or all ops of a left group, and its invites hash the secret
// themselves while devicesync hands over the hash. Until it does, the group
// log lives in this append-only JSON-lines journal (fsynced per write,
// compacted on open).
const SyncStoreFile = "devicesync.jsonl"

// MaxSyncJournalBytes bounds the journal read at startup.
const MaxSyncJournalBytes = 512 << 20

// FileSyncStore is a devicesync.Store kept in a journal file.
type FileSyncStore struct {
	mu      sync.Mutex
	path    string
	f       *os.File
	group   string
	ops     []devicesync.Op
	index   map[string]int
	invites map[string]devicesync.InviteRecord
}

type journalRec struct {
	Reset  *string                  `json:"reset,omitempty"`
	Ops    []devicesync.Op          `json:"ops,omitempty"`
	Delete []string                 `json:"delete,omitempty"`
	Invite *devicesync.InviteRecord `json:"invite,omitempty"`
}

var _ devicesync.Store = (*FileSyncStore)(nil)

// OpenSyncStore reads (and compacts) the journal in dir.
func OpenSyncStore(dir string) (*FileSyncStore, error) {
	s := &FileSyncStore{path: filepath.Join(dir, SyncStoreFile), index: map[string]int{},
		invites: map[string]devicesync.InviteRecord{}}
	if f, err := os.Open(s.path); err == nil {
		st, _ := f.Stat()
		if st != nil && st.Size() > MaxSyncJournalBytes {
			f.Close()
			return nil, fmt.Errorf("app: %s is larger than %d bytes", s.path, MaxSyncJournalBytes)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var r journalRec
			if json.Unmarshal(sc.Bytes(), &r) != nil {
				continue // a torn last line after a crash
			}
			s.replay(r)
		}
		err := sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("app: read %s: %w", s.path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := s.compact(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *FileSyncStore) replay(r journalRec) {
	if r.Reset != nil {
		s.group, s.ops, s.index = *r.Reset, nil, map[string]int{}
	}
	for _, op := range r.Ops {
		if _, ok := s.index[op.ID]; !ok {
			s.index[op.ID] = len(s.ops)
			s.ops = append(s.ops, op)
		}
	}
	if len(r.Delete) > 0 {
		s.ops = slices.DeleteFunc(s.ops, func(o devicesync.Op) bool { return slices.Contains(r.Delete, o.ID) })
		s.index = make(map[string]int, len(s.ops))
		for i, o := range s.ops {
			s.index[o.ID] = i
		}
	}
	if r.Invite != nil {
		s.invites[r.Invite.ID] = *r.Invite
	}
}

func (s *FileSyncStore) compact() error {
	tmp := s.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	g := s.group
	recs := []journalRec{{Reset: &g, Ops: s.ops}}
	for _, inv := range s.invites {
		inv := inv
		recs = append(recs, journalRec{Invite: &inv})
	}
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return err
	}
	s.f, err = os.OpenFile(s.path, os.O_APPEND|os.O_WRONLY, 0o600)
	return err
}

// append writes r durably, then applies it to memory.
func (s *FileSyncStore) append(r journalRec) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := s.f.Write(append(b, '\n')); err != nil {
		return err
	}
	if err := s.f.Sync(); err != nil {
		return err
	}
	s.replay(r)
	return nil
}

// Close closes the journal.
func (s *FileSyncStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.Close()
}

// LoadGroup implements devicesync.Store.
func (s *FileSyncStore) LoadGroup() (string, []devicesync.Op, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.group, slices.Clone(s.ops), nil
}

// ResetGroup implements devicesync.Store.
func (s *FileSyncStore) ResetGroup(group string) error { return s.append(journalRec{Reset: &group}) }

// AppendOps implements devicesync.Store.
func (s *FileSyncStore) AppendOps(ops []devicesync.Op) error { return s.append(journalRec{Ops: ops}) }

// DeleteOps implements devicesync.Store.
func (s *FileSyncStore) DeleteOps(ids []string) error { return s.append(journalRec{Delete: ids}) }

// SaveInvite implements devicesync.Store.
func (s *FileSyncStore) SaveInvite(rec devicesync.InviteRecord) error {
	return s.append(journalRec{Invite: &rec})
}

// LoadInvite implements devicesync.Store.
func (s *FileSyncStore) LoadInvite(id string) (devicesync.InviteRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.invites[id]
	if !ok {
		return r, devicesync.ErrNotFound
	}
	return r, nil
}
