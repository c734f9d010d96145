package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/engine"
)

func (n *node) playlist(idOrName string) (app.PlaylistView, error) {
	b, err := n.ctlErr("playlist", "show", idOrName)
	if err != nil {
		return app.PlaylistView{}, err
	}
	var v app.PlaylistView
	err = json.Unmarshal(b, &v)
	return v, err
}

func (n *node) mustPlaylist(idOrName string) app.PlaylistView {
	n.t.Helper()
	v, err := n.playlist(idOrName)
	if err != nil {
		n.t.Fatalf("%s: %v", n.name, err)
	}
	return v
}

func contentIDs(v app.PlaylistView) []string {
	var out []string
	for _, e := range v.Entries {
		out = append(out, e.ContentID)
	}
	return out
}

// sameList reports whether a and b show the same list: name and entries.
func sameList(a, b app.PlaylistView) bool {
	return a.Name == b.Name && slices.EqualFunc(a.Entries, b.Entries, func(x, y app.PlaylistEntry) bool {
		return x.EntryID == y.EntryID && x.ContentID == y.ContentID
	})
}

// TestPlaylistsEndToEnd runs two real headless devices through ctl: a
// playlist made before pairing reaches the device that joins; edits on A
// show on B; both edit while the other is down and end with the same
// merged playlist; a playlist written by MPD imports, exports and imports
// back.
func TestPlaylistsEndToEnd(t *testing.T) {
	needE2E(t)
	ffmpeg := needTool(t, "ffmpeg")
	c := newCluster(t, []string{"A", "B"}, nil)
	A, B := c.node("A"), c.node("B")
	// A's library also holds the three tracks the MPD playlist names, as
	// MPD's music folder had them; B has none of them.
	for _, f := range []struct{ path, title string }{
		{"Björk/Debut/01 Human Behaviour.mp3", "Human Behaviour"},
		{"Björk/Debut/03 Venus as a Boy.flac", "Venus as a Boy"},
		{"Sigur Rós/Ágætis byrjun/02 Svefn-g-englar.ogg", "Svefn-g-englar"},
	} {
		p := filepath.Join(A.music, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(ffmpeg, "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=500:duration=2",
			"-metadata", "title="+f.title, p).CombinedOutput()
		if err != nil {
			t.Fatalf("ffmpeg: %v\n%s", err, out)
		}
	}
	for _, n := range c.nodes {
		n.start()
	}
	var aTracks []ctlTrack
	waitFor(t, 30*time.Second, "A's scan", func() bool {
		b, err := A.ctlErr("tracks")
		return err == nil && json.Unmarshal(b, &aTracks) == nil && len(aTracks) == 5
	})
	id := func(name string) string {
		for _, tr := range aTracks {
			if strings.HasSuffix(tr.Path, name) {
				return tr.ContentID
			}
		}
		t.Fatalf("no track %s on A", name)
		return ""
	}
	t0, t1, venus := id("track0.wav"), id("track1.wav"), id("03 Venus as a Boy.flac")

	// Before pairing: A's playlist, with a track B does not have.
	A.ctl("playlist", "create", "Before pairing")
	A.ctl("playlist", "add", "Before pairing", t0, venus)
	c.pair()
	waitFor(t, 30*time.Second, "A's earlier playlist on B", func() bool {
		v, err := B.playlist("Before pairing")
		return err == nil && slices.Equal(contentIDs(v), []string{t0, venus})
	})
	if v := B.mustPlaylist("Before pairing"); !v.Entries[0].Available || v.Entries[1].Available || v.Entries[1].Title != "Venus as a Boy" {
		t.Errorf("on B, the track only A has is not listed as unavailable with its title: %+v", v.Entries)
	}

	t.Run("edits on A show on B", func(t *testing.T) {
		var made app.PlaylistSummary
		if err := json.Unmarshal(A.ctl("playlist", "create", "Road trip"), &made); err != nil {
			t.Fatal(err)
		}
		A.ctl("playlist", "add", made.ID, t0, t1, t0)
		A.ctl("playlist", "move", made.ID, "2", "0")
		A.ctl("like", t1)
		want := A.mustPlaylist(made.ID)
		if !slices.Equal(contentIDs(want), []string{t0, t0, t1}) {
			t.Fatalf("on A: %v", contentIDs(want))
		}
		waitFor(t, 20*time.Second, "Road trip on B", func() bool {
			v, err := B.playlist(made.ID)
			return err == nil && sameList(v, want)
		})
		waitFor(t, 20*time.Second, "the like on B", func() bool {
			v, err := B.playlist("Liked")
			return err == nil && slices.Equal(contentIDs(v), []string{t1})
		})
	})

	t.Run("offline edits on both merge", func(t *testing.T) {
		road := A.mustPlaylist("Road trip")
		B.stop(false)
		// A alone: renames, appends t1, removes the first entry.
		A.ctl("playlist", "rename", road.ID, "Road trip (A)")
		A.ctl("playlist", "add", road.ID, t1)
		A.ctl("playlist", "remove", road.ID, "0")
		A.stop(false)
		// B alone (A is down): moves the last entry to the top, adds t0,
		// renames later than A did.
		B.start()
		B.ctl("playlist", "move", road.ID, "2", "0")
		B.ctl("playlist", "add", road.ID, t0)
		B.ctl("playlist", "rename", road.ID, "Road trip (B)")
		B.ctl("unlike", t1)
		A.start()
		var a, b app.PlaylistView
		waitFor(t, 30*time.Second, "the same merged playlist on A and B", func() bool {
			var err1, err2 error
			a, err1 = A.playlist(road.ID)
			b, err2 = B.playlist(road.ID)
			return err1 == nil && err2 == nil && sameList(a, b) && len(a.Entries) == 4
		})
		// Road trip was [t0 t0' t1]: A removed the first t0 and appended
		// t1; B moved t1 to the top and appended t0. Merged: t1 at the
		// top, then the second t0, then both appended entries.
		if got := contentIDs(a); got[0] != t1 || got[1] != t0 || a.Name != "Road trip (B)" {
			t.Errorf("merged %q %v, want B's later name, t1 first, then t0", a.Name, got)
		}
		// B's unlike is an op of its own: the merged Road trip on A does
		// not say it has arrived too.
		waitFor(t, 30*time.Second, "the unlike made while A was down, on A and on B", func() bool {
			for _, n := range c.nodes {
				if v, err := n.playlist("Liked"); err != nil || len(v.Entries) != 0 {
					return false
				}
			}
			return true
		})
	})

	t.Run("a play counts once, on the device that played it", func(t *testing.T) {
		human := id("01 Human Behaviour.mp3") // 2 s, only A has it
		// A restarted last: its startup claim takes the output from B
		// (idle) after the discovery grace. Sent before that, the play
		// would reach B, which has no file for it.
		waitFor(t, 20*time.Second, "A's startup decision", func() bool {
			st := A.status()
			return !st.StartupPending && st.Owner == engine.DeviceID(A.id)
		})
		A.ctl("play", human)
		var h []app.PlaylistEntry
		waitFor(t, 30*time.Second, "the play in B's history", func() bool {
			b, err := B.ctlErr("history")
			return err == nil && json.Unmarshal(b, &h) == nil && len(h) > 0 && h[0].ContentID == human
		})
		if h[0].Plays != 1 || h[0].LastPlayedMS == 0 || h[0].Available {
			t.Errorf("B's history of a track only A has, played once on A: %+v", h[0])
		}
	})

	t.Run("M3U written by MPD, export and import back", func(t *testing.T) {
		fixture, err := filepath.Abs(filepath.Join("..", "..", "playlists", "m3u", "testdata", "mpd-relative.m3u"))
		if err != nil {
			t.Fatal(err)
		}
		var rep app.ImportReport
		if err := json.Unmarshal(A.ctl("playlist", "import", fixture), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Imported != 4 || rep.NotFound != 0 {
			t.Fatalf("import report %+v", rep)
		}
		imported := A.mustPlaylist(rep.Playlist.ID)
		file := filepath.Join(A.dir, "exported.m3u8")
		var exp app.ExportReport
		if err := json.Unmarshal(A.ctl("playlist", "export", rep.Playlist.ID, file), &exp); err != nil || exp.Written != 4 {
			t.Fatalf("export %+v %v", exp, err)
		}
		var back app.ImportReport
		if err := json.Unmarshal(A.ctl("playlist", "import", file), &back); err != nil {
			t.Fatal(err)
		}
		if got := contentIDs(A.mustPlaylist(back.Playlist.ID)); !slices.Equal(got, contentIDs(imported)) {
			t.Fatalf("imported back %v, want %v", got, contentIDs(imported))
		}
		waitFor(t, 20*time.Second, "the imported playlist on B", func() bool {
			v, err := B.playlist(rep.Playlist.ID)
			return err == nil && slices.Equal(contentIDs(v), contentIDs(imported))
		})
		// Bad input: a sentence, nothing changed.
		before := A.ctl("playlists")
		for _, args := range [][]string{
			{"playlist", "create", "  "},
			{"playlist", "remove", rep.Playlist.ID, "9"},
			{"playlist", "move", rep.Playlist.ID, "0", "4"},
			{"playlist", "rename", "no such list", "x"},
			{"playlist", "add", rep.Playlist.ID, "b3:" + strings.Repeat("0", 64)},
		} {
			if _, err := A.ctlErr(args...); err == nil {
				t.Errorf("ctl %v succeeded", args)
			}
		}
		if after := A.ctl("playlists"); string(after) != string(before) {
			t.Errorf("refused commands changed the playlists:\n%s\n%s", before, after)
		}
	})
}
