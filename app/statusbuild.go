package app

import (
	"slices"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// publishStatus derives Status from the actor's state and hands it to the
// front ends. It is never stored.
func (a *actor) publishStatus() {
	a.observeOwner()
	gone := a.ownerGone()
	switch rendering := a.renderingNow(); {
	case rendering && a.renderSince.IsZero():
		a.renderSince = time.Now() // presentation only: never feeds the engine
	case !rendering:
		a.renderSince = time.Time{}
	}
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
		QueueLen:       len(a.st.Queue),
		Index:          a.st.Index,
		Volume:         a.st.Volume,
		Shuffle:        a.st.Shuffle,
		Order:          slices.Clone(a.st.Order),
		Repeat:         a.st.Repeat,
		Scan:           a.libRun.scan,
		LibraryVersion: a.libRun.version,
		PlacesVersion:  a.strm.places,
		Folders:        slices.Clone(a.folders),
		Notices:        slices.Clone(a.notices),
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
	s.Queue = make([]QueueItem, 0, len(a.st.Queue))
	for _, e := range a.st.Queue {
		s.Queue = append(s.Queue, QueueItem{ContentID: e.ContentID, Title: e.Title, Artists: e.Artists,
			Album: e.Album, DurationMS: e.DurationMS})
	}
	if e, ok := a.st.current(); ok {
		it := QueueItem{ContentID: e.ContentID, Title: e.Title, Artists: e.Artists, Album: e.Album,
			DurationMS: e.DurationMS}
		if t, err := a.store.TrackByContentID(e.ContentID); err == nil {
			it.Path = t.Path
		}
		s.Track = &it
		s.TrackLiked = a.app.collection.IsLiked(e.ContentID)
	}
	s.PlaylistsVersion = a.app.collection.Version()
	a.lastDevices = a.tr.Devices()
	for _, d := range a.lastDevices {
		ds := DeviceStatus{DeviceID: d.ID, Name: d.Name, Fingerprint: d.Fingerprint, Online: d.Online || d.ID == a.self, Relayed: d.Relayed,
			Owner: d.ID == s.Owner, Self: d.ID == a.self}
		if ds.Self {
			s.Fingerprint = d.Fingerprint
		}
		ds.Selectable = ds.Online
		if ds.Self && a.name != "" {
			ds.Name = a.name
		}
		s.Devices = append(s.Devices, ds)
		if ds.Owner {
			s.OwnerName = ds.Name
		}
	}
	for _, p := range a.tr.Pending() {
		s.Pairing = append(s.Pairing, PairingRequest{ID: p.ID, DeviceID: p.DeviceID, Name: p.Name,
			Fingerprint: p.Fingerprint, GroupConflict: p.GroupConflict})
	}
	a.app.setStatus(s)
}
