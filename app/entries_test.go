package app

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
)

// twinStore adds a second file with the same audio (content id) as b3:aa
// but its own tags.
type twinStore struct{ *fakeStore }

var twin = library.Track{ContentID: "b3:aa", Path: "/music/twin.wav", Title: "Twin"}

func (s twinStore) Tracks() ([]library.Track, error) {
	ts, err := s.fakeStore.Tracks()
	return append(ts, twin), err
}

func (s twinStore) TrackByPath(p string) (library.Track, error) {
	if p == twin.Path {
		return twin, nil
	}
	return s.fakeStore.TrackByPath(p)
}

// QA N8: a queue item shows the metadata of the file that was enqueued,
// not of another file with the same content id.
func TestQueueItemKeepsItsOwnMetadata(t *testing.T) {
	r := buildRig(t, self)
	r.startWith(Options{Config: fastCfg()}, twinStore{r.store})
	r.advance(1500 * time.Millisecond)
	var es []Entry
	for _, p := range []string{"/music/b3:aa.wav", "/music/twin.wav"} {
		e, err := r.app.ResolveEntry(p)
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	if err := r.app.PlayEntries(es, 0); err != nil {
		t.Fatal(err)
	}
	q := r.app.Status().Queue
	if len(q) != 2 || q[0].Title != "T b3:aa" || q[1].Title != "Twin" || q[1].ContentID != "b3:aa" {
		t.Fatalf("queue %+v", q)
	}
}

// QA N6: a controller plays by content id a track its library lacks when
// the owner leads: known from the shared queue (with its metadata) or given
// explicitly; the owner fills in the metadata of its copy.
func TestControllerPlaysTrackOnlyTheOwnerHas(t *testing.T) {
	r := newRig(t, self, Options{Config: slowCfg()}, peerB)
	claim := engine.Claim{Counter: 1, Issuer: peerB, Owner: peerB}
	ps := PlayerState{Queue: []Entry{{ContentID: "b3:yy", Title: "Only on B", DurationMS: 1000}}, Volume: 50,
		Repeat: "off", Term: claim}
	r.announce(peerB, claim, 1, true, &ps)
	if err := r.app.PlayTracks([]string{"b3:yy", "b3:xx"}, 0); err != nil {
		t.Fatal(err)
	}
	cmds := r.tr.sentCmds()
	var c Control
	if len(cmds) != 1 || json.Unmarshal(cmds[0].Body, &c) != nil || c.Op != OpPlayTracks || len(c.Entries) != 2 ||
		c.Entries[0].Title != "Only on B" || c.Entries[1].ContentID != "b3:xx" {
		t.Fatalf("commands %+v", cmds)
	}

	// Alone (or the owner itself), a track not in the library is refused.
	o := newRig(t, self, Options{Config: fastCfg()})
	if err := o.app.PlayTracks([]string{"b3:xx"}, 0); !errors.Is(err, ErrNotInLibrary) {
		t.Fatalf("owner playing a track it lacks: %v", err)
	}

	// The owner describes an entry sent by id alone from its own copy.
	o.advance(1500 * time.Millisecond)
	claimO := o.app.Status().Claim
	o.peer(commandFrom(peerB, claimO, 1, false, Control{Op: OpPlayTracks, Entries: []Entry{{ContentID: "b3:bb"}}}))
	if q := o.app.Status().Queue; len(q) != 1 || q[0].Title != "T b3:bb" {
		t.Fatalf("owner's queue %+v", q)
	}
}
