package app

import (
	"context"
	"io"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dhowden/tag"
	"lukechampine.com/blake3"

	"github.com/furudesk/furudesk/internal/benchlib"
	"github.com/furudesk/furudesk/internal/cputime"
	"github.com/furudesk/furudesk/storage"
)

// The large-collection benchmarks scan a generated collection (package
// benchlib: tagged MP3, FLAC and WAV files, covers on half the albums) of
// FURUDESK_BENCH_TRACKS tracks (100,000 unless set), generated once per
// test binary into a temporary folder (or FURUDESK_BENCH_LIB, kept).
var (
	bigOnce sync.Once
	bigColl *benchlib.Collection
	bigErr  error
)

func bigCollection(b *testing.B) *benchlib.Collection {
	b.Helper()
	bigOnce.Do(func() {
		n := 100_000
		if v, err := strconv.Atoi(os.Getenv("FURUDESK_BENCH_TRACKS")); err == nil && v > 0 {
			n = v
		}
		dir := os.Getenv("FURUDESK_BENCH_LIB")
		if dir == "" {
			if dir, bigErr = os.MkdirTemp("", "furudesk-bench-lib-"); bigErr != nil {
				return
			}
			defer func() { benchCleanup = append(benchCleanup, dir) }()
		}
		if os.Getenv("FURUDESK_BENCH_REUSE") != "" {
			bigColl, bigErr = benchlib.Open(dir)
			return
		}
		bigColl, bigErr = benchlib.Generate(dir, n)
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigColl
}

var benchCleanup []string

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range benchCleanup {
		_ = os.RemoveAll(d)
	}
	os.Exit(code)
}

// BenchmarkScanLarge scans the large collection into an empty database
// as furudesk does (parallel analysis with FFmpeg's probe, batched
// writes, search index), then again with nothing changed, and compares
// the cold scan with a plain single-goroutine loop that reads each file's
// tags and hashes it: files/s of both, their ratio (goal of issue 20:
// at least 0.6), the CPU time of the scan, and the rescan's time.
func BenchmarkScanLarge(b *testing.B) {
	c := bigCollection(b)
	for range b.N {
		// The plain loop first: it warms the page cache for both.
		t0 := time.Now()
		buf := make([]byte, 64<<10)
		for _, p := range c.Paths {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = tag.ReadFrom(f) // WAV's INFO tags are not read: the loop only gets cheaper
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				b.Fatal(err)
			}
			h := blake3.New(32, nil)
			if _, err := io.CopyBuffer(h, f, buf); err != nil {
				b.Fatal(err)
			}
			_ = h.Sum(nil)
			_ = f.Close()
		}
		plain := float64(len(c.Paths)) / time.Since(t0).Seconds()

		st, err := storage.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		lib := Scanner{Index: StoreIndex{S: st}}
		c0, _ := cputime.Process()
		t1 := time.Now()
		res, err := lib.Scan(context.Background(), []string{c.Dir}, nil)
		cold := time.Since(t1)
		c1, _ := cputime.Process()
		if err != nil || res.Added != c.Tracks {
			b.Fatalf("cold scan: %v, %+v", err, res)
		}
		t2 := time.Now()
		res, err = lib.Scan(context.Background(), []string{c.Dir}, nil)
		warm := time.Since(t2)
		if err != nil || res.Unchanged != c.Tracks {
			b.Fatalf("rescan: %v, %+v", err, res)
		}
		_ = st.Close()
		scan := float64(c.Tracks) / cold.Seconds()
		b.ReportMetric(float64(c.Tracks), "tracks")
		b.ReportMetric(plain, "plain-files/s")
		b.ReportMetric(scan, "scan-files/s")
		b.ReportMetric(scan/plain, "ratio")
		b.ReportMetric((c1 - c0).Seconds(), "scan-cpu-s")
		b.ReportMetric(warm.Seconds(), "rescan-s")
	}
}
