package storage

import (
	"database/sql"
	"fmt"

	"github.com/furudesk/furudesk/engine"
)

// MaxOpsPerTransition bounds the op log entries one Commit may carry (the
// sync batch size).
const MaxOpsPerTransition = 1000

// Transition is everything one actor transition changed durably. Nil or
// empty fields are left as they are.
type Transition struct {
	// Checkpoint replaces the stored checkpoint of Checkpoint.Group. It may
	// not move the claim or the reservations backwards (ErrBackwards).
	Checkpoint *engine.Checkpoint
	// Queue replaces the whole queue and its transport.
	Queue *QueueState
	// Transport replaces only the transport (position, modes) and must fit
	// the stored queue. Set Queue or Transport, not both.
	Transport *Transport
	// Ops are appended to the operation log; ids already stored are skipped.
	Ops []Op
	// Devices are upserted, e.g. the effect of device_trusted/revoked ops.
	Devices []Device
	// NoSync commits without waiting for the disk (synchronous=NORMAL): a
	// crash of the process (kill -9) keeps it, a power cut may lose it.
	// Only a Transport may be written this way: the playing position the
	// actor saves every few seconds, so a restart resumes close to where
	// it was without a disk flush each time. Everything that orders
	// decisions (checkpoint, queue, ops) is always flushed.
	NoSync bool
}

// Empty reports whether t changes nothing.
func (t Transition) Empty() bool {
	return t.Checkpoint == nil && t.Queue == nil && t.Transport == nil && len(t.Ops) == 0 && len(t.Devices) == 0
}

func (t Transition) validate() error {
	if t.Checkpoint != nil {
		if err := validateCheckpoint(*t.Checkpoint); err != nil {
			return err
		}
	}
	if t.Queue != nil && t.Transport != nil {
		return fmt.Errorf("%w: transition sets both Queue and Transport", ErrInvalid)
	}
	if t.Queue != nil {
		if err := t.Queue.validate(); err != nil {
			return err
		}
	}
	if t.Transport != nil {
		// The index is checked against the stored queue inside the transaction.
		if err := t.Transport.validateModes(); err != nil {
			return err
		}
	}
	if t.NoSync && (t.Checkpoint != nil || t.Queue != nil || len(t.Ops) > 0 || len(t.Devices) > 0) {
		return fmt.Errorf("%w: only a transport may be committed without a flush", ErrInvalid)
	}
	if len(t.Ops) > MaxOpsPerTransition {
		return fmt.Errorf("%w: %d ops in one transition, want at most %d", ErrInvalid, len(t.Ops), MaxOpsPerTransition)
	}
	for _, op := range t.Ops {
		if err := op.validate(); err != nil {
			return err
		}
	}
	if len(t.Devices) > MaxDevices {
		return fmt.Errorf("%w: %d devices in one transition, want at most %d", ErrInvalid, len(t.Devices), MaxDevices)
	}
	for _, d := range t.Devices {
		if err := d.validate(); err != nil {
			return err
		}
	}
	return nil
}

// Commit writes everything t changed in one transaction with
// synchronous=FULL: when it returns nil all of it is on disk, otherwise
// none of it is. The actor calls it before any effect of the transition;
// on error it restores its previous engine and executes nothing. An empty
// transition writes nothing and succeeds.
func (s *Store) Commit(t Transition) error {
	if t.Empty() {
		return nil
	}
	if err := t.validate(); err != nil {
		return err
	}
	fault := s.takeFault()
	write := s.write
	if t.NoSync {
		write = s.writeNoSync
	}
	return write(func(tx *sql.Tx) error {
		if t.Checkpoint != nil {
			if err := writeCheckpoint(tx, *t.Checkpoint); err != nil {
				return err
			}
		}
		if t.Queue != nil {
			if err := writeQueue(tx, *t.Queue); err != nil {
				return err
			}
		}
		if t.Transport != nil {
			n, err := queueLen(tx)
			if err != nil {
				return err
			}
			if err := t.Transport.validate(n); err != nil {
				return err
			}
			if err := writeTransport(tx, *t.Transport); err != nil {
				return err
			}
		}
		if _, err := insertOps(tx, t.Ops); err != nil {
			return err
		}
		for _, d := range t.Devices {
			if err := putDevice(tx, d); err != nil {
				return err
			}
		}
		if fault != nil {
			// Every write above happened; the error rolls all of it back.
			if err := fault(t); err != nil {
				return fmt.Errorf("storage: commit: %w", err)
			}
		}
		return nil
	})
}

// SetCommitFault installs f, which every following Commit calls inside its
// transaction after all its writes and before COMMIT. A non-nil error from
// f rolls the transaction back and Commit returns it (wrapped). nil removes
// the fault. For tests, including the app's persistence-failure tests.
func (s *Store) SetCommitFault(f func(Transition) error) {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	s.fault = f
}

// FailNextCommit makes the next non-empty Commit fail with err (ErrInjected
// when err is nil) after doing all its writes, which are rolled back.
// Calls queue up: two calls fail the next two commits. For tests.
func (s *Store) FailNextCommit(err error) {
	if err == nil {
		err = ErrInjected
	}
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	s.failNext = append(s.failNext, err)
}

func (s *Store) takeFault() func(Transition) error {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	if len(s.failNext) > 0 {
		err := s.failNext[0]
		s.failNext = s.failNext[1:]
		return func(Transition) error { return err }
	}
	return s.fault
}
