package app

import (
	"reflect"
	"testing"
	"time"
)

// published returns the statuses waiting on a subscription without
// waiting for more: the actor publishes before it answers, so after a
// tick or a call everything it published is there.
func published(ch <-chan Status) []Status {
	var out []Status
	for {
		select {
		case s := <-ch:
			out = append(out, s)
		default:
			return out
		}
	}
}

// Subscribers (the window, MPRIS, the tray) are woken only when the status
// shows something new: not on the ticks, heartbeats and snapshots of an
// idle, playing or paused device, not for the position moving on with
// the music (front ends extrapolate it); always for a change the user
// sees. App.Status has the newest position all the same.
func TestStatusWakesSubscribersOnlyOnChange(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	ch, cancel := r.app.Subscribe()
	defer cancel()
	published(ch) // the current status, sent at once

	quiet := func(what string, d time.Duration) {
		t.Helper()
		for step := time.Duration(0); step < d; step += DefaultTick {
			r.advance(DefaultTick)
			if got := published(ch); len(got) != 0 {
				t.Fatalf("%s, %v in: %d statuses published, want none (first: %+v)", what, step, len(got), got[0])
			}
		}
	}
	changed := func(what string, cond func(Status) bool) {
		t.Helper()
		got := published(ch)
		if len(got) == 0 || !cond(got[len(got)-1]) {
			t.Fatalf("%s: published %+v, want a status showing it", what, got)
		}
	}
	quiet("idle", 10*time.Second)

	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	r.started()
	changed("play", func(s Status) bool { return s.Playing && s.Rendering && s.Track != nil && s.Track.ContentID == "b3:aa" })
	pos := r.app.Status().PositionMS
	quiet("playing", 10*time.Second)
	if now := r.app.Status().PositionMS; now-pos < 9500 {
		t.Fatalf("Status after 10 s of playing: position %d ms, was %d: want the newest", now, pos)
	}

	if err := r.app.Seek(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	changed("seek", func(s Status) bool { return s.PositionMS >= 30000 && s.PositionMS < 31000 })
	if err := r.app.SetVolume(40); err != nil {
		t.Fatal(err)
	}
	changed("volume", func(s Status) bool { return s.Volume == 40 })
	if err := r.app.Pause(); err != nil {
		t.Fatal(err)
	}
	changed("pause", func(s Status) bool { return !s.Playing })
	quiet("paused", 10*time.Second)
	if err := r.app.Next(); err != nil {
		t.Fatal(err)
	}
	changed("next", func(s Status) bool { return s.Track != nil && s.Track.ContentID == "b3:bb" })
}

// A controller is not woken by the owner's snapshots that confirm what it
// shows, only by those that change it.
func TestControllerWokenByChangesOnly(t *testing.T) {
	r := newRig(t, self, Options{Config: slowCfg()}, peerB)
	claim, st := ownerPlaying(r)
	hb := uint64(1)
	for range 4 { // past the startup decision
		r.advance(500 * time.Millisecond)
		st.PositionMS += 500
		hb++
		r.announce(peerB, claim, hb, true, &st)
	}
	ch, cancel := r.app.Subscribe()
	defer cancel()
	published(ch)
	heard := r.app.Status().OwnerHeard
	for range 20 { // 10 s of heartbeats, 500 ms apart
		r.advance(500 * time.Millisecond)
		st.PositionMS += 500
		hb++
		r.announce(peerB, claim, hb, true, &st)
		if got := published(ch); len(got) != 0 {
			t.Fatalf("heartbeat %d of a playing owner: published %+v, want nothing new", hb, got)
		}
	}
	if s := r.app.Status(); s.OwnerHeard <= heard || !s.Playing || s.Owner != peerB {
		t.Fatalf("Status %+v: want the owner's newest snapshot counted (OwnerHeard > %d)", s, heard)
	}
	st.Volume = 30
	hb++
	r.announce(peerB, claim, hb, true, &st)
	if got := published(ch); len(got) == 0 || got[len(got)-1].Volume != 30 {
		t.Fatalf("owner changed the volume: published %+v", got)
	}
}

// sameStatus notices a change in every field of Status but the two that
// move on by themselves (PositionMS within PositionSlack, OwnerHeard), so
// a field added to Status cannot be forgotten.
func TestSameStatusSeesEveryField(t *testing.T) {
	base := Status{Playing: true, PositionMS: 1000, Track: &QueueItem{ContentID: "b3:aa", DurationMS: 200000},
		Queue: []QueueItem{{ContentID: "b3:aa"}}, Devices: []DeviceStatus{{DeviceID: self}}}
	if !sameStatus(base, base, 0) {
		t.Fatal("a status differs from itself")
	}
	v := reflect.ValueOf(&base).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		s := base
		s.Track = &QueueItem{ContentID: "b3:aa", DurationMS: 200000}
		s.Queue = []QueueItem{{ContentID: "b3:aa"}}
		s.Devices = []DeviceStatus{{DeviceID: self}}
		f := reflect.ValueOf(&s).Elem().Field(i)
		if name == "PositionMS" {
			s.PositionMS += 2 * PositionSlack.Milliseconds()
		} else if !alter(f) {
			t.Fatalf("field %s: test does not know how to change a %s", name, f.Type())
		}
		same := sameStatus(base, s, 0)
		switch name {
		case "OwnerHeard":
			if !same {
				t.Errorf("OwnerHeard alone changed: want no publication")
			}
		case "PositionMS":
			if same {
				t.Errorf("PositionMS jumped: want a publication")
			}
		default:
			if same {
				t.Errorf("field %s changed: sameStatus says nothing changed", name)
			}
		}
	}
	moved := base
	moved.PositionMS = base.PositionMS + 5000 + PositionSlack.Milliseconds() - 1
	if !sameStatus(base, moved, 5*time.Second) {
		t.Error("position moved on with the music (within PositionSlack): want no publication")
	}
	moved.PositionMS += 2
	if sameStatus(base, moved, 5*time.Second) {
		t.Error("position ahead of the music by more than PositionSlack: want a publication")
	}
}

// alter sets v to a value different from the one it has; false when it
// cannot.
func alter(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Int, reflect.Int64:
		v.SetInt(v.Int() + 7)
	case reflect.Uint64, reflect.Uint32:
		v.SetUint(v.Uint() + 7)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
			return true
		}
		return alter(v.Elem())
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.Append(v, reflect.New(v.Type().Elem()).Elem()))
			return true
		}
		return alter(v.Index(0))
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Unix(1, 0)))
			return true
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && alter(v.Field(i)) {
				return true
			}
		}
		return false
	default:
		return false
	}
	return true
}
