package library

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/furudesk/furudesk/internal/benchlib"
)

// countingIndex is a MemIndex that records the sizes of the batches Put
// gets, and can cancel a scan at its first batch.
type countingIndex struct {
	*MemIndex
	mu      sync.Mutex
	batches []int
	onPut   func()
}

func (x *countingIndex) Put(ts []Track) error {
	x.mu.Lock()
	x.batches = append(x.batches, len(ts))
	f := x.onPut
	x.mu.Unlock()
	if f != nil {
		f()
	}
	return x.MemIndex.Put(ts)
}

// A scan writes its tracks in batches (one transaction each in storage,
// the search index updated per batch), never one at a time; and a scan
// cancelled while it runs (furudesk shutting down) returns at once,
// keeping the batches it wrote.
func TestScanCommitsInBatchesAndStopsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 1,500 files")
	}
	c, err := benchlib.Generate(t.TempDir(), 1500)
	if err != nil {
		t.Fatal(err)
	}
	idx := &countingIndex{MemIndex: NewMemIndex()}
	res, err := Scan(context.Background(), idx, []string{c.Dir}, ScanOptions{})
	if err != nil || res.Added != 1500 {
		t.Fatalf("scan: %v, %+v", err, res)
	}
	total := 0
	for _, n := range idx.batches {
		if n > putBatch {
			t.Fatalf("a batch of %d tracks, want at most %d", n, putBatch)
		}
		total += n
	}
	if total != 1500 || len(idx.batches) > 1500/putBatch+1 {
		t.Fatalf("%d tracks in %d batches %v, want 1500 in %d", total, len(idx.batches), idx.batches, 1500/putBatch+1)
	}

	// "At once" is counted in files, not timed: once cancelled, the scan
	// opens no file but those its workers were already analyzing (a busy
	// machine makes it slower, never read more).
	ctx, cancel := context.WithCancel(context.Background())
	fsys := &openCounter{}
	again := &countingIndex{MemIndex: NewMemIndex(), onPut: func() { fsys.stopped.Store(true); cancel() }}
	const workers = 4
	res, err = Scan(ctx, again, []string{c.Dir}, ScanOptions{Workers: workers, fsys: fsys})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled at its first batch: %v, want context.Canceled", err)
	}
	if n := fsys.after.Load(); n > workers {
		t.Fatalf("the scan opened %d files after it was cancelled, want at most the %d its workers had begun", n, workers)
	}
	if again.Len() < putBatch || again.Len() == 1500 {
		t.Fatalf("a cancelled scan kept %d tracks, want the batches written before", again.Len())
	}
	_ = res
}

// slowKnownIndex is an index whose Known (reading 100,000 file states)
// lasts until its context is done.
type slowKnownIndex struct {
	*MemIndex
	reading chan struct{}
}

func (x *slowKnownIndex) Known(ctx context.Context) (map[string]FileState, error) {
	close(x.reading)
	<-ctx.Done()
	return nil, ctx.Err()
}

// A scan cancelled while it reads what the index knows (the first step of
// every scan, long with a large library) stops there: it returns the
// context's error and writes nothing.
func TestScanCancelledWhileReadingTheIndex(t *testing.T) {
	dir := t.TempDir()
	albumTree(t, dir, 1, 2)
	idx := &slowKnownIndex{MemIndex: NewMemIndex(), reading: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-idx.reading
		cancel()
	}()
	_, err := Scan(ctx, idx, []string{dir}, ScanOptions{})
	if !errors.Is(err, context.Canceled) || idx.Len() != 0 {
		t.Fatalf("cancelled while reading the index: %v, %d tracks written; want context.Canceled and none", err, idx.Len())
	}
}

// openCounter is the OS file system, counting the files opened once
// stopped is set.
type openCounter struct {
	osFS
	stopped atomic.Bool
	after   atomic.Int64
}

func (o *openCounter) Open(name string) (file, error) {
	if o.stopped.Load() {
		o.after.Add(1)
	}
	return o.osFS.Open(name)
}
