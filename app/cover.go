package app

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/furudesk/furudesk/library"
)

// MaxCoverBytes bounds a cover image read from disk.
const MaxCoverBytes = 16 << 20

// ErrNoCover is returned by Cover and AlbumCover when there is no cover
// art.
var ErrNoCover = errors.New("app: no cover art")

// Cover returns the cover image of a track: embedded in its tags or a file
// beside it, or, for a track only other devices have, fetched from one of
// them (small) and kept. A recording on several albums has one content id:
// prefer AlbumCover where the album is known.
func (a *App) Cover(contentID string) ([]byte, error) {
	b, err := localCover(a.store, contentID)
	if errors.Is(err, errNotLocal) {
		return a.remoteCover(contentID)
	}
	return b, err
}

var errNotLocal = errors.New("app: track not in this device's library")

// localCover is the cover of one of this device's tracks.
func localCover(s Store, contentID string) ([]byte, error) {
	t, err := s.TrackByContentID(contentID)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", errNotLocal, contentID)
	}
	return readCover(t)
}

// AlbumCover returns the cover image of an album (library.AlbumID): a
// picture file beside its tracks, else one in the tags of its first track
// that has one.
func (a *App) AlbumCover(albumID string) ([]byte, error) {
	artist, title, ok := library.ParseAlbumID(albumID)
	if !ok {
		return nil, userErr(ErrBadArgument, "%q is not an album id", albumID)
	}
	t, err := a.store.AlbumCoverTrack(artist, title)
	if err != nil {
		return nil, ErrNoCover
	}
	return readCover(t)
}

// readCover reads the cover t refers to.
func readCover(t library.Track) ([]byte, error) {
	switch t.Cover {
	case "":
		return nil, ErrNoCover
	case library.CoverEmbedded:
		b, err := library.EmbeddedCover(t.Path)
		if errors.Is(err, library.ErrNoCover) {
			return nil, ErrNoCover
		}
		return b, err
	default:
		f, err := os.Open(t.Cover)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, MaxCoverBytes+1))
		if err != nil {
			return nil, err
		}
		if len(b) > MaxCoverBytes {
			return nil, fmt.Errorf("app: cover %s is larger than %d bytes", t.Cover, MaxCoverBytes)
		}
		return b, nil
	}
}
