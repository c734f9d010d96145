package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/storage"
)

const (
	ctlSelf engine.DeviceID = "dev_ctlselfaaaaaaaaaaaaaaaa"
	ctlPeer engine.DeviceID = "dev_ctlpeerbbbbbbbbbbbbbbbb"
)

// ctlTransport is a group of this device and one offline peer called
// "Living room"; pairing refuses codes like devicesync does for this
// device's own invite.
type ctlTransport struct {
	events chan devicesync.Event
}

func (t *ctlTransport) ID() engine.DeviceID             { return ctlSelf }
func (t *ctlTransport) Group() string                   { return "grp_ctl" }
func (t *ctlTransport) Addr() net.Addr                  { return nil }
func (t *ctlTransport) Events() <-chan devicesync.Event { return t.events }
func (t *ctlTransport) PublishSnapshot(json.RawMessage, engine.Coordination) error {
	return nil
}
func (t *ctlTransport) SendCommand(engine.DeviceID, engine.CommandStamp, bool, json.RawMessage) (string, error) {
	return "1", nil
}
func (t *ctlTransport) Devices() []devicesync.DeviceInfo {
	return []devicesync.DeviceInfo{{ID: ctlSelf, Name: "Desk", Self: true, Online: true},
		{ID: ctlPeer, Name: "Living room", Online: false}}
}
func (t *ctlTransport) CreateInvite() (string, time.Time, error) {
	return "", time.Time{}, errors.New("no invites here")
}
func (t *ctlTransport) Pair(context.Context, string) error {
	return fmt.Errorf("%w: the invite is this device's own", devicesync.ErrInviteInvalid)
}
func (t *ctlTransport) Pending() []devicesync.PairingRequest { return nil }
func (t *ctlTransport) Accept(string, bool) error            { return nil }
func (t *ctlTransport) Deny(string) error                    { return nil }
func (t *ctlTransport) Revoke(engine.DeviceID) error         { return nil }
func (t *ctlTransport) Leave() error                         { return devicesync.ErrAlone }

// ctlRig is an in-process device (real storage, no audio output) behind
// a real ctl socket.
type ctlRig struct {
	t   *testing.T
	dir string
	app *app.App
}

func newCtlRig(t *testing.T) *ctlRig {
	dir := t.TempDir()
	st, err := storage.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := newIdentity(st, "Desk"); err != nil {
		t.Fatal(err)
	}
	var tracks []library.Track
	for i, title := range []string{"Tone 300", "Tone 440", "Other"} {
		tracks = append(tracks, library.Track{ContentID: "b3:" + strings.Repeat(string(rune('a'+i)), 64),
			Path: dir + "/t" + string(rune('0'+i)) + ".wav", Title: title, Format: "wav", Size: 1,
			ModTime: time.Unix(1, 0), Duration: 200 * time.Second})
	}
	if err := st.PutTracks(tracks); err != nil {
		t.Fatal(err)
	}
	cfg := engine.DefaultConfig()
	cfg.DiscoveryMS = 0
	a, err := app.New(app.Options{DataDir: dir, Config: &cfg}, app.Deps{Store: st,
		Transport: &ctlTransport{events: make(chan devicesync.Event)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	srv, err := listenCtl(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.close() })
	r := &ctlRig{t: t, dir: dir, app: a}
	ids := make([]string, len(tracks))
	for i, tr := range tracks {
		ids[i] = tr.ContentID
	}
	if code, _, stderr := r.run("play", ids[0], ids[1], ids[2]); code != 0 {
		t.Fatalf("play: %s", stderr)
	}
	return r
}

func (r *ctlRig) run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = runCtl(append([]string{"--data-dir", r.dir}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// QA bugs 8, 9, 11, 12, 13: ctl refuses bad arguments with one plain
// sentence (exit 1, nothing done), counts queue indexes like `queue`, and
// confirms what it did.
func TestCtlValidatesArguments(t *testing.T) {
	r := newCtlRig(t)
	for _, tc := range []struct {
		args []string
		want string // the whole error line
	}{
		{[]string{"shuffle", "2"}, `shuffle takes on or off, not "2"`},
		{[]string{"shuffle", "yes"}, `shuffle takes on or off, not "yes"`},
		{[]string{"passive", "true"}, `passive takes on or off, not "true"`},
		{[]string{"seek", "99999999"}, `1666:39 is past the end of "Tone 300" (3:20 long)`},
		{[]string{"seek", "-5"}, `seek takes a position in milliseconds, a whole number such as 90000 for 1:30, not "-5"`},
		{[]string{"seek", "1.5"}, `seek takes a position in milliseconds, a whole number such as 90000 for 1:30, not "1.5"`},
		{[]string{"seek", "99999999999999999999"}, `seek takes a position in milliseconds, a whole number such as 90000 for 1:30, not "99999999999999999999"`},
		{[]string{"volume", "50.5"}, `volume takes a whole number from 0 to 100, not "50.5"`},
		{[]string{"volume", "101"}, `volume takes a whole number from 0 to 100, not "101"`},
		{[]string{"jump", "99"}, `the queue has no index 99 (its indexes are 0 to 2)`},
		{[]string{"jump", "-1"}, "jump takes a queue index, counting from 0 like the index of `queue`, not \"-1\""},
		{[]string{"repeat", "twice"}, `repeat must be off, all or one, not "twice"`},
		{[]string{"replaygain", "loud"}, `the ReplayGain mode must be off, track, album or auto, not "loud"`},
		{[]string{"config", "set", `{"owner_timeout_ms":-5}`}, "owner_timeout_ms must be a whole number of milliseconds between 1 and 86400000"},
		{[]string{"config", "set", `{"owner_timeout_ms":nul}`}, `the playback settings must be a JSON object such as {"owner_timeout_ms": 120000}`},
		{[]string{"pair", "frid://i/xyz"}, "this invite was created on this device: use it on the device that should join"},
		{[]string{"pair", "garbage"}, "this is not a valid invite code: copy the whole code (it starts with frid://i/) from the device that created it"},
		{[]string{"transfer", string(ctlPeer)}, "Living room is offline"},
		{[]string{"transfer", "Kitchen"}, "Kitchen is not a device of this group (see `devices`)"},
		{[]string{"play", r.dir + "/nothing.mp3"}, r.dir + "/nothing.mp3 does not exist"},
		{append([]string{"enqueue"}, slices.Repeat([]string{"b3:aa"}, 10001)...), "enqueue takes at most 10000 arguments at once, not 10001"},
		{append([]string{"enqueue"}, slices.Repeat([]string{strings.Repeat("x", 200)}, 6000)...),
			"enqueue with 6000 arguments is a request of 1189 KB, more than the 1024 KB furudesk reads: give fewer at once"},
	} {
		before := r.app.Status()
		code, stdout, stderr := r.run(tc.args...)
		if want := "furudesk ctl: " + tc.want + "\n"; code != 1 || stderr != want || stdout != "" {
			t.Errorf("ctl %q: exit %d stdout %q stderr\n got %q\nwant %q", tc.args, code, stdout, stderr, want)
		}
		after := r.app.Status()
		if after.Index != before.Index || after.Shuffle != before.Shuffle || after.Playing != before.Playing ||
			after.Config != before.Config || after.Owner != before.Owner {
			t.Errorf("ctl %q changed the state: %+v -> %+v", tc.args, before, after)
		}
	}

	// jump counts like the index of `queue`.
	if code, _, stderr := r.run("jump", "2"); code != 0 {
		t.Fatal(stderr)
	}
	_, out, _ := r.run("queue")
	var q struct {
		Index int             `json:"index"`
		Queue []app.QueueItem `json:"queue"`
	}
	if err := json.Unmarshal([]byte(out), &q); err != nil || q.Index != 2 || q.Queue[2].Title != "Other" {
		t.Fatalf("queue after jump 2: %v %s", err, out)
	}
	for _, args := range [][]string{{"shuffle", "on"}, {"shuffle", "off"}, {"seek", "1000"}, {"volume", "50"}} {
		if code, _, stderr := r.run(args...); code != 0 {
			t.Errorf("ctl %q: %s", args, stderr)
		}
	}
	// Confirmations.
	for _, args := range [][]string{{"replaygain", "album"}, {"replaygain"}} {
		if code, out, _ := r.run(args...); code != 0 || out != "ReplayGain: album\n" {
			t.Errorf("ctl %q: exit %d %q", args, code, out)
		}
	}
	if code, out, _ := r.run("transfer", "Desk"); code != 0 || out != "Playing on Desk\n" {
		t.Errorf("transfer to this device: exit %d %q", code, out)
	}
}

// QA bug 13: search takes several words, and tracks and search give
// durations in milliseconds like queue, and say where each track is.
func TestCtlSearchAndTracks(t *testing.T) {
	r := newCtlRig(t)
	for _, args := range [][]string{{"search", "tone", "300"}, {"tracks"}} {
		code, out, stderr := r.run(args...)
		if code != 0 {
			t.Fatalf("ctl %q: %s", args, stderr)
		}
		var got []map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) == 0 {
			t.Fatalf("ctl %q: %v %s", args, err, out)
		}
		if _, ok := got[0]["duration"]; ok || got[0]["duration_ms"] != float64(200000) {
			t.Errorf("ctl %q: want duration_ms 200000 and no duration: %v", args, got[0])
		}
		if h, ok := got[0]["holders"].([]any); got[0]["local"] != true || !ok || len(h) != 1 {
			t.Errorf("ctl %q: want where the track is (local, its holders): %v", args, got[0])
		}
		if args[0] == "search" && (len(got) != 1 || got[0]["title"] != "Tone 300") {
			t.Errorf("search tone 300: %v", got)
		}
	}
}

// ctl move and remove edit the queue in the indexes `queue` lists; bad
// indexes are refused with a sentence and change nothing.
func TestCtlMoveAndRemove(t *testing.T) {
	r := newCtlRig(t)
	titles := func() []string {
		_, out, _ := r.run("queue")
		var q struct {
			Queue []app.QueueItem `json:"queue"`
		}
		if err := json.Unmarshal([]byte(out), &q); err != nil {
			t.Fatal(err)
		}
		var ts []string
		for _, it := range q.Queue {
			ts = append(ts, it.Title)
		}
		return ts
	}
	if code, _, stderr := r.run("move", "2", "0"); code != 0 {
		t.Fatal(stderr)
	}
	if got := strings.Join(titles(), ","); got != "Other,Tone 300,Tone 440" {
		t.Fatalf("after move 2 0: %s", got)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"move", "0", "3"}, "the queue has no index 3 (its indexes are 0 to 2)"},
		{[]string{"move", "x", "1"}, "move takes queue indexes, counting from 0 like the index of `queue`, not \"x\""},
		{[]string{"move", "1"}, "usage: move FROM TO"},
		{[]string{"remove", "1", "1"}, "queue index 1 is given twice"},
		{[]string{"remove"}, "usage: remove INDEX... (queue indexes, from 0 as in queue)"},
	} {
		if code, _, stderr := r.run(tc.args...); code != 1 || stderr != "furudesk ctl: "+tc.want+"\n" {
			t.Errorf("ctl %q: exit %d, %q", tc.args, code, stderr)
		}
	}
	if code, _, stderr := r.run("remove", "0", "2"); code != 0 {
		t.Fatal(stderr)
	}
	if got := strings.Join(titles(), ","); got != "Tone 300" {
		t.Fatalf("after remove 0 2: %s", got)
	}
}
