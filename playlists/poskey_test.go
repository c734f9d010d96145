package playlists

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The published examples of rocicorp/fractional-indexing: the same scheme
// gives the same keys, so lists written by either sort alike.
func TestKeyBetweenKnownValues(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"", "", "a0"},
		{"", "a0", "Zz"},
		{"", "Zz", "Zy"},
		{"a0", "", "a1"},
		{"a1", "", "a2"},
		{"a0", "a1", "a0V"},
		{"a1", "a2", "a1V"},
		{"a0V", "a1", "a0l"},
		{"Zz", "a0", "ZzV"},
		{"Zz", "a1", "a0"},
		{"", "Y00", "Xzzz"},
		{"bzz", "", "c000"},
		{"a0", "a0V", "a0G"},
		{"a0", "a0G", "a08"},
		{"b125", "b129", "b127"},
		{"a0", "a1V", "a1"},
		{"Zz", "a01", "a0"},
		{"", "a0V", "a0"},
		{"", "b999", "b99"},
		{"", "A00000000000000000000000000V", "A00000000000000000000000000G"},
		{"zzzzzzzzzzzzzzzzzzzzzzzzzzy", "", "zzzzzzzzzzzzzzzzzzzzzzzzzzz"},
		{"zzzzzzzzzzzzzzzzzzzzzzzzzzz", "", "zzzzzzzzzzzzzzzzzzzzzzzzzzzV"},
	} {
		got, err := KeyBetween(c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("KeyBetween(%q, %q) = %q, %v; want %q", c.a, c.b, got, err, c.want)
		}
	}
}

func TestKeyBetweenRefusesBadInput(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"a1", "a0"}, {"a0", "a0"}, {"a00", ""}, {"", "a10"}, {"A00000000000000000000000000", ""},
		{"x", ""}, {"a", ""}, {"a0!", ""}, {"", "0a"},
	} {
		if k, err := KeyBetween(c.a, c.b); err == nil {
			t.Errorf("KeyBetween(%q, %q) = %q, want an error", c.a, c.b, k)
		}
	}
}

// Random insertions anywhere in a list keep every key valid, distinct and
// in order, and appends stay short.
func TestKeysStayOrdered(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		var keys []string
		for range 2000 {
			i := r.IntN(len(keys) + 1)
			var lo, hi string
			if i > 0 {
				lo = keys[i-1]
			}
			if i < len(keys) {
				hi = keys[i]
			}
			n := 1 + r.IntN(3)
			ks, err := KeysBetween(lo, hi, n)
			if err != nil {
				t.Fatalf("seed %d: KeysBetween(%q, %q, %d): %v", seed, lo, hi, n, err)
			}
			keys = slices.Insert(keys, i, ks...)
		}
		for i, k := range keys {
			if !ValidKey(k) {
				t.Fatalf("seed %d: invalid key %q", seed, k)
			}
			if i > 0 && keys[i-1] >= k {
				t.Fatalf("seed %d: keys out of order at %d: %q >= %q", seed, i, keys[i-1], k)
			}
		}
	}
	ks, err := KeysBetween("", "", 100_000)
	if err != nil {
		t.Fatal(err)
	}
	if last := ks[len(ks)-1]; len(last) > 4 {
		t.Errorf("100,000 appends end with key %q, want at most 4 characters", last)
	}
	mid, err := KeysBetween("a0", "a1", 100_000)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(mid); i++ {
		if mid[i-1] >= mid[i] {
			t.Fatalf("KeysBetween out of order at %d", i)
		}
	}
	longest := slices.MaxFunc(mid, func(a, b string) int { return len(a) - len(b) })
	if len(longest) > 8 {
		t.Errorf("100,000 keys between neighbours: longest %q, want at most 8 characters", longest)
	}
}
