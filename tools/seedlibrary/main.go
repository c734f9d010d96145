// Command seedlibrary fills a furudesk data dir's library with made-up
// tracks, for measuring the window at a collector's scale (issue 17:
// 100,000 tracks, 8,000 albums, 2,000 artists) without 100,000 files:
//
//	go run ./tools/seedlibrary -data-dir DIR -tracks 100000
//
// The tracks name files that do not exist, and the data dir gets no music
// folder, so no scan removes them; the player lists and sorts them (it
// cannot play them).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/storage"
)

func main() {
	dir := flag.String("data-dir", "", "the data dir to fill (created when missing)")
	n := flag.Int("tracks", 100_000, "how many tracks")
	albums := flag.Int("albums", 8_000, "over how many albums")
	artists := flag.Int("artists", 2_000, "by how many artists")
	flag.Parse()
	*albums = min(*albums, *n)
	*artists = min(*artists, *albums)
	if *dir == "" || *n <= 0 || *albums <= 0 || *artists <= 0 || *albums > *n || *artists > *albums {
		fmt.Fprintln(os.Stderr, "usage: seedlibrary -data-dir DIR [-tracks N] [-albums N] [-artists N] (artists <= albums <= tracks)")
		os.Exit(2)
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s, err := storage.Open(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer s.Close()
	ts := tracks(*n, *albums, *artists)
	for lo := 0; lo < len(ts); lo += storage.MaxTracksPerBatch {
		if err := s.PutTracks(ts[lo:min(lo+storage.MaxTracksPerBatch, len(ts))]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	fmt.Printf("%d tracks, %d albums, %d artists in %s\n", *n, *albums, *artists, *dir)
}

// Words of names from several languages, so that collation matters.
var (
	first = []string{"Émilie", "Ólafur", "Zoë", "Björk", "The", "Anna", "Sigur", "Łukasz", "Ærø", "Jean", "Mötley", "Café", "Oskar", "Eva", "Ümit", "Charles"}
	last  = []string{"Simon", "Arnalds", "Keating", "Beatles", "Rós", "Crüe", "Tacvba", "Müller", "Dvořák", "Nilsson", "Åberg", "Ibáñez", "Orchestra", "Quartet"}
	words = []string{"Night", "River", "Glass", "Echo", "Paper", "Summer", "Static", "Golden", "Quiet", "Northern", "Velvet", "Ágætis", "Straße", "Ça plane", "Étude", "Jóga", "Hoppípolla", "Dream", "Rain", "Light"}
	genre = []string{"Rock", "Jazz", "Électronique", "Classical", "Folk", "Hip-Hop", "Ambient", "Pop"}
)

func tracks(n, albums, artists int) []library.Track {
	out := make([]library.Track, n)
	per := n / albums
	added := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range out {
		al := min(i/per, albums-1)
		ar := al % artists
		artist := fmt.Sprintf("%s %s", first[ar%len(first)], last[(ar/len(first))%len(last)])
		if ar >= len(first)*len(last) {
			artist += fmt.Sprintf(" %d", ar)
		}
		out[i] = library.Track{
			ContentID: fmt.Sprintf("b3:%064x", i+1),
			Path:      fmt.Sprintf("/seed/%04d/%06d.flac", al, i),
			Size:      1, ModTime: added, Format: "flac",
			Title:   fmt.Sprintf("%s %s %d", words[(i*7)%len(words)], words[(i*3+1)%len(words)], i%97),
			Artists: []string{artist},
			Album:   fmt.Sprintf("%s %s (%d)", words[(al*5+2)%len(words)], words[(al*11+3)%len(words)], al),
			TrackNo: i%per + 1, DiscNo: 1, Year: 1960 + al%64, Genre: genre[al%len(genre)],
			Duration: time.Duration(120+(i*37)%360) * time.Second,
		}
	}
	return out
}
