package app

import (
	"context"
	"errors"

	"github.com/furudesk/furudesk/library"
	"github.com/furudesk/furudesk/storage"
)

// StoreIndex adapts *storage.Store to library.Index.
type StoreIndex struct{ S *storage.Store }

var _ library.Index = StoreIndex{}

// Known implements library.Index.
func (x StoreIndex) Known(ctx context.Context) (map[string]library.FileState, error) {
	return x.S.FileStates(ctx)
}

// Put implements library.Index.
func (x StoreIndex) Put(tracks []library.Track) error { return x.S.PutTracks(tracks) }

// Delete implements library.Index.
func (x StoreIndex) Delete(paths []string) error { return x.S.DeleteTracks(paths) }

// Move implements library.Index.
func (x StoreIndex) Move(oldPath, newPath string) error {
	if err := x.S.MoveTrack(oldPath, newPath); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	return nil
}

// Scanner is the Library that scans and watches folders for an Index.
type Scanner struct{ Index library.Index }

// Scan implements Library.
func (s Scanner) Scan(ctx context.Context, roots []string, progress func(library.Progress)) (library.ScanResult, error) {
	return library.Scan(ctx, s.Index, roots, library.ScanOptions{Progress: progress})
}

// Watch implements Library with library.Watch and its default options.
func (s Scanner) Watch(ctx context.Context, roots []string) (Watcher, error) {
	w, err := library.Watch(ctx, s.Index, roots, library.WatchOptions{})
	if err != nil {
		return nil, err
	}
	return w, nil
}
