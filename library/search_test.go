package library

import (
	"testing"
)

func TestNormalizeFoldsCaseAccentsAndSpace(t *testing.T) {
	cases := map[string]string{
		"Beyoncé":            "beyonce",
		"  Sigur   Rós\t":    "sigur ros",
		"MOTÖRHEAD":          "motorhead",
		"Straße":             "strasse",
		"Ærøskøbing":         "aeroskobing",
		"Łódź":               "lodz",
		"Ça va":              "ca va",
		"already plain":      "already plain",
		"":                   "",
		"Dvořák: Symphony 9": "dvorak: symphony 9",
		"Don’t Stop":         "don't stop",
		"Ｆｕｌｌ":               "ｆｕｌｌ",
		"bad \xff utf8":      "bad \ufffd utf8",
		"Καλημέρα":           "καλημερα",
		"trailing ":          "trailing",
	}
	for in, want := range cases {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
		if got := Normalize(Normalize(in)); got != Normalize(in) {
			t.Errorf("Normalize not idempotent on %q", in)
		}
	}
}

func TestSearchIsCaseAndAccentInsensitiveWhileTyping(t *testing.T) {
	idx := NewMemIndex()
	tracks := []Track{
		{Path: "/m/1", Title: "Halo", Artists: []string{"Beyoncé"}, Album: "I Am... Sasha Fierce"},
		{Path: "/m/2", Title: "Hoppípolla", Artists: []string{"Sigur Rós"}, Album: "Takk..."},
		{Path: "/m/3", Title: "Ace of Spades", Artists: []string{"Motörhead"}, Album: "Ace of Spades"},
		{Path: "/m/4", Title: "Spades Intro", Artists: []string{"Other"}, Album: "Misc"},
	}
	if err := idx.Put(tracks); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q    string
		want []string
	}{
		{"beyo", []string{"/m/1"}},
		{"BEYONCE", []string{"/m/1"}},
		{"sigur ros hopp", []string{"/m/2"}},
		{"hoppipolla", []string{"/m/2"}},
		{"ros sigur", []string{"/m/2"}},
		{"motorhead", []string{"/m/3"}},
		{"spades", []string{"/m/4", "/m/3"}}, // title prefix first
		{"nothing here", nil},
	}
	for _, c := range cases {
		got := idx.Search(c.q, 0)
		var paths []string
		for _, tr := range got {
			paths = append(paths, tr.Path)
		}
		if len(paths) != len(c.want) {
			t.Errorf("Search(%q) = %v, want %v", c.q, paths, c.want)
			continue
		}
		for i := range paths {
			if paths[i] != c.want[i] {
				t.Errorf("Search(%q) = %v, want %v", c.q, paths, c.want)
				break
			}
		}
	}
	if n := len(idx.Search("", 2)); n != 2 {
		t.Errorf("empty query with limit 2 returned %d", n)
	}
}

func TestMemIndexMoveKeepsTrack(t *testing.T) {
	idx := NewMemIndex()
	if err := idx.Put([]Track{{Path: "/a", ContentID: "b3:x", Title: "T"}}); err != nil {
		t.Fatal(err)
	}
	if err := idx.Move("/a", "/b"); err != nil {
		t.Fatal(err)
	}
	tr, ok := idx.Get("/b")
	if !ok || tr.ContentID != "b3:x" || tr.Path != "/b" {
		t.Fatalf("after move: %+v %v", tr, ok)
	}
	if _, ok := idx.Get("/a"); ok {
		t.Fatal("old path still indexed")
	}
}

func TestMusicFolder(t *testing.T) {
	const home = "/home/u"
	cases := []struct {
		goos, dirs, want string
	}{
		{"linux", "# comment\nXDG_MUSIC_DIR=\"$HOME/Musik\"\n", "/home/u/Musik"},
		{"linux", "XDG_MUSIC_DIR=\"/data/music\"", "/data/music"},
		{"linux", "XDG_MUSIC_DIR=\"$HOME/\"", "/home/u/Music"},
		{"linux", "", "/home/u/Music"},
		{"freebsd", "XDG_MUSIC_DIR=\"$HOME/M\"", "/home/u/M"},
		{"darwin", "XDG_MUSIC_DIR=\"$HOME/Musik\"", "/home/u/Music"},
	}
	for _, c := range cases {
		if got := musicFolder(c.goos, home, c.dirs); got != c.want {
			t.Errorf("musicFolder(%s, %q) = %q, want %q", c.goos, c.dirs, got, c.want)
		}
	}
}
