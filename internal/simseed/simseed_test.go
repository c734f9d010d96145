package simseed

import (
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
)

type fakeT struct {
	mu   sync.Mutex
	errs []string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func flags(base uint64) *Flags {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	f := &Flags{seed: fs.Uint64("seed", 0, ""), seeds: fs.Int("seeds", 0, ""), base: fs.Uint64("seedbase", base, "")}
	return f
}

func TestLoopRunsEverySeedOnce(t *testing.T) {
	f := flags(10)
	seen := map[uint64]int{}
	var mu sync.Mutex
	sum := 0
	var ft fakeT
	n := Loop(&ft, f, 100, 3, func(seed uint64) (int, error) {
		mu.Lock()
		seen[seed]++
		mu.Unlock()
		return int(seed), nil
	}, func(r int) { sum += r }, func(uint64) string { return "" })
	if n != 100 || len(seen) != 100 || len(ft.errs) != 0 {
		t.Fatalf("ran %d, %d distinct seeds, errors %v", n, len(seen), ft.errs)
	}
	for s := uint64(10); s < 110; s++ {
		if seen[s] != 1 {
			t.Fatalf("seed %d ran %d times", s, seen[s])
		}
	}
	if sum != (10+109)*100/2 {
		t.Fatalf("sum of results %d", sum)
	}
}

func TestLoopStopsAfterMaxFailuresAndPrintsTheReplay(t *testing.T) {
	var ft fakeT
	n := Loop(&ft, flags(1), 1000, 1, func(seed uint64) (int, error) {
		return 0, fmt.Errorf("seed %d broke", seed)
	}, func(int) {}, func(seed uint64) string { return fmt.Sprintf("go test -seed=%d", seed) })
	if n != MaxFailures || len(ft.errs) != MaxFailures {
		t.Fatalf("ran %d seeds, %d errors; want %d", n, len(ft.errs), MaxFailures)
	}
	if !strings.Contains(ft.errs[0], "seed 1 broke\nreplay: go test -seed=1") {
		t.Fatalf("error %q", ft.errs[0])
	}
}

func TestCount(t *testing.T) {
	f := flags(1)
	if f.Count(300) != 300 {
		t.Fatal("default")
	}
	*f.seeds = 7
	if f.Count(300) != 7 || f.One() != 0 {
		t.Fatal("-seeds")
	}
}
