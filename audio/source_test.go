package audio

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"
)

// gatedReader serves the first n bytes of b, then waits for more until
// Interrupt (a track fetched from another device whose holder went
// quiet), or fails with err after them when err is set.
type gatedReader struct {
	*bytes.Reader
	n    int64
	err  error
	stop chan struct{}
	once sync.Once
}

func (g *gatedReader) Read(p []byte) (int, error) {
	pos, _ := g.Reader.Seek(0, io.SeekCurrent)
	if pos >= g.n {
		if g.err != nil {
			return 0, g.err
		}
		<-g.stop
		return 0, errors.New("interrupted")
	}
	if rest := g.n - pos; int64(len(p)) > rest {
		p = p[:rest]
	}
	return g.Reader.Read(p)
}

func (g *gatedReader) Interrupt()   { g.once.Do(func() { close(g.stop) }) }
func (g *gatedReader) Close() error { return nil }

// A track whose source fails in the middle is a decode error, never a
// track that finished early (FFmpeg's demuxers take a failed read for the
// end of the file).
func TestSourceFailingMidTrackIsAnError(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 4, log.add)
	b := wavBytes(testRate, 2, 2*testRate, sine(440, 0.5, testRate))
	cut := errors.New("the device that had it went offline")
	src := Source{ID: "cut", Name: "cut.wav", Open: func() (io.ReadSeekCloser, error) {
		return &gatedReader{Reader: bytes.NewReader(b), n: int64(len(b) / 3), err: cut, stop: make(chan struct{})}, nil
	}}
	tr := m.play(src, 0)
	for i := 0; i < 200 && log.len() == 0; i++ {
		pull(m, 4410)
		waitFor(t, "decoding", func() bool { return decoded(m, m.cur) || log.len() > 0 })
	}
	if log.len() != 1 || log.errs[0].Track != tr || !errors.Is(log.errs[0].Err, cut) {
		t.Fatalf("errors %+v, want the source's error for the track", log.errs)
	}
	for _, ev := range m.observe(1 << 40).events {
		if f, ok := ev.(Finished); ok && f.Track == tr {
			t.Fatal("a track whose source failed finished")
		}
	}
}

// Dropping a track whose source waits for bytes interrupts the wait: the
// decoding goroutine ends at once instead of holding the reader.
func TestDroppedTrackInterruptsItsSource(t *testing.T) {
	var log errLog
	m := newMixer(testRate, 4, log.add)
	b := wavBytes(testRate, 2, testRate, sine(440, 0.5, testRate))
	g := &gatedReader{Reader: bytes.NewReader(b), n: 4096, stop: make(chan struct{})}
	src := Source{ID: "waits", Name: "waits.wav", Open: func() (io.ReadSeekCloser, error) { return g, nil }}
	m.play(src, 0)
	s := m.cur
	waitFor(t, "the source opened", func() bool { return s.interrupt.Load() != nil })
	m.stop()
	waitFor(t, "the decoding goroutine ended", func() bool {
		select {
		case <-s.done:
			return true
		default:
			return false
		}
	})
}
