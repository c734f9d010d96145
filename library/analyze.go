package library

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/dhowden/tag"
	"lukechampine.com/blake3"

	"github.com/furudesk/furudesk/audio"
	"github.com/furudesk/furudesk/formats"
)

// ContentIDPrefix starts every content id: the hash function's name.
const ContentIDPrefix = "b3:"

// otherAudio names the audio files the library does not play, by
// extension, so that a scan counts and names them instead of passing them
// over in silence. What it plays is package formats' list.
var otherAudio = map[string]string{".aa": "Audible", ".aax": "Audible", ".ra": "RealAudio", ".rm": "RealAudio",
	".mid": "MIDI", ".midi": "MIDI", ".ofr": "OptimFROG", ".mod": "tracker module", ".xm": "tracker module",
	".it": "tracker module", ".s3m": "tracker module"}

// FormatOf returns the format (a container of package formats: "mp3",
// "flac", "m4a", "wv"…) a file name's extension promises, or "" for a
// file the library does not index. What a file holds decides: a WavPack
// file named .mp3 is indexed as "wv".
func FormatOf(name string) string {
	if c := formats.ByExt(filepath.Ext(name)); c != nil {
		return c.Name
	}
	return ""
}

// isAudioName reports a name the scan counts as an audio file: one it
// indexes, or one of otherAudio that it names as unsupported.
func isAudioName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return formats.ByExt(ext) != nil || otherAudio[ext] != ""
}

// file is what analysis needs from an open file; *os.File satisfies it.
type file interface {
	io.ReaderAt
	io.ReadSeeker
	io.Closer
	Stat() (fs.FileInfo, error)
}

// fileSystem is the file access of scanner and watcher, injectable so tests
// can simulate permission errors (tests run as root, which chmod does not
// stop) and files vanishing at chosen moments.
type fileSystem interface {
	Open(name string) (file, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	Lstat(name string) (fs.FileInfo, error)
	Stat(name string) (fs.FileInfo, error)
	EvalSymlinks(name string) (string, error)
}

type osFS struct{}

func (osFS) Open(name string) (file, error)             { return os.Open(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (osFS) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(name) }
func (osFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (osFS) EvalSymlinks(name string) (string, error)   { return filepath.EvalSymlinks(name) }

// copyBufs are reused read buffers for hashing (one per busy worker).
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// hashers are reused content id hashers (one per busy worker): a new one
// is a few kilobytes to allocate and clear for every file.
var hashers = sync.Pool{New: func() any { return blake3.New(32, nil) }}

// Analysis is the outcome of reading one file.
type analysis struct {
	track      Track
	brokenTags error // tags unreadable: names came from the file name
}

// AnalyzeFile reads one audio file: checks its content against its
// extension, reads its tags (falling back to file and folder names below
// root), computes duration and content id, and finds its cover (embedded,
// else cover.jpg/folder.jpg/cover.png/folder.png beside it). Errors wrap
// ErrNotAudio, ErrUnsupported, ErrNotRegular or an fs error.
func AnalyzeFile(path, root string) (Track, error) {
	a, err := analyzeFile(osFS{}, path, root, coverBeside(osFS{}, filepath.Dir(path)))
	return a.track, err
}

func analyzeFile(fsys fileSystem, path, root, dirCover string) (analysis, error) {
	var a analysis
	format := FormatOf(path)
	if format == "" {
		if name := otherAudio[strings.ToLower(filepath.Ext(path))]; name != "" {
			return a, fmt.Errorf("%w: %s files are not supported", ErrUnsupported, name)
		}
		return a, fmt.Errorf("%w: extension of %q", ErrUnsupported, filepath.Base(path))
	}
	f, err := fsys.Open(path)
	if err != nil {
		return a, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return a, err
	}
	if !info.Mode().IsRegular() {
		return a, ErrNotRegular
	}
	size := info.Size()
	ra := newReadAhead(f, size) // for the tag parsers' small reads
	defer ra.release()
	// What the file holds decides, not its name: samplers name AIFF
	// files .wav, taggers AAC files .mp3, downloaders WebM files .mp4.
	sniffed, err := audio.Sniff(ra, path)
	if err == nil {
		format = sniffed.Container()
	} else if !errors.Is(err, audio.ErrUnknownFormat) {
		return a, playableErr(err)
	}
	t := &a.track
	t.Path, t.Size, t.ModTime, t.Format = path, size, info.ModTime(), format

	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	h := hashers.Get().(*blake3.Hasher)
	defer hashers.Put(h)
	h.Reset()

	var tags tagInfo
	var tagErr error
	read := format // how: with the parsers of this package, or FFmpeg's (default)
	switch {
	case format == "wav":
		// RF64 and BW64 (WAV past 4 GB): FFmpeg reads their 64-bit sizes.
		var head [4]byte
		if _, err := f.ReadAt(head[:], 0); err != nil || string(head[:]) != "RIFF" {
			read = "ffmpeg"
		}
	case sniffed == audio.FormatOgg:
		read = "ffmpeg" // Speex: hashOgg knows Vorbis, Opus and FLAC
	}
	switch read {
	case "wav", "aiff":
		parse := parseWAV
		if format == "aiff" {
			parse = parseAIFF
		}
		w, err := parse(f, size)
		if err != nil {
			return a, err
		}
		pi, err := probe(ra, path)
		if err != nil {
			return a, err
		}
		if w.coded && pi.SourceFrames > 0 && pi.SourceRate > 0 {
			// ADPCM, MP3 in WAV: the header's byte rate is an average.
			w.duration = samplesDuration(pi.SourceFrames, int64(pi.SourceRate))
		}
		switch {
		case w.id3Len > 0:
			tags, tagErr = readID3Chunk(f, w.id3Start, w.id3Len)
		case w.hasTags:
			tags = w.tags
		}
		t.Duration = w.duration
		if err := hashRange(f, w.dataStart, w.dataEnd, h, buf); err != nil {
			return a, err
		}
	case "flac":
		id3End, start, end, dur, err := flacRegion(f, size)
		if err != nil {
			return a, err
		}
		if err := playable(ra, path); err != nil {
			return a, err
		}
		t.Duration = dur
		if id3End > 0 {
			// An MP3 tagger's ID3v2 tag in front: the FLAC's own
			// comments come first, the ID3 tag fills the gaps.
			tags, tagErr = readTagsAt(f, id3End, size)
			id3, id3Err := readTags(ra)
			tags.merge(id3)
			if tagErr != nil {
				tagErr = id3Err
			}
		} else {
			tags, tagErr = readTags(ra)
		}
		if err := hashRange(f, start, end, h, buf); err != nil {
			return a, err
		}
	case "mp3":
		start, end, err := mp3Region(f, size)
		if err != nil {
			return a, err
		}
		off, fh, err := firstFrame(f, start, end)
		if err != nil {
			return a, err
		}
		if err := playable(ra, path); err != nil {
			return a, err
		}
		tags, tagErr = readTags(ra)
		// An encoder header frame (Xing/Info/VBRI) is metadata that remuxing
		// tools rewrite; the identity starts after it.
		frame := make([]byte, min(int64(fh.length), end-off))
		if _, err := f.ReadAt(frame, off); err != nil {
			return a, err
		}
		if n, trim, ok := xingFrames(frame, fh); ok {
			off += int64(len(frame))
			if n > 0 {
				if samples := n*int64(fh.samples) - trim; samples > 0 {
					t.Duration = samplesDuration(samples, int64(fh.rate))
				}
			}
		}
		if t.Duration > 0 {
			err = hashRange(f, off, end, h, buf)
		} else {
			frames := &mp3Frames{}
			err = hashRange(f, off, end, io.MultiWriter(h, frames), buf)
			t.Duration = frames.duration()
		}
		if err != nil {
			return a, err
		}
	case "ogg", "opus":
		var head [4]byte
		if _, err := f.ReadAt(head[:], 0); err != nil || string(head[:]) != "OggS" {
			return a, fmt.Errorf("%w: no OggS capture pattern", ErrNotAudio)
		}
		if err := playable(ra, path); err != nil {
			return a, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return a, err
		}
		og, err := hashOgg(io.LimitReader(f, size), h, nil)
		if err != nil {
			return a, err
		}
		t.Duration = og.duration
		if og.codec == "flac" {
			tags, tagErr = oggFLACTags(og.headers)
		} else {
			tags, tagErr = readTags(ra)
		}
	case "m4a":
		m, err := parseMP4(f, size)
		if err != nil {
			return a, err
		}
		if m.protected {
			return a, fmt.Errorf("%w: %w", ErrUnsupported, ErrProtected)
		}
		if err := playable(ra, path); err != nil {
			return a, err
		}
		tags, tagErr = readTags(ra)
		t.Duration = m.duration
		if samples, ok := smpbLength(tags.smpb); ok && !m.audio.hasEdits && m.audio.scale > 0 {
			t.Duration = samplesDuration(samples, int64(m.audio.scale))
		}
		for _, r := range m.mdat {
			if err := hashRange(f, r[0], r[1], h, buf); err != nil {
				return a, err
			}
		}
	default:
		// The containers only FFmpeg reads (ADTS AAC, Matroska,
		// WavPack, WMA, DSD…): FFmpeg tells the length and the tags,
		// and the content id is the whole file's.
		pi, err := probe(ra, path)
		if err != nil {
			return a, err
		}
		if pi.SourceFrames > 0 && pi.SourceRate > 0 {
			t.Duration = samplesDuration(pi.SourceFrames, int64(pi.SourceRate))
		}
		tags = ffmpegTags(pi.Tags)
		if err := hashRange(f, 0, size, h, buf); err != nil {
			return a, err
		}
	}
	if tagErr != nil && !errors.Is(tagErr, tag.ErrNoTagsFound) {
		a.brokenTags = tagErr
	}
	fallback(&tags, path, root)
	t.ContentID = ContentIDPrefix + hex.EncodeToString(h.Sum(nil))
	t.Title, t.Artists, t.Album, t.AlbumArtist = tags.title, tags.artists, tags.album, tags.albumArtist
	t.TrackNo, t.DiscNo, t.Year, t.Genre = tags.track, tags.disc, tags.year, tags.genre
	t.Gain = tags.gain
	switch {
	case tags.picture:
		t.Cover = CoverEmbedded
	case dirCover != "":
		t.Cover = dirCover
	}
	return a, nil
}

// playable asks the decoder that plays the file whether it will: the
// library lists what plays and names the rest with the reason. It leaves
// f at the start. The scan passes its readAhead: the probe reads and
// seeks in the first block, which the tag parsers read next, instead of
// a system call each time (7-12 µs of a 50 µs probe and tag read of the
// bench collection's small files).
func playable(f io.ReadSeeker, path string) error {
	_, err := probe(f, path)
	return err
}

// probe is playable with what the decoder learnt.
func probe(f io.ReadSeeker, path string) (audio.Info, error) {
	info, err := audio.Probe(f, path)
	if _, serr := f.Seek(0, io.SeekStart); serr != nil && err == nil {
		err = serr
	}
	return info, playableErr(err)
}

// playableErr turns the decoder's answer into the library's errors.
func playableErr(err error) error {
	var nf *audio.NeedsFFmpegError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &nf):
		return fmt.Errorf("%w: %w", ErrUnsupported, nf)
	case errors.Is(err, audio.ErrProtected):
		return fmt.Errorf("%w: %w", ErrUnsupported, ErrProtected)
	case errors.Is(err, audio.ErrUnsupported):
		return fmt.Errorf("%w: %w", ErrUnsupported, err)
	case errors.Is(err, audio.ErrUnknownFormat), errors.Is(err, audio.ErrNoAudio):
		return fmt.Errorf("%w: %w", ErrNotAudio, err)
	case errors.Is(err, audio.ErrCorrupt), errors.Is(err, audio.ErrTooLarge):
		return fmt.Errorf("%w: %w: %w", ErrNotAudio, ErrDamaged, err)
	}
	return err
}

// smpbLength reads the length of the music from an iTunSMPB value
// (" 00000000 00000840 000001CA 00000000003F31F6 ..."): the fourth word.
func smpbLength(s string) (int64, bool) {
	f := strings.Fields(s)
	if len(f) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(f[3], 16, 64)
	if err != nil || n == 0 || n >= 1<<40 {
		return 0, false
	}
	return int64(n), true
}

// CoverEmbedded is Track.Cover for art inside the file's tags.
const CoverEmbedded = "embedded"

// hashRange writes bytes [start, end) of r to w.
func hashRange(r io.ReaderAt, start, end int64, w io.Writer, buf []byte) error {
	if end < start {
		return fmt.Errorf("%w: empty audio region", ErrNotAudio)
	}
	n, err := io.CopyBuffer(w, io.NewSectionReader(r, start, end-start), buf)
	if err != nil {
		return err
	}
	if n != end-start {
		return fmt.Errorf("library: file shrank while reading: %w", io.ErrUnexpectedEOF)
	}
	return nil
}

// coverNames are the cover image files looked for beside a track, in order
// of preference, compared without case.
var coverNames = []string{"cover.jpg", "cover.jpeg", "folder.jpg", "folder.jpeg", "cover.png", "folder.png"}

// isCoverName reports whether name is one of coverNames.
func isCoverName(name string) bool {
	name = strings.ToLower(name)
	for _, c := range coverNames {
		if name == c {
			return true
		}
	}
	return false
}

// coverIn picks the preferred cover file among a folder's entry names and
// returns its full path, or "".
func coverIn(dir string, names []string) string {
	best, bestRank := "", len(coverNames)
	for _, n := range names {
		l := strings.ToLower(n)
		for i, c := range coverNames {
			if l == c && i < bestRank {
				best, bestRank = n, i
			}
		}
	}
	if best == "" {
		return ""
	}
	return filepath.Join(dir, best)
}

// coverBeside lists dir to find its cover file.
func coverBeside(fsys fileSystem, dir string) string {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return ""
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0 {
			names = append(names, e.Name())
		}
	}
	return coverIn(dir, names)
}
