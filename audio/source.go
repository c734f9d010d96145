package audio

import (
	"io"
	"os"
	"path/filepath"
)

// Source is a track to play: a file Path, or Open for anything seekable
// (Open wins when set). Name is used only in error messages and as the
// format fallback of Sniff; it defaults to Path. GainDB scales the track's
// samples (ReplayGain): 0 plays them as they are; the caller caps it by
// the track's peak so nothing clips.
type Source struct {
	ID     string
	Path   string
	Name   string
	Open   func() (io.ReadSeekCloser, error)
	GainDB float64
}

// FileSource returns a Source for the file at path, echoed as id in events.
func FileSource(id, path string) Source {
	return Source{ID: id, Path: path}
}

func (s Source) name() string {
	if s.Name != "" {
		return s.Name
	}
	return filepath.Base(s.Path)
}

func (s Source) open() (io.ReadSeekCloser, error) {
	if s.Open != nil {
		return s.Open()
	}
	if s.Path == "" {
		return nil, ErrNoSource
	}
	return os.Open(s.Path)
}
