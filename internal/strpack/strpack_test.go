package strpack

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// addr is where s's bytes are.
func addr(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }

// TestPackedStringsShareBlocks: 10,000 names read one by one end up in
// as few blocks as their bytes fill, apart from what they were read with,
// and unchanged.
func TestPackedStringsShareBlocks(t *testing.T) {
	var p Packer
	var in, out []string
	total := 0
	for i := range 10000 {
		s := fmt.Sprintf("Album %d of the read", i)
		in = append(in, s)
		out = append(out, p.Text(s))
		total += len(s)
	}
	for i, s := range out {
		if s != in[i] {
			t.Fatalf("packed %q as %q", in[i], s)
		}
		if addr(s) == addr(in[i]) {
			t.Fatalf("%q was not copied", s)
		}
	}
	// Consecutive strings of one block are end to end.
	runs := 1
	for i := 1; i < len(out); i++ {
		if addr(out[i]) != addr(out[i-1])+uintptr(len(out[i-1])) {
			runs++
		}
	}
	// The blocks grow from firstBlock to BlockSize, doubling.
	small := 0
	for b := firstBlock; b < BlockSize; b *= 2 {
		small++
	}
	if want := small + total/BlockSize + 1; runs > want {
		t.Fatalf("%d bytes of strings in %d blocks, want at most %d", total, runs, want)
	}
	if p.Text("") != "" {
		t.Fatal("the empty string packed as something")
	}
	long := strings.Repeat("x", 2*BlockSize)
	if p.Text(long) != long {
		t.Fatal("a string longer than a block was not packed whole")
	}
}

// TestSmallReadsKeepSmallBlocks: a Packer that copied one track's names
// holds a block of firstBlock bytes (and of as many bytes in lists), not
// of BlockSize: the status asks storage for the playing track several
// times a second, and keeps its title.
func TestSmallReadsKeepSmallBlocks(t *testing.T) {
	var p Packer
	p.Text("Ágætis byrjun")
	p.Text("Sigur Rós")
	p.List([]string{"Sigur Rós", "Amiina"})
	if c := p.b.Cap(); c > firstBlock {
		t.Fatalf("two names hold a block of %d bytes, want at most %d", c, firstBlock)
	}
	if c := cap(p.names) * 16; c > firstBlock {
		t.Fatalf("a list of two names holds a block of %d bytes, want at most %d", c, firstBlock)
	}
	for range 4000 {
		p.Text("a name of twenty-six bytes")
	}
	if c := p.b.Cap(); c != BlockSize {
		t.Fatalf("after 104 KB of names the block is %d bytes, want %d", c, BlockSize)
	}
}

func TestPackedListsAreCopies(t *testing.T) {
	var p Packer
	src := []string{"a", "b"}
	l := p.List(src)
	src[0] = "changed"
	if l[0] != "a" || l[1] != "b" || len(l) != 2 || cap(l) != 2 {
		t.Fatalf("List = %q (cap %d), want [a b] (cap 2)", l, cap(l))
	}
	m := p.List([]string{"c"})
	grown := append(l, "grown")
	if m[0] != "c" || grown[2] != "grown" {
		t.Fatalf("appending to one list overwrote the next: %q", m)
	}
	if p.List(nil) != nil {
		t.Fatal("an empty list packed as something")
	}
}

// TestInternerOneCopyEach: the same name read many times is one packed
// copy; past MaxInterned names a new one comes back as it was given.
func TestInternerOneCopyEach(t *testing.T) {
	var in Interner
	a := in.Get(fmt.Sprint("Sigur ", "Rós"))
	b := in.Get(fmt.Sprint("Sigur ", "Rós"))
	if a != "Sigur Rós" || addr(a) != addr(b) {
		t.Fatalf("Get gave %q at %x and %q at %x, want one copy", a, addr(a), b, addr(b))
	}
	if in.Get("") != "" {
		t.Fatal("the empty string interned as something")
	}
	for i := range MaxInterned {
		in.Get(fmt.Sprint("name ", i))
	}
	over := strings.Clone("one name too many")
	if got := in.Get(over); got != over || addr(got) != addr(over) {
		t.Fatalf("past the bound Get copied %q", over)
	}
	if got := in.Get("Sigur Rós"); addr(got) != addr(a) {
		t.Fatal("a name interned before the bound lost its copy")
	}
}
