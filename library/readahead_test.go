package library

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// readAhead reads what a plain reader reads, whatever the mix of seeks
// and read sizes (within its block, across blocks, past the end).
func TestReadAheadReadsLikeTheFile(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 1))
	data := make([]byte, 3*readAheadSize+123)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	want := bytes.NewReader(data)
	got := newReadAhead(bytes.NewReader(data), int64(len(data)))
	defer got.release()
	for i := range 5000 {
		if r.IntN(4) == 0 {
			off := int64(r.IntN(len(data) + 100))
			a, _ := want.Seek(off, io.SeekStart)
			b, err := got.Seek(off, io.SeekStart)
			if a != b || err != nil {
				t.Fatalf("seed %d step %d: seek %d: %d vs %d (%v)", seed, i, off, b, a, err)
			}
		}
		n := 1 + r.IntN(40)
		if r.IntN(10) == 0 {
			n = r.IntN(2 * readAheadSize)
		}
		pa, pb := make([]byte, n), make([]byte, n)
		na, ea := io.ReadFull(want, pa)
		nb, eb := io.ReadFull(got, pb)
		if na != nb || !bytes.Equal(pa[:na], pb[:nb]) || (ea == nil) != (eb == nil) {
			t.Fatalf("seed %d step %d: read %d: got %d bytes (%v), want %d (%v)", seed, i, n, nb, eb, na, ea)
		}
	}
}
