package app

import (
	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/library"
)

// settingReplayGain is the settings key of this device's ReplayGain mode.
// It is a setting of the device (its speakers, its room), never synced.
const settingReplayGain = "replaygain"

// replayGain is the actor's ReplayGain state: the mode in effect.
type replayGain struct {
	mode library.GainMode
}

// loadReplayGain reads the stored mode; a broken value is reported and the
// default used.
func (a *actor) loadReplayGain() {
	a.rg.mode = library.DefaultGainMode
	v, ok, err := a.store.Setting(settingReplayGain)
	if err != nil || !ok {
		return
	}
	m, err := library.ParseGainMode(v)
	if err != nil {
		a.notice("error", "The stored ReplayGain setting is invalid, using "+string(library.DefaultGainMode)+": "+plain(err.Error()))
		return
	}
	a.rg.mode = m
}

type replayGainIntent struct {
	mode  library.GainMode
	reply chan error
}

func (i replayGainIntent) handle(a *actor) { a.answer(i.reply, a.setReplayGain(i.mode)) }

// setReplayGain stores mode and applies it to the tracks in the output at
// once.
func (a *actor) setReplayGain(m library.GainMode) error {
	if err := a.store.SetSetting(settingReplayGain, string(m)); err != nil {
		return err
	}
	a.rg.mode = m
	if a.out == nil {
		return nil
	}
	for _, l := range []struct {
		t   audio.Track
		cid string
		idx int
	}{{a.cur, a.curCID, a.curIdx}, {a.next, a.nextCID, a.nextIdx}} {
		if l.t.Seq == 0 {
			continue
		}
		if t, err := a.store.TrackByContentID(l.cid); err == nil {
			a.out.SetGain(l.t, t.Gain.DB(m, inAlbum(a.st, l.idx)))
		}
	}
	return nil
}

// source is what the output plays for queue entry idx of st, found on
// this device as t: its file, at the gain of this device's ReplayGain mode.
func (a *actor) source(st PlayerState, idx int, t library.Track) audio.Source {
	src := audio.FileSource(st.Queue[idx].ContentID, t.Path)
	src.GainDB = t.Gain.DB(a.rg.mode, inAlbum(st, idx))
	return src
}

// inAlbum reports whether queue entry idx plays as part of its album, the
// case where auto mode uses the album gain: the queue plays in order
// (no shuffle) and the entry before or after it is from the same album.
func inAlbum(st PlayerState, idx int) bool {
	if st.Shuffle || idx < 0 || idx >= len(st.Queue) || st.Queue[idx].Album == "" {
		return false
	}
	album := st.Queue[idx].Album
	return idx > 0 && st.Queue[idx-1].Album == album || idx+1 < len(st.Queue) && st.Queue[idx+1].Album == album
}

// SetReplayGain sets this device's ReplayGain mode ("off", "track",
// "album" or "auto"); it applies to the track playing at once.
func (a *App) SetReplayGain(mode string) error {
	m, err := library.ParseGainMode(mode)
	if err != nil {
		return userErr(ErrBadArgument, "%s", plain(err.Error()))
	}
	r := make(chan error, 1)
	return a.call(replayGainIntent{mode: m, reply: r}, r)
}
