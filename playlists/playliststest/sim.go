// Package playliststest is a deterministic simulator of a group editing
// playlists, likes and play counts: one seed drives 3-5 replicas that edit
// concurrently and offline, exchange ops the way devicesync does (each
// origin's ops in order above the receiver's version vector, in random
// batches and pairings), apply some ops twice, restart (rebuild from their
// log in a random order) and forget obsolete ops. Then every replica
// syncs with every other until nothing moves, and all must show the same
// playlists, likes and counts — the same as a replica that never forgot
// anything — with each edit's intent kept.
//
// A failing seed prints the command that replays it with a trace:
//
//	go test -v ./playlists/playliststest -run 'TestSim$' -args -seed=N -trace
package playliststest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/furudesk/furudesk/playlists"
)

// Options tune a run; zero values pick defaults.
type Options struct {
	Replicas int          // 0: 3-5 from the seed
	Events   int          // events before healing; 0: 400
	Tracks   int          // distinct tracks to pick from; 0: 24
	Trace    func(string) // receives one line per event when set
}

// Result counts what a run did.
type Result struct {
	Edits, Ops, Batches, Duplicates, Restarts, Forgotten int
	Playlists, Entries                                   int // in the healed views
}

// Violation is a broken property, with the seed and event that show it.
type Violation struct {
	Seed  uint64
	Event int
	What  string
}

func (v *Violation) Error() string {
	return fmt.Sprintf("seed %d, event %d: %s", v.Seed, v.Event, v.What)
}

type replica struct {
	origin  string
	seq     uint64
	skew    int64 // this device's clock minus the simulation's
	lastHLC int64
	log     map[string][]playlists.Op // origin → ops by seq (gaps where forgotten)
	vector  map[string]uint64
	st      *playlists.State
}

type sim struct {
	seed    uint64
	r       *rand.Rand
	opt     Options
	reps    []*replica
	now     int64
	event   int
	all     []playlists.Op // every op ever made, for the oracle
	res     Result
	tracks  []playlists.Track
	failure *Violation
}

// Run simulates one seed and returns the first violation as an error.
func Run(seed uint64, opt Options) (Result, error) {
	s := newSim(seed, opt)
	s.run()
	return s.res, s.finish()
}

func newSim(seed uint64, opt Options) *sim {
	s := &sim{seed: seed, r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), opt: opt, now: 1_700_000_000_000}
	if s.opt.Replicas == 0 {
		s.opt.Replicas = 3 + s.r.IntN(3)
	}
	if s.opt.Events == 0 {
		s.opt.Events = 400
	}
	if s.opt.Tracks == 0 {
		s.opt.Tracks = 24
	}
	for i := range s.opt.Tracks {
		s.tracks = append(s.tracks, playlists.Track{ContentID: fmt.Sprintf("b3:%02d", i), Title: fmt.Sprintf("Track %d", i),
			DurationMS: int64(60_000 + 1000*i)})
	}
	for i := range s.opt.Replicas {
		s.reps = append(s.reps, &replica{origin: fmt.Sprintf("dev%d", i), skew: int64(s.r.IntN(120_000)) - 60_000,
			log: map[string][]playlists.Op{}, vector: map[string]uint64{}, st: playlists.New()})
	}
	return s
}

// run plays the fault phase: edits, partial syncs, restarts, forgetting.
func (s *sim) run() {
	for s.event = 1; s.event <= s.opt.Events && s.failure == nil; s.event++ {
		s.now += int64(s.r.IntN(5000))
		switch x := s.r.IntN(100); {
		case x < 50:
			s.edit(s.pick())
		case x < 85:
			s.sync(s.pick(), s.pick(), 1+s.r.IntN(40))
		case x < 92:
			s.restart(s.pick())
		default:
			s.forget(s.pick())
		}
	}
}

// finish heals the group and checks convergence.
func (s *sim) finish() error {
	if s.failure == nil {
		s.heal()
	}
	if s.failure != nil {
		return s.failure
	}
	return nil
}

func deleteOp(ops []playlists.Op, id string) []playlists.Op {
	return slices.DeleteFunc(slices.Clone(ops), func(o playlists.Op) bool { return o.ID == id })
}

func (s *sim) pick() *replica { return s.reps[s.r.IntN(len(s.reps))] }

func (s *sim) trace(format string, args ...any) {
	if s.opt.Trace != nil {
		s.opt.Trace(fmt.Sprintf("%4d ", s.event) + fmt.Sprintf(format, args...))
	}
}

func (s *sim) fail(format string, args ...any) {
	if s.failure == nil {
		s.failure = &Violation{Seed: s.seed, Event: s.event, What: fmt.Sprintf(format, args...)}
	}
}

// append makes e this replica's next op, with devicesync's clock:
// max(its wall clock, newest op it holds + 1).
func (s *sim) append(rp *replica, e playlists.Edit) {
	rp.seq++
	rp.lastHLC = max(s.now+rp.skew, rp.lastHLC+1)
	o := playlists.Op{ID: fmt.Sprintf("%s:%d", rp.origin, rp.seq), Origin: rp.origin, Seq: rp.seq, HLCms: rp.lastHLC, Kind: e.Kind, Body: e.Body}
	rp.log[rp.origin] = append(rp.log[rp.origin], o)
	rp.vector[rp.origin] = rp.seq
	rp.st.Apply(o)
	s.all = append(s.all, o)
	s.res.Ops++
}

func (s *sim) anyPlaylist(rp *replica) (*playlists.Playlist, bool) {
	ls := rp.st.Playlists()
	if len(ls) == 0 {
		return nil, false
	}
	p, _ := rp.st.Playlist(ls[s.r.IntN(len(ls))].ID)
	return p, true
}

func (s *sim) someTracks(n int) []playlists.Track {
	out := make([]playlists.Track, n)
	for i := range out {
		out[i] = s.tracks[s.r.IntN(len(s.tracks))]
	}
	return out
}

// edit makes one local edit on rp and checks that it did what was asked.
func (s *sim) edit(rp *replica) {
	s.res.Edits++
	p, ok := s.anyPlaylist(rp)
	x := s.r.IntN(100)
	if !ok && x < 80 {
		x = 0
	}
	switch {
	case x < 8:
		name := fmt.Sprintf("List %d", s.r.IntN(1000))
		e, err := rp.st.PlanCreate(name)
		if err != nil {
			s.fail("%s: create: %v", rp.origin, err)
			return
		}
		s.append(rp, e)
		id := fmt.Sprintf("%s:%d", rp.origin, rp.seq)
		s.trace("%s creates %s %q", rp.origin, id, name)
		if got, ok := rp.st.Playlist(id); !ok || got.Name != name {
			s.fail("%s: created %s %q, not shown", rp.origin, id, name)
		}
	case x < 14:
		name := fmt.Sprintf("Renamed %d", s.r.IntN(1000))
		es, err := rp.st.PlanRename(p.ID, name)
		s.apply(rp, es, err, "rename %s %q", p.ID, name)
		if got, _ := rp.st.Playlist(p.ID); got.Name != name {
			s.fail("%s: renamed %s to %q, shows %q", rp.origin, p.ID, name, got.Name)
		}
	case x < 17:
		e, err := rp.st.PlanDelete(p.ID)
		s.apply(rp, []playlists.Edit{e}, err, "delete %s", p.ID)
		if _, ok := rp.st.Playlist(p.ID); ok {
			s.fail("%s: deleted %s, still shown", rp.origin, p.ID)
		}
	case x < 45:
		at := s.r.IntN(len(p.Entries)+2) - 1 // -1: append
		ts := s.someTracks(1 + s.r.IntN(4))
		es, err := rp.st.PlanAdd(p.ID, at, ts)
		s.apply(rp, es, err, "add %d tracks to %s at %d", len(ts), p.ID, at)
		if at == -1 {
			at = len(p.Entries)
		}
		got, _ := rp.st.Playlist(p.ID)
		if len(got.Entries) != len(p.Entries)+len(ts) {
			s.fail("%s: added %d to %d entries, has %d", rp.origin, len(ts), len(p.Entries), len(got.Entries))
			return
		}
		for i, t := range ts {
			if got.Entries[at+i].Track.ContentID != t.ContentID {
				s.fail("%s: added %s at %d, found %s", rp.origin, t.ContentID, at+i, got.Entries[at+i].Track.ContentID)
			}
		}
	case x < 60 && len(p.Entries) > 0:
		idx := []int{s.r.IntN(len(p.Entries))}
		if s.r.IntN(3) == 0 {
			idx = append(idx, s.r.IntN(len(p.Entries)))
		}
		es, err := rp.st.PlanRemove(p.ID, idx)
		s.apply(rp, es, err, "remove %v from %s", idx, p.ID)
		got, _ := rp.st.Playlist(p.ID)
		for _, i := range idx {
			if slices.ContainsFunc(got.Entries, func(e playlists.Entry) bool { return e.ID == p.Entries[i].ID }) {
				s.fail("%s: removed entry %s, still there", rp.origin, p.Entries[i].ID)
			}
		}
	case x < 80 && len(p.Entries) > 1:
		from, to := s.r.IntN(len(p.Entries)), s.r.IntN(len(p.Entries))
		es, err := rp.st.PlanMove(p.ID, from, to)
		s.apply(rp, es, err, "move %s %d->%d", p.ID, from, to)
		got, _ := rp.st.Playlist(p.ID)
		want := slices.Insert(slices.Delete(slices.Clone(p.Entries), from, from+1), to, p.Entries[from])
		if !slices.EqualFunc(got.Entries, want, func(a, b playlists.Entry) bool { return a.ID == b.ID }) {
			s.fail("%s: moved %d to %d in %s: order %v, want %v", rp.origin, from, to, p.ID, entryIDs(got.Entries), entryIDs(want))
		}
	case x < 90:
		t := s.someTracks(1)[0]
		liked := s.r.IntN(3) > 0
		es, err := rp.st.PlanLike(t, liked)
		s.apply(rp, es, err, "like %s %v", t.ContentID, liked)
		if rp.st.IsLiked(t.ContentID) != liked {
			s.fail("%s: set like of %s to %v, shows %v", rp.origin, t.ContentID, liked, !liked)
		}
	default:
		t := s.someTracks(1)[0]
		before := rp.st.Plays(t.ContentID).Plays
		e, err := rp.st.PlanListen(rp.origin, t)
		s.apply(rp, []playlists.Edit{e}, err, "listen %s", t.ContentID)
		if got := rp.st.Plays(t.ContentID).Plays; got != before+1 {
			s.fail("%s: played %s, count %d -> %d", rp.origin, t.ContentID, before, got)
		}
	}
}

func (s *sim) apply(rp *replica, es []playlists.Edit, err error, format string, args ...any) {
	what := fmt.Sprintf(format, args...)
	if err != nil {
		s.fail("%s: %s: %v", rp.origin, what, err)
		return
	}
	s.trace("%s %s (%d ops)", rp.origin, what, len(es))
	for _, e := range es {
		s.append(rp, e)
	}
}

func entryIDs(es []playlists.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

// missing is what devicesync's anti-entropy sends: each origin's ops above
// the receiver's vector, in seq order, origins in id order, at most limit.
func missing(src *replica, vector map[string]uint64, limit int) []playlists.Op {
	var out []playlists.Op
	for _, origin := range sortedOrigins(src.log) {
		for _, o := range src.log[origin] {
			if len(out) == limit {
				return out
			}
			if o.Seq > vector[origin] {
				out = append(out, o)
			}
		}
	}
	return out
}

func sortedOrigins(m map[string][]playlists.Op) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// receive is devicesync accepting ops (those above the vector) and the
// app applying them; with dup, some already held are applied again, as a
// replay at startup racing a delivery does.
func (s *sim) receive(dst *replica, ops []playlists.Op, dup bool) int {
	var fresh []playlists.Op
	for _, o := range ops {
		if o.Seq > dst.vector[o.Origin] {
			dst.log[o.Origin] = append(dst.log[o.Origin], o)
			dst.vector[o.Origin] = o.Seq
			dst.lastHLC = max(dst.lastHLC, o.HLCms)
			fresh = append(fresh, o)
		}
	}
	apply := fresh
	if dup && len(ops) > 0 {
		for range 1 + s.r.IntN(3) {
			apply = append(apply, ops[s.r.IntN(len(ops))])
			s.res.Duplicates++
		}
		s.r.Shuffle(len(apply), func(i, j int) { apply[i], apply[j] = apply[j], apply[i] })
	}
	dst.st.Apply(apply...)
	return len(fresh)
}

func (s *sim) sync(src, dst *replica, limit int) {
	if src == dst {
		return
	}
	ops := missing(src, dst.vector, limit)
	n := s.receive(dst, ops, s.r.IntN(4) == 0)
	s.res.Batches++
	s.trace("%s -> %s: %d ops (%d new)", src.origin, dst.origin, len(ops), n)
}

// restart rebuilds rp's state from its log, in a random order, some ops
// twice.
func (s *sim) restart(rp *replica) {
	var ops []playlists.Op
	for _, origin := range sortedOrigins(rp.log) {
		ops = append(ops, rp.log[origin]...)
	}
	if len(ops) > 0 {
		ops = append(ops, ops[s.r.IntN(len(ops))])
	}
	s.r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	rp.st = playlists.New()
	rp.st.Apply(ops...)
	s.res.Restarts++
	s.trace("%s restarts with %d ops", rp.origin, len(ops))
}

// forget drops what Obsolete names from rp's log, except each origin's
// newest op (devicesync keeps it: the version vector).
func (s *sim) forget(rp *replica) {
	obs := rp.st.Obsolete()
	var gone []string
	for origin, ops := range rp.log {
		kept := ops[:0:0]
		for i, o := range ops {
			if i < len(ops)-1 && slices.Contains(obs, o.ID) {
				gone = append(gone, o.ID)
				continue
			}
			kept = append(kept, o)
		}
		rp.log[origin] = kept
	}
	slices.Sort(gone)
	rp.st.Forget(gone)
	s.res.Forgotten += len(gone)
	s.trace("%s forgets %d of %d obsolete ops", rp.origin, len(gone), len(obs))
}

// heal syncs every pair until no op moves, then checks convergence.
func (s *sim) heal() {
	s.trace("heal")
	for round := 0; ; round++ {
		moved := 0
		for _, src := range s.reps {
			for _, dst := range s.reps {
				if src != dst {
					moved += s.receive(dst, missing(src, dst.vector, len(s.all)+1), false)
				}
			}
		}
		if moved == 0 {
			break
		}
		if round > len(s.reps)+2 {
			s.fail("still moving ops after %d rounds of full sync", round)
			return
		}
	}
	oracle := playlists.New()
	oracle.Apply(s.all...)
	want := Dump(oracle)
	for _, rp := range s.reps {
		if got := Dump(rp.st); got != want {
			s.fail("%s differs from the merge of every op ever made:\n%s\nwant\n%s", rp.origin, diff(got, want), "")
			return
		}
		s.restart(rp)
		if got := Dump(rp.st); got != want {
			s.fail("%s rebuilt from its log differs:\n%s", rp.origin, diff(got, want))
			return
		}
	}
	s.checkOracle(oracle)
	for _, sum := range oracle.Playlists() {
		s.res.Playlists++
		s.res.Entries += sum.Entries
	}
}

// checkOracle checks the merged views against the rules, computed here
// from the ops directly: deleted stays deleted; entries are those added
// and never removed, each once; the name is the newest of its ops.
func (s *sim) checkOracle(st *playlists.State) {
	type body struct {
		Playlist string `json:"playlist"`
		Name     string `json:"name"`
		Entries  []json.RawMessage
	}
	deleted := map[string]bool{}
	added := map[string]map[string]bool{}
	removed := map[string]bool{}
	type named struct {
		hlc  int64
		id   string
		name string
	}
	names := map[string]named{}
	for _, o := range s.all {
		var b body
		_ = json.Unmarshal(o.Body, &b)
		switch o.Kind {
		case playlists.KindPlaylistDeleted:
			deleted[b.Playlist] = true
		case playlists.KindPlaylistCreated, playlists.KindPlaylistRenamed:
			id := cmp.Or(b.Playlist, o.ID)
			if n, ok := names[id]; !ok || o.HLCms > n.hlc || (o.HLCms == n.hlc && o.ID > n.id) {
				names[id] = named{o.HLCms, o.ID, b.Name}
			}
		case playlists.KindTrackAdded:
			if added[b.Playlist] == nil {
				added[b.Playlist] = map[string]bool{}
			}
			for i := range b.Entries {
				added[b.Playlist][fmt.Sprintf("%s/%d", o.ID, i)] = true
			}
		case playlists.KindTrackRemoved:
			var rb struct{ Entries []string }
			_ = json.Unmarshal(o.Body, &rb)
			for _, e := range rb.Entries {
				removed[e] = true
			}
		}
	}
	live := map[string]bool{}
	for _, sum := range st.Playlists() {
		live[sum.ID] = true
		if deleted[sum.ID] {
			s.fail("deleted playlist %s is shown", sum.ID)
		}
		if sum.Name != names[sum.ID].name {
			s.fail("playlist %s is named %q, its newest name is %q", sum.ID, sum.Name, names[sum.ID].name)
		}
		p, _ := st.Playlist(sum.ID)
		have := map[string]bool{}
		for _, e := range p.Entries {
			if have[e.ID] {
				s.fail("entry %s twice in %s", e.ID, sum.ID)
			}
			have[e.ID] = true
			if !added[sum.ID][e.ID] || removed[e.ID] {
				s.fail("entry %s in %s was never added or was removed", e.ID, sum.ID)
			}
		}
		for e := range added[sum.ID] {
			if !removed[e] && !have[e] {
				s.fail("entry %s of %s was added, never removed, and is missing", e, sum.ID)
			}
		}
	}
	for id := range names {
		if !deleted[id] && !live[id] {
			s.fail("playlist %s was created and never deleted, and is missing", id)
		}
	}
}

// Dump renders every view of st as text, for comparisons.
func Dump(st *playlists.State) string {
	var b strings.Builder
	for _, sum := range st.Playlists() {
		p, _ := st.Playlist(sum.ID)
		fmt.Fprintf(&b, "playlist %s %q (%d ms):", p.ID, p.Name, p.DurationMS)
		for _, e := range p.Entries {
			fmt.Fprintf(&b, " %s=%s", e.ID, e.Track.ContentID)
		}
		b.WriteByte('\n')
	}
	for _, l := range st.Liked() {
		fmt.Fprintf(&b, "liked %s at %d\n", l.Track.ContentID, l.AtMS)
	}
	for _, p := range st.History() {
		fmt.Fprintf(&b, "played %s %d times, last %d\n", p.Track.ContentID, p.Plays, p.LastMS)
	}
	return b.String()
}

// diff shows the first differing line of two dumps.
func diff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, a, b)
		}
	}
	return "(same)"
}
