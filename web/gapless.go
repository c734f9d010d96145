package web

import (
	"encoding/json"
	"fmt"

	"github.com/furudesk/furudesk/audio"
)

// Gapless in the browser: PrepareNext sends the page the next track ahead
// ("next"); the page loads it in a second audio element and starts it
// when the current one ends (output.js, outPrepare/outAdvance). Its
// "started" report for the prepared track makes it the current one here,
// so the app sees Finished for the old track, then Started for the new,
// as from a local output.

// PrepareNext tells the page to load src ahead, to follow the current
// track without a gap.
func (o *BrowserOutput) PrepareNext(src audio.Source) audio.Track {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cur.Seq == 0 {
		return audio.Track{}
	}
	o.seq++
	o.next, o.nextSrc = audio.Track{ID: src.ID, Seq: o.seq}, src
	o.tell(outMsg{Cmd: "next", Content: src.ID, Track: o.seq, URL: "/media/" + src.ID + fmt.Sprintf("?t=%d", o.seq),
		Dec: decURL(src.ID, o.seq), Mime: mimeOf(src.Path), Title: src.Name, Gain: src.GainDB})
	return o.next
}

// ClearNext tells the page to drop the track it prepared.
func (o *BrowserOutput) ClearNext() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.next.Seq == 0 {
		return
	}
	o.next, o.nextSrc = audio.Track{}, audio.Source{}
	o.tell(outMsg{Cmd: "clearnext"})
}

// promoteNextLocked makes the prepared track the current one: the page
// reported that it plays it. A page that comes back is told to play it.
func (o *BrowserOutput) promoteNextLocked() {
	o.cur, o.curSrc, o.paused = o.next, o.nextSrc, false
	o.next, o.nextSrc = audio.Track{}, audio.Source{}
	o.pos, o.posAt = 0, o.now()
	m := outMsg{T: "out", Cmd: "play", Content: o.cur.ID, Track: o.cur.Seq, URL: "/media/" + o.cur.ID + fmt.Sprintf("?t=%d", o.cur.Seq),
		Dec: decURL(o.cur.ID, o.cur.Seq), Mime: mimeOf(o.curSrc.Path), Title: o.curSrc.Name, Gain: o.curSrc.GainDB, Volume: o.volume}
	o.lastCmd, _ = json.Marshal(m)
}
