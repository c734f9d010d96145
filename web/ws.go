package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/coder/websocket"

	"github.com/furudesk/furudesk/web/gateway"
)

// Close codes of the page's WebSocket beyond the standard ones: the page
// shows a sentence for each and does not reconnect after revoked.
const (
	closeRevoked  websocket.StatusCode = 4001
	closeNoPaired websocket.StatusCode = 4003
)

// protocolVersion is the version of the WebSocket protocol the hello
// message names (protocol.md).
const protocolVersion = 1

// conn is one page's WebSocket.
type conn struct {
	s       *Server
	ws      *websocket.Conn
	browser string
	label   string // the browser's label, the output's name while this page is it
	page    string // set by output_open: this page may be the output
	ctx     context.Context
	cancel  context.CancelFunc

	wake    chan struct{} // a newer state is there (latest value)
	replies chan []byte
	once    sync.Once
	byeMsg  []byte // the last words, set once under s.mu
	byeCode websocket.StatusCode
}

type hello struct {
	T       string `json:"t"`
	V       int    `json:"v"`
	Browser string `json:"browser"`
	ID      string `json:"browser_id"`
	Hub     bool   `json:"hub,omitempty"` // this device plays in browsers (output_open)
}

type byeMsg struct {
	T       string `json:"t"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r, false) {
		s.cnt.badOrigin.Add(1)
		s.log.Debug("web: websocket from another origin refused", "origin", r.Header.Get("Origin"), "host", r.Host)
		http.Error(w, "This connection comes from another site.", http.StatusForbidden)
		return
	}
	b, err := s.browserOf(r)
	if err != nil {
		s.cnt.unauthorized.Add(1)
		http.Error(w, Message(err), http.StatusUnauthorized)
		return
	}
	s.mu.Lock()
	n, mine := len(s.conns), 0
	for c := range s.conns {
		if c.browser == b.ID {
			mine++
		}
	}
	s.mu.Unlock()
	if n >= MaxConns || mine >= MaxConnsPerBrowser {
		s.cnt.tooMany.Add(1)
		http.Error(w, "Too many pages are open: close some.", http.StatusServiceUnavailable)
		return
	}
	// The origin was checked above, by the same rule as the pairing.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	ws.SetReadLimit(MaxMessage)
	c := &conn{s: s, ws: ws, browser: b.ID, label: b.Label, wake: make(chan struct{}, 1), replies: make(chan []byte, 64)}
	c.ctx, c.cancel = context.WithCancel(s.ctx)
	s.mu.Lock()
	if s.ctx.Err() != nil {
		s.mu.Unlock()
		_ = ws.Close(websocket.StatusGoingAway, "furudesk is shutting down")
		return
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	// hello comes first, then the state.
	hb, _ := json.Marshal(hello{T: "hello", V: protocolVersion, Browser: b.Label, ID: b.ID, Hub: s.opts.Output != nil})
	wctx, wcancel := context.WithTimeout(c.ctx, WriteTimeout)
	err = ws.Write(wctx, websocket.MessageText, hb)
	wcancel()
	if err == nil {
		s.mu.Lock()
		c.notify()
		s.mu.Unlock()
		wrote := make(chan struct{})
		go func() { defer close(wrote); c.writeLoop() }()
		c.readLoop()
		c.close()
		<-wrote
	}
	c.close()
	_ = ws.CloseNow()
	s.mu.Lock()
	delete(s.conns, c)
	page := c.page
	s.mu.Unlock()
	if page != "" && s.opts.Output != nil {
		s.opts.Output.gone(gateway.Page{Browser: c.browser, Page: page}) // presence only: no report
	}
}

// notify says a newer state is there; called under s.mu.
func (c *conn) notify() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// bye ends the connection with a last message; called under s.mu.
func (c *conn) bye(reason, text string) {
	if c.byeMsg != nil {
		return
	}
	c.byeMsg, _ = json.Marshal(byeMsg{T: "bye", Reason: reason, Message: text})
	c.byeCode = closeRevoked
	c.notify()
}

func (c *conn) close() {
	c.once.Do(func() {
		c.cancel()
	})
}

// fail closes the connection for what the page sent.
func (c *conn) fail(code websocket.StatusCode, why string) {
	_ = c.ws.Close(code, why)
	c.close()
}

func (c *conn) readLoop() {
	lim := newBucket(MsgRate, MsgBurst, c.s.opts.Now())
	for {
		typ, data, err := c.ws.Read(c.ctx)
		if err != nil {
			// coder/websocket closes with 1009 and says so in the error.
			if strings.Contains(err.Error(), "read limited at") {
				c.s.cnt.tooBig.Add(1)
			}
			return
		}
		if !lim.allow(c.s.opts.Now()) {
			c.s.cnt.flood.Add(1)
			c.fail(websocket.StatusPolicyViolation, "too many messages")
			return
		}
		var req request
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if typ != websocket.MessageText || dec.Decode(&req) != nil || dec.More() || req.Op == "" {
			c.s.cnt.malformed.Add(1)
			c.fail(websocket.StatusUnsupportedData, "malformed message")
			return
		}
		// A browser revoked since it connected sends nothing more.
		if _, err := c.s.pairing.byID(c.browser); err != nil {
			return
		}
		var data2 any
		if strings.HasPrefix(req.Op, "output_") {
			data2, err = c.outputOp(req)
		} else {
			data2, err = run(c.s.opts.Backend, req)
		}
		rp := reply{T: "reply", ID: req.ID, OK: err == nil, Data: data2}
		if err != nil {
			rp.Error = errorText(err)
			rp.Data = nil
		}
		b, merr := json.Marshal(rp)
		if merr != nil {
			b, _ = json.Marshal(reply{T: "reply", ID: req.ID, Error: "The answer could not be encoded."})
		}
		select {
		case c.replies <- b:
		case <-c.ctx.Done():
			return
		default:
			// The page does not read its replies: a slow or stuck page.
			c.fail(websocket.StatusPolicyViolation, "replies not read")
			return
		}
	}
}

func (c *conn) writeLoop() {
	var sent uint64
	write := func(b []byte) bool {
		ctx, cancel := context.WithTimeout(c.ctx, WriteTimeout)
		defer cancel()
		return c.ws.Write(ctx, websocket.MessageText, b) == nil
	}
	for {
		select {
		case <-c.ctx.Done():
			_ = c.ws.CloseNow()
			return
		case b := <-c.replies:
			if !write(b) {
				c.close()
				_ = c.ws.CloseNow()
				return
			}
		case <-c.wake:
			c.s.mu.Lock()
			st, seq, bye := c.s.state, c.s.seq, c.byeMsg
			c.s.mu.Unlock()
			if bye != nil {
				_ = write(bye)
				_ = c.ws.Close(c.byeCode, "revoked")
				c.close()
				return
			}
			if seq != sent && st != nil {
				if !write(st) {
					c.close()
					_ = c.ws.CloseNow()
					return
				}
				sent = seq
			}
		}
	}
}
