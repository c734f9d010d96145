package library

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/furudesk/furudesk/internal/wavfile"
)

var allFormats = []string{"mp3", "ogg", "flac", "wav"}

func TestAnalyzeReadsTagsAndDurationOfEveryFormat(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range allFormats {
		t.Run(ext, func(t *testing.T) {
			p := filepath.Join(dir, "Some Artist", "Some Album", "t."+ext)
			ffmpegTone(t, p, 440, 1.5, map[string]string{
				"title": "Café Tune " + ext, "artist": "Anna feat. Bob", "album": "Röad Trip",
				"album_artist": "Anna", "track": "3/10", "disc": "2", "date": "2021", "genre": "Jazz",
			})
			tr, err := AnalyzeFile(p, dir)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Format != ext || tr.Title != "Café Tune "+ext || tr.Album != "Röad Trip" ||
				tr.TrackNo != 3 || tr.Year != 2021 || tr.Genre != "Jazz" {
				t.Errorf("tags: %+v", tr)
			}
			if !reflect.DeepEqual(tr.Artists, []string{"Anna", "Bob"}) {
				t.Errorf("artists = %q, want [Anna Bob]", tr.Artists)
			}
			if ext != "wav" { // RIFF INFO has no album artist or disc
				if tr.AlbumArtist != "Anna" || tr.DiscNo != 2 {
					t.Errorf("album artist %q disc %d", tr.AlbumArtist, tr.DiscNo)
				}
			}
			if d := tr.Duration - 1500*time.Millisecond; d < -30*time.Millisecond || d > 30*time.Millisecond {
				t.Errorf("duration = %v, want 1.5s", tr.Duration)
			}
			if !strings.HasPrefix(tr.ContentID, "b3:") || len(tr.ContentID) != 3+64 {
				t.Errorf("content id %q", tr.ContentID)
			}
			st, _ := os.Stat(p)
			if tr.Size != st.Size() || !tr.ModTime.Equal(st.ModTime()) || tr.Path != p {
				t.Errorf("file state %+v", tr)
			}
		})
	}
}

// Retagging (new title, different tag size) keeps the content id; different
// audio changes it. This is what lets queues survive a retag.
func TestContentIDSurvivesRetagButNotNewAudio(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range allFormats {
		t.Run(ext, func(t *testing.T) {
			a := filepath.Join(dir, "a."+ext)
			ffmpegTone(t, a, 440, 1, map[string]string{"title": "One", "artist": "X"})
			b := filepath.Join(dir, "b."+ext)
			ffmpeg(t, "-v", "error", "-y", "-i", a, "-c", "copy", "-map_metadata", "-1",
				"-metadata", "title=A much longer title that changes the tag size", "-metadata", "genre=Rock", b)
			c := filepath.Join(dir, "c."+ext)
			ffmpegTone(t, c, 523, 1, map[string]string{"title": "One", "artist": "X"})
			ta, err := AnalyzeFile(a, dir)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := AnalyzeFile(b, dir)
			if err != nil {
				t.Fatal(err)
			}
			tc, err := AnalyzeFile(c, dir)
			if err != nil {
				t.Fatal(err)
			}
			if ta.Size == tb.Size {
				t.Fatalf("retag did not change the file size; the test proves nothing")
			}
			if tb.Title == ta.Title {
				t.Fatalf("retag did not change the title")
			}
			if ta.ContentID != tb.ContentID {
				t.Errorf("retag changed content id: %s vs %s", ta.ContentID, tb.ContentID)
			}
			if ta.ContentID == tc.ContentID {
				t.Errorf("different audio has the same content id")
			}
		})
	}
}

func TestEmbeddedCoverAndCoverFileBeside(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	png := filepath.Join(dir, "art.png")
	ffmpeg(t, "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=16x16", "-frames:v", "1", png)
	plain := filepath.Join(dir, "plain.mp3")
	ffmpegTone(t, plain, 440, 1, map[string]string{"title": "P"})
	withArt := filepath.Join(dir, "art.mp3")
	ffmpeg(t, "-v", "error", "-y", "-i", plain, "-i", png, "-map", "0", "-map", "1", "-c", "copy",
		"-id3v2_version", "3", "-metadata:s:v", "comment=Cover (front)", withArt)
	tp, err := AnalyzeFile(plain, dir)
	if err != nil {
		t.Fatal(err)
	}
	ta, err := AnalyzeFile(withArt, dir)
	if err != nil {
		t.Fatal(err)
	}
	if ta.Cover != CoverEmbedded || tp.Cover != "" {
		t.Errorf("covers: embedded %q, plain %q", ta.Cover, tp.Cover)
	}
	if ta.ContentID != tp.ContentID {
		t.Errorf("embedding art changed the content id")
	}
	if err := os.WriteFile(filepath.Join(dir, "Folder.JPG"), []byte("jpeg"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cover.png"), []byte("png"), 0o644); err != nil {
		t.Fatal(err)
	}
	tp, err = AnalyzeFile(plain, dir)
	if err != nil {
		t.Fatal(err)
	}
	if tp.Cover != filepath.Join(dir, "Folder.JPG") {
		t.Errorf("cover beside = %q, want the jpg (preferred over png)", tp.Cover)
	}
}

func TestMissingTagsFallBackToFileAndFolderNames(t *testing.T) {
	root := t.TempDir()
	cases := []struct {
		rel                  string
		title, album, artist string
		track, disc          int
	}{
		{"Artist X/Album Y/03 - Song Name.wav", "Song Name", "Album Y", "Artist X", 3, 0},
		{"Artist X/Album Y/CD 2/1-07 Other_Song.wav", "Other Song", "Album Y", "Artist X", 7, 1},
		{"Artist X/Album Z/CD2/05. Fifth.wav", "Fifth", "Album Z", "Artist X", 5, 2},
		{"Loose.wav", "Loose", "", "", 0, 0},
		{"Album Only/12 Twelve.wav", "Twelve", "Album Only", "", 12, 0},
	}
	for i, c := range cases {
		p := filepath.Join(root, c.rel)
		toneWAV(t, p, 300+float64(i)*10, wavfile.Tags{})
		tr, err := AnalyzeFile(p, root)
		if err != nil {
			t.Fatal(err)
		}
		artist := ""
		if len(tr.Artists) > 0 {
			artist = tr.Artists[0]
		}
		if tr.Title != c.title || tr.Album != c.album || artist != c.artist || tr.TrackNo != c.track || tr.DiscNo != c.disc {
			t.Errorf("%s: got title %q album %q artist %q track %d disc %d", c.rel, tr.Title, tr.Album, artist, tr.TrackNo, tr.DiscNo)
		}
	}
}

func TestSplitArtists(t *testing.T) {
	cases := map[string][]string{
		"A; B":                  {"A", "B"},
		"A feat. B":             {"A", "B"},
		"A ft. B & C":           {"A", "B & C"},
		"A (feat. B)":           {"A", "B"},
		"A featuring B":         {"A", "B"},
		"Simon & Garfunkel":     {"Simon & Garfunkel"},
		"AC/DC":                 {"AC/DC"},
		"Crosby, Stills & Nash": {"Crosby, Stills & Nash"},
		"A / B":                 {"A", "B"},
		"A\x00B":                {"A", "B"},
		"A; a; A":               {"A"},
		"  ":                    nil,
		"Defeated Sanity":       {"Defeated Sanity"},
		"Feature Film; Loft":    {"Feature Film", "Loft"},
	}
	for in, want := range cases {
		if got := splitArtists(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitArtists(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestContentDecidesNotTheName: a file whose content is another format
// than its name says is listed as what it holds; one that holds no audio
// is refused.
func TestContentDecidesNotTheName(t *testing.T) {
	dir := t.TempDir()
	toneWAV(t, filepath.Join(dir, "real.wav"), 440, wavfile.Tags{})
	wav, _ := os.ReadFile(filepath.Join(dir, "real.wav"))
	for _, name := range []string{"wav-as.flac", "wav-as.ogg", "wav-as.mp3", "wav-as.wv"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, wav, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := AnalyzeFile(p, dir)
		if err != nil || tr.Format != "wav" || tr.Duration <= 0 {
			t.Errorf("%s: %+v, %v; want it listed as the WAV it is", name, tr, err)
		}
	}
	files := map[string][]byte{
		"garbage.mp3":     []byte(strings.Repeat("not audio at all ", 200)),
		"garbage.wv":      []byte(strings.Repeat("not audio at all ", 200)),
		"empty.wav":       nil,
		"truncated.flac":  []byte("fLaC\x00\x00\x00\x22"),
		"id3-only.mp3":    []byte("ID3\x04\x00\x00\x00\x00\x00\x00"),
		"riff-no-fmt.wav": []byte("RIFF\x04\x00\x00\x00WAVE"),
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := AnalyzeFile(p, dir); err == nil {
			t.Errorf("%s: analyzed without error", name)
		}
	}
}
