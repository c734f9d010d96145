package library

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dhowden/tag"
)

const (
	// maxTagLen bounds every text field taken from a tag or a name.
	maxTagLen = 512
	// maxArtists bounds the artists kept for one track.
	maxArtists = 16
)

// tagInfo is the metadata of a track as read from its tags.
type tagInfo struct {
	title, album, albumArtist, genre string
	artists                          []string
	track, disc, year                int
	picture                          bool
	gain                             ReplayGain
	smpb                             string // iTunSMPB: the priming, padding and length of iTunes AAC
}

// readTags reads tags with dhowden/tag. A panic inside the tag parser on a
// malformed file is turned into an error: a broken tag never stops a scan.
func readTags(r io.ReadSeeker) (t tagInfo, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("library: tag parser panic: %v", p)
		}
	}()
	m, err := readMetadata(r)
	if err != nil {
		return t, err
	}
	return fromMetadata(m), nil
}

// readID3Chunk reads an ID3v2 tag embedded in a WAV "id3 " chunk.
func readID3Chunk(r io.ReaderAt, off, n int64) (t tagInfo, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("library: tag parser panic: %v", p)
		}
	}()
	m, err := tag.ReadID3v2Tags(io.NewSectionReader(r, off, n))
	if err != nil {
		return t, err
	}
	return fromMetadata(m), nil
}

func fromMetadata(m tag.Metadata) tagInfo {
	t := tagInfo{
		title:       cleanTag(m.Title()),
		album:       cleanTag(m.Album()),
		albumArtist: cleanTag(m.AlbumArtist()),
		genre:       cleanTag(m.Genre()),
		artists:     splitArtists(m.Artist()),
		year:        m.Year(),
		picture:     m.Picture() != nil,
	}
	t.track, _ = m.Track()
	t.disc, _ = m.Disc()
	// dhowden/tag parses Vorbis TRACKNUMBER=3/10 as 0; read the digits.
	if t.track == 0 {
		t.track = rawNumber(m, "tracknumber", "track")
	}
	if t.disc == 0 {
		t.disc = rawNumber(m, "discnumber", "disc")
	}
	if t.year < 0 || t.year > 9999 {
		t.year = 0
	}
	t.track = clampNumber(t.track)
	t.disc = clampNumber(t.disc)
	t.gain = replayGainOf(m)
	for k, v := range m.Raw() {
		if s, ok := v.(string); ok && strings.EqualFold(k, "iTunSMPB") {
			t.smpb = strings.Trim(s, "\x00 ") // see replayGainOf
		}
	}
	return t
}

// ffmpegTags reads the tags FFmpeg found in a file (audio.Info.Tags):
// the keys of Vorbis comments, APEv2, ID3, ASF and Matroska as FFmpeg
// names them, in any case.
func ffmpegTags(raw map[string]string) tagInfo {
	m := make(map[string]string, len(raw))
	for k, v := range raw {
		m[strings.ToLower(k)] = strings.TrimSpace(v)
	}
	first := func(keys ...string) string {
		for _, k := range keys {
			if v := m[k]; v != "" {
				return v
			}
		}
		return ""
	}
	t := tagInfo{
		title:       cleanTag(first("title")),
		album:       cleanTag(first("album")),
		albumArtist: cleanTag(first("album_artist", "albumartist", "album artist")),
		genre:       cleanTag(first("genre")),
		artists:     splitArtists(first("artist", "author")),
		track:       clampNumber(leadingInt(first("track", "tracknumber"))),
		disc:        clampNumber(leadingInt(first("disc", "discnumber"))),
		year:        leadingInt(first("date", "year", "originaldate")),
		gain:        gainOf(m),
	}
	if t.year < 0 || t.year > 9999 {
		t.year = 0
	}
	return t
}

// readTagsAt reads the tags of a stream that starts at off (a FLAC file
// behind an ID3v2 tag), like readTags.
func readTagsAt(r io.ReaderAt, off, size int64) (tagInfo, error) {
	ra := newReadAhead(io.NewSectionReader(r, off, size-off), size-off)
	defer ra.release()
	return readTags(ra)
}

// merge fills what t lacks from o: tags of the same file written by
// another tagger (an ID3v2 tag in front of a FLAC file's own comments).
func (t *tagInfo) merge(o tagInfo) {
	for _, f := range []struct {
		dst *string
		src string
	}{
		{&t.title, o.title}, {&t.album, o.album}, {&t.albumArtist, o.albumArtist}, {&t.genre, o.genre},
	} {
		if *f.dst == "" {
			*f.dst = f.src
		}
	}
	if len(t.artists) == 0 {
		t.artists = o.artists
	}
	for _, f := range []struct {
		dst *int
		src int
	}{{&t.track, o.track}, {&t.disc, o.disc}, {&t.year, o.year}} {
		if *f.dst == 0 {
			*f.dst = f.src
		}
	}
	t.picture = t.picture || o.picture
	if !t.gain.HasTrack && !t.gain.HasAlbum {
		t.gain = o.gain
	}
}

// rawNumber returns the leading number of the first raw tag present among
// keys.
func rawNumber(m tag.Metadata, keys ...string) int {
	raw := m.Raw()
	for _, k := range keys {
		if v, ok := raw[k].(string); ok {
			return leadingInt(v)
		}
	}
	return 0
}

func clampNumber(n int) int {
	if n < 0 || n > 9999 {
		return 0
	}
	return n
}

// cleanTag makes a tag value displayable: valid UTF-8, no NULs or control
// characters at the ends, at most maxTagLen bytes.
func cleanTag(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.TrimFunc(s, func(r rune) bool { return r == 0 || r == ' ' || r == '\t' || r == '\r' || r == '\n' })
	if len(s) > maxTagLen {
		cut := maxTagLen
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// artistSep splits an artist tag into artists: "A; B", "A / B", multi-value
// NUL separators, and featuring credits ("A feat. B", "A (ft. B)",
// "A featuring B"). "&", "," and "/" without spaces are kept inside names
// ("Simon & Garfunkel", "AC/DC").
var artistSep = regexp.MustCompile(`(?i)\s*;\s*|\x00|\s+/\s+|\s*[(\[]?\s*\b(?:feat\.?|ft\.|featuring)\s+`)

// splitArtists splits an artist tag into distinct artists, in order.
func splitArtists(s string) []string {
	s = cleanTag(s)
	if s == "" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range artistSep.Split(s, maxArtists+1) {
		p = strings.TrimSpace(strings.TrimRight(p, ")] "))
		if p == "" || seen[Normalize(p)] {
			continue
		}
		seen[Normalize(p)] = true
		out = append(out, p)
		if len(out) == maxArtists {
			break
		}
	}
	return out
}

var (
	// "1-02 Title": disc 1, track 2.
	discTrackName = regexp.MustCompile(`^(\d{1,2})-(\d{1,3})[\s._-]+(.+)$`)
	// "01 - Title", "01. Title", "01_Title", "01 Title".
	trackName = regexp.MustCompile(`^(\d{1,3})(?:\s*[-._)]\s*|\s+)(.+)$`)
	// A folder holding one disc of an album: "CD 2", "Disc1", "disk 3".
	discFolder = regexp.MustCompile(`(?i)^(?:cd|disc|disk)\s*(\d{1,2})$`)
)

// fallback fills what the tags left empty from the file name ("01 - Title")
// and the folders between root and the file (root/Artist/Album/file, with an
// optional "CD 2" level). Folders at or above root never name anything.
func fallback(t *tagInfo, path, root string) {
	base := filepath.Base(path)
	name := cleanTag(strings.TrimSuffix(base, filepath.Ext(base)))
	num, disc := 0, 0
	title := name
	if m := discTrackName.FindStringSubmatch(name); m != nil {
		disc, _ = strconv.Atoi(m[1])
		num, _ = strconv.Atoi(m[2])
		title = m[3]
	} else if m := trackName.FindStringSubmatch(name); m != nil {
		num, _ = strconv.Atoi(m[1])
		title = m[2]
	}
	if !strings.Contains(title, " ") {
		title = strings.ReplaceAll(title, "_", " ")
	}
	title = strings.TrimSpace(title)
	if title == "" {
		title = name
	}
	if t.title == "" {
		t.title = title
	}
	if t.track == 0 {
		t.track = num
	}
	if t.disc == 0 {
		t.disc = disc
	}

	// Folders below root, nearest first.
	var folders []string
	dir := filepath.Dir(path)
	root = filepath.Clean(root)
	for i := 0; i < 3 && dir != root && len(dir) > len(root) && strings.HasPrefix(dir, root); i++ {
		folders = append(folders, cleanTag(filepath.Base(dir)))
		dir = filepath.Dir(dir)
	}
	if len(folders) > 0 {
		if m := discFolder.FindStringSubmatch(folders[0]); m != nil {
			if t.disc == 0 {
				t.disc, _ = strconv.Atoi(m[1])
			}
			folders = folders[1:]
		}
	}
	if t.album == "" && len(folders) > 0 {
		t.album = folders[0]
	}
	if len(t.artists) == 0 {
		switch {
		case t.albumArtist != "":
			t.artists = []string{t.albumArtist}
		case len(folders) > 1:
			t.artists = []string{folders[1]}
		}
	}
}
