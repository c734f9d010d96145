package main

import (
	"bufio"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/devicesync"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/storage"
)

// gatedStore holds EachTrack after its first track until gate is closed.
type gatedStore struct {
	*storage.Store
	gate chan struct{}
}

func (s gatedStore) EachTrack(offset, limit int, fn func(library.Track) error) error {
	n := 0
	return s.Store.EachTrack(offset, limit, func(t library.Track) error {
		if n == 1 {
			<-s.gate
		}
		n++
		return fn(t)
	})
}

// ctl tracks streams: the first track reaches the client while the
// database has not read the rest; --offset, --limit and --fields choose
// what comes; a bad field is refused with the fields there are.
func TestCtlTracksStreams(t *testing.T) {
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
	for i := range 50 {
		tracks = append(tracks, library.Track{ContentID: "b3:" + strings.Repeat(string(rune('a'+i%26)), 60) + string(rune('a'+i/26)) + "xxx",
			Path: filepath.Join(dir, "t", string(rune('A'+i/26))+string(rune('a'+i%26))+".wav"), Title: "Track " + string(rune('A'+i/26)) + string(rune('a'+i%26)),
			Format: "wav", Size: 1, ModTime: time.Unix(1, 0), Duration: time.Second})
	}
	if err := st.PutTracks(tracks); err != nil {
		t.Fatal(err)
	}
	gs := gatedStore{Store: st, gate: make(chan struct{})}
	cfg := engine.DefaultConfig()
	a, err := app.New(app.Options{DataDir: dir, Config: &cfg}, app.Deps{Store: gs,
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

	_, stream, err := ctlSend(filepath.Join(dir, ctlSocketName), ctlRequest{Cmd: "tracks"})
	if err != nil || stream == nil {
		t.Fatalf("tracks: %v, stream %v", err, stream != nil)
	}
	r := bufio.NewReader(stream)
	first, err := r.ReadBytes('\n')
	var tr ctlTrack
	if err != nil || json.Unmarshal(first, &tr) != nil || tr.Title != "Track Aa" {
		t.Fatalf("first line %q, %v: want the first track before the rest was read", first, err)
	}
	close(gs.gate)
	n := 1
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("after %d tracks: %v", n, err)
		}
		var end ctlStreamEnd
		if json.Unmarshal(line, &end) == nil && end.End {
			if end.Count != 50 || n != 50 || end.Error != "" {
				t.Fatalf("end %+v after %d tracks, want 50", end, n)
			}
			break
		}
		n++
	}
	_ = stream.Close()

	run := func(args ...string) (int, string, string) {
		var out, errb strings.Builder
		code := runCtl(append([]string{"--data-dir", dir}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, stderr := run("tracks", "--offset", "10", "--limit", "3", "--fields", "title,duration_ms")
	var got []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("tracks --offset 10 --limit 3: exit %d, %q %q", code, out, stderr)
	}
	if len(got) != 3 || got[0]["title"] != "Track Ak" || got[2]["title"] != "Track Am" || got[0]["duration_ms"] != float64(1000) || len(got[0]) != 2 {
		t.Fatalf("tracks --offset 10 --limit 3 --fields title,duration_ms: %v", got)
	}
	if code, out, _ := run("tracks", "--limit", "0"); code != 0 || strings.TrimSpace(out) != "[\n]" && strings.TrimSpace(out) != "[]" {
		t.Fatalf("tracks --limit 0: exit %d %q", code, out)
	}
	code, _, stderr = run("tracks", "--fields", "title,loudness")
	if code != 1 || !strings.Contains(stderr, `there is no track field "loudness"; the fields are content_id, path, title`) {
		t.Fatalf("a bad field: exit %d %q", code, stderr)
	}
	if _, err := parseTracksQuery([]string{"--limit", "-1"}); err == nil {
		t.Fatal("a negative limit was taken")
	}
}

// endlessStore has a catalog that never ends.
type endlessStore struct{ *storage.Store }

func (s endlessStore) EachTrack(_, _ int, fn func(library.Track) error) error {
	for {
		if err := fn(library.Track{ContentID: "b3:x", Path: "/x.wav", Title: strings.Repeat("x", 200)}); err != nil {
			return err
		}
	}
}

// Closing the ctl server (furudesk shutting down) does not wait for its
// clients: one that sent nothing yet and one that stopped reading a
// stream are cut off.
func TestCtlCloseDoesNotWaitForClients(t *testing.T) {
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
	for i := range 3 {
		tracks = append(tracks, library.Track{ContentID: "b3:" + strings.Repeat(string(rune('a'+i)), 64),
			Path: filepath.Join(dir, string(rune('a'+i))+".wav"), Title: "T", Format: "wav", Size: 1, ModTime: time.Unix(1, 0)})
	}
	if err := st.PutTracks(tracks); err != nil {
		t.Fatal(err)
	}
	cfg := engine.DefaultConfig()
	a, err := app.New(app.Options{DataDir: dir, Config: &cfg}, app.Deps{Store: endlessStore{st},
		Transport: &ctlTransport{events: make(chan devicesync.Event)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	srv, err := listenCtl(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	idle, err := net.Dial("unix", filepath.Join(dir, ctlSocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	_, stream, err := ctlSend(filepath.Join(dir, ctlSocketName), ctlRequest{Cmd: "tracks"})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if _, err := bufio.NewReader(stream).ReadBytes('\n'); err != nil { // the first track; then it stops reading
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- srv.close() }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("closing the ctl server waited for its clients")
	}
}
