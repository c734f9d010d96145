// Package strpack keeps strings that outlive the garbage they were made
// among in blocks of their own.
//
// A long read (100,000 tracks from the database) allocates millions of
// small strings and keeps a few of them: an album's name, an artist's, a
// track's title for the window. Go's heap does not move objects, and it
// gives a page back to the system only when nothing on it is live: the
// few kept strings, one every few dozen bytes among the read's garbage,
// keep nearly all of its pages. Copied end to end into blocks of
// BlockSize bytes, they keep only those blocks.
package strpack

import "strings"

// BlockSize is the size of the largest blocks strings are copied into:
// large enough to be pages of the Go heap of their own (freed whole),
// small enough that one string kept from an older read (a cache's key, a
// label's text) keeps little of it.
const BlockSize = 64 << 10

// firstBlock is the size of a Packer's first block; each next one is
// twice the last, up to BlockSize. A Packer that copies a few strings (a
// query for one track, which the status makes several times a second
// while playing) holds a block of that size, not of BlockSize, and one of
// its strings kept (the status's title) keeps no more.
const firstBlock = 512

// Packer copies strings and lists of strings end to end into blocks
// (firstBlock bytes, then twice that, up to BlockSize). Its zero value is
// ready to use; it is not safe for concurrent use.
type Packer struct {
	b         strings.Builder
	block     int // the size of the last block of b, 0 before the first
	names     []string
	listBlock int // the same for names, in strings
}

// nextBlock is the size of the block after one of last (0: none yet):
// first, then twice the last, up to most.
func nextBlock(last, first, most int) int {
	if last == 0 {
		return first
	}
	return min(2*last, most)
}

// Text returns a copy of s in the current block.
func (p *Packer) Text(s string) string {
	if s == "" {
		return ""
	}
	if p.b.Cap()-p.b.Len() < len(s) {
		p.block = nextBlock(p.block, firstBlock, BlockSize)
		p.b = strings.Builder{}
		p.b.Grow(max(p.block, len(s)))
	}
	start := p.b.Len()
	p.b.WriteString(s) // within the capacity: what was written stays in place
	return p.b.String()[start:]
}

// List returns a copy of ss (the slice, not its strings) in the current
// block of lists; nil for an empty ss. Appending to the copy copies it.
func (p *Packer) List(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	if cap(p.names)-len(p.names) < len(ss) {
		// A string is 16 bytes: blocks of the same sizes as Text's.
		p.listBlock = nextBlock(p.listBlock, firstBlock/16, BlockSize/16)
		p.names = make([]string, 0, max(p.listBlock, len(ss)))
	}
	start := len(p.names)
	p.names = append(p.names, ss...)
	return p.names[start:len(p.names):len(p.names)]
}

// Interner hands out one copy of each string it is given, packed (see
// Packer), up to a bound: a read of a huge catalog of all-different names
// does not grow a second copy of it (past the bound a string is returned
// as it is). Its zero value is ready to use; it is not safe for concurrent
// use.
type Interner struct {
	m map[string]string
	p Packer
}

// MaxInterned is how many strings an Interner keeps copies of.
const MaxInterned = 1 << 16

// Get returns the Interner's copy of s.
func (in *Interner) Get(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := in.m[s]; ok {
		return v
	}
	if len(in.m) >= MaxInterned {
		return s
	}
	if in.m == nil {
		in.m = map[string]string{}
	}
	v := in.p.Text(s)
	in.m[v] = v
	return v
}
