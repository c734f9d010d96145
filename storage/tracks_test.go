package storage

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/library"
)

var (
	testArtists = []string{"Beyoncé", "Sigur Rós", "Björk", "Mötley Crüe", "Daft Punk", "Zoë Keating", "AC/DC", "Ólafur Arnalds", "The Beatles", "Café Tacvba"}
	testWords   = []string{"Love", "Night", "Crazy", "Hoppípolla", "Jóga", "Étude", "Summer", "Rain", "Ça plane", "Ärger", "Dream", "River"}
)

// manyTracks returns n distinct, deterministic tracks.
func manyTracks(n int) []library.Track {
	out := make([]library.Track, n)
	for i := range out {
		a := testArtists[i%len(testArtists)]
		album := fmt.Sprintf("%s %d", testWords[(i/12)%len(testWords)], i/120)
		out[i] = library.Track{
			ContentID:   fmt.Sprintf("b3:%064x", i),
			Path:        fmt.Sprintf("/music/%s/%s/%05d.flac", a, album, i),
			Size:        int64(1000 + i),
			ModTime:     time.Unix(1700000000, int64(i)*1000),
			Format:      "flac",
			Title:       fmt.Sprintf("%s %s %d", testWords[i%len(testWords)], testWords[(i/7)%len(testWords)], i),
			Artists:     []string{a},
			Album:       album,
			AlbumArtist: a,
			TrackNo:     i%12 + 1,
			DiscNo:      1,
			Year:        1990 + i%30,
			Genre:       "Test",
			Duration:    time.Duration(180+i%60) * time.Second,
		}
	}
	return out
}

func TestTracksRoundTripAndUpsert(t *testing.T) {
	s, _ := openTemp(t)
	tracks := manyTracks(40)
	tracks[3].Artists = []string{"Björk", "Sigur Rós"}
	tracks[4].Cover = "embedded"
	tracks[3].Title = "Originaltitel"
	tracks[3].Gain = library.ReplayGain{TrackGain: -6.5, TrackPeak: 0.98, HasTrack: true, AlbumGain: 1.25, HasAlbum: true}
	tracks[0].Title = "Zeitgeist"
	if err := s.PutTracks(tracks); err != nil {
		t.Fatal(err)
	}
	if got, err := s.TrackByPath(tracks[5].Path); err != nil || got.Gain != (library.ReplayGain{}) {
		t.Fatalf("a track without ReplayGain tags: %+v, %v", got.Gain, err)
	}
	got, err := s.TrackByPath(tracks[3].Path)
	if err != nil {
		t.Fatal(err)
	}
	if !got.ModTime.Equal(tracks[3].ModTime) {
		t.Fatalf("mtime %v, want %v", got.ModTime, tracks[3].ModTime)
	}
	got.ModTime = tracks[3].ModTime
	if since := time.Since(got.Added); since < 0 || since > time.Hour {
		t.Fatalf("added %v: want when it was put", got.Added)
	}
	got.Added = time.Time{}
	if !reflect.DeepEqual(got, tracks[3]) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, tracks[3])
	}

	// Upsert by path: a retagged file keeps one row and new values.
	re := tracks[3]
	re.Title = "Retagged"
	re.Size = 7
	if err := s.PutTracks([]library.Track{re}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.TrackCount(); n != 40 {
		t.Fatalf("%d tracks after upsert, want 40", n)
	}
	if res, _ := s.Search("retagged", 10); len(res) != 1 || res[0].Path != re.Path {
		t.Fatalf("search after retag = %v", res)
	}
	if res, _ := s.Search("originaltitel", 10); len(res) != 0 {
		t.Fatalf("old title still found: %v", res)
	}

	byID, err := s.TrackByContentID(tracks[5].ContentID)
	if err != nil || byID.Path != tracks[5].Path {
		t.Fatalf("TrackByContentID = %v, %v", byID.Path, err)
	}
	if _, err := s.TrackByContentID("b3:none"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown content id: %v", err)
	}

	all, err := s.Tracks()
	if err != nil || len(all) != 40 {
		t.Fatalf("Tracks: %d, %v", len(all), err)
	}
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if a.AlbumArtistOrFirst() > b.AlbumArtistOrFirst() || a.AlbumArtistOrFirst() == b.AlbumArtistOrFirst() && a.Album == b.Album && a.TrackNo > b.TrackNo {
			t.Fatalf("not sorted at %d: %s/%s/%d then %s/%s/%d", i, a.AlbumArtistOrFirst(), a.Album, a.TrackNo, b.AlbumArtistOrFirst(), b.Album, b.TrackNo)
		}
	}

	albums, err := s.Albums()
	if err != nil || len(albums) == 0 {
		t.Fatalf("Albums: %v %v", albums, err)
	}
	total := 0
	for _, a := range albums {
		total += a.Tracks
	}
	if total != 40 {
		t.Fatalf("albums hold %d tracks, want 40", total)
	}
	artists, err := s.Artists()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range artists {
		if a.Name == "Sigur Rós" {
			found = a.Tracks == 5 // 4 own + the featured one
		}
	}
	if !found {
		t.Fatalf("Sigur Rós should have 5 tracks: %+v", artists)
	}
}

func TestMoveDeleteAndStamps(t *testing.T) {
	s, _ := openTemp(t)
	tracks := manyTracks(5)
	tracks[0].Title = "Zeitgeist"
	tracks[2].Title = "Unvergessen"
	if err := s.PutTracks(tracks); err != nil {
		t.Fatal(err)
	}
	if err := s.MoveTrack(tracks[0].Path, "/music/renamed.flac"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TrackByPath(tracks[0].Path); !errors.Is(err, ErrNotFound) {
		t.Fatalf("old path still there: %v", err)
	}
	moved, err := s.TrackByPath("/music/renamed.flac")
	if err != nil || moved.ContentID != tracks[0].ContentID {
		t.Fatalf("moved track: %+v %v", moved, err)
	}
	if res, _ := s.Search("zeitgeist", 5); len(res) != 1 || res[0].Path != "/music/renamed.flac" {
		t.Fatalf("search after move: %+v", res)
	}
	// Moving onto an existing track replaces it.
	if err := s.MoveTrack("/music/renamed.flac", tracks[1].Path); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.TrackCount(); n != 4 {
		t.Fatalf("%d tracks, want 4", n)
	}
	if err := s.MoveTrack("/nope", "/x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("move of unknown path: %v", err)
	}

	rej := RejectedFile{Path: "/music/cover.txt", Size: 3, ModTime: time.Unix(5, 0), Reason: "not audio"}
	if err := s.PutRejectedFiles([]RejectedFile{rej}); err != nil {
		t.Fatal(err)
	}
	stamps, err := s.FileStamps()
	if err != nil {
		t.Fatal(err)
	}
	if len(stamps) != 5 || !stamps[rej.Path].Same(3, time.Unix(5, 0)) || !stamps[tracks[2].Path].Same(tracks[2].Size, tracks[2].ModTime) {
		t.Fatalf("stamps: %v", stamps)
	}
	if err := s.DeleteTracks([]string{tracks[2].Path, rej.Path, "/unknown"}); err != nil {
		t.Fatal(err)
	}
	if stamps, _ := s.FileStamps(); len(stamps) != 3 {
		t.Fatalf("after delete: %v", stamps)
	}
	if res, _ := s.Search("unvergessen", 5); len(res) != 0 {
		t.Fatalf("deleted track still found")
	}
	n, err := s.DeleteTracksUnder("/music")
	if err != nil || n != 3 {
		t.Fatalf("DeleteTracksUnder = %d, %v", n, err)
	}
}

func TestScanState(t *testing.T) {
	s, _ := openTemp(t)
	st := ScanState{Folder: "/music", StartedAt: time.UnixMilli(1000), Files: 3}
	if err := s.SetScanState(st); err != nil {
		t.Fatal(err)
	}
	got, err := s.ScanStates()
	if err != nil || len(got) != 1 || got[0].Complete || !got[0].FinishedAt.IsZero() || got[0].Files != 3 {
		t.Fatalf("running scan: %+v %v", got, err)
	}
	st.FinishedAt, st.Complete = time.UnixMilli(2000), true
	if err := s.SetScanState(st); err != nil {
		t.Fatal(err)
	}
	got, _ = s.ScanStates()
	if !got[0].Complete || !got[0].FinishedAt.Equal(time.UnixMilli(2000)) {
		t.Fatalf("finished scan: %+v", got)
	}
}

func TestTrackLimits(t *testing.T) {
	s, _ := openTemp(t)
	bad := manyTracks(1)[0]
	bad.Path = ""
	if err := s.PutTracks([]library.Track{bad}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty path: %v", err)
	}
	bad = manyTracks(1)[0]
	bad.Title = string(make([]byte, MaxTagBytes+1))
	if err := s.PutTracks([]library.Track{bad}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("huge title: %v", err)
	}
}

// TracksByContentIDs finds the tracks of any number of content ids (more
// than one statement looks up), the first file by path for audio held by
// two, and nothing for unknown ids; TrackByPath finds a file by its path.
func TestTracksByContentIDsAndPath(t *testing.T) {
	s, _ := openTemp(t)
	var ts []library.Track
	var ids []string
	for i := range 1200 {
		id := fmt.Sprintf("b3:%04d", i)
		ts = append(ts, library.Track{Path: fmt.Sprintf("/m/%04d.flac", i), ContentID: id, Format: "flac", Title: id})
		ids = append(ids, id)
	}
	ts = append(ts, library.Track{Path: "/m/0000-copy.flac", ContentID: "b3:0007", Format: "flac", Title: "copy"},
		library.Track{Path: "/a/first.flac", ContentID: "b3:0007", Format: "flac", Title: "first"})
	if err := s.PutTracks(ts); err != nil {
		t.Fatal(err)
	}
	got, err := s.TracksByContentIDs(append(ids, "b3:unknown"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1200 || got["b3:1199"].Path != "/m/1199.flac" || got["b3:0007"].Path != "/a/first.flac" {
		t.Fatalf("%d tracks; b3:1199 at %q, b3:0007 at %q", len(got), got["b3:1199"].Path, got["b3:0007"].Path)
	}
	if tr, err := s.TrackByPath("/m/0000-copy.flac"); err != nil || tr.Title != "copy" {
		t.Fatalf("TrackByPath: %+v, %v", tr, err)
	}
	if _, err := s.TrackByPath("/m/none.flac"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("TrackByPath of an unknown file: %v, want ErrNotFound", err)
	}
}

// EachTrack goes through the catalog in Tracks' order, a window of it with
// offset and limit, and stops at the first error of its function.
func TestEachTrackPagesTheCatalog(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.PutTracks(manyTracks(150)); err != nil {
		t.Fatal(err)
	}
	all, err := s.Tracks()
	if err != nil {
		t.Fatal(err)
	}
	page := func(off, lim int) []string {
		var out []string
		if err := s.EachTrack(off, lim, func(tr library.Track) error { out = append(out, tr.Path); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	var want []string
	for _, tr := range all {
		want = append(want, tr.Path)
	}
	if got := page(0, -1); !reflect.DeepEqual(got, want) {
		t.Fatalf("the whole catalog: %d tracks, differs from Tracks (%d)", len(got), len(want))
	}
	if got := page(40, 25); !reflect.DeepEqual(got, want[40:65]) {
		t.Fatalf("offset 40 limit 25: %v", got)
	}
	if got := page(140, 100); !reflect.DeepEqual(got, want[140:]) {
		t.Fatalf("past the end: %d tracks", len(got))
	}
	stop := errors.New("enough")
	n := 0
	if err := s.EachTrack(0, -1, func(library.Track) error { n++; return map[bool]error{true: stop}[n == 3] }); !errors.Is(err, stop) || n != 3 {
		t.Fatalf("stopped with %v after %d tracks, want the function's error after 3", err, n)
	}
}

// An album's cover is found through the album, never through a content id
// another album shares: a folder picture first, else a picture in the
// first track's tags; an album without art has none.
func TestAlbumCoverTrack(t *testing.T) {
	s, _ := openTemp(t)
	mk := func(path, cid, artist, album string, no int, cover string) library.Track {
		return library.Track{Path: path, ContentID: cid, Format: "flac", Title: path, Artists: []string{artist},
			Album: album, TrackNo: no, Cover: cover, ModTime: time.Unix(1, 0)}
	}
	shared := "b3:" + strings.Repeat("5", 64)
	if err := s.PutTracks([]library.Track{
		mk("/m/a/1.flac", shared, "Émilie Simon", "Végétal", 1, library.CoverEmbedded),
		mk("/m/a/2.flac", "b3:"+strings.Repeat("6", 64), "Émilie Simon", "Végétal", 2, "/m/a/cover.jpg"),
		mk("/m/best/7.flac", shared, "Various", "Best of", 7, ""),
		mk("/m/best/1.flac", "b3:"+strings.Repeat("7", 64), "Various", "Best of", 1, ""),
		mk("/m/c/1.flac", "b3:"+strings.Repeat("8", 64), "ABBA", "Gold", 2, library.CoverEmbedded),
		mk("/m/c/2.flac", "b3:"+strings.Repeat("9", 64), "ABBA", "Gold", 1, library.CoverEmbedded),
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.AlbumCoverTrack("Émilie Simon", "Végétal"); err != nil || got.Cover != "/m/a/cover.jpg" {
		t.Fatalf("Végétal: %+v %v, want the folder picture", got, err)
	}
	if got, err := s.AlbumCoverTrack("abba", "GOLD"); err != nil || got.Path != "/m/c/2.flac" {
		t.Fatalf("Gold: %+v %v, want the first track's picture", got.Path, err)
	}
	if _, err := s.AlbumCoverTrack("Various", "Best of"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an album without art: %v", err)
	}
	id := library.AlbumID(library.Track{Artists: []string{"Émilie Simon"}, Album: "Végétal"})
	if a, al, ok := library.ParseAlbumID(id); !ok || a != "Émilie Simon" || al != "Végétal" {
		t.Fatalf("album id %q parses to %q %q %v", id, a, al, ok)
	}
}

// A batch writes each track's artists once: a new track's (no delete
// needed), a known track's replaced, and a path twice in one batch ends
// with the last one's; a rejected file that became a track is no longer
// rejected.
func TestPutTracksArtistsAndRejections(t *testing.T) {
	s, _ := openTemp(t)
	tr := func(p string, artists ...string) library.Track {
		return library.Track{Path: p, ContentID: "b3:" + p, Format: "mp3", Title: "T", Artists: artists}
	}
	if err := s.PutRejectedFiles([]RejectedFile{{Path: "/m/b.mp3", Reason: "not audio"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTracks([]library.Track{tr("/m/a.mp3", "A1", "A2"), tr("/m/b.mp3", "B"), tr("/m/a.mp3", "A3")}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTracks([]library.Track{tr("/m/b.mp3", "B2", "B3")}); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, p := range []string{"/m/a.mp3", "/m/b.mp3"} {
		var names string
		if err := s.db.QueryRow(`SELECT group_concat(name, ',') FROM (SELECT a.name FROM track_artists a JOIN tracks t ON t.id = a.track_id
			WHERE t.path = ? ORDER BY a.position)`, p).Scan(&names); err != nil {
			t.Fatal(err)
		}
		rows[p] = names
	}
	if rows["/m/a.mp3"] != "A3" || rows["/m/b.mp3"] != "B2,B3" {
		t.Fatalf("artists stored: %v, want a: A3, b: B2,B3", rows)
	}
	var rejected int
	if err := s.db.QueryRow(`SELECT count(*) FROM rejected_files`).Scan(&rejected); err != nil || rejected != 0 {
		t.Fatalf("%d rejected files (%v) after the file became a track", rejected, err)
	}
}
