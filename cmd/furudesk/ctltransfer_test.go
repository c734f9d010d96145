package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/storage"
)

// pausingPeer is a group of this device and an online "Living room" that
// answers a handoff like a device without the files: a snapshot, paused,
// with its notice.
type pausingPeer struct {
	ctlTransport
}

func (t *pausingPeer) Devices() []devicesync.DeviceInfo {
	return []devicesync.DeviceInfo{{ID: ctlSelf, Name: "Desk", Self: true, Online: true},
		{ID: ctlPeer, Name: "Living room", Online: true}}
}

func (t *pausingPeer) SendCommand(_ engine.DeviceID, s engine.CommandStamp, handoff bool, body json.RawMessage) (string, error) {
	if !handoff {
		return "1", nil
	}
	var c app.Control
	if err := json.Unmarshal(body, &c); err != nil || c.State == nil {
		return "", err
	}
	st := *c.State
	st.Playing = false
	st.Notice = &app.SharedNotice{ID: 1, Text: `Living room has no file for "Tone 300" or the tracks after it: paused`}
	b, _ := json.Marshal(st)
	t.events <- devicesync.SnapshotReceived{From: ctlPeer, State: b, Coordination: engine.Coordination{
		Version: engine.EnvelopeVersion, Device: ctlPeer, Claim: s.Claim, Heartbeat: 1,
		Output: engine.Output{Available: true}}}
	return "1", nil
}

// QA N4: transfer's confirmation says what the target does: a target that
// paused for missing files is not reported as playing.
func TestCtlTransferSaysTargetPaused(t *testing.T) {
	dir := t.TempDir()
	st, err := storage.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := newIdentity(st, "Desk"); err != nil {
		t.Fatal(err)
	}
	cfg := engine.DefaultConfig()
	cfg.DiscoveryMS = 0
	tr := &pausingPeer{ctlTransport{events: make(chan devicesync.Event, 8)}}
	a, err := app.New(app.Options{DataDir: dir, Config: &cfg}, app.Deps{Store: st, Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	// The startup claim comes on the real ticker.
	ch, cancel := a.Subscribe()
	defer cancel()
	deadline := time.After(30 * time.Second)
	for s := range ch {
		if s.Owner == ctlSelf {
			break
		}
		select {
		case <-deadline:
			t.Fatal("no startup claim")
		default:
		}
	}
	got, err := transferAndConfirm(a, app.DeviceStatus{DeviceID: ctlPeer, Name: "Living room"}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "Living room took over but paused: Living room has no file") {
		t.Fatalf("confirmation %q", got)
	}
}
