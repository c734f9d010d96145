package notify

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func track(id string, i int) *Track {
	return &Track{ContentID: id, Index: i, Title: "T " + id, Artists: []string{"A"}, Album: "Al"}
}

// Each step is a moment and whether a notification is due.
func TestRules(t *testing.T) {
	on := Settings{On: true}
	steps := []struct {
		name string
		m    Moment
		s    Settings
		want bool
	}{
		{"nothing plays", Moment{}, on, false},
		{"a track starts", Moment{Track: track("a", 0), Playing: true, Here: true}, on, true},
		{"it plays on", Moment{Track: track("a", 0), Playing: true, Here: true}, on, false},
		{"paused", Moment{Track: track("a", 0), Here: true}, on, false},
		{"resumed", Moment{Track: track("a", 0), Playing: true, Here: true}, on, false},
		{"the next track, paused", Moment{Track: track("b", 1), Here: true}, on, false},
		{"which then plays", Moment{Track: track("b", 1), Playing: true, Here: true}, on, true},
		{"the same recording again, later in the queue", Moment{Track: track("b", 2), Playing: true, Here: true}, on, true},
		{"while the window has the focus", Moment{Track: track("c", 3), Playing: true, Here: true, Focused: true}, on, false},
		{"the focus goes: c is not announced late", Moment{Track: track("c", 3), Playing: true, Here: true}, on, false},
		{"another device plays", Moment{Track: track("d", 4), Playing: true}, on, false},
		{"another device, asked for", Moment{Track: track("e", 5), Playing: true}, Settings{On: true, OtherDevices: true}, true},
		{"switched off", Moment{Track: track("f", 6), Playing: true, Here: true}, Settings{}, false},
	}
	var r Rules
	for _, st := range steps {
		if _, got := r.Next(st.m, st.s); got != st.want {
			t.Errorf("%s: notification %v, want %v", st.name, got, st.want)
		}
	}
}

func TestNotificationText(t *testing.T) {
	for _, c := range []struct {
		t             Track
		summary, body string
		icon          string
	}{
		{Track{Title: "Idioteque", Artists: []string{"Radiohead"}, Album: "Kid A", Cover: "file:///c/1.png"},
			"Idioteque", "Radiohead — Kid A", "file:///c/1.png"},
		{Track{Title: "X", Artists: []string{"A", "B"}}, "X", "A, B", AppIcon},
		{Track{Album: "Only album"}, "Unknown track", "Only album", AppIcon},
	} {
		n := Of(c.t)
		if n.Summary != c.summary || n.Body != c.body || n.Icon != c.icon {
			t.Errorf("Of(%+v) = %+v, want %q %q %q", c.t, n, c.summary, c.body, c.icon)
		}
	}
}

// Property: over random moments, a notification is shown exactly when a
// playing track of this device (or another when asked) is another entry
// than the one playing at the moment before that had one, with the window
// unfocused and the switch on.
func TestRulesProperty(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var r Rules
	lastPlaying := ""
	for i := range 10000 {
		m := Moment{Playing: rng.IntN(4) > 0, Here: rng.IntN(3) > 0, Focused: rng.IntN(4) == 0}
		if rng.IntN(10) > 0 {
			m.Track = track(fmt.Sprint(rng.IntN(3)), rng.IntN(3))
		}
		s := Settings{On: rng.IntN(5) > 0, OtherDevices: rng.IntN(2) == 0}
		n, ok := r.Next(m, s)
		key := ""
		if m.Track != nil && m.Playing {
			key = fmt.Sprint(m.Track.ContentID, "#", m.Track.Index)
		}
		if ok {
			switch {
			case key == "", m.Focused, !s.On, !m.Here && !s.OtherDevices:
				t.Fatalf("seed %d step %d: notified %+v for %+v under %+v", seed, i, n, m, s)
			case key == lastPlaying:
				t.Fatalf("seed %d step %d: %s notified again while it played on", seed, i, key)
			}
		}
		if due := key != "" && key != lastPlaying && !m.Focused && s.On && (m.Here || s.OtherDevices); due != ok {
			t.Fatalf("seed %d step %d: notified %v, want %v for %+v under %+v", seed, i, ok, due, m, s)
		}
		if key != "" {
			lastPlaying = key
		}
	}
}
