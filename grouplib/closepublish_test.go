package grouplib

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/furudesk/furudesk/library"
)

// endlessFiles is a library whose read of the tracks goes on until its
// context is done: a read of a huge catalog still under way at quit.
type endlessFiles struct {
	*testFiles
	once    sync.Once
	reading chan struct{}
}

func (f *endlessFiles) EachTrack(ctx context.Context, _ func(library.Track) error) error {
	f.once.Do(func() { close(f.reading) })
	<-ctx.Done()
	return ctx.Err()
}

// Closing the library while it publishes this device's catalog stops the
// publish (quitting does not wait for 100,000 tracks to be read and
// compared): Close ends the read through its context and nothing is
// stored; the next launch publishes again.
func TestCloseStopsAPublishUnderWay(t *testing.T) {
	n := newTestNet(t)
	p := &testPeer{n: n, id: "dev_000000000000000000000001", name: "A", dir: t.TempDir(), files: newTestFiles(), store: NewMemStore()}
	files := &endlessFiles{testFiles: p.files, reading: make(chan struct{})}
	l, err := New(Config{Self: p.id, Net: p, Log: n.log.as(p), Store: p.store, Files: files,
		Dir: filepath.Join(p.dir, "cache"), Logger: testLogger(), PublishDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	l.Start()
	<-files.reading
	if err := l.Close(); err != nil { // returns only once the publish stopped
		t.Fatal(err)
	}
	stored, err := p.store.LoadCatalogs("")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range stored {
		if c.Origin == p.id && c.Version > 0 {
			t.Fatalf("a publish stopped by Close stored the catalog: version %d", c.Version)
		}
	}
}
