package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
)

// QA bug 12: users read sentences, not Go package prefixes or JSON
// decoder internals; code keeps the sentinels.
func TestUserMessage(t *testing.T) {
	parse := func(s string) error { _, err := engine.ParseConfig([]byte(s)); return err }
	timeout := "owner_timeout_ms must be a whole number of milliseconds between 1 and 86400000"
	for _, tc := range []struct {
		err  error
		want string
	}{
		{parse(`{"owner_timeout_ms":-5}`), timeout},
		{parse(`{"owner_timeout_ms":0}`), timeout},
		{parse(`{"owner_timeout_ms":1.5}`), timeout},
		{parse(`{"discovery_ms":99999999}`), "discovery_ms must be a whole number of milliseconds between 0 and 60000"},
		{parse(`{"claim_on_startup":"yes"}`), "claim_on_startup must be true or false"},
		{parse(`{"owner_timeout":5}`), `"owner_timeout" is not a playback setting (the settings are claim_on_startup, automatic_failover, take_paused_on_startup, discovery_ms and owner_timeout_ms)`},
		{parse(`nul`), `the playback settings must be a JSON object such as {"owner_timeout_ms": 120000}`},
		{parse(`{} {}`), `the playback settings must be a JSON object such as {"owner_timeout_ms": 120000}`},
		{fmt.Errorf("%w: the invite is this device's own", devicesync.ErrInviteInvalid), "this invite was created on this device: use it on the device that should join"},
		{fmt.Errorf("%w: key", devicesync.ErrInviteMalformed), "this is not a valid invite code: copy the whole code (it starts with frid://i/) from the device that created it"},
		{fmt.Errorf("app: could not save: %w", errors.New("storage: disk full")), "could not save: disk full"},
		{userErr(ErrOffline, "Living room is offline"), "Living room is offline"},
	} {
		if got := UserMessage(tc.err); got != tc.want {
			t.Errorf("UserMessage(%v)\n got %q\nwant %q", tc.err, got, tc.want)
		}
	}
	if !errors.Is(userErr(ErrOffline, "x"), ErrOffline) {
		t.Error("a user error does not unwrap to its sentinel")
	}
}

// QA bugs 9 and 11: a seek past the end of the track is refused (it used
// to end the track and the queue), and queue indexes count from 0 in the
// error as in Status.Index.
func TestSeekAndJumpOutOfRangeAreRefused(t *testing.T) {
	r := newRig(t, self, Options{Config: fastCfg()})
	r.advance(1500 * time.Millisecond)
	if err := r.app.PlayTracks([]string{"b3:aa", "b3:bb"}, 0); err != nil {
		t.Fatal(err)
	}
	r.j.reset()
	err := r.app.Seek(99999999 * time.Millisecond)
	if !errors.Is(err, ErrSeekRange) || UserMessage(err) != `1666:39 is past the end of "T b3:aa" (3:20 long)` {
		t.Fatalf("seek past the end: %v (%q)", err, UserMessage(err))
	}
	err = r.app.JumpTo(99)
	if !errors.Is(err, ErrQueueIndex) || UserMessage(err) != "the queue has no index 99 (its indexes are 0 to 1)" {
		t.Fatalf("jump 99: %v (%q)", err, UserMessage(err))
	}
	if r.j.count("play") != 0 || r.j.count("seek") != 0 || r.j.count("stop") != 0 {
		t.Fatalf("refused controls had effects: %q", r.j.list())
	}
	if st := r.app.Status(); !st.Playing || st.Index != 0 {
		t.Fatalf("refused controls changed playback: %+v", st)
	}
	if err := r.app.Seek(200 * time.Second); err != nil {
		t.Fatalf("seek to the very end: %v", err)
	}
	if err := r.app.JumpTo(1); err != nil || r.app.Status().Index != 1 {
		t.Fatalf("jump 1: %v, index %d", err, r.app.Status().Index)
	}
	for _, err := range []error{r.app.SetVolume(101), r.app.SetRepeat("sometimes")} {
		if m := UserMessage(err); err == nil || strings.Contains(m, "app:") {
			t.Errorf("bad argument: %v (%q)", err, m)
		}
	}
}
