// Package devicesync connects a user's furudesk devices directly, with no
// server and no account: an authenticated JSON-lines transport (TLS 1.3,
// ALPN furumi/sync/2), pairing by invite, the trusted group as an operation
// log, and discovery.
//
// devicesync never decides who owns the output. It carries snapshots and
// stamped playback commands between trusted devices and hands them to the
// app as typed events; the engine decides. What it guarantees to the app:
//
//  1. Every event comes from an authenticated member of the current group:
//     the TLS peer's ed25519 key derives its DeviceID, and a snapshot whose
//     coordination device_id is not that sender is dropped and counted.
//  2. Snapshots and commands without a version-1 coordination envelope are
//     legacy: they are counted and never delivered.
//  3. A playback command is delivered at most once per process, only to its
//     target, and only while it is younger than five minutes.
//  4. A revoked device is disconnected at once and refused as a member
//     afterwards, also after a restart, because the revocation is in the
//     persisted log; like any device it may ask to pair, and the user may
//     admit it again (a later admission wins).
//  5. The group's history is signed end to end: every op is signed by its
//     origin and checked, on receipt and so before it is relayed, against
//     the key the group holds for that origin (opsign.go); membership is
//     derived only from such ops (trust.go), starting at a root the group
//     id commits to. Forged, unsigned, unknown-origin and replayed ops are
//     dropped and counted (Counters). A stored history from before ops
//     were signed is left: the node founds a new group and says so with a
//     Notice event (loadGroupLocked).
//  6. Strangers cannot crowd members out: outsider connections have a
//     fixed pairing window and a small budget of their own, bounded per
//     address; every peer is read within a message rate and byte budgets;
//     addresses that break a rule are refused for a backoff (gate.go).
//
// The caller's duties:
//
//  1. Create one ed25519 key per installation, persist it, and pass it in
//     Config.Key. Pass a Store that persists the group and its operations.
//  2. Call Start once, read Events until Close, and call Close on shutdown.
//  3. Publish every changed snapshot with PublishSnapshot; send controls with
//     SendCommand. Both return once the message is queued, not delivered.
//  4. Show PairingRequest events to the user, with the requester's key
//     Fingerprint next to its name, and answer them with Accept or Deny;
//     show this device's own fingerprint (Devices()[0].Fingerprint) where
//     the user joins another group. Devices() and its Online flags are
//     presentation only and must never feed ownership decisions.
//  5. Show Notice events to the user.
package devicesync
