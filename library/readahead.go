package library

import (
	"errors"
	"io"
	"sync"
)

// readAheadSize is the block readAhead reads: the tags of most files fit
// in one.
const readAheadSize = 16 << 10

var readAheadBufs = sync.Pool{New: func() any { b := make([]byte, readAheadSize); return &b }}

// readAhead is an io.ReadSeeker over the first size bytes of r that reads
// r in blocks: the tag parsers read a few bytes at a time, and each read
// of a file is a system call of its own (a cold scan spent a tenth of its
// time in them). Release gives its buffer back.
type readAhead struct {
	r        io.ReaderAt
	size     int64
	pos, off int64 // read position; file offset of buf[0]
	n        int   // valid bytes in buf
	bp       *[]byte
}

func newReadAhead(r io.ReaderAt, size int64) *readAhead {
	return &readAhead{r: r, size: size, bp: readAheadBufs.Get().(*[]byte)}
}

func (b *readAhead) release() {
	if b.bp != nil {
		readAheadBufs.Put(b.bp)
		b.bp = nil
	}
}

func (b *readAhead) Read(p []byte) (int, error) {
	if b.pos >= b.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	buf := *b.bp
	if b.pos < b.off || b.pos >= b.off+int64(b.n) {
		want := min(int64(len(buf)), b.size-b.pos)
		if int64(len(p)) >= want {
			// A large read goes straight to the file.
			n, err := b.r.ReadAt(p[:min(int64(len(p)), b.size-b.pos)], b.pos)
			b.pos += int64(n)
			if errors.Is(err, io.EOF) && n > 0 {
				err = nil
			}
			return n, err
		}
		n, err := b.r.ReadAt(buf[:want], b.pos)
		if n == 0 {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		b.off, b.n = b.pos, n
	}
	k := copy(p, buf[b.pos-b.off:b.n])
	b.pos += int64(k)
	return k, nil
}

func (b *readAhead) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += b.pos
	case io.SeekEnd:
		offset += b.size
	default:
		return 0, errors.New("library: bad whence")
	}
	if offset < 0 {
		return 0, errors.New("library: negative position")
	}
	b.pos = offset
	return offset, nil
}
