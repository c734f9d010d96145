// Package storage owns furudesk's one SQLite database (modernc.org/sqlite,
// pure Go) in the data dir. Nothing else opens it.
//
// What it keeps: the device identity, settings (library folders, the
// `playback` config as the JSON of engine.Config, a small key/value store),
// the coordination checkpoint per group, the queue and transport state, the
// library catalog with full-text search, trusted devices, the operation log,
// pairing invites and pending pairing requests.
//
// The caller's duties:
//
//  1. Open the data dir once per process. Open takes an exclusive OS lock;
//     a second process fails at once with "another furudesk is using <dir>".
//     A corrupt or unreadable database, or one written by a newer furudesk,
//     is refused and left untouched: do not start on it, and never delete it
//     on the user's behalf.
//  2. Persist every transition's durable changes with one Commit call
//     (checkpoint, queue/transport, op log entries, device records) BEFORE
//     any effect of that transition: audio, gossip, UI. Commit is one
//     transaction with synchronous=FULL: all or nothing. When it fails,
//     restore the engine cloned before the transition and execute nothing.
//  3. Restore a checkpoint only for its own group: LoadCheckpoint(group).
//  4. Keep the group's operation log with ResetGroup (a new group, an
//     empty log, the identity's group: one transaction), AppendOps,
//     DeleteOps, and load it at startup with GroupLog. Invites whose
//     secret the caller hashes itself use SaveInvite and LoadInvite.
//  5. Close the Store on exit; the lock is released with it (and by the OS
//     if the process dies).
//
// Every method is safe for concurrent use, but the design expects one
// writer: the app actor.
//
// Key generation is the caller's: CreateIdentity stores the ed25519 key it
// is given, so the device id derivation stays in one place (devicesync).
package storage
