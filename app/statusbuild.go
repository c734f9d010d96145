package app

import (
	"reflect"
	"slices"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/portmap"
)

// PositionSlack is how far the position of a playing status may be from
// where the last published one, extrapolated, says it is without a new
// publication: front ends extrapolate the position themselves.
const PositionSlack = 250 * time.Millisecond

// shown is the last status handed to the subscribers, and when.
type shown struct {
	st  Status
	at  time.Duration
	has bool
	// The path of the current track as last looked up, by content id and
	// library version: the lookup reads the database.
	pathCID string
	pathVer uint64
	path    string
}

// publishStatus derives Status from the actor's state. The newest one is
// always what App.Status returns; the subscribers (the window, MPRIS, the
// tray) are woken only when it differs from the last one they got in
// more than the position moving on as they extrapolate it and the count
// of the owner's snapshots (sameStatus): an input that changed nothing
// wakes nobody. It is never stored.
func (a *actor) publishStatus() {
	s := a.buildStatus()
	now := a.clock.Now()
	notify := !a.shown.has || !sameStatus(a.shown.st, s, now-a.shown.at)
	if notify {
		a.shown.st, a.shown.at, a.shown.has = s, now, true
	}
	a.app.setStatus(s, notify)
}

// buildStatus is the status now. Its slices are the last published
// status's where their contents did not change, so a status that changed
// nothing allocates little and compares fast.
func (a *actor) buildStatus() Status {
	a.observeOwner()
	gone := a.ownerGone()
	switch rendering := a.renderingNow(); {
	case rendering && a.renderSince.IsZero():
		a.renderSince = time.Now() // presentation only: never feeds the engine
	case !rendering:
		a.renderSince = time.Time{}
	}
	prev := &a.shown.st
	s := Status{
		DeviceID:       a.self,
		DeviceName:     a.name,
		GroupID:        a.group,
		Claim:          a.e.Claim(),
		Owner:          a.e.Owner(),
		Rendering:      !a.renderSince.IsZero(),
		RenderingSince: a.renderSince,
		StartupPending: a.e.StartupPending(),
		Passive:        a.passive,
		Config:         a.cfg,
		ReplayGain:     a.rg.mode,
		Playing:        a.st.Playing && !gone,
		OwnerGone:      gone,
		OwnerHeard:     a.heardCount,
		PositionMS:     a.posNow(),
		Jumps:          a.st.Jumps,
		QueueLen:       len(a.st.Queue),
		Index:          a.st.Index,
		Volume:         a.st.Volume,
		Shuffle:        a.st.Shuffle,
		Order:          reuse(prev.Order, a.st.Order),
		Repeat:         a.st.Repeat,
		Scan:           a.libRun.scan,
		LibraryVersion: a.libRun.version,
		PlacesVersion:  a.strm.places,
		Folders:        reuse(prev.Folders, a.folders),
		Notices:        reuse(prev.Notices, a.notices),
	}
	if f := a.libRun.scan.Failed; slices.Equal(f, prev.Scan.Failed) {
		s.Scan.Failed = prev.Scan.Failed
	} else {
		s.Scan.Failed = slices.Clone(f)
	}
	if a.st.Notice != nil {
		s.OwnerNotice = a.st.Notice.Text
	}
	if gl := a.app.gl; gl != nil {
		s.LibraryVersion += gl.Version()
		a.noteLibrary()
	}
	a.statusSource(&s)
	if a.out != nil {
		r := a.out.Report()
		s.Output = engine.Output{Available: r.Available, Playing: r.Playing}
		if r.Err != nil {
			s.OutputError = r.Err.Error()
		}
	} else {
		s.OutputError = "no audio output on this device"
	}
	if addr := a.tr.Addr(); addr != nil {
		s.Listen = addr.String()
	}
	if r := a.app.Reach(); len(r.Public) > 0 || len(r.Observed) > 0 || r.PortMap != (portmap.Status{}) {
		s.Reach = &r
	}
	s.Queue = a.queueItems(prev.Queue)
	if e, ok := a.st.Current(); ok {
		it := QueueItem{ContentID: e.ContentID, Title: e.Title, Artists: e.Artists, Album: e.Album,
			DurationMS: e.DurationMS, Path: a.pathOf(e.ContentID)}
		if prev.Track != nil && sameItem(*prev.Track, it) {
			s.Track = prev.Track
		} else {
			s.Track = &it
		}
		s.TrackLiked = a.app.collection.IsLiked(e.ContentID)
	}
	s.PlaylistsVersion = a.app.collection.Version()
	a.lastDevices = a.tr.Devices()
	devs := make([]DeviceStatus, 0, len(a.lastDevices))
	for _, d := range a.lastDevices {
		ds := DeviceStatus{DeviceID: d.ID, Name: d.Name, Fingerprint: d.Fingerprint, Online: d.Online || d.ID == a.self, Relayed: d.Relayed,
			Via: d.Via, Unreachable: d.Unreachable, Owner: d.ID == s.Owner, Self: d.ID == a.self, Box: a.boxes[d.ID], Output: a.outLabels[d.ID]}
		if d.Via != "" {
			ds.ViaName = string(d.Via)
			for _, v := range a.lastDevices {
				if v.ID == d.Via && v.Name != "" {
					ds.ViaName = v.Name
				}
			}
		}
		if ds.Self {
			s.Fingerprint, ds.Box, ds.Output = d.Fingerprint, a.opts.Box, a.outputLabel()
		}
		ds.Selectable = ds.Online
		if ds.Self && a.name != "" {
			ds.Name = a.name
		}
		devs = append(devs, ds)
		if ds.Owner {
			s.OwnerName = ds.Shown()
		}
	}
	s.Devices = reuse(prev.Devices, devs)
	if len(s.Devices) == 0 {
		s.Devices = nil
	}
	var pairing []PairingRequest
	for _, p := range a.tr.Pending() {
		pairing = append(pairing, PairingRequest{ID: p.ID, DeviceID: p.DeviceID, Name: p.Name,
			Fingerprint: p.Fingerprint, GroupConflict: p.GroupConflict})
	}
	s.Pairing = reuse(prev.Pairing, pairing)
	return s
}

// queueItems is the shared queue as Status shows it: prev when it shows
// the same entries.
func (a *actor) queueItems(prev []QueueItem) []QueueItem {
	q := a.st.Queue
	if len(prev) == len(q) && prev != nil {
		same := true
		for i, e := range q {
			if !sameItem(prev[i], QueueItem{ContentID: e.ContentID, Title: e.Title, Artists: e.Artists,
				Album: e.Album, DurationMS: e.DurationMS}) {
				same = false
				break
			}
		}
		if same {
			return prev
		}
	}
	out := make([]QueueItem, 0, len(q))
	for _, e := range q {
		out = append(out, QueueItem{ContentID: e.ContentID, Title: e.Title, Artists: e.Artists,
			Album: e.Album, DurationMS: e.DurationMS})
	}
	return out
}

// pathOf is the local file of content id cid, looked up again only when
// the current track or the catalog changed.
func (a *actor) pathOf(cid string) string {
	sh := &a.shown
	if sh.pathCID != cid || sh.pathVer != a.libRun.version || sh.pathCID == "" {
		sh.pathCID, sh.pathVer, sh.path = cid, a.libRun.version, ""
		if t, err := a.store.TrackByContentID(cid); err == nil {
			sh.path = t.Path
		}
	}
	return sh.path
}

// reuse returns prev when it holds the same values as cur (so the new
// status shares it), else a copy of cur.
func reuse[S ~[]E, E comparable](prev, cur S) S {
	if len(prev) == len(cur) && (prev == nil) == (cur == nil) && slices.Equal(prev, cur) {
		return prev
	}
	return slices.Clone(cur)
}

func sameItem(x, y QueueItem) bool {
	return x.ContentID == y.ContentID && x.Title == y.Title && x.Album == y.Album &&
		x.DurationMS == y.DurationMS && x.Path == y.Path && slices.Equal(x.Artists, y.Artists)
}

// sameStatus reports whether s, derived elapsed after p was published,
// shows nothing new: every field equal, except that the position may have
// moved on as a front end extrapolates it (within PositionSlack while
// both play) and the count of the owner's snapshots (OwnerHeard) may have
// grown.
func sameStatus(p, s Status, elapsed time.Duration) bool {
	if !samePosition(p, s, elapsed) {
		return false
	}
	p.PositionMS, s.PositionMS = 0, 0
	p.OwnerHeard, s.OwnerHeard = 0, 0
	return sameScalars(p, s) && slices.Equal(p.Order, s.Order) && slices.Equal(p.Folders, s.Folders) &&
		slices.Equal(p.Notices, s.Notices) && slices.Equal(p.Devices, s.Devices) &&
		slices.Equal(p.Pairing, s.Pairing) && slices.Equal(p.Scan.Failed, s.Scan.Failed) &&
		slices.EqualFunc(p.Queue, s.Queue, sameItem) &&
		(p.Track == nil) == (s.Track == nil) && (p.Track == nil || sameItem(*p.Track, *s.Track))
}

// samePosition: a playing status's position moved on with the time
// passed, within PositionSlack; any other has not moved.
func samePosition(p, s Status, elapsed time.Duration) bool {
	if !p.Playing || !s.Playing {
		return p.PositionMS == s.PositionMS
	}
	want := p.PositionMS + elapsed.Milliseconds()
	if p.Track != nil && p.Track.DurationMS > 0 {
		want = min(want, p.Track.DurationMS)
	}
	d := s.PositionMS - want
	return max(d, -d) <= PositionSlack.Milliseconds()
}

// sameScalars compares the fields of Status other than the slices and
// the track, which the caller compares (faster than reflection for long
// queues); a field added to Status is compared here without more ado.
func sameScalars(p, s Status) bool {
	p.Order, s.Order = nil, nil
	p.Folders, s.Folders = nil, nil
	p.Notices, s.Notices = nil, nil
	p.Devices, s.Devices = nil, nil
	p.Pairing, s.Pairing = nil, nil
	p.Scan.Failed, s.Scan.Failed = nil, nil
	p.Queue, s.Queue = nil, nil
	p.Track, s.Track = nil, nil
	return reflect.DeepEqual(p, s)
}
