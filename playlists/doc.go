// Package playlists turns the group's playlist, like and listening ops into
// playlists, likes and play counts. It is pure: no I/O, no clock, no
// randomness; the caller feeds ops and reads views.
//
// Every device of a group holds the same operation log (devicesync carries
// it), but receives its ops in its own order, some twice, some never when
// a device forgot them (see Obsolete). State is built so that the views
// depend only on the set of ops applied, never on their order or
// repetition:
//
//   - A playlist's id is the id of the op that created it. Its name is a
//     last-writer-wins register over (time, op id) of the create and
//     rename ops. One delete op deletes it for good: later or concurrent
//     edits of a deleted playlist are ignored.
//   - An entry's id is its add op's id and its index in that op
//     ("origin:seq/3"), so an op applied twice adds nothing. Entries refer
//     to tracks by content id and carry the title, artists, album and
//     duration to show when no device holds the file.
//   - Entries are ordered by position key (see KeyBetween), ties by entry
//     id. A move sets an entry's key: last writer wins. A remove is final
//     for that entry; the same track added again is a new entry.
//   - Likes are a last-writer-wins register per track. Listens are, per
//     device and track, the device's own running play count: the group's
//     count is the sum over devices, the last play the newest of theirs.
//
// The caller's duties, in order:
//
//  1. On startup, Apply every op of the log (any order), then each op the
//     log adds, from any device, this device's own included.
//  2. To edit, Plan* returns the ops' bodies (Edit); append each to the log
//     in order, then Apply the op the log returns, before planning again.
//  3. From time to time, give the ids Obsolete returns to the log to
//     forget, and tell Forget which ones went. The log must keep each
//     device's newest op (its version vector) and every op of a kind it
//     does not hand to this package.
//  4. When the device changes group, build a new State from the new log
//     and append CarryOver's edits, so nothing of the old group is lost.
//
// State is not safe for concurrent use.
package playlists
