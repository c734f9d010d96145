package storage

import (
	"github.com/furudesk/furudesk/library"
	"testing"
	"time"
)

// Tracks come newest first; a rescan (upsert) or a move of an older file
// does not make it new.
func TestRecentlyAdded(t *testing.T) {
	s, _ := openTemp(t)
	tracks := manyTracks(6)
	before := time.Now().UnixMilli()
	if err := s.PutTracks(tracks[:3]); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTracks(tracks[3:]); err != nil {
		t.Fatal(err)
	}
	old := tracks[0]
	old.Title = "Retagged"
	if err := s.PutTracks([]library.Track{old}); err != nil {
		t.Fatal(err)
	}
	if err := s.MoveTrack(tracks[1].Path, tracks[1].Path+".moved"); err != nil {
		t.Fatal(err)
	}
	got, err := s.RecentlyAdded(4)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, tr := range got {
		paths = append(paths, tr.Path)
	}
	want := []string{tracks[5].Path, tracks[4].Path, tracks[3].Path, tracks[2].Path}
	if len(paths) != len(want) {
		t.Fatalf("got %v, want %v", paths, want)
	}
	for i := range want {
		if paths[i] != want[i] {
			t.Fatalf("got %v, want %v", paths, want)
		}
	}
	var at int64
	if err := s.db.QueryRow(`SELECT added_at_ms FROM tracks WHERE path = ?`, tracks[0].Path).Scan(&at); err != nil {
		t.Fatal(err)
	}
	if at < before || at > time.Now().UnixMilli() {
		t.Errorf("added_at_ms %d, want the time of the insert (%d or later)", at, before)
	}
}
