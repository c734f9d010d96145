package app

import (
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/audio"
)

// endTrack plays the output's current track to its end and feeds the
// output's events to the actor.
func (r *rig) endTrack() {
	for _, ev := range r.out.end() {
		r.audio(ev)
	}
}

// Once a track starts, the next queue entry is prepared; when the output
// runs into it, the queue moves on without a new Play, the index is
// persisted and published, and the one after is prepared.
func TestGaplessPreparesNextAndFollowsTheOutput(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb", "b3:cc"}, 0); err != nil {
		t.Fatal(err)
	}
	if r.j.count("prepare") != 0 {
		t.Fatalf("prepared before the track started: %q", r.j.list())
	}
	r.started()
	if r.j.count("prepare b3:bb") != 1 {
		t.Fatalf("next track not prepared once the first started: %q", r.j.list())
	}
	r.advance(10 * time.Second)
	r.j.reset()
	r.endTrack()
	st := r.app.Status()
	if st.Index != 1 || st.Track == nil || st.Track.ContentID != "b3:bb" || !st.Playing || st.PositionMS > 100 {
		t.Fatalf("after the gapless switch: %+v", st)
	}
	if r.j.count("play") != 0 || r.j.count("stop") != 0 {
		t.Fatalf("the gapless switch restarted the output: %q", r.j.list())
	}
	commit, publish, prep := r.j.first("commit"), r.j.first("publish"), r.j.first("prepare b3:cc")
	if commit < 0 || publish < commit || prep < publish {
		t.Fatalf("want commit < publish < prepare of the one after, got %q", r.j.list())
	}
	if q, _ := r.store.Queue(); q.Index != 1 {
		t.Fatalf("persisted index %d, want 1", q.Index)
	}
	if ps := snapOf(t, r); ps.Index != 1 {
		t.Fatalf("published index %d, want 1", ps.Index)
	}
	// The last track: nothing follows with repeat off, and its end stops.
	r.endTrack()
	if st := r.app.Status(); st.Index != 2 {
		t.Fatalf("index %d, want 2", st.Index)
	}
	r.j.reset()
	r.endTrack()
	if st := r.app.Status(); st.Playing || r.j.count("play") != 0 || r.j.count("prepare") != 0 {
		t.Fatalf("after the end of the queue: playing %v, %q", st.Playing, r.j.list())
	}
}

// Changing what follows re-prepares it: an inserted track, repeat one, a
// removed next track at the end of the queue (nothing follows: the stale
// prepared track is cleared), shuffle.
func TestGaplessPreparedTrackFollowsQueueChanges(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	r.j.reset()
	if err := r.app.Enqueue([]string{"b3:cc"}, true); err != nil {
		t.Fatal(err)
	}
	if r.j.count("prepare b3:cc") != 1 {
		t.Fatalf("a track inserted as next was not prepared: %q", r.j.list())
	}
	r.j.reset()
	if err := r.app.SetRepeat("one"); err != nil {
		t.Fatal(err)
	}
	if r.j.count("prepare b3:aa") != 1 {
		t.Fatalf("repeat one does not prepare the same track: %q", r.j.list())
	}
	r.j.reset()
	if err := r.app.SetRepeat("off"); err != nil {
		t.Fatal(err)
	}
	if err := r.app.RemoveFromQueue(1); err != nil { // cc
		t.Fatal(err)
	}
	if err := r.app.RemoveFromQueue(1); err != nil { // bb
		t.Fatal(err)
	}
	if got := r.j.list(); r.j.count("clear next") != 1 || r.j.count("play") != 0 || r.out.next.Seq != 0 {
		t.Fatalf("removing the last following track: %q", got)
	}
	r.j.reset()
	r.endTrack()
	if st := r.app.Status(); st.Playing || r.j.count("play") != 0 {
		t.Fatalf("a stale prepared track played: playing %v, %q", st.Playing, r.j.list())
	}

	// Shuffle: what is prepared is the order's next.
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb", "b3:cc"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	if err := r.app.SetShuffle(true); err != nil {
		t.Fatal(err)
	}
	st := r.app.Status()
	want := []string{"b3:aa", "b3:bb", "b3:cc"}[st.Order[1]]
	if r.out.nextSrc.ID != want {
		t.Fatalf("prepared %q, the shuffled order's next is %q (order %v)", r.out.nextSrc.ID, want, st.Order)
	}
	r.endTrack()
	if st := r.app.Status(); st.Index != st.Order[1] {
		t.Fatalf("after the switch: index %d, order %v", st.Index, st.Order)
	}
}

// A queue change after preparation that leaves nothing to follow clears the
// prepared track and only it: the current track plays on (no stop, no new
// play), and its end leaves the output silent.
func TestGaplessQueueChangeClearsPrepared(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	if r.out.next.ID != "b3:bb" {
		t.Fatalf("prepared %+v, want b3:bb", r.out.next)
	}
	r.j.reset()
	if err := r.app.RemoveFromQueue(1); err != nil {
		t.Fatal(err)
	}
	if r.j.count("clear next") != 1 || r.j.count("stop") != 0 || r.j.count("play") != 0 || r.j.count("prepare") != 0 {
		t.Fatalf("removing the prepared track: %q, want one clear next and nothing else on the output", r.j.list())
	}
	if r.out.next.Seq != 0 || r.out.track.ID != "b3:aa" || !r.out.playing {
		t.Fatalf("output after the change: current %+v playing %v, prepared %+v", r.out.track, r.out.playing, r.out.next)
	}
	if st := r.app.Status(); !st.Playing || st.Index != 0 {
		t.Fatalf("status after the change: playing %v index %d", st.Playing, st.Index)
	}
	r.j.reset()
	r.endTrack()
	if st := r.app.Status(); st.Playing || r.j.count("play") != 0 || r.out.track.Seq != 0 {
		t.Fatalf("after the current track: playing %v, output %+v, %q", st.Playing, r.out.track, r.j.list())
	}
	// Clearing again is not needed: nothing is prepared.
	if err := r.app.Enqueue([]string{"b3:cc"}, false); err != nil {
		t.Fatal(err)
	}
	if r.j.count("clear next") != 0 {
		t.Fatalf("cleared with nothing prepared: %q", r.j.list())
	}
}

// Losing the output drops the prepared track with the current one: a late
// Started of it moves nothing.
func TestGaplessOnlyOnTheRenderer(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()}, peerB)
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	prepared := r.out.next
	if prepared.Seq == 0 {
		t.Fatal("nothing prepared")
	}
	if err := r.app.Transfer(peerB); err != nil {
		t.Fatal(err)
	}
	r.j.reset()
	r.audio(audio.Started{Track: prepared})
	if st := r.app.Status(); st.Index != 0 || r.j.count("prepare") != 0 || r.j.count("play") != 0 {
		t.Fatalf("a device that lost the output followed a prepared track: index %d, %q", st.Index, r.j.list())
	}
}

// A prepared track that fails to decode is not prepared again; when the
// output reaches it, the queue moves past it with a notice.
func TestGaplessPreparedTrackFails(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb", "b3:cc"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	bad := r.out.next
	r.j.reset()
	r.audio(audio.DecodeError{Track: bad, Err: audio.ErrNoSource})
	if r.j.count("prepare") != 0 {
		t.Fatalf("a failed track was prepared again: %q", r.j.list())
	}
	// The current track ends: the output is silent, the actor moves on.
	r.endTrack()
	if st := r.app.Status(); st.Index != 1 || r.j.first("play b3:bb") < 0 {
		t.Fatalf("after the current track: index %d, %q", st.Index, r.j.list())
	}
}

// When the prepared track fails after the current one finished, the output
// went silent: the queue moves past the failed track.
func TestGaplessPreparedTrackFailsAtTheSwitch(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb", "b3:cc"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	cur, bad := r.out.Report().Track, r.out.next
	r.j.reset()
	r.audio(audio.Finished{Track: cur})
	if r.j.count("play") != 0 {
		t.Fatalf("played on Finished although a prepared track follows: %q", r.j.list())
	}
	r.audio(audio.DecodeError{Track: bad, Err: audio.ErrNoSource})
	st := r.app.Status()
	if st.Index != 2 || r.j.first("play b3:cc@0") < 0 {
		t.Fatalf("after the failed prepared track: index %d, %q", st.Index, r.j.list())
	}
	if n := st.Notices[len(st.Notices)-1]; n.Level != "error" || !strings.Contains(n.Text, "T b3:bb") {
		t.Fatalf("no error notice: %+v", st.Notices)
	}
}

// A paused owner with a track prepared from its own library looks
// nothing up at its ticks: the lookup was a database query four times a
// second (issue 37). A change of the library looks it up again.
func TestPausedTicksLookUpNothing(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	if err := r.app.Pause(); err != nil {
		t.Fatal(err)
	}
	if r.out.next.ID != "b3:bb" {
		t.Fatalf("prepared %+v, want b3:bb", r.out.next)
	}
	r.store.mu.Lock()
	before := r.store.lookups
	r.store.mu.Unlock()
	r.advance(10 * time.Second)
	r.store.mu.Lock()
	got := r.store.lookups - before
	r.store.mu.Unlock()
	if got != 0 {
		t.Fatalf("%d track lookups in 10 s of a pause", got)
	}
	if r.out.next.ID != "b3:bb" {
		t.Fatalf("prepared %+v after the pause, want b3:bb", r.out.next)
	}
}
