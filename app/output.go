package app

// The local output as the actor drives it: what a transition plays, pauses
// or stops after its commit, the track prepared to follow without a gap,
// the tracks this device has no file for, and the output's events.

import (
	"fmt"
	"slices"
	"time"

	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/engine"
)

// plan decides, before the commit, what the output must do after it, so
// any state it changes (skipping tracks this device lacks) is committed
// with the transition. The returned effect runs after the commit.
func (a *actor) plan(tx *txn) func() {
	render := a.e.MayRender() && !a.holding()
	takeover := render && !a.rendering
	if !render {
		if a.rendering && a.st.Term.Owner == a.self {
			// Keep the exact position the output stopped at (unless the
			// new owner's state replaced ours already): the device that
			// took over may be behind it, and should this one take over
			// again it resumes from there.
			a.anchor()
			tx.persistPos = true
		}
		return func() {
			if a.rendering || a.cur.Seq != 0 {
				a.stopAudio()
			}
			a.rendering = false
		}
	}
	if takeover {
		// The output does not render st yet (takeover): where the old
		// owner was, as this device last knew it (queue rule P5).
		a.pos.TakeOver(&a.st, a.clock.Now(), a.opts.HeartbeatEvery, tx.ownerLive)
		if a.st.Term != a.e.Claim() {
			a.st.ResetAcks() // what it applied under its claim stays acked (queue rule C6)
		}
		a.st.Term = a.e.Claim()
		tx.publish = true
	}
	ch := tx.ch
	wantTrack := takeover || ch.Track || (a.st.Playing && a.cur.Seq == 0)
	if wantTrack && a.st.Playing {
		a.skipMissing(tx)
	}
	if ch.Track || ch.Seek || ch.Stopped {
		a.outBehind = true // until the effect: the commit and the snapshot say st
	}
	if a.out == nil {
		return func() { a.rendering = a.e.MayRender() }
	}
	st := a.st.Clone()
	fence := tx.fence
	return func() {
		a.outBehind = false
		// The queue edit this transition made moved the entries the
		// output plays and prepared: they keep playing at their new
		// indexes.
		if ch.Reindex != nil {
			a.curIdx, a.nextIdx = remapIndex(ch.Reindex, a.curIdx), remapIndex(ch.Reindex, a.nextIdx)
		}
		// Rechecked right before the effect reaches the output.
		if !a.e.MayRender() {
			a.stopAudio()
			a.rendering = false
			return
		}
		if fence != nil && !a.e.Fence(*fence) {
			return
		}
		a.rendering = true
		if takeover || ch.Volume {
			a.out.SetVolume(st.Volume)
		}
		e, ok := st.Current()
		switch {
		case !ok || ch.Stopped:
			a.stopAudio()
		case st.Playing && (wantTrack || a.curCID != e.ContentID || a.curIdx != st.Index):
			a.playEntry(st, e)
		case st.Playing:
			if ch.Seek {
				a.out.Seek(time.Duration(st.PositionMS) * time.Millisecond)
			}
			if a.paused {
				a.out.Resume()
				a.paused = false
			}
		default: // paused
			if a.cur.Seq != 0 && (ch.Track || a.curCID != e.ContentID) {
				a.stopAudio()
			}
			if a.cur.Seq != 0 {
				if ch.Seek {
					a.out.Seek(time.Duration(st.PositionMS) * time.Millisecond)
				}
				if !a.paused {
					a.out.Pause()
					a.paused = true
				}
			}
		}
		a.syncPrepared(st)
	}
}

// remapIndex is where queue index i went in an edit (-1: removed, or not
// an index).
func remapIndex(reindex []int, i int) int {
	if i < 0 || i >= len(reindex) {
		return -1
	}
	return reindex[i]
}

func (a *actor) playEntry(st PlayerState, e Entry) {
	src, kind, ok := a.sourceFor(st, st.Index)
	if !ok {
		a.stopAudio()
		return
	}
	a.cur = a.out.Play(src, time.Duration(st.PositionMS)*time.Millisecond)
	a.strm.curSource = kind
	a.curCID, a.curIdx, a.paused = e.ContentID, st.Index, false
	a.curStarted, a.curEnded = false, false
	a.next, a.nextCID, a.nextIdx, a.nextFailed = audio.Track{}, "", -1, "" // Play dropped it
}

func (a *actor) stopAudio() {
	if a.out != nil && a.cur.Seq != 0 {
		a.out.Stop()
	}
	a.cur, a.curCID, a.curIdx, a.paused = audio.Track{}, "", -1, false
	a.curStarted, a.curEnded = false, false
	a.next, a.nextCID, a.nextIdx = audio.Track{}, "", -1 // Stop dropped it
}

func nextKey(cid string, idx int) string { return fmt.Sprintf("%d:%s", idx, cid) }

// syncPrepared makes the output's prepared track the queue entry that
// follows the current one in st (play order, repeat mode), replacing or
// dropping a prepared track that no longer fits. It prepares only once the
// current track started, so a queue changed in between prepares once.
func (a *actor) syncPrepared(st PlayerState) {
	if a.out == nil || a.cur.Seq == 0 || !a.curStarted || a.curEnded {
		return
	}
	defer a.pinPlaying()
	i, ok := st.Following()
	prepared := ok && a.next.Seq != 0 && a.nextCID == st.Queue[i].ContentID && a.nextIdx == i
	if prepared && a.strm.nextSource == SourceLocal && a.nextLib == a.libRun.version {
		// Prepared from a file of this library, which has not changed
		// since: no need to look it up again at every tick of a pause.
		return
	}
	var src audio.Source
	var kind string
	if ok {
		src, kind, ok = a.sourceFor(st, i)
		ok = ok && a.nextFailed != nextKey(st.Queue[i].ContentID, i)
	}
	if !ok {
		if a.next.Seq != 0 {
			a.out.ClearNext()
			a.next, a.nextCID, a.nextIdx = audio.Track{}, "", -1
		}
		return
	}
	if prepared {
		return
	}
	cid := st.Queue[i].ContentID
	a.next = a.out.PrepareNext(src)
	a.nextCID, a.nextIdx, a.nextPath, a.nextLib = cid, i, src.Path, a.libRun.version
	a.strm.nextSource = kind
}

// skipMissing runs when this device is about to play the current entry.
// When it can play it neither from a file of its own nor from the group
// (cached, or an online device that has it), it moves forward in play
// order to the next entry it can play. When it can play none of the
// remaining ones it keeps the index and the position (the group's
// listening position must survive a device that lacks the files) and
// pauses. Either way every device is told.
func (a *actor) skipMissing(tx *txn) {
	e, ok := a.st.Current()
	if !ok || a.canPlay(e.ContentID) {
		return
	}
	probe := a.st.Clone()
	for range len(probe.Queue) - 1 {
		i, ok := probe.After()
		if !ok || i == a.st.Index {
			break
		}
		probe.MoveTo(i)
		if a.canPlay(probe.Queue[i].ContentID) {
			a.st.Index, a.st.Seed, a.st.Order = i, probe.Seed, slices.Clone(probe.Order)
			a.st.PositionMS = 0
			a.pos.Moved(a.clock.Now())
			tx.ch.Track = true
			a.shareNotice(tx, fmt.Sprintf("%s has no file for %q and no online device has it: skipped to %q",
				a.deviceName(a.self), e.Name(), probe.Queue[i].Name()), false)
			return
		}
	}
	// PositionMS is current here: anchored by the takeover, or set by the
	// control or the track change that led here.
	a.st.Playing = false
	a.pos.Moved(a.clock.Now())
	tx.ch.Stopped, tx.persistPos = true, true
	a.shareNotice(tx, fmt.Sprintf("%s has no file for %q or the tracks after it, and no online device has them: paused",
		a.deviceName(a.self), e.Name()), true)
}

func (a *actor) hasFile(contentID string) bool {
	_, err := a.store.TrackByContentID(contentID)
	return err == nil
}

// shareNotice tells the user here and, through the snapshot, on every
// device.
// A paused one (paused) lasts until the music plays again: it is withdrawn
// then, and the same condition found again (a handoff repeating what its
// announcement started) keeps its one notice.
func (a *actor) shareNotice(tx *txn, text string, paused bool) {
	if !paused || text != a.sharedText || len(a.condNotices) == 0 {
		a.notice("error", text)
		if paused {
			a.sharedText = text
			a.condNotices = append(a.condNotices, a.noticeID)
		}
	}
	a.st.Notice = &SharedNotice{ID: a.noticeID, Text: text}
	if paused {
		a.st.Notice.ID = a.condNotices[len(a.condNotices)-1]
	}
	a.shownFrom = sharedKey(a.self, a.st.Notice)
	tx.publish = true
}

func sharedKey(from engine.DeviceID, n *SharedNotice) string {
	return fmt.Sprintf("%s/%d/%s", from, n.ID, n.Text)
}

func (a *actor) audioEvent(ev audio.Event) {
	switch ev := ev.(type) {
	case audio.Relayed:
		_ = a.run(func(*txn) error {
			o := engine.Output{Available: ev.Available, Playing: ev.Playing}
			if a.e.OutputReport(ev.Source, o) {
				a.lastOut, a.lastHB, a.heartbeated = o, a.clock.Now(), true
			}
			return nil
		})
	case audio.Activity, audio.Availability:
		_ = a.run(func(*txn) error {
			a.heartbeat()
			return nil
		})
		if av, ok := ev.(audio.Availability); ok {
			switch {
			case !av.Available && av.Err != nil && a.outputNotice == 0:
				a.log.Warn("audio output unavailable", "err", av.Err)
				a.notice("error", "No sound device is working: "+audio.Reason(av.Err))
				a.outputNotice = a.noticeID
			case av.Available && a.outputNotice != 0:
				a.notices = slices.DeleteFunc(a.notices, func(n Notice) bool { return n.ID == a.outputNotice })
				a.outputNotice = 0
				a.notice("info", "Audio output is working again")
			}
		}
	case audio.Started:
		switch {
		case ev.Track == a.cur && a.cur.Seq != 0:
			a.curStarted = true
			if a.e.MayRender() {
				a.syncPrepared(a.st)
			}
		case ev.Track == a.next && a.next.Seq != 0:
			a.nextStarted(ev)
		}
	case audio.Finished:
		if ev.Track != a.cur || a.cur.Seq == 0 {
			return
		}
		if a.next.Seq != 0 {
			a.curEnded = true // the prepared track follows: its Started moves the queue
			return
		}
		a.trackEnded(-1)
	case audio.DecodeError:
		switch {
		case ev.Track == a.cur && a.cur.Seq != 0 && a.streamLost(ev.Err):
		case ev.Track == a.cur && a.cur.Seq != 0:
			e, _ := a.st.Current()
			a.shareError(fmt.Sprintf("Could not play %q: %v", e.Title, ev.Err))
			if a.next.Seq != 0 {
				a.curEnded = true // the output moves on to the prepared track
				return
			}
			a.trackEnded(-1)
		case ev.Track == a.next && a.next.Seq != 0 && lostStream(ev.Err):
			// Its holder went: when the track comes, it plays from
			// another one or says why it cannot.
			a.next, a.nextCID, a.nextIdx = audio.Track{}, "", -1
			if a.curEnded {
				a.trackEnded(-1)
			}
		case ev.Track == a.next && a.next.Seq != 0:
			// Not prepared again; playing it later reports the error.
			a.nextFailed = nextKey(a.nextCID, a.nextIdx)
			idx := a.nextIdx
			a.next, a.nextCID, a.nextIdx = audio.Track{}, "", -1
			if !a.curEnded {
				return
			}
			// The output went silent after the current track: go on
			// after the one that failed.
			if idx >= 0 && idx < len(a.st.Queue) {
				a.shareError(fmt.Sprintf("Could not play %q: %v", a.st.Queue[idx].Title, ev.Err))
			}
			a.trackEnded(idx)
		}
	case audio.Damaged:
		// The track plays on: what could be decoded is heard. Said
		// once a play, here and on every device.
		title := ""
		switch {
		case ev.Track == a.cur && a.cur.Seq != 0:
			e, _ := a.st.Current()
			title = e.Title
		case ev.Track == a.next && a.next.Seq != 0 && a.nextIdx >= 0 && a.nextIdx < len(a.st.Queue):
			title = a.st.Queue[a.nextIdx].Title
		default:
			return // dropped meanwhile
		}
		a.log.Warn("damaged audio", "title", title, "skipped", ev.Err.Skipped, "played", ev.Err.Played, "declared", ev.Err.Declared)
		a.shareError(fmt.Sprintf("%q has %v", title, ev.Err))
	}
}

// shareError tells of a track that could not play, or played damaged,
// here and, through the snapshot, on every device.
func (a *actor) shareError(text string) {
	_ = a.run(func(tx *txn) error {
		a.shareNotice(tx, text, false)
		return nil
	})
}

// nextStarted moves the queue on when the output ran into the prepared
// track without a gap: the device consumed its first frame.
func (a *actor) nextStarted(ev audio.Started) {
	a.cur, a.curCID, a.curIdx = a.next, a.nextCID, a.nextIdx
	a.strm.curSource = a.strm.nextSource
	a.curStarted, a.curEnded, a.paused = true, false, false
	a.next, a.nextCID, a.nextIdx, a.nextFailed = audio.Track{}, "", -1, ""
	_ = a.run(func(tx *txn) error {
		if !a.e.MayRender() {
			return nil
		}
		if a.curIdx >= 0 && a.curIdx < len(a.st.Queue) && a.st.Queue[a.curIdx].ContentID == a.curCID {
			if i, ok := a.st.Following(); ok && i == a.curIdx && a.st.Repeat != "one" {
				a.st.MoveTo(i) // a new cycle's order when it wrapped around
			} else {
				a.st.Index = a.curIdx
			}
		}
		a.st.PositionMS = ev.At.Milliseconds()
		a.pos.Moved(a.clock.Now())
		a.st.Playing = true
		tx.publish, tx.persistPos = true, true
		return nil
	})
}

// trackEnded moves the owner's queue on after a finished (or failed) track:
// the current one, or the queue entry at index ended when it is >= 0.
func (a *actor) trackEnded(ended int) {
	_ = a.run(func(tx *txn) error {
		if !a.e.MayRender() {
			return nil
		}
		if ended >= 0 && ended < len(a.st.Queue) {
			a.st.Index = ended
		}
		a.cur = audio.Track{}
		more := a.st.Advance()
		a.pos.Moved(a.clock.Now())
		tx.publish, tx.persistPos = true, true
		if more {
			tx.ch.Track = true
		} else {
			tx.ch.Stopped = true
		}
		return nil
	})
}
