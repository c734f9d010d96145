// Package engine is the playback coordination state machine of furudesk: it
// decides which device of a trusted group owns the output, when this device
// may render audio, and which stamped commands it may execute. It implements
// spec/playback-coordination.md as described by design/engine.md.
//
// The engine has no I/O. It imports only the standard library, never reads a
// clock other than the Clock it is given, never sleeps and never starts a
// goroutine; the same inputs in the same order give the same outputs.
// Everything it needs arrives as a method call; everything it decides leaves
// as a return value, a query, or a Ready.
//
// # Driver contract
//
// One goroutine (the app actor) owns the Engine. It drives it like this:
//
//  1. Start: Restore the persisted Checkpoint of the current group (or New
//     when there is none) with this device's Config and a monotonic Clock.
//     Call RequestStartup once per application launch.
//
//  2. Feed inputs as they happen: Heartbeat for every real report of the
//     local output (OutputReport for a gateway), Announce for every
//     authenticated peer envelope, Receive for every stamped command, Tick
//     on a ticker (e.g. every 250 ms), Transfer for an explicit selection,
//     Stamp for an ordinary control. Before an input whose checkpoint write
//     may fail, keep prev := e.Clone().
//
//     Announce's from is the device the envelope is from: the
//     authenticated peer, or, for an envelope another member relayed, the
//     device whose signature it carries, verified against the key the
//     group holds for it. A relayed envelope signed by the owner is the
//     owner's own report; its heartbeat id makes a duplicate or a replay
//     renew nothing (rule 4). An envelope that reached this device late
//     (it waited at a relay) goes to AnnounceAged with its age, so it
//     renews the owner as of when it was made. An envelope relayed
//     unsigned is dropped before it reaches the engine.
//
//     When the ticker fires much later than its interval (the process was
//     stopped, starved or napped), call Resumed with the time this device
//     was away, then Tick: liveness counts only time this device was
//     listening. A plain Tick past a deadline still fails over.
//
//  3. Ready: if e.HasReady(), take rd := e.Ready(). Calling Ready again
//     before Advance panics.
//
//  4. Persist: if rd.PersistCheckpoint, write rd.Checkpoint together with the
//     transition's other durable changes, in one transaction. If that fails,
//     replace the engine with prev, execute nothing, send nothing, and stop
//     here (no Advance).
//
//  5. Publish: if rd.Gossip, send rd.Announcement to every peer; then send
//     the stamped commands and handoffs this transition created. Nothing
//     (announcement, stamp, heartbeat id) is published before step 4.
//
//  6. Apply: if rd.RenderChanged and !rd.MayRender, stop audio at once; if
//     rd.MayRender turned true, resume the distributed queue. Execute each
//     Accepted command only if Fence(stamp) is still true right before its
//     effect reaches the output. Show rd.Owner, OwnerLive and OwnerOutput.
//
//  7. Advance: call e.Advance(), then wait for the next input (step 2).
//
// Heartbeat ids and command sequences are reserved in blocks of ReserveBlock
// in the checkpoint, so most heartbeats and all ticks need no write.
//
// # Example
//
//	prev := e.Clone()
//	e.Announce(peer, env)           // or Heartbeat, Tick, Receive, ...
//	if e.HasReady() {
//		rd := e.Ready()
//		if rd.PersistCheckpoint {
//			if err := store.SaveCheckpoint(rd.Checkpoint); err != nil {
//				e = prev // nothing was executed or sent
//				return err
//			}
//		}
//		if rd.Gossip {
//			transport.Broadcast(rd.Announcement)
//		}
//		if rd.RenderChanged {
//			player.SetRender(rd.MayRender) // false: stop at once
//		}
//		e.Advance()
//	}
//
// A command received from a peer:
//
//	if e.Receive(from, *cmd.Stamp, cmd.Handoff) == engine.Accepted {
//		// persist + publish the Ready first (the stamp may have taught a
//		// greater claim), then:
//		if e.Fence(*cmd.Stamp) {
//			player.Apply(cmd.Body)
//		}
//	}
package engine
