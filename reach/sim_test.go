package reach

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

var simSeeds = flag.Int("reach.seeds", 300, "seeds of TestRestartTogether")

// TestRestartTogether simulates a group whose devices all restart within
// two seconds of each other on a network without multicast. Each comes
// back on its remembered port unless another program took it (then on a
// new one), dials what its Book remembers with a Backoff, and once
// connected learns what the peer knows (the profiles and books of the
// group). The rule under test: when at least one device got its port
// back, every device is in one group again within 5 s of the first start
// (the bound) and within twice the time since the first start of
// the last (backoff doubles: a device waits at most as long as it has
// tried), and every pair is directly connected within the spread plus
// DefaultMax. Seeded; a failure prints its seed.
func TestRestartTogether(t *testing.T) {
	for seed := range uint64(*simSeeds) {
		if err := simRestart(seed); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

type simDev struct {
	id    string
	addr  string // where it listens now
	up    time.Time
	book  *Book
	tries map[string]*Backoff
}

func simRestart(seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	n := 2 + rng.IntN(5)
	devs := make([]*simDev, n)
	for i := range devs {
		devs[i] = &simDev{id: fmt.Sprint("d", i), book: New(), tries: map[string]*Backoff{}}
	}
	// The previous run: everyone knew everyone's address.
	for i, d := range devs {
		d.book.SetPort(7000 + i)
		for j, o := range devs {
			if i != j {
				d.book.Good(o.id, fmt.Sprintf("10.0.0.%d:%d", j, 7000+j), t0.Add(-time.Hour))
			}
		}
	}
	kept := 0
	for i, d := range devs {
		addr, _ := d.book.ListenFirst(":0")
		port := addr[1:]
		if rng.IntN(4) == 0 { // the port was taken meanwhile
			port = fmt.Sprint(20000 + rng.IntN(1000))
		} else {
			kept++
		}
		d.addr = fmt.Sprintf("10.0.0.%d:%s", i, port)
		d.up = t0.Add(time.Duration(rng.IntN(2000)) * time.Millisecond)
	}
	conn := map[[2]int]time.Time{}
	linked := func(i, j int) bool { _, ok := conn[[2]int{min(i, j), max(i, j)}]; return ok }
	var lastUp time.Time
	for _, d := range devs {
		lastUp = later(lastUp, d.up)
	}
	// 10 ms steps for 30 simulated seconds.
	var grouped time.Time
	for now := t0; now.Before(t0.Add(30 * time.Second)); now = now.Add(10 * time.Millisecond) {
		for i, d := range devs {
			if now.Before(d.up) {
				continue
			}
			for j, o := range devs {
				if i == j || linked(i, j) {
					continue
				}
				for _, a := range d.book.Addrs(o.id) {
					bo := d.tries[a]
					if bo == nil {
						bo = &Backoff{}
						d.tries[a] = bo
					}
					if !bo.Due(now) {
						continue
					}
					if a == o.addr && !now.Before(o.up) {
						bo.Succeeded(now)
						conn[[2]int{min(i, j), max(i, j)}] = now
						// Each side learns the other's current address and
						// what the other knows (profiles travel in the log).
						d.book.Good(o.id, o.addr, now)
						o.book.Good(d.id, d.addr, now)
						for _, x := range devs {
							if x != d && x != o {
								for _, b := range [][2]*Book{{d.book, o.book}, {o.book, d.book}} {
									if as := b[1].Addrs(x.id); len(as) > 0 {
										b[0].Good(x.id, as[0], now)
									}
								}
							}
						}
						break
					}
					bo.Failed(now)
				}
			}
		}
		if grouped.IsZero() && connected(n, linked) {
			grouped = now
		}
	}
	if kept == 0 {
		return nil // nobody can be found at a remembered address: mDNS or --peer needed
	}
	limit := t0.Add(min(5*time.Second, 2*lastUp.Sub(t0)+DefaultMin+20*time.Millisecond))
	if grouped.IsZero() || grouped.After(limit) {
		return fmt.Errorf("%d devices (%d kept their port), last up at %v: one group at %v, want by %v",
			n, kept, lastUp.Sub(t0), grouped.Sub(t0), limit.Sub(t0))
	}
	for i := range devs {
		for j := i + 1; j < n; j++ {
			at, ok := conn[[2]int{i, j}]
			if !ok || at.After(lastUp.Add(DefaultMax+time.Second)) {
				return fmt.Errorf("%d devices: %s and %s connected %v (ok %v), want by %v", n, devs[i].id, devs[j].id, at.Sub(t0), ok, lastUp.Add(DefaultMax+time.Second).Sub(t0))
			}
		}
	}
	return nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func connected(n int, linked func(i, j int) bool) bool {
	seen := map[int]bool{0: true}
	stack := []int{0}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for j := range n {
			if !seen[j] && linked(i, j) {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
	return len(seen) == n
}
