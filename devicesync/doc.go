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
//  4. A revoked device is disconnected at once and refused afterwards, also
//     after a restart, because the revocation is in the persisted log.
//
// The caller's duties:
//
//  1. Create one ed25519 key per installation, persist it, and pass it in
//     Config.Key. Pass a Store that persists the group and its operations.
//  2. Call Start once, read Events until Close, and call Close on shutdown.
//  3. Publish every changed snapshot with PublishSnapshot; send controls with
//     SendCommand. Both return once the message is queued, not delivered.
//  4. Show PairingRequest events to the user and answer them with Accept or
//     Deny. Devices() and its Online flags are presentation only and must
//     never feed ownership decisions.
package devicesync
