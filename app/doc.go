// Package app is the coordinator of one furudesk device: a single goroutine
// (the actor) that owns the playback coordination engine and all mutable
// player state, and drives storage, audio, library and devicesync.
//
// The actor wires; the rules live in pure packages it calls: engine/ (who
// owns the output), queue/ (the shared queue, its controls and the
// position rules), playlists/ (playlists, likes, plays), grouplib/ (the
// group's library). Every change is one transition (actor.run): mutate,
// persist in one commit, publish, apply the audio effects after rechecking
// fences. Status is the one view every front end renders (ui/, mpris/,
// web/, ctl); front ends send typed intents through App's methods.
package app
