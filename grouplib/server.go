package grouplib

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"net"
	"os"
	"sync"
	"time"

	_ "image/gif" // covers in any format the tags carry
	_ "image/png"

	"github.com/furudesk/furudesk/engine"
)

// Upload limits: a device streaming from this one never takes more than
// UploadsPerPeer transfers at once, all devices together UploadsTotal, so
// this device's own playback and window keep their share of the disk,
// the CPU and the link. Over the limit a request is answered "busy" and
// the requester tries another holder or comes back.
const (
	DefaultUploadsPerPeer = 3
	DefaultUploadsTotal   = 6
)

// Server timeouts.
const (
	serveIdle    = 2 * time.Minute // between requests on one connection
	serveWrite   = 20 * time.Second
	serveRequest = 10 * time.Second // to send a started request line
	uploadPiece  = 64 << 10
)

// server answers fetch requests.
type server struct {
	l        *Library
	perPeer  int
	total    int
	mu       sync.Mutex
	uploads  map[engine.DeviceID]int
	inFlight int
	rate     *uploadRate
}

// ServeFetch serves the fetch connection of member peer until it closes
// or breaks the protocol. It is the devicesync.FetchHandler of the node:
// devicesync has checked that peer is a member.
func (l *Library) ServeFetch(peer engine.DeviceID, c net.Conn) {
	s := l.srv
	br := bufio.NewReaderSize(c, maxRequestBytes+64)
	for {
		_ = c.SetReadDeadline(time.Now().Add(serveIdle))
		if _, err := br.Peek(1); err != nil {
			return
		}
		_ = c.SetReadDeadline(time.Now().Add(serveRequest))
		line, err := readLine(br, maxRequestBytes)
		if err != nil {
			return
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil {
			_ = s.answer(c, response{Status: statusBad, Reason: "malformed request"})
			return
		}
		if err := req.validate(); err != nil {
			_ = s.answer(c, response{Status: statusBad, Reason: err.Error()})
			return
		}
		switch req.Op {
		case opGet:
			err = s.get(peer, c, req)
		case opCover:
			err = s.cover(c, req)
		case opCatalog:
			err = s.catalog(c, req)
		}
		if err != nil {
			l.log.Debug("grouplib: fetch connection ends", "peer", string(peer), "err", err)
			return
		}
	}
}

func (s *server) answer(c net.Conn, r response) error {
	_ = c.SetWriteDeadline(time.Now().Add(serveWrite))
	return writeLine(c, r)
}

// acquire takes an upload slot for peer; false when the limits are
// reached.
func (s *server) acquire(peer engine.DeviceID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.uploads[peer] >= s.perPeer || s.inFlight >= s.total {
		return false
	}
	s.uploads[peer]++
	s.inFlight++
	return true
}

func (s *server) release(peer engine.DeviceID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.uploads[peer]--; s.uploads[peer] <= 0 {
		delete(s.uploads, peer)
	}
	s.inFlight--
}

// get sends a range of a track's file.
func (s *server) get(peer engine.DeviceID, c net.Conn, req request) error {
	path, ok := s.l.cfg.Files.File(req.ID)
	if !ok {
		s.l.c.notHere.Add(1)
		return s.answer(c, response{Status: statusNotHere})
	}
	if !s.acquire(peer) {
		s.l.c.busy.Add(1)
		return s.answer(c, response{Status: statusBusy})
	}
	defer s.release(peer)
	f, err := os.Open(path)
	if err != nil {
		s.l.c.notHere.Add(1)
		return s.answer(c, response{Status: statusNotHere, Reason: "the file cannot be read"})
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return s.answer(c, response{Status: statusNotHere, Reason: "the file cannot be read"})
	}
	size := info.Size()
	if req.Off >= size {
		return s.answer(c, response{Status: statusBad, Reason: fmt.Sprintf("offset %d past the end (%d bytes)", req.Off, size)})
	}
	n := min(req.Len, size-req.Off)
	if err := s.answer(c, response{Status: statusOK, Size: size, Off: req.Off, Len: n}); err != nil {
		return err
	}
	buf := make([]byte, uploadPiece)
	for off, end := req.Off, req.Off+n; off < end; {
		k := int(min(int64(len(buf)), end-off))
		got, err := f.ReadAt(buf[:k], off)
		if got < k {
			// The file shrank under us: the range cannot be completed,
			// and the requester sees a short body.
			return fmt.Errorf("grouplib: reading %s: %v", path, err)
		}
		s.rate.wait(k)
		_ = c.SetWriteDeadline(time.Now().Add(serveWrite))
		if _, err := c.Write(buf[:k]); err != nil {
			return err
		}
		s.l.c.servedBytes.Add(uint64(k))
		off += int64(k)
	}
	s.l.c.served.Add(1)
	return nil
}

// cover sends a track's cover art, shrunk to at most coverSide pixels.
func (s *server) cover(c net.Conn, req request) error {
	if _, ok := s.l.cfg.Files.File(req.ID); !ok {
		return s.answer(c, response{Status: statusNotHere})
	}
	b, err := s.l.cfg.Files.Cover(req.ID)
	if err != nil || len(b) == 0 {
		return s.answer(c, response{Status: statusNotHere, Reason: "no cover art"})
	}
	b = smallCover(b)
	if len(b) > maxCoverBytes {
		return s.answer(c, response{Status: statusNotHere, Reason: "cover art too large"})
	}
	if err := s.answer(c, response{Status: statusOK, Len: int64(len(b))}); err != nil {
		return err
	}
	_, err = c.Write(b)
	return err
}

// catalog sends a device's catalog from a version, when this device holds
// it at the version asked for.
func (s *server) catalog(c net.Conn, req request) error {
	d, held, err := s.l.catalogDelta(req.Origin, req.Since, req.Want)
	if err != nil {
		return s.answer(c, response{Status: statusNotHere, Reason: err.Error()})
	}
	if !held {
		return s.answer(c, response{Status: statusStale})
	}
	body, err := encodeDelta(d)
	if err != nil {
		return s.answer(c, response{Status: statusNotHere, Reason: err.Error()})
	}
	if err := s.answer(c, response{Status: statusOK, Len: int64(len(body))}); err != nil {
		return err
	}
	_ = c.SetWriteDeadline(time.Now().Add(serveWrite + time.Duration(len(body)>>20)*time.Second))
	_, err = c.Write(body)
	return err
}

// coverSide is the largest width or height of a cover sent to another
// device: a list's thumbnail or the now-playing view, not a poster.
const coverSide = 512

// smallCover returns cover art of at most coverSide pixels a side: b
// itself when it is small enough (or not an image Go decodes, which the
// receiver then shows as it can), else shrunk by area averaging and
// encoded as JPEG.
func smallCover(b []byte) []byte {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width <= coverSide && cfg.Height <= coverSide && len(b) <= 256<<10 {
		return b
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return b
	}
	small := shrink(img, coverSide)
	var out bytes.Buffer
	if err := jpeg.Encode(&out, small, &jpeg.Options{Quality: 85}); err != nil {
		return b
	}
	return out.Bytes()
}

// shrink scales img down so neither side exceeds side, averaging the
// source pixels each target pixel covers.
func shrink(img image.Image, side int) image.Image {
	bnd := img.Bounds()
	w, h := bnd.Dx(), bnd.Dy()
	scale := max(float64(w), float64(h)) / float64(side)
	if scale <= 1 {
		return img
	}
	tw, th := max(1, int(float64(w)/scale)), max(1, int(float64(h)/scale))
	out := image.NewRGBA(image.Rect(0, 0, tw, th))
	for y := range th {
		y0, y1 := bnd.Min.Y+y*h/th, bnd.Min.Y+max((y+1)*h/th, y*h/th+1)
		for x := range tw {
			x0, x1 := bnd.Min.X+x*w/tw, bnd.Min.X+max((x+1)*w/tw, x*w/tw+1)
			var r, g, b, a, n uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					cr, cg, cb, ca := img.At(sx, sy).RGBA()
					r, g, b, a, n = r+uint64(cr), g+uint64(cg), b+uint64(cb), a+uint64(ca), n+1
				}
			}
			i := out.PixOffset(x, y)
			out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = uint8(r/n>>8), uint8(g/n>>8), uint8(b/n>>8), uint8(a/n>>8)
		}
	}
	return out
}

// uploadRate limits the bytes sent per second over all uploads; zero
// rate: no limit. Safe for concurrent use.
type uploadRate struct {
	mu     sync.Mutex
	rate   float64 // bytes per second, 0: unlimited
	tokens float64
	last   time.Time
}

func (u *uploadRate) set(bps int64) {
	u.mu.Lock()
	u.rate, u.tokens, u.last = float64(bps), 0, time.Now()
	u.mu.Unlock()
}

// wait returns once n more bytes may go.
func (u *uploadRate) wait(n int) {
	u.mu.Lock()
	if u.rate <= 0 {
		u.mu.Unlock()
		return
	}
	now := time.Now()
	u.tokens = min(u.tokens+now.Sub(u.last).Seconds()*u.rate, u.rate/4) // a quarter second of burst
	u.last = now
	u.tokens -= float64(n)
	debt := -u.tokens / u.rate
	u.mu.Unlock()
	if debt > 0 {
		time.Sleep(time.Duration(debt * float64(time.Second))) // pacing an upload, not waiting on an event
	}
}

// fetchCover asks peer for a track's cover art.
func (c *client) fetchCover(ctx context.Context, peer engine.DeviceID, id string) ([]byte, error) {
	var out []byte
	err := c.do(ctx, peer, request{Op: opCover, ID: id}, func(r response, body io.Reader) error {
		if r.Len > maxCoverBytes {
			return fmt.Errorf("%w: cover of %d bytes", errProtocol, r.Len)
		}
		var err error
		out, err = io.ReadAll(body)
		return err
	})
	if errors.Is(err, ErrNotHere) {
		return nil, ErrNoCover
	}
	return out, err
}

// ErrNoCover is returned for a track without cover art.
var ErrNoCover = errors.New("grouplib: no cover art")

// catalogDelta is what a holder of version since lacks of origin's
// catalog, when this device holds it at version want (held false
// otherwise). This device's own catalog is kept lean: its entries are
// read from the store, and each must be the one the catalog holds (its
// version and content hash), else a publish stored a newer version
// meanwhile and the asker is told to ask again (held false).
func (l *Library) catalogDelta(origin engine.DeviceID, since, want uint64) (d Delta, held bool, err error) {
	l.mu.RLock()
	cat := l.catalogs[origin] // replaced on a change, never changed
	l.mu.RUnlock()
	if cat == nil || cat.Version != want {
		return Delta{}, false, nil
	}
	d = cat.Since(since)
	if !cat.IsLean() || len(d.Items) == 0 {
		return d, true, nil
	}
	stored, err := l.cfg.Store.LoadItems(l.ctx, origin, d.Since)
	if err != nil {
		return Delta{}, false, fmt.Errorf("reading the catalog: %w", err)
	}
	byID := make(map[string]*Item, len(d.Items))
	for _, it := range d.Items {
		byID[it.ContentID] = it
	}
	items := make([]*Item, 0, len(d.Items))
	for _, st := range stored {
		want, ok := byID[st.ContentID]
		if !ok {
			continue
		}
		it := newItem(st.Entry, st.Ver)
		if it.Ver != want.Ver || it.content != want.content {
			return Delta{}, false, nil
		}
		items = append(items, it)
	}
	if len(items) != len(d.Items) {
		return Delta{}, false, nil
	}
	d.Items = items
	return d, true, nil
}
