package grouplib

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/furudesk/furudesk/engine"
)

// Errors a holder's answer or its connection give.
var (
	ErrNotHere = errors.New("grouplib: the device has no file for that track")
	ErrBusy    = errors.New("grouplib: the device is busy serving others")
	errStale   = errors.New("grouplib: the device holds that catalog at another version")
	ErrStalled = errors.New("grouplib: the device stopped sending")
)

// StallTimeout is how long a fetch waits for the next bytes from a holder
// before it counts as stalled and another holder is tried.
const StallTimeout = 8 * time.Second

// maxIdlePerPeer bounds the idle fetch connections kept for reuse.
const maxIdlePerPeer = 2

// client makes fetch requests, reusing connections.
type client struct {
	dial   func(ctx context.Context, peer engine.DeviceID) (net.Conn, error)
	stall  time.Duration
	bytes  *atomic.Uint64 // read from peers, bodies and lines
	mu     sync.Mutex
	idle   map[engine.DeviceID][]*clientConn
	active map[*clientConn]engine.DeviceID
}

type clientConn struct {
	net.Conn
	r *bufio.Reader
}

func newClient(dial func(context.Context, engine.DeviceID) (net.Conn, error), stall time.Duration, bytes *atomic.Uint64) *client {
	return &client{dial: dial, stall: stall, bytes: bytes, idle: map[engine.DeviceID][]*clientConn{}, active: map[*clientConn]engine.DeviceID{}}
}

// do sends req to peer and reads the answer: a status other than ok is
// returned as its error (ErrNotHere, ErrBusy, errStale); with ok, body
// is called with the answer and a reader of exactly its Len bytes, which
// it must read to the end (or fail). A read waits at most the stall
// timeout for bytes, and ctx ends the request.
func (c *client) do(ctx context.Context, peer engine.DeviceID, req request, body func(response, io.Reader) error) error {
	cc, err := c.conn(ctx, peer)
	if err != nil {
		return err
	}
	ok := false
	defer func() { c.put(peer, cc, ok) }()
	stop := context.AfterFunc(ctx, func() { _ = cc.SetDeadline(time.Now()) })
	defer stop()
	_ = cc.SetWriteDeadline(time.Now().Add(c.stall))
	if err := writeLine(cc, req); err != nil {
		return c.fail(ctx, err)
	}
	_ = cc.SetReadDeadline(time.Now().Add(c.stall))
	line, err := readLine(cc.r, maxResponseBytes)
	if err != nil {
		return c.fail(ctx, err)
	}
	var resp response
	if err := json.Unmarshal(line, &resp); err != nil || resp.Len < 0 {
		return fmt.Errorf("%w: answer %q", errProtocol, trim(string(line)))
	}
	switch resp.Status {
	case statusOK:
	case statusNotHere:
		ok = resp.Len == 0
		return ErrNotHere
	case statusBusy:
		ok = resp.Len == 0
		return ErrBusy
	case statusStale:
		ok = resp.Len == 0
		return errStale
	default:
		return fmt.Errorf("%w: answer %q (%s)", errProtocol, trim(resp.Status), trim(resp.Reason))
	}
	lr := &io.LimitedReader{R: &stallReader{cc: cc, stall: c.stall}, N: resp.Len}
	if err := body(resp, lr); err != nil {
		return c.fail(ctx, err)
	}
	if lr.N != 0 {
		return c.fail(ctx, fmt.Errorf("%w: body not read to its end", errProtocol))
	}
	ok = true
	return nil
}

// fail turns a deadline that ctx caused into ctx's error, and one that
// the stall timeout caused into ErrStalled.
func (c *client) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w: %v", ErrStalled, err)
	}
	return err
}

// stallReader reads the connection with a fresh stall deadline per read.
type stallReader struct {
	cc    *clientConn
	stall time.Duration
}

func (s *stallReader) Read(p []byte) (int, error) {
	_ = s.cc.SetReadDeadline(time.Now().Add(s.stall))
	return s.cc.r.Read(p)
}

func (c *client) conn(ctx context.Context, peer engine.DeviceID) (*clientConn, error) {
	c.mu.Lock()
	if cs := c.idle[peer]; len(cs) > 0 {
		cc := cs[len(cs)-1]
		c.idle[peer] = cs[:len(cs)-1]
		c.active[cc] = peer
		c.mu.Unlock()
		return cc, nil
	}
	c.mu.Unlock()
	raw, err := c.dial(ctx, peer)
	if err != nil {
		return nil, err
	}
	cc := &clientConn{Conn: raw}
	cc.r = bufio.NewReaderSize(countingReader{raw, c.bytes}, 64<<10)
	c.mu.Lock()
	c.active[cc] = peer
	c.mu.Unlock()
	return cc, nil
}

// put returns a connection after a request: kept for reuse when reusable.
func (c *client) put(peer engine.DeviceID, cc *clientConn, reusable bool) {
	c.mu.Lock()
	_, tracked := c.active[cc]
	delete(c.active, cc)
	if reusable && tracked && len(c.idle[peer]) < maxIdlePerPeer {
		_ = cc.SetDeadline(time.Time{})
		c.idle[peer] = append(c.idle[peer], cc)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	_ = cc.Close()
}

// drop closes every connection to peer, idle or in use: requests to it
// fail at once (the device went offline).
func (c *client) drop(peer engine.DeviceID) {
	c.mu.Lock()
	cs := c.idle[peer]
	delete(c.idle, peer)
	for cc, p := range c.active {
		if p == peer {
			cs = append(cs, cc)
			delete(c.active, cc)
		}
	}
	c.mu.Unlock()
	for _, cc := range cs {
		_ = cc.Close()
	}
}

// close closes every connection.
func (c *client) close() {
	c.mu.Lock()
	var cs []*clientConn
	for _, idle := range c.idle {
		cs = append(cs, idle...)
	}
	for cc := range c.active {
		cs = append(cs, cc)
	}
	clear(c.idle)
	clear(c.active)
	c.mu.Unlock()
	for _, cc := range cs {
		_ = cc.Close()
	}
}

type countingReader struct {
	r io.Reader
	n *atomic.Uint64
}

func (c countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(uint64(k))
	return k, err
}
